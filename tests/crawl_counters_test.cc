// The crawl's counters, fetch details and progress samples (crawlrank/crawl_counters.h,
// format version 7): encodings, what the writer and the scheduler count against sums made
// here from the reports, the full check's recount, and the samples on a ManualClock.
#include "crawlrank/crawl_counters.h"

#include <gtest/gtest.h>
#include <lmdb.h>

#include <filesystem>
#include <map>
#include <random>

#include "crawlrank/clock.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "page_db/crawl_counters.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

CrawledPage Fetched(std::string url, uint16_t status, FetchInfo fetch = {},
                    std::vector<std::string> links = {}) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = 1000;
  page.http_status = status;
  page.fetch = std::move(fetch);
  for (std::string& target : links) page.links.push_back(Link{std::move(target), 0.f});
  return page;
}

TEST(CrawlCountersTest, StatusClassesSplitAtHundreds) {
  EXPECT_EQ(StatusClassOf(0), StatusClass::kNone);
  EXPECT_EQ(StatusClassOf(99), StatusClass::kNone);
  EXPECT_EQ(StatusClassOf(100), StatusClass::k1xx);
  EXPECT_EQ(StatusClassOf(200), StatusClass::k2xx);
  EXPECT_EQ(StatusClassOf(399), StatusClass::k3xx);
  EXPECT_EQ(StatusClassOf(404), StatusClass::k4xx);
  EXPECT_EQ(StatusClassOf(599), StatusClass::k5xx);
  EXPECT_EQ(StatusClassOf(600), StatusClass::kNone);
  EXPECT_EQ(StatusClassName(StatusClass::k2xx), "2xx");
  EXPECT_EQ(StatusClassName(StatusClass::kNone), "none");
}

TEST(CrawlCountersTest, CountersRoundTripAndDamageIsRefused) {
  CrawlCounters c;
  c.pages = 1u << 20;
  c.crawled_pages = 7;
  c.failed_pages = 2;
  c.fetches = {1, 2, 3, 4, 5, 6};
  c.failures[static_cast<size_t>(FailureKind::kTimeout)] = 9;
  c.wire_bytes = uint64_t{1} << 40;
  c.decoded_bytes = 12345;
  c.fetch_ms = 678;
  std::string value;
  EncodeCrawlCounters(c, &value);
  CrawlCounters back;
  ASSERT_TRUE(DecodeCrawlCounters(value, &back));
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.fetches_total(), 21u);
  EXPECT_EQ(back.failures_total(), 9u);
  EXPECT_FALSE(DecodeCrawlCounters(value.substr(0, value.size() - 1), &back));
  EXPECT_FALSE(DecodeCrawlCounters(value + "x", &back));
  std::string wrong_version = value;
  wrong_version[0] = 2;
  EXPECT_FALSE(DecodeCrawlCounters(wrong_version, &back));
  EXPECT_FALSE(DecodeCrawlCounters("", &back));
}

TEST(CrawlCountersTest, CutUtf8NeverSplitsACharacter) {
  EXPECT_EQ(CutUtf8("abc", 5), "abc");
  EXPECT_EQ(CutUtf8("abcdef", 3), "abc");
  // "é" is C3 A9: a cut after its first byte drops it whole.
  EXPECT_EQ(CutUtf8("ab\xC3\xA9z", 3), "ab");
  EXPECT_EQ(CutUtf8("ab\xC3\xA9z", 4), "ab\xC3\xA9");
  // A four-byte sequence (U+1F600) cut anywhere inside.
  const std::string smile = "\xF0\x9F\x98\x80";
  for (size_t cut = 1; cut < 4; ++cut) EXPECT_EQ(CutUtf8("x" + smile, 1 + cut), "x");
}

TEST(CrawlCountersTest, FetchInfoKeepsItsFieldsWithinTheCaps) {
  FetchInfo info{.content_type = "text/html; charset=utf-8",
                 .wire_bytes = 1500,
                 .decoded_bytes = 4000,
                 .fetch_ms = 35,
                 .title = "A <title> & \"quotes\""};
  std::string value;
  EncodeFetchInfo(info, &value);
  FetchInfo back;
  ASSERT_TRUE(DecodeFetchInfo(value, &back));
  EXPECT_EQ(back, info);
  // Over the caps: cut at a character boundary.
  std::string long_title;
  while (long_title.size() < 2 * kMaxTitleBytes) long_title += "\xC3\xA9";  // é
  info.title = "x" + long_title;  // odd offset: the cap falls inside a character
  info.content_type = std::string(1000, 't');
  value.clear();
  EncodeFetchInfo(info, &value);
  ASSERT_TRUE(DecodeFetchInfo(value, &back));
  EXPECT_EQ(back.content_type, std::string(kMaxContentTypeBytes, 't'));
  EXPECT_EQ(back.title.size(), kMaxTitleBytes - 1);
  EXPECT_EQ(back.title, info.title.substr(0, kMaxTitleBytes - 1));
  EXPECT_FALSE(DecodeFetchInfo(value.substr(0, 10), &back));
}

