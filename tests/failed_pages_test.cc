// Pages failed for good (Scheduler::FailedPages, Scheduler::Requeue): what is kept with
// each failure, the filters, re-queueing, and a committed format version 3 DB carried over
// (tests/data/format-v3.db, written by the crawlrank of commit 4b42494; how: README there).
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "crawlrank/scheduler.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

SchedulerOptions Options(const ManualClock& clock) {
  SchedulerOptions options;
  options.clock = &clock;
  options.delay_ms = 0;
  options.per_host = 10;  // every page of a host handed out at once
  options.max_retries = 1;
  options.retry_ms = 1000;
  return options;
}

std::set<std::string> UrlsOf(const std::vector<FailedPage>& pages) {
  std::set<std::string> urls;
  for (const FailedPage& p : pages) urls.insert(p.url);
  return urls;
}

// Hands out everything ready and fails each request `report` picks a failure for.
void FailAll(Scheduler& s, const std::function<FailureReport(const Request&)>& report) {
  ASSERT_OK_AND_ASSIGN(std::vector<Request> batch, s.Next(100));
  for (const Request& r : batch) {
    FailureReport f = report(r);
    f.url = r.url;
    f.lease = r.lease;
    ASSERT_OK(s.Failed(f));
  }
}

TEST(FailedPagesTest, EachFailureKeepsItsKindDetailStatusAttemptsAndTime) {
  TempDir dir;
  ManualClock clock(1'000'000);
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, Options(clock)));
  ASSERT_OK(s->AddSeeds({"http://a.example/1", "http://a.example/2", "http://b.example/3"}));
  // Round 1: /1 a retryable 500 (it will retry once; a 503 would hold the host), /2 refused for good, /3 a timeout.
  FailAll(*s, [](const Request& r) {
    if (r.url == "http://a.example/1") return FailureReport{.http_status = 500, .reason = "HTTP 500"};
    if (r.url == "http://a.example/2") {
      return FailureReport{.retryable = false, .reason = "URL over 4096 bytes",
                           .kind = FailureKind::kBadUrl};
    }
    return FailureReport{.reason = "timed out", .kind = FailureKind::kTimeout};
  });
  EXPECT_EQ(UrlsOf(*Scheduler::FailedPages(*db)), std::set<std::string>{"http://a.example/2"});
  clock.Advance(1000);  // the retries come due
  FailAll(*s, [](const Request& r) {
    if (r.url == "http://a.example/1") return FailureReport{.http_status = 502, .reason = "HTTP 502"};
    return FailureReport{.reason = "timed out again", .kind = FailureKind::kTimeout};
  });
  ASSERT_OK_AND_ASSIGN(std::vector<FailedPage> all, Scheduler::FailedPages(*db));
  ASSERT_EQ(all.size(), 3u);
  // In id order; /1's kind inferred from its status (none was given).
  EXPECT_EQ(all[0].url, "http://a.example/1");
  EXPECT_EQ(all[0].kind, FailureKind::kHttp5xx);
  EXPECT_EQ(all[0].http_status, 502);
  EXPECT_EQ(all[0].detail, "HTTP 502");
  EXPECT_EQ(all[0].attempts, 2u);
  EXPECT_EQ(all[0].failed_ms, 1'001'000);
  EXPECT_EQ(all[1].kind, FailureKind::kBadUrl);
  EXPECT_EQ(all[1].attempts, 1u);
  EXPECT_EQ(all[1].failed_ms, 1'000'000);
  EXPECT_EQ(all[2].kind, FailureKind::kTimeout);
  EXPECT_EQ(all[2].detail, "timed out again");
  EXPECT_EQ(s->GetStats().failed, 3u);

  // Filters: each alone, and together.
  FailureFilter timeouts{.kind = FailureKind::kTimeout};
  EXPECT_EQ(UrlsOf(*Scheduler::FailedPages(*db, timeouts)), std::set<std::string>{"http://b.example/3"});
  FailureFilter host{.host = "a.example"};
  EXPECT_EQ(Scheduler::FailedPages(*db, host)->size(), 2u);
  FailureFilter both{.kind = FailureKind::kTimeout, .host = "a.example"};
  EXPECT_TRUE(Scheduler::FailedPages(*db, both)->empty());
  FailureFilter regex{.url_regex = "/[12]$"};
  EXPECT_EQ(Scheduler::FailedPages(*db, regex)->size(), 2u);
  FailureFilter bad{.url_regex = "("};
  EXPECT_EQ(Scheduler::FailedPages(*db, bad).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s->Requeue(bad).status().code(), StatusCode::kInvalidArgument);

  // A reader beside the writer sees the same.
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto reader, PageDb::Open(dir.Sub("db"), reading));
  EXPECT_EQ(Scheduler::FailedPages(*reader)->size(), 3u);
}

