// The latest fetches (format version 10, src/page_db/recent_fetches.h) and the fetch time
// and size histograms of the crawl's counters: the encoding, the ring the writer keeps
// against the fetches made here, failures from the scheduler, and the upgrade of a
// version 9 DB.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "crawlrank/clock.h"
#include "crawlrank/crawl_counters.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "page_db/recent_fetches.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

CrawledPage Answered(std::string url, int64_t time_ms, uint16_t status, uint32_t ms,
                     uint64_t bytes) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = time_ms;
  page.http_status = status;
  page.fetch = {.content_type = "text/html",
                .wire_bytes = bytes,
                .decoded_bytes = bytes * 2,
                .fetch_ms = ms,
                .title = ""};
  return page;
}

TEST(RecentFetchesTest, EntriesRoundTripAndDamageIsRefused) {
  RecentFetch e{.seq = 77,
                .time_ms = 1'700'000'000'123,
                .page = 4242,
                .http_status = 503,
                .failed = true,
                .kind = FailureKind::kHttp5xx,
                .wire_bytes = 0,
                .decoded_bytes = 0,
                .fetch_ms = 0,
                .content_type = ""};
  std::string value;
  EncodeRecentFetch(e, &value);
  const std::string key("\0\0\0\x4c", 4);  // slot 76 of 77, big-endian
  RecentFetch back;
  ASSERT_TRUE(DecodeRecentFetch(key, value, &back));
  EXPECT_EQ(back, e);
  RecentFetch ok{.seq = 1, .time_ms = 5, .page = 1, .http_status = 200, .failed = false,
                 .kind = FailureKind::kOther, .wire_bytes = 1 << 20, .decoded_bytes = 3,
                 .fetch_ms = 40, .content_type = std::string(300, 'x')};
  value.clear();
  EncodeRecentFetch(ok, &value);
  ASSERT_TRUE(DecodeRecentFetch(std::string("\0\0\0\0", 4), value, &back));
  EXPECT_EQ(back.content_type.size(), kMaxContentTypeBytes);  // cut at the cap
  // The documented bytes of a small entry.
  value.clear();
  EncodeRecentFetch({.seq = 1, .time_ms = 1000, .page = 3, .http_status = 200, .failed = false,
                     .kind = FailureKind::kOther, .wire_bytes = 10, .decoded_bytes = 20,
                     .fetch_ms = 5, .content_type = "a/b"},
                    &value);
  EXPECT_EQ(value, std::string("\x01\x00\x00\xe8\x07\x03\xc8\x01\x0a\x14\x05\x03" "a/b", 15));
  EXPECT_EQ(RecentSlot(1), 0u);
  EXPECT_EQ(RecentSlot(kRecentFetches), kRecentFetches - 1);
  EXPECT_EQ(RecentSlot(kRecentFetches + 1), 0u);
  // Damage: a cut, a byte more, an unknown flag, a kind on a fetch, seq 0, another slot,
  // a short key.
  const std::string k1("\0\0\0\0", 4);
  EXPECT_FALSE(DecodeRecentFetch(k1, value.substr(0, value.size() - 1), &back));
  EXPECT_FALSE(DecodeRecentFetch(k1, value + "x", &back));
  std::string flag = value;
  flag[1] = 2;
  EXPECT_FALSE(DecodeRecentFetch(k1, flag, &back));
  std::string kind = value;
  kind[2] = 1;
  EXPECT_FALSE(DecodeRecentFetch(k1, kind, &back));
  std::string zero = value;
  zero[0] = 0;
  EXPECT_FALSE(DecodeRecentFetch(k1, zero, &back));
  EXPECT_FALSE(DecodeRecentFetch(std::string("\0\0\0\x01", 4), value, &back));
  EXPECT_FALSE(DecodeRecentFetch(k1.substr(0, 3), value, &back));
  EXPECT_FALSE(DecodeRecentFetch(k1, "", &back));
}

TEST(RecentFetchesTest, HistogramBucketsIncludeTheirUpperBound) {
  EXPECT_EQ(FetchMsBucket(0), 0u);
  EXPECT_EQ(FetchMsBucket(10), 0u);
  EXPECT_EQ(FetchMsBucket(11), 1u);
  EXPECT_EQ(FetchMsBucket(1000), 6u);
  EXPECT_EQ(FetchMsBucket(30000), 10u);
  EXPECT_EQ(FetchMsBucket(30001), 11u);  // +Inf
  EXPECT_EQ(kFetchMsBuckets, 12u);
  EXPECT_EQ(WireBytesBucket(1024), 0u);
  EXPECT_EQ(WireBytesBucket(1025), 1u);
  EXPECT_EQ(WireBytesBucket(16u << 20), 7u);
  EXPECT_EQ(WireBytesBucket((16u << 20) + 1), 8u);
}

