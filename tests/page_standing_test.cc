// Page standings (crawlrank/page_standing.h): each page of a scoped, filtered crawl in one
// word, against what the test did to it, and against the scheduler's own counts.
#include "crawlrank/page_standing.h"

#include <map>

#include "crawlrank/scheduler.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

// A crawl of `hosts` (same-host scope) that denies /private/ and goes one link deep.
SchedulerOptions ScopedOptions(const ManualClock& clock, std::vector<std::string> hosts) {
  SchedulerOptions options;
  options.clock = &clock;
  options.scope = CrawlScope::kSameHost;
  options.scope_hosts = std::move(hosts);
  options.deny = {"/private/"};
  options.max_depth = 1;
  return options;
}

// Each page's URL with its standing's name.
std::map<std::string, std::string> NamesOf(const Snapshot& snapshot,
                                           const PageStandings& standings) {
  std::map<std::string, std::string> names;
  EXPECT_OK(snapshot.ForEachPage([&](const PageRecord& page) {
    names[page.url] = standings.NameOf(page.id);
    return Status::Ok();
  }));
  return names;
}

TEST(PageStandingTest, EachPageStandsAsTheCrawlJudgesIt) {
  TempDir dir;
  ManualClock clock(1'000);
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  SchedulerOptions options = ScopedOptions(clock, {"a.example", "c.example"});
  options.delay_ms = 0;
  options.per_host = 10;
  options.max_retries = 0;
  std::map<std::string, std::string> expected;
  {
    ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, options));
    ASSERT_OK(s->AddSeeds({"http://a.example/"}));
    ASSERT_OK_AND_ASSIGN(std::vector<Request> seed, s->Next(1));
    ASSERT_EQ(seed.size(), 1u);
    CrawlReport report;
    report.lease = seed[0].lease;
    report.page.url = seed[0].url;
    report.page.http_status = 200;
    report.page.links = {{"http://a.example/1"}, {"http://a.example/2"}, {"http://a.example/3"},
                         {"http://a.example/private/4"}, {"http://b.example/5"}};
    ASSERT_OK(s->Crawled(report));
    ASSERT_OK_AND_ASSIGN(std::vector<Request> next, s->Next(10));
    ASSERT_EQ(next.size(), 3u);  // /1, /2, /3: the private page and b.example never come
    for (const Request& r : next) {
      if (r.url == "http://a.example/1") {  // crawled, linking one level deeper
        CrawlReport deeper;
        deeper.lease = r.lease;
        deeper.page.url = r.url;
        deeper.page.http_status = 404;
        deeper.page.links = {{"http://a.example/1/deep"}};
        ASSERT_OK(s->Crawled(deeper));
      } else if (r.url == "http://a.example/2") {
        ASSERT_OK(s->Failed({.url = r.url, .lease = r.lease, .retryable = false,
                             .reason = "refused", .kind = FailureKind::kConnect}));
      }
      // /3 stays handed out: pending.
    }
    ASSERT_OK(s->AddSeeds({"http://c.example/gone"}));
    ASSERT_OK(s->Remove({.host = "c.example", .created_before_ms = 0}).status());
    const SchedulerStats stats = s->GetStats();
    EXPECT_EQ(stats.out_of_scope, 1u);
    EXPECT_EQ(stats.filtered, 2u);  // the private page, and /1/deep at depth 2
  }
  expected = {{"http://a.example/", "crawled"},
              {"http://a.example/1", "crawled"},
              {"http://a.example/2", "failed:connect"},
              {"http://a.example/3", "pending"},  // handed out, not reported
              {"http://a.example/private/4", "filtered"},
              {"http://b.example/5", "out_of_scope"},
              {"http://a.example/1/deep", "filtered"},  // depth 2, past max_depth 1
              {"http://c.example/gone", "removed"}};
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const PageStandings standings, ReadPageStandings(*db, snapshot, options));
  ASSERT_EQ(standings.by_id.size(), expected.size());
  EXPECT_EQ(NamesOf(snapshot, standings), expected);
}

TEST(PageStandingTest, WithoutRemovalsTheFiltersAndTheQueueShow) {
  TempDir dir;
  ManualClock clock(1'000);
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  const SchedulerOptions options = ScopedOptions(clock, {"a.example"});
  {
    ASSERT_OK_AND_ASSIGN(auto s, Scheduler::Open(*db, options));
    CrawlReport report;
    report.page.url = "http://a.example/";
    report.page.http_status = 200;
    report.page.links = {{"http://a.example/1"}, {"http://a.example/private/2"},
                         {"http://b.example/3"}};
    ASSERT_OK(s->Crawled(report));
  }
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const PageStandings standings, ReadPageStandings(*db, snapshot, options));
  EXPECT_EQ(NamesOf(snapshot, standings), (std::map<std::string, std::string>{{"http://a.example/", "crawled"},
                                                     {"http://a.example/1", "pending"},
                                                     {"http://a.example/private/2", "filtered"},
                                                     {"http://b.example/3", "out_of_scope"}}));
  // Any scope and no filters: every page not crawled is pending.
  ASSERT_OK_AND_ASSIGN(const PageStandings open, ReadPageStandings(*db, snapshot, {}));
  for (uint32_t id = 0; id < open.by_id.size(); ++id) {
    EXPECT_TRUE(open.by_id[id] == PageStanding::kCrawled ||
                open.by_id[id] == PageStanding::kPending)
        << open.NameOf(id);
  }
}

}  // namespace
}  // namespace crawlrank