TEST(FailedPagesTest, RequeueGivesFreshRetriesAndLasts) {
  TempDir dir;
  ManualClock clock(5'000);
  const std::string path = dir.Sub("db");
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, Options(clock)));
    ASSERT_OK(s->AddSeeds({"http://a.example/1", "http://a.example/2", "http://b.example/3"}));
    FailAll(*s, [](const Request& r) {
      return FailureReport{.retryable = false,
                           .kind = r.url == "http://b.example/3" ? FailureKind::kDns
                                                                 : FailureKind::kConnect};
    });
    EXPECT_EQ(s->GetStats().failed, 3u);
    EXPECT_TRUE(s->GetStats().finished);
    // Only the connect failures of a.example whose URL ends in 1.
    ASSERT_OK_AND_ASSIGN(uint64_t n, s->Requeue({.kind = FailureKind::kConnect,
                                                 .host = "a.example",
                                                 .url_regex = "1$"}));
    EXPECT_EQ(n, 1u);
    SchedulerStats stats = s->GetStats();
    EXPECT_EQ(stats.failed, 2u);
    EXPECT_EQ(stats.queued, 1u);
    EXPECT_FALSE(stats.finished);
    // Handed out again, with a fresh retry budget: one retryable failure retries.
    ASSERT_OK_AND_ASSIGN(std::vector<Request> again, s->Next(10));
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].url, "http://a.example/1");
    ASSERT_OK(s->Failed({.url = again[0].url, .lease = again[0].lease}));
    EXPECT_EQ(s->GetStats().retrying, 1u);
    // By URL: the seeds named again.
    ASSERT_OK_AND_ASSIGN(n, s->Requeue({.urls = {"http://B.example/3"}}));
    EXPECT_EQ(n, 1u);
    ASSERT_OK_AND_ASSIGN(n, s->Requeue({.urls = {"http://b.example/3"}}));
    EXPECT_EQ(n, 0u);  // queued already: nothing failed to requeue
  }
  // The change is in the DB: a new writer and a reader see it.
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto reader, PageDb::Open(path, reading));
  EXPECT_EQ(UrlsOf(*Scheduler::FailedPages(*reader)), std::set<std::string>{"http://a.example/2"});
  ASSERT_OK(reader->Check());
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
  ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, Options(clock)));
  const SchedulerStats stats = s->GetStats();
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.queued, 1u);
  EXPECT_EQ(stats.retrying, 1u);
}

TEST(FailedPagesTest, FailQueuedTakesOneOriginOfAHost) {
  TempDir dir;
  ManualClock clock(7'000);
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  SchedulerOptions options = Options(clock);
  options.delay_ms = 60'000;  // one hand-out per host: the rest stays queued
  options.per_host = 1;
  ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, options));
  ASSERT_OK(s->AddSeeds({"http://a.example/1", "http://a.example/2", "http://a.example?q",
                         "http://a.example:8080/3", "https://a.example/4", "http://a.example.org/5",
                         "http://b.example/6"}));
  ASSERT_OK_AND_ASSIGN(std::vector<Request> out, s->Next(10));  // a.example/1, b.example/6...
  FailureReport report{.reason = "http://a.example/robots.txt unreachable: refused",
                       .kind = FailureKind::kRobotsUnreachable};
  ASSERT_OK_AND_ASSIGN(uint64_t n, s->FailQueued("a.example", "http://a.example", report));
  EXPECT_EQ(n, 2u);  // /2 and ?q; /1 is leased; the port, the scheme and a.example.org differ
  ASSERT_OK_AND_ASSIGN(std::vector<FailedPage> failed, Scheduler::FailedPages(*db));
  EXPECT_EQ(UrlsOf(failed), (std::set<std::string>{"http://a.example/2", "http://a.example/?q"}));
  for (const FailedPage& page : failed) {
    EXPECT_EQ(page.kind, FailureKind::kRobotsUnreachable);
    EXPECT_EQ(page.detail, report.reason);
    EXPECT_EQ(page.failed_ms, 7'000);
  }
  ASSERT_OK_AND_ASSIGN(n, s->FailQueued("nowhere.example", "http://nowhere.example", report));
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(s->GetStats().failed, 2u);
}

