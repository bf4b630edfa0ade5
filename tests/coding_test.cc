#include "coding.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "page_record.h"
#include "testutil.h"

namespace crawlrank {
namespace {

TEST(CodingTest, VarintBoundariesRoundTrip) {
  const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, (1ull << 31) - 1, 1ull << 31,
                             (1ull << 32) - 1, 1ull << 32, (1ull << 63), ~0ull};
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
  auto size = [](uint64_t v) { std::string s; coding::PutVarint64(s, v); return s.size(); };
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
              StatusCode::kDataLoss) << n;
  }
  EXPECT_EQ(DecodePageRecord(1, value + "x", &back).code(), StatusCode::kDataLoss);
}

TEST(PageRecordTest, LinkListsRoundTripAndAreCompact) {
  const uint32_t seed = 20261123;
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int trial = 0; trial < 200; ++trial) {
    const uint32_t source = rng() % 1000000;
    std::set<uint32_t> set;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      set.insert(trial % 2 ? rng() : source + rng() % 300);  // far and near targets
    }
    std::vector<uint32_t> targets(set.begin(), set.end());
    std::string value;
    EncodeLinks(source, targets, &value);
    std::vector<uint32_t> back;
    ASSERT_OK(DecodeLinks(source, value, &back));
    EXPECT_EQ(back, targets);
  }
  // A run of neighbours costs one byte each: gap - 1 = 0.
  std::vector<uint32_t> run = {10, 11, 12, 13, 14};
  std::string value;
  EncodeLinks(10, run, &value);
  EXPECT_EQ(value.size(), 5u);
  // Extreme ids survive (64-bit-safe arithmetic).
  std::vector<uint32_t> extremes = {0, UINT32_MAX};
  value.clear();
  EncodeLinks(UINT32_MAX, extremes, &value);
  std::vector<uint32_t> back;
  ASSERT_OK(DecodeLinks(UINT32_MAX, value, &back));
  EXPECT_EQ(back, extremes);
}

TEST(PageRecordTest, DamagedLinkListsAreDataLoss) {
  std::vector<uint32_t> out;
  EXPECT_EQ(DecodeLinks(5, std::string_view("\x80", 1), &out).code(), StatusCode::kDataLoss);
  // First target below id 0: zig-zag 11 = -6 from source 5.
  EXPECT_EQ(DecodeLinks(5, std::string_view("\x0b", 1), &out).code(), StatusCode::kDataLoss);
  // Gaps that run past 2^32 - 1.
  std::string value;
  EncodeLinks(0, std::vector<uint32_t>{UINT32_MAX - 1}, &value);
  coding::PutVarint32(value, 5);
  EXPECT_EQ(DecodeLinks(0, value, &out).code(), StatusCode::kDataLoss);
}

TEST(PageRecordTest, LinkBlocksRoundTripAndLocateTheirEntries) {
  // Block 3 covers sources 96..127; entries for slots 1, 5 and 31, written in slot order.
  const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> lists = {
      {97, {0, 96, 97, 5000}}, {101, {101}}, {127, {1, 2, 3, 4, 1000000}}};
  std::string value;
  for (const auto& [source, targets] : lists) AppendLinkBlockEntry(source, targets, &value);

  EdgeChunk chunk;
  chunk.sources = {7};  // appends after what the chunk holds
  chunk.ends = {2};
  chunk.targets = {8, 9};
  ASSERT_OK(AppendLinkBlock(3, value, &chunk));
  ASSERT_EQ(chunk.size(), 4u);
  for (size_t i = 0; i < lists.size(); ++i) {
    EXPECT_EQ(chunk.sources[i + 1], lists[i].first);
    const auto got = chunk.TargetsOf(i + 1);
    EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.end()), lists[i].second);
  }
  std::vector<uint32_t> targets;

  LinkBlockLayout layout;
  ASSERT_OK(ParseLinkBlock(3, value, &layout));
  std::string rebuilt;
  for (uint32_t slot = 0; slot < kLinkBlockSources; ++slot) rebuilt.append(layout.entries[slot]);
  EXPECT_EQ(rebuilt, value) << "the entries tile the value";
  EXPECT_EQ(CountLinks(layout.lists[1]), 4u);
  EXPECT_EQ(CountLinks(layout.lists[5]), 1u);
  EXPECT_EQ(CountLinks(layout.lists[31]), 5u);
  EXPECT_TRUE(layout.entries[0].empty());
  ASSERT_OK(FindInLinkBlock(127, value, &targets));
  EXPECT_EQ(targets, lists[2].second);
  ASSERT_OK(FindInLinkBlock(100, value, &targets));
  EXPECT_TRUE(targets.empty());

  // Entries out of order, a slot past the block, a length past the end: all damaged.
  std::string swapped;
  AppendLinkBlockEntry(101, lists[1].second, &swapped);
  AppendLinkBlockEntry(97, lists[0].second, &swapped);
  for (const std::string& bad :
       {swapped, std::string("\x20\x01\x00", 3), std::string("\x01\x09\x00", 3), std::string()}) {
    chunk.Clear();
    EXPECT_EQ(AppendLinkBlock(3, bad, &chunk).code(), StatusCode::kDataLoss);
    EXPECT_TRUE(chunk.targets.empty());
    EXPECT_EQ(ParseLinkBlock(3, bad, &layout).code(), StatusCode::kDataLoss);
  }
}

}  // namespace
}  // namespace crawlrank