// The writer's one-pass host key is HostKey's (kHost), which every other part uses.
TEST(CrawlCountersTest, CounterHostViewIsHostKey) {
  for (const char* url :
       {"http://a.example/", "https://A.example:8443/x?y#z", "http://user:pw@b.example:81/",
        "http://u@p@c.example/", "http://[::1]:8080/p", "http://[2001:db8::1]/", "http://d.example",
        "http://e.example?q", "http://f.example#f", "http://127.0.0.1:5/", "ftp://g.example/"}) {
    Result<std::string> key = HostKey(url, HostKeyMode::kHost);
    ASSERT_OK(key.status());
    EXPECT_EQ(CounterHostView(url), *key) << url;
  }
  EXPECT_EQ(CounterHostView("not a url"), kNoHostKey);
  EXPECT_EQ(CounterHostView("http:///path"), kNoHostKey);
  EXPECT_EQ(CounterHostView("http://:80/"), kNoHostKey);
}

// A random crawl written through PageDb::Add: the counters equal sums made here from the
// pages written, for the crawl and for each host, and Check(kFull) recounts them.
TEST(CrawlCountersTest, WritesAreCountedByHostAndStatusClass) {
  const uint32_t seed = std::random_device()();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  const std::vector<std::string> hosts = {"a.example", "b.example:8080", "c.example"};
  const uint16_t statuses[] = {200, 200, 301, 404, 500, 0};
  std::map<std::string, CrawlCounters> expected;  // by host key: no port
  CrawlCounters all;
  std::map<std::string, std::string> host_of_url;
  std::map<std::string, FetchInfo> last_fetch;
  auto known = [&](const std::string& url, const std::string& host) {
    if (host_of_url.emplace(url, host).second) {
      ++expected[host].pages;
      ++all.pages;
    }
  };
  std::map<std::string, bool> crawled;
  for (int i = 0; i < 300; ++i) {
    const std::string& authority = hosts[rng() % hosts.size()];
    const std::string host = authority.substr(0, authority.find(':'));
    const std::string url = "http://" + authority + "/p" + std::to_string(rng() % 40);
    const uint16_t status = statuses[rng() % std::size(statuses)];
    FetchInfo fetch;
    if (rng() % 4 != 0) {
      fetch = {.content_type = "text/html",
               .wire_bytes = rng() % 5000,
               .decoded_bytes = rng() % 9000,
               .fetch_ms = static_cast<uint32_t>(rng() % 900),
               .title = "page " + std::to_string(i)};
    }
    std::vector<std::string> links;
    for (int l = 0; l < 3; ++l) {
      const std::string& to = hosts[rng() % hosts.size()];
      links.push_back("http://" + to + "/p" + std::to_string(rng() % 40));
    }
    ASSERT_OK(db->Add(Fetched(url, status, fetch, links)));
    known(url, host);
    for (const std::string& link : links) {
      known(link, link.substr(7, link.find_first_of(":/", 7) - 7));  // no port
    }
    for (CrawlCounters* c : {&expected[host], &all}) {
      if (!crawled[url]) ++c->crawled_pages;
      ++c->fetches[static_cast<size_t>(StatusClassOf(status))];
      c->wire_bytes += fetch.wire_bytes;
      c->decoded_bytes += fetch.decoded_bytes;
      c->fetch_ms += fetch.fetch_ms;
      if (!fetch.empty()) {
        ++c->fetch_ms_buckets[FetchMsBucket(fetch.fetch_ms)];
        ++c->wire_bytes_buckets[WireBytesBucket(fetch.wire_bytes)];
      }
    }
    crawled[url] = true;
    if (!fetch.empty()) last_fetch[url] = fetch;
  }
  const auto by_host = [](const Snapshot& snapshot) {
    std::map<std::string, CrawlCounters> stored;
    EXPECT_OK(snapshot.ForEachHostTotals([&](std::string_view host, const CrawlCounters& c) {
      stored[std::string(host)] = c;
      return Status::Ok();
    }));
    return stored;
  };
  {
    // While the writer runs, a host's page count lags (at most a second): the rest is there.
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    EXPECT_EQ(*snapshot.CrawlTotals(), all);
    EXPECT_EQ(all.pages, snapshot.counters().pages);
    for (auto [host, counters] : by_host(snapshot)) {
      EXPECT_LE(counters.pages, expected[host].pages);
      counters.pages = expected[host].pages;
      EXPECT_EQ(counters, expected[host]) << host;
    }
    EXPECT_OK(db->Check());
  }
  // Closing counts them; a reader sees every count.
  const std::string path = db->path();
  db.reset();
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(db, PageDb::Open(path, reading));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  EXPECT_EQ(*snapshot.CrawlTotals(), all);
  EXPECT_EQ(by_host(snapshot), expected);
  EXPECT_EQ(*snapshot.HostTotals("b.example"), expected["b.example"]);
  EXPECT_EQ(*snapshot.HostTotals("never.example"), CrawlCounters());
  for (const auto& [url, host] : host_of_url) {
    ASSERT_OK_AND_ASSIGN(PageRecord record, snapshot.FindUrl(url));
    const auto it = last_fetch.find(url);
    Result<FetchInfo> kept = snapshot.FetchOf(record.id);
    if (it == last_fetch.end()) {
      EXPECT_EQ(kept.status().code(), StatusCode::kNotFound) << url;
    } else {
      ASSERT_OK(kept.status());
      EXPECT_EQ(*kept, it->second) << url;
    }
  }
  EXPECT_OK(db->Check());
}

