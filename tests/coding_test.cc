#include "base/coding.h"

#include <gtest/gtest.h>

#include "crawlrank/url.h"
#include "page_db/page_record.h"
#include "testutil.h"

namespace crawlrank {
namespace {

TEST(CodingTest, VarintBoundariesRoundTrip) {
  const uint64_t values[] = {0,
                             1,
                             127,
                             128,
                             16383,
                             16384,
                             (1ull << 31) - 1,
                             1ull << 31,
                             (1ull << 32) - 1,
                             1ull << 32,
                             (1ull << 63),
                             ~0ull};
  for (uint64_t v : values) {
    std::string s;
    coding::PutVarint64(s, v);
    std::string_view in = s;
    uint64_t out = 0;
    ASSERT_TRUE(coding::GetVarint64(in, &out)) << v;
    EXPECT_EQ(out, v);
    EXPECT_TRUE(in.empty());
  }
}

TEST(CodingTest, VarintSizesMatchHandCount) {
  // 7 payload bits a byte: 127 fits 1 byte, 128 needs 2, 2^63 needs 10.
  auto size = [](uint64_t v) {
    std::string s;
    coding::PutVarint64(s, v);
    return s.size();
  };
  EXPECT_EQ(size(127), 1u);
  EXPECT_EQ(size(128), 2u);
  EXPECT_EQ(size(1ull << 31), 5u);  // Aduana decoded through int: broke exactly here
  EXPECT_EQ(size(1ull << 63), 10u);
}

TEST(CodingTest, DamagedVarintsAreRejected) {
  std::string_view truncated("\x80\x80", 2);
  uint64_t v;
  EXPECT_FALSE(coding::GetVarint64(truncated, &v));
  std::string_view overlong("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10);  // > 64 bits
  EXPECT_FALSE(coding::GetVarint64(overlong, &v));
  std::string big;
  coding::PutVarint64(big, 1ull << 32);
  std::string_view in = big;
  uint32_t v32;
  EXPECT_FALSE(coding::GetVarint32(in, &v32));
  EXPECT_EQ(in.size(), big.size()) << "a failed decode must not consume input";
}

TEST(CodingTest, FixedIsLittleEndianAndKeysAreBigEndian) {
  std::string s;
  coding::PutFixed32(s, 0x01020304);
  EXPECT_EQ(s, std::string("\x04\x03\x02\x01", 4));
  char key[4];
  coding::EncodeBigEndian32(0x01020304, key);
  EXPECT_EQ(std::string(key, 4), std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(coding::DecodeBigEndian32(key), 0x01020304u);
}

TEST(PageRecordTest, RoundTripsEveryField) {
  PageRecord r;
  r.id = 4000000000u;
  r.url = "http://example.com/a?b=c";
  r.fingerprint = UrlFingerprint(r.url);
  r.depth = 7;
  r.discovered_from = 0xfedcba9876543210ull;
  r.first_crawl_ms = 1700000000123;
  r.last_crawl_ms = 1700000999999;
  r.n_crawls = 3;
  r.n_changes = 2;
  r.content_score = 0.125f;
  r.link_score = 0.75f;
  r.content_hash = 42;
  r.http_status = 404;
  r.n_errors = 1;
  std::string value;
  EncodePageRecord(r, &value);
  PageRecord back;
  ASSERT_OK(DecodePageRecord(r.id, value, &back));
  EXPECT_EQ(back, r);
  // Every strict prefix is damaged, and so is a trailing byte.
  for (size_t n = 0; n < value.size(); ++n) {
    EXPECT_EQ(DecodePageRecord(1, std::string_view(value).substr(0, n), &back).code(),
              StatusCode::kDataLoss)
        << n;
  }
  EXPECT_EQ(DecodePageRecord(1, value + "x", &back).code(), StatusCode::kDataLoss);
}

TEST(PageRecordTest, DamageIsNamedByItsFirstBadField) {
  PageRecord r;
  r.url = "http://example.com/";
  r.n_crawls = 1;
  r.first_crawl_ms = r.last_crawl_ms = -5;  // what crawlrank stored before the validator
  std::string value;
  EncodePageRecord(r, &value);
  PageRecord back;
  const auto why = [&](std::string_view v) { return DecodePageRecord(9, v, &back).message(); };
  EXPECT_EQ(why(value), "page record of id 9: damaged (first_crawl_ms is -5, a negative time)");
  r.first_crawl_ms = 0;
  value.clear();
  EncodePageRecord(r, &value);
  EXPECT_EQ(why(value), "page record of id 9: damaged (last_crawl_ms is -5, a negative time)");
  EXPECT_EQ(why(value.substr(0, 3)), "page record of id 9: damaged (discovered_from truncated)");
  r.last_crawl_ms = 0;
  value.clear();
  EncodePageRecord(r, &value);
  EXPECT_EQ(why(value + "xy"), "page record of id 9: damaged (2 byte(s) after the url)");
  EXPECT_EQ(why(value.substr(0, value.size() - 1)),
            "page record of id 9: damaged (url truncated: 18 of 19 bytes)");
}

}  // namespace
}  // namespace crawlrank