// Fetches written one by one and in a batch bigger than the ring: the ring holds the last
// kRecentFetches, newest first, numbered in write order, across a reopen; the histograms
// count each fetch in its bucket, by host too.
TEST(RecentFetchesTest, TheWriterKeepsTheLatestFetchesInOrder) {
  const uint32_t seed = std::random_device()();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  TempDir dir;
  const std::string path = dir.Sub("db");
  std::vector<CrawledPage> written;  // in write order
  std::array<uint64_t, kFetchMsBuckets> ms_buckets{};
  std::array<uint64_t, kWireBytesBuckets> byte_buckets{};
  uint64_t b_host_fetches = 0;
  auto make = [&](size_t i) {
    const uint32_t ms = static_cast<uint32_t>(rng() % 40000);
    const uint64_t bytes = uint64_t{1} << (rng() % 26);
    const std::string host = rng() % 2 ? "a.example" : "b.example";
    CrawledPage page = Answered("http://" + host + "/p" + std::to_string(rng() % 3000),
                                1000 + static_cast<int64_t>(i), rng() % 5 ? 200 : 404, ms, bytes);
    // Buckets worked out by hand from the bounds, not with FetchMsBucket.
    size_t m = 0;
    while (m < kFetchMsBounds.size() && ms > kFetchMsBounds[m]) ++m;
    size_t b = 0;
    while (b < kWireBytesBounds.size() && bytes > kWireBytesBounds[b]) ++b;
    ++ms_buckets[m];
    ++byte_buckets[b];
    if (host == "b.example") ++b_host_fetches;
    return page;
  };
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    for (size_t i = 0; i < 700; ++i) {
      written.push_back(make(i));
      ASSERT_OK(db->Add(written.back()));
    }
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    ASSERT_OK_AND_ASSIGN(std::vector<RecentFetch> recent, snapshot.RecentFetches());
    ASSERT_EQ(recent.size(), 700u);
    EXPECT_EQ(recent.front().seq, 700u);
    EXPECT_EQ(recent.back().seq, 1u);
    // Only the newer ones after a number: what a live tail asks for.
    ASSERT_OK_AND_ASSIGN(std::vector<RecentFetch> after, snapshot.RecentFetches(695, 100));
    ASSERT_EQ(after.size(), 5u);
    EXPECT_EQ(after.back().seq, 696u);
    ASSERT_OK_AND_ASSIGN(after, snapshot.RecentFetches(0, 3));
    ASSERT_EQ(after.size(), 3u);
    EXPECT_EQ(after.front().seq, 700u);
  }
  {
    // Reopened, the numbers go on; one batch of 1,500 keeps its last kRecentFetches.
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    std::vector<CrawledPage> batch;
    for (size_t i = 0; i < 1500; ++i) batch.push_back(make(700 + i));
    ASSERT_OK(db->AddBatch(batch));
    written.insert(written.end(), batch.begin(), batch.end());
    ASSERT_OK(db->Check());
  }
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(std::vector<RecentFetch> recent, snapshot.RecentFetches());
  ASSERT_EQ(recent.size(), kRecentFetches);
  for (size_t i = 0; i < recent.size(); ++i) {
    const uint64_t seq = written.size() - i;  // newest first
    const CrawledPage& page = written[seq - 1];
    ASSERT_EQ(recent[i].seq, seq);
    ASSERT_OK_AND_ASSIGN(PageRecord record, snapshot.FindId(recent[i].page));
    EXPECT_EQ(record.url, page.url) << seq;
    EXPECT_EQ(recent[i].time_ms, page.crawl_time_ms);
    EXPECT_EQ(recent[i].http_status, page.http_status);
    EXPECT_FALSE(recent[i].failed);
    EXPECT_EQ(recent[i].wire_bytes, page.fetch.wire_bytes);
    EXPECT_EQ(recent[i].decoded_bytes, page.fetch.decoded_bytes);
    EXPECT_EQ(recent[i].fetch_ms, page.fetch.fetch_ms);
    EXPECT_EQ(recent[i].content_type, "text/html");
  }
  ASSERT_OK_AND_ASSIGN(const CrawlCounters totals, snapshot.CrawlTotals());
  EXPECT_EQ(totals.fetch_ms_buckets, ms_buckets);
  EXPECT_EQ(totals.wire_bytes_buckets, byte_buckets);
  EXPECT_EQ(totals.observed_fetches(), written.size());
  ASSERT_OK_AND_ASSIGN(const CrawlCounters b_host, snapshot.HostTotals("b.example"));
  EXPECT_EQ(b_host.observed_fetches(), b_host_fetches);
}