// A writer that stops without closing (its file copied as a crash leaves it) has not
// counted its last second's pages by host: the next writer's open counts them.
TEST(CrawlCountersTest, PagesAWriterLeftUncountedAreCountedAtTheNextOpen) {
  TempDir dir;
  const std::string path = dir.Sub("db"), copy = dir.Sub("copy");
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
  ASSERT_OK(db->Add(Fetched("http://a.example/", 200, {}, {"http://a.example/1", "http://b.example/"})));
  ASSERT_OK(db->Sync());
  std::filesystem::create_directories(copy);
  std::filesystem::copy_file(path + "/data.mdb", copy + "/data.mdb");
  db.reset();
  PageDbOptions reading = Fast();
  reading.read_only = true;
  {
    ASSERT_OK_AND_ASSIGN(auto crashed, PageDb::Open(copy, reading));
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, crashed->NewSnapshot());
    EXPECT_LE(snapshot.HostTotals("a.example")->pages, 2u);  // 0 unless a second passed
    EXPECT_EQ(snapshot.HostTotals("a.example")->crawled_pages, 1u);
    EXPECT_OK(crashed->Check());
  }
  { ASSERT_OK_AND_ASSIGN(auto writer, PageDb::Open(copy, Fast())); }
  ASSERT_OK_AND_ASSIGN(auto reopened, PageDb::Open(copy, reading));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, reopened->NewSnapshot());
  EXPECT_EQ(snapshot.HostTotals("a.example")->pages, 2u);
  EXPECT_EQ(snapshot.HostTotals("b.example")->pages, 1u);
  EXPECT_EQ(snapshot.CrawlTotals()->pages, 3u);
  EXPECT_OK(reopened->Check());
}

// The counters of a DB that page_db_load-style restores filled.
TEST(CrawlCountersTest, RestoredPagesAreCountedAsTheirCrawls) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  WriteBatch batch;
  PageRecord crawled{.fingerprint = UrlFingerprint("http://a.example/"),
                     .id = 0,
                     .url = "http://a.example/",
                     .first_crawl_ms = 5,
                     .last_crawl_ms = 9,
                     .n_crawls = 3,
                     .http_status = 404};
  PageRecord linked{.fingerprint = UrlFingerprint("http://b.example/"),
                    .id = 1,
                    .url = "http://b.example/"};
  batch.RestorePage(crawled);
  batch.RestorePage(linked);
  ASSERT_OK(db->Write(batch));
  const std::string path = db->path();
  db.reset();  // counts the new pages by host
  ASSERT_OK_AND_ASSIGN(db, PageDb::Open(path, Fast()));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(CrawlCounters a, snapshot.HostTotals("a.example"));
  EXPECT_EQ(a.pages, 1u);
  EXPECT_EQ(a.crawled_pages, 1u);
  EXPECT_EQ(a.fetches_of(StatusClass::k4xx), 3u);
  ASSERT_OK_AND_ASSIGN(CrawlCounters b, snapshot.HostTotals("b.example"));
  EXPECT_EQ(b.pages, 1u);
  EXPECT_EQ(b.crawled_pages, 0u);
  EXPECT_EQ(b.fetches_total(), 0u);
  EXPECT_OK(db->Check());
}

class SchedulerCountersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = PageDb::Open(dir_.Sub("db"), Fast());
    ASSERT_OK(db.status());
    db_ = *std::move(db);
    SchedulerOptions options;
    options.clock = &clock_;
    options.delay_ms = 0;
    options.per_host = 100;
    options.max_retries = 1;
    options.retry_ms = 1000;
    options.score = ScoreMode::kBreadthFirst;
    auto scheduler = Scheduler::Open(*db_, options);
    ASSERT_OK(scheduler.status());
    scheduler_ = *std::move(scheduler);
  }
  CrawlCounters Totals(std::string_view host = {}) {
    auto snapshot = db_->NewSnapshot();
    EXPECT_OK(snapshot.status());
    auto totals = host.empty() ? snapshot->CrawlTotals() : snapshot->HostTotals(host);
    EXPECT_OK(totals.status());
    return *totals;
  }
  std::vector<ProgressSample> Samples() {
    auto snapshot = db_->NewSnapshot();
    EXPECT_OK(snapshot.status());
    auto samples = snapshot->Progress();
    EXPECT_OK(samples.status());
    return *samples;
  }

  TempDir dir_;
  ManualClock clock_{1'000'000};
  std::unique_ptr<PageDb> db_;
  std::unique_ptr<Scheduler> scheduler_;
};

// Every failure report counts under its kind; a page failed for good counts as failed
// until a re-queue or a removal takes it back; Check recounts the failed pages.
TEST_F(SchedulerCountersTest, FailuresCountByKindAndFailedPagesFollowTheirState) {
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2",
                                  "http://b.example/1"}));
  ASSERT_OK_AND_ASSIGN(auto batch, scheduler_->Next(10));
  ASSERT_EQ(batch.size(), 3u);
  for (const Request& r : batch) {
    ASSERT_OK(scheduler_->Failed(
        {.url = r.url, .lease = r.lease, .reason = "slow", .kind = FailureKind::kTimeout}));
  }
  EXPECT_EQ(Totals().failures_of(FailureKind::kTimeout), 3u);
  EXPECT_EQ(Totals().failed_pages, 0u);  // retrying
  clock_.Advance(2000);
  ASSERT_OK_AND_ASSIGN(batch, scheduler_->Next(10));
  ASSERT_EQ(batch.size(), 3u);
  for (const Request& r : batch) {
    ASSERT_OK(scheduler_->Failed(
        {.url = r.url, .lease = r.lease, .http_status = 500, .reason = "server"}));
  }
  CrawlCounters all = Totals();
  EXPECT_EQ(all.failures_of(FailureKind::kTimeout), 3u);
  EXPECT_EQ(all.failures_of(FailureKind::kHttp5xx), 3u);  // inferred from the status
  EXPECT_EQ(all.failed_pages, 3u);
  EXPECT_EQ(Totals("a.example").failed_pages, 2u);
  EXPECT_EQ(Totals("b.example").failed_pages, 1u);
  EXPECT_OK(db_->Check());

  ASSERT_OK_AND_ASSIGN(uint64_t requeued,
                       scheduler_->Requeue({.host = "a.example", .url_regex = "/1$"}));
  EXPECT_EQ(requeued, 1u);
  EXPECT_EQ(Totals("a.example").failed_pages, 1u);
  EXPECT_EQ(Totals().failed_pages, 2u);
  EXPECT_OK(db_->Check());
  ASSERT_OK(scheduler_->Remove({.host = "b.example"}).status());
  EXPECT_EQ(Totals("b.example").failed_pages, 0u);
  EXPECT_EQ(Totals().failed_pages, 1u);
  EXPECT_EQ(Totals().failures_total(), 6u);  // failures reported stay counted
  EXPECT_OK(db_->Check());
}