// Issue #42: the links a known robots.txt refuses come with the report of the page that
// names them (CrawlReport::refused) and fail in its transaction, new or queued; a page
// already crawled, or crawled by the same batch, stays crawled.
TEST(FailedPagesTest, LinksARobotsTxtRefusesFailWithThePageThatNamesThem) {
  TempDir dir;
  ManualClock clock(5'000);
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  {
    ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, Options(clock)));
    ASSERT_OK(s->AddSeeds({"http://a.example/", "http://a.example/done"}));
    ASSERT_OK_AND_ASSIGN(std::vector<Request> out, s->Next(10));
    ASSERT_EQ(out.size(), 2u);
    ASSERT_OK(s->AddSeeds({"http://a.example/queued"}));
    const auto lease_of = [&](const std::string& url) {
      return std::find_if(out.begin(), out.end(), [&](const Request& r) { return r.url == url; })
          ->lease;
    };
    CrawlReport done{.page = {.url = "http://a.example/done"},
                     .lease = lease_of("http://a.example/done")};
    CrawlReport root{.page = {.url = "http://a.example/",
                              .links = {{"http://a.example/new"}, {"http://a.example/queued"},
                                        {"http://a.example/done"}, {"http://a.example/open"}}},
                     .lease = lease_of("http://a.example/")};
    root.refused = {
        {.url = "http://a.example/new", .retryable = false, .reason = "robots.txt disallows it",
         .kind = FailureKind::kRobotsDisallowed},
        {.url = "http://a.example/queued", .retryable = false,
         .reason = "http://a.example/robots.txt unreachable: HTTP 503",
         .kind = FailureKind::kRobotsUnreachable},
        {.url = "http://a.example/done", .retryable = false, .reason = "robots.txt disallows it",
         .kind = FailureKind::kRobotsDisallowed}};
    // A refusal naming a URL that cannot be canonicalised fails the call, writing nothing.
    CrawlReport bad = root;
    bad.refused.push_back({.url = "not a url", .retryable = false});
    EXPECT_EQ(s->CrawledBatch({done, bad}).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s->GetStats().crawled, 0u);

    // A link refused twice in the batch is failed, and counted, once.
    root.refused.push_back(root.refused[0]);
    ASSERT_OK(s->CrawledBatch({done, root}));
    ASSERT_OK_AND_ASSIGN(const CrawlCounters totals, db->NewSnapshot()->CrawlTotals());
    EXPECT_EQ(totals.failed_pages, 2u);
    const SchedulerStats stats = s->GetStats();
    EXPECT_EQ(stats.crawled, 2u);
    EXPECT_EQ(stats.failed, 2u);
    EXPECT_EQ(stats.queued, 1u);
    ASSERT_OK_AND_ASSIGN(std::vector<Request> next, s->Next(10));
    ASSERT_EQ(next.size(), 1u);
    EXPECT_EQ(next[0].url, "http://a.example/open");
  }
  // Kept: a reopened scheduler has the same failures, each as its refusal said.
  ASSERT_OK_AND_ASSIGN(auto reopened, Scheduler::Open(*db, Options(clock)));
  EXPECT_EQ(reopened->GetStats().failed, 2u);
  ASSERT_OK_AND_ASSIGN(std::vector<FailedPage> failed, Scheduler::FailedPages(*db));
  ASSERT_EQ(failed.size(), 2u);
  std::map<std::string, FailedPage> by_url;
  for (FailedPage& page : failed) by_url[page.url] = page;
  EXPECT_EQ(by_url.at("http://a.example/new").kind, FailureKind::kRobotsDisallowed);
  EXPECT_EQ(by_url.at("http://a.example/new").attempts, 1u);
  EXPECT_EQ(by_url.at("http://a.example/queued").kind, FailureKind::kRobotsUnreachable);
  EXPECT_EQ(by_url.at("http://a.example/queued").detail,
            "http://a.example/robots.txt unreachable: HTTP 503");
  EXPECT_EQ(by_url.at("http://a.example/queued").failed_ms, 5'000);
}

TEST(FailedPagesTest, CommittedVersion3DbIsReadThenUpgradedInPlace) {
  TempDir dir;
  const std::string path = testing::CopyCommittedDb(dir, 3);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  std::vector<FailedPage> before;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
    EXPECT_EQ(db->Info()->format_version, 3u);
    ASSERT_OK(db->Check());
    ASSERT_OK_AND_ASSIGN(before, Scheduler::FailedPages(*db));
  }
  ASSERT_EQ(before.size(), 2u);
  EXPECT_EQ(before[0].url, "http://a.example/private");
  EXPECT_EQ(before[0].kind, FailureKind::kRobotsDisallowed);
  EXPECT_EQ(before[1].url, "http://c.example/");
  EXPECT_EQ(before[1].kind, FailureKind::kHttp4xx);
  EXPECT_EQ(before[1].http_status, 429);
  EXPECT_EQ(before[1].failed_ms, 0);
  // A writer refuses it, naming the upgrade; the upgrade carries it over.
  const Status refused = PageDb::Open(path, Fast()).status();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("page_db_upgrade"), std::string::npos) << refused.ToString();
  PageDbOptions upgrade = Fast();
  upgrade.upgrade = true;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, upgrade));
    EXPECT_EQ(db->Info()->format_version, kPageDbFormatVersion);
    ManualClock clock(0);
    ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, Options(clock)));
    // The schedule the version 3 crawl left: 1 crawled, 2 failed, 1 retrying, 2 queued.
    const SchedulerStats stats = s->GetStats();
    EXPECT_EQ(stats.crawled, 1u);
    EXPECT_EQ(stats.failed, 2u);
    EXPECT_EQ(stats.retrying, 1u);
    EXPECT_EQ(stats.queued, 2u);
  }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  EXPECT_EQ(db->Info()->format_version, kPageDbFormatVersion);
  ASSERT_OK(db->Check());
  ASSERT_OK_AND_ASSIGN(std::vector<FailedPage> after, Scheduler::FailedPages(*db));
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].url, before[i].url);
    EXPECT_EQ(after[i].kind, before[i].kind);
    EXPECT_EQ(after[i].detail, before[i].detail);
    EXPECT_EQ(after[i].attempts, before[i].attempts);
  }
}

}  // namespace
}  // namespace crawlrank