// A fetch reported without details (a front end that gives none) is in no bucket.
TEST(RecentFetchesTest, FetchesWithoutDetailsAreNotObserved) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  CrawledPage bare;
  bare.url = "http://a.example/";
  ASSERT_OK(db->Add(bare));
  ASSERT_OK(db->Add(Answered("http://a.example/x", 5, 200, 30, 100)));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const CrawlCounters totals, snapshot.CrawlTotals());
  EXPECT_EQ(totals.fetches_total(), 2u);
  EXPECT_EQ(totals.observed_fetches(), 1u);
  EXPECT_EQ(totals.fetch_ms_buckets[2], 1u);  // 30 ms: le 50
  ASSERT_OK_AND_ASSIGN(std::vector<RecentFetch> recent, snapshot.RecentFetches());
  EXPECT_EQ(recent.size(), 2u);  // the tail shows both
}

// The scheduler's failure reports go to the ring with their kind, status and time; the
// recorded fetches beside them.
TEST(RecentFetchesTest, FailuresJoinTheLatestFetches) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ManualClock clock(5'000'000);
  SchedulerOptions options;
  options.clock = &clock;
  options.delay_ms = 0;
  ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
  ASSERT_OK(scheduler->AddSeeds({"http://a.example/1", "http://b.example/2"}));
  ASSERT_OK_AND_ASSIGN(auto batch, scheduler->Next(10));
  ASSERT_EQ(batch.size(), 2u);
  const Request& fails = batch[0].url == "http://a.example/1" ? batch[0] : batch[1];
  const Request& works = batch[0].url == "http://a.example/1" ? batch[1] : batch[0];
  ASSERT_OK(scheduler->Failed({.url = fails.url, .lease = fails.lease, .http_status = 0,
                               .reason = "slow", .kind = FailureKind::kTimeout}));
  clock.Advance(10);
  CrawledPage page = Answered(works.url, 5'000'010, 200, 12, 900);
  ASSERT_OK(scheduler->Crawled({.page = page, .lease = works.lease}));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(std::vector<RecentFetch> recent, snapshot.RecentFetches());
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_FALSE(recent[0].failed);
  EXPECT_EQ(recent[0].http_status, 200);
  EXPECT_TRUE(recent[1].failed);
  EXPECT_EQ(recent[1].kind, FailureKind::kTimeout);
  EXPECT_EQ(recent[1].time_ms, 5'000'000);
  ASSERT_OK_AND_ASSIGN(PageRecord failed, snapshot.FindId(recent[1].page));
  EXPECT_EQ(failed.url, "http://a.example/1");
  EXPECT_OK(db->Check());
}

// tests/data/format-v9.db (its README says what it holds): read as it is (no latest
// fetches, histograms at 0), refused for writing, upgraded in place; then fetches fill both.
TEST(RecentFetchesTest, CommittedVersion9DbIsUpgraded) {
  TempDir dir;
  const std::string path = testing::CopyCommittedDb(dir, 9);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  CrawlCounters before;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
    EXPECT_EQ(db->Info()->format_version, 9u);
    EXPECT_OK(db->Check());
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    ASSERT_OK_AND_ASSIGN(before, snapshot.CrawlTotals());
    EXPECT_EQ(before.crawled_pages, 4u);
    EXPECT_EQ(before.observed_fetches(), 0u);
    ASSERT_OK_AND_ASSIGN(std::vector<RecentFetch> recent, snapshot.RecentFetches());
    EXPECT_TRUE(recent.empty());
  }
  const Status refused = PageDb::Open(path, Fast()).status();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("sets its version to 10"), std::string::npos)
      << refused.ToString();
  PageDbOptions upgrade = Fast();
  upgrade.upgrade = true;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, upgrade));
    EXPECT_EQ(db->Info()->format_version, 10u);
    ASSERT_OK(db->Add(Answered("http://new.example/", 9000, 200, 70, 5000)));
    EXPECT_OK(db->Check());
  }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const CrawlCounters after, snapshot.CrawlTotals());
  EXPECT_EQ(after.crawled_pages, before.crawled_pages + 1);
  EXPECT_EQ(after.fetches_total(), before.fetches_total() + 1);
  EXPECT_EQ(after.observed_fetches(), 1u);  // the fetches before the upgrade are in none
  EXPECT_EQ(after.fetch_ms_buckets[3], 1u);   // 70 ms: le 100
  EXPECT_EQ(after.wire_bytes_buckets[2], 1u);  // 5000 bytes: le 16 KiB
  ASSERT_OK_AND_ASSIGN(std::vector<RecentFetch> recent, snapshot.RecentFetches());
  ASSERT_EQ(recent.size(), 1u);
  EXPECT_EQ(recent[0].seq, 1u);
  EXPECT_OK(db->Check());
}

}  // namespace
}  // namespace crawlrank