// A sample at the first write, then one at the first write 10 s or more after the last,
// each with the crawl's counters and the queue as they were.
TEST_F(SchedulerCountersTest, ProgressIsSampledEveryIntervalOfWrites) {
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2"}));
  std::vector<ProgressSample> samples = Samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].time_ms, 1'000'000);
  clock_.Advance(5000);
  ASSERT_OK_AND_ASSIGN(auto batch, scheduler_->Next(1));  // a write: no sample yet
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(Samples().size(), 1u);
  clock_.Advance(5000);
  CrawledPage page = Fetched(batch[0].url, 200, {.wire_bytes = 700}, {"http://a.example/3"});
  ASSERT_OK(scheduler_->Crawled({.page = page, .lease = batch[0].lease}));
  samples = Samples();
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[1].time_ms, 1'010'000);
  EXPECT_EQ(samples[1].crawled_pages, 1u);
  EXPECT_EQ(samples[1].fetches, 1u);
  EXPECT_EQ(samples[1].wire_bytes, 700u);
  EXPECT_EQ(samples[1].in_flight, 1u);  // as the schedule stood before the report
  EXPECT_EQ(samples[1].queued, 1u);
  // Read from a later time on.
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db_->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(auto later, snapshot.Progress(1'000'001));
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0], samples[1]);
  // The latest `max`, read from the newest back.
  ASSERT_OK_AND_ASSIGN(auto last, snapshot.Progress(0, 1));
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0], samples[1]);
  ASSERT_OK_AND_ASSIGN(auto both, snapshot.Progress(0, 5));
  EXPECT_EQ(both, samples);
  EXPECT_OK(db_->Check());
}

// The end of a crawl is sampled whenever it comes (the crawler and the front ends call
// RecordProgress when they stop), so a finished crawl's last sample is its end.
TEST_F(SchedulerCountersTest, RecordProgressSamplesNowWhateverTheInterval) {
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/1"}));
  clock_.Advance(1000);
  ASSERT_OK_AND_ASSIGN(auto batch, scheduler_->Next(1));
  ASSERT_EQ(batch.size(), 1u);
  ASSERT_OK(scheduler_->Crawled({.page = Fetched(batch[0].url, 200, {.wire_bytes = 50}, {}),
                                 .lease = batch[0].lease}));
  ASSERT_EQ(Samples().size(), 1u);  // only the first write's: 10 s have not passed
  clock_.Advance(1000);
  ASSERT_OK(scheduler_->RecordProgress());
  const std::vector<ProgressSample> samples = Samples();
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[1].time_ms, 1'002'000);
  EXPECT_EQ(samples[1].crawled_pages, 1u);
  EXPECT_EQ(samples[1].wire_bytes, 50u);
  EXPECT_EQ(samples[1].queued, 0u);
  EXPECT_EQ(samples[1].in_flight, 0u);
  // Later writes are sampled on the usual interval again.
  clock_.Advance(1000);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/2"}));
  EXPECT_EQ(Samples().size(), 2u);
  EXPECT_OK(db_->Check());
}

TEST(CrawlCountersTest, ProgressIntervalBelowZeroIsRefused) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  SchedulerOptions options;
  options.progress_interval_ms = -1;
  const Status refused = Scheduler::Open(*db, options).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("progress_interval_ms"), std::string::npos);
}

// Damage in the counters is found by the full check, naming what it found.
TEST(CrawlCountersTest, CheckFindsCountersThatDisagreeWithThePages) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    ASSERT_OK(db->Add(Fetched("http://a.example/", 200, {}, {"http://a.example/x"})));
  }
  CrawlCounters wrong;
  wrong.pages = 5;
  std::string value;
  EncodeCrawlCounters(wrong, &value);
  testing::PutRaw(path, "counters", "a.example", value);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  const Status check = db->Check();
  EXPECT_EQ(check.code(), StatusCode::kDataLoss);
  EXPECT_NE(check.message().find("host \"a.example\" counts 5 pages"), std::string::npos)
      << check.ToString();
}

// The example value of docs/format.md, byte for byte.
TEST(CrawlCountersTest, EncodingIsTheDocumentedOne) {
  CrawlCounters c;
  c.pages = 3;
  c.crawled_pages = 1;
  c.fetches[static_cast<size_t>(StatusClass::k2xx)] = 1;
  c.wire_bytes = 1200;
  c.fetch_ms = 40;
  c.fetch_ms_buckets[2] = 1;
  c.wire_bytes_buckets[1] = 1;
  std::string value;
  EncodeCrawlCounters(c, &value);
  const std::string expected = std::string("\x01\x31\x03\x01\x00", 5) +
                               std::string("\x00\x00\x01\x00\x00\x00", 6) + std::string(15, '\0') +
                               std::string("\xb0\x09\x00\x28\x00", 5) +
                               std::string("\x00\x00\x01", 3) + std::string(9, '\0') +
                               std::string("\x00\x01", 2) + std::string(7, '\0');
  EXPECT_EQ(value, expected);
  // Format version 9 wrote the fields before the histograms (28), version 8 those before
  // the ghosts (27): read with the rest at 0.
  CrawlCounters read, without = c;
  without.fetch_ms_buckets = {};
  without.wire_bytes_buckets = {};
  ASSERT_TRUE(DecodeCrawlCounters(std::string("\x01\x1c", 2) + expected.substr(2, 29), &read));
  EXPECT_EQ(read, without);
  ASSERT_TRUE(DecodeCrawlCounters(std::string("\x01\x1b", 2) + expected.substr(2, 28), &read));
  EXPECT_EQ(read, without);
  EXPECT_FALSE(DecodeCrawlCounters(std::string("\x01\x1a", 2) + expected.substr(2, 27), &read));
  EXPECT_FALSE(DecodeCrawlCounters(std::string("\x01\x1d", 2) + expected.substr(2, 30), &read));
}

// tests/data/format-v6.db (its README says what it holds): read as it is, refused for
// writing, upgraded in place with counters that agree with its pages and failures.
TEST(CrawlCountersTest, CommittedVersion6DbIsUpgradedWithItsCountsRebuilt) {
  TempDir dir;
  const std::string path = testing::CopyCommittedDb(dir, 6);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  // What the upgrade must count, from the pages and the failures as they are.
  std::map<std::string, CrawlCounters> expected;
  CrawlCounters all;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
    EXPECT_EQ(db->Info()->format_version, 6u);
    ASSERT_OK(db->Check());
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    EXPECT_EQ(*snapshot.CrawlTotals(), CrawlCounters());
    EXPECT_EQ(snapshot.FetchOf(0).status().code(), StatusCode::kNotFound);
    EXPECT_TRUE(snapshot.Progress()->empty());
    ASSERT_OK(snapshot.ForEachPage([&](const PageRecord& page) {
      const std::string host = *HostKey(page.url);
      for (CrawlCounters* c : {&expected[host], &all}) {
        ++c->pages;
        c->crawled_pages += page.crawled() ? 1 : 0;
        c->fetches[static_cast<size_t>(StatusClassOf(page.http_status))] += page.n_crawls;
      }
      return Status::Ok();
    }));
    ASSERT_OK_AND_ASSIGN(auto failed, Scheduler::FailedPages(*db, snapshot));
    for (const FailedPage& page : failed) {
      for (CrawlCounters* c : {&expected[*HostKey(page.url)], &all}) {
        ++c->failed_pages;
        c->failures[static_cast<size_t>(page.kind)] += page.attempts;
      }
    }
  }
  EXPECT_EQ(all.pages, 17u);
  EXPECT_EQ(all.crawled_pages, 4u);
  EXPECT_EQ(all.failed_pages, 5u);
  const Status refused = PageDb::Open(path, Fast()).status();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("page_db_upgrade"), std::string::npos) << refused.ToString();
  EXPECT_NE(refused.message().find("counters"), std::string::npos) << refused.ToString();
  PageDbOptions upgrade = Fast();
  upgrade.upgrade = true;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, upgrade));
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    EXPECT_EQ(*snapshot.CrawlTotals(), all);
    std::map<std::string, CrawlCounters> stored;
    ASSERT_OK(snapshot.ForEachHostTotals([&](std::string_view host, const CrawlCounters& c) {
      stored[std::string(host)] = c;
      return Status::Ok();
    }));
    EXPECT_EQ(stored, expected);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));  // now a writer opens it
    EXPECT_EQ(db->Info()->format_version, kPageDbFormatVersion);
    ASSERT_OK(db->Add(
        Fetched("http://held.example/a", 200, {.wire_bytes = 10}, {"http://held.example/c"})));
  }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(CrawlCounters held, snapshot.HostTotals("held.example"));
  EXPECT_EQ(held.pages, expected["held.example"].pages + 1);
  EXPECT_EQ(held.crawled_pages, expected["held.example"].crawled_pages + 1);
  EXPECT_EQ(held.wire_bytes, 10u);
  EXPECT_OK(db->Check());
}

}  // namespace
}  // namespace crawlrank
