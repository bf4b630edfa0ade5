// The broken links of a crawl (src/schedule/broken_links.h): 4xx/5xx pages crawled or
// failed for good, with the pages linking to them, most linked first.
#include "crawlrank/broken_links.h"

#include <gtest/gtest.h>

#include "crawlrank/clock.h"
#include "crawlrank/scheduler.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

CrawledPage Page(std::string url, uint16_t status, std::vector<std::string> links = {}) {
  CrawledPage page;
  page.url = std::move(url);
  page.http_status = status;
  for (std::string& to : links) page.links.push_back({std::move(to), 0.f});
  return page;
}

TEST(BrokenLinksTest, AnswersOf4xxAnd5xxAndPagesFailedForGoodWithTheirReferrers) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  ManualClock clock(1'000'000);
  SchedulerOptions options;
  options.clock = &clock;
  options.delay_ms = 0;
  options.max_retries = 0;
  options.per_host = 4;
  ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
  ASSERT_OK(scheduler->AddSeeds({"http://a.test/"}));
  ASSERT_OK_AND_ASSIGN(auto batch, scheduler->Next(1));
  ASSERT_EQ(batch.size(), 1u);
  ASSERT_OK(scheduler->Crawled(
      {.page = Page("http://a.test/", 200,
                    {"http://a.test/gone", "http://a.test/down", "http://a.test/ok"}),
       .lease = batch[0].lease}));
  ASSERT_OK_AND_ASSIGN(batch, scheduler->Next(10));
  ASSERT_EQ(batch.size(), 3u);
  for (const Request& r : batch) {
    if (r.url.ends_with("/gone")) {
      ASSERT_OK(scheduler->Crawled(
          {.page = Page(r.url, 404, {"http://a.test/down"}), .lease = r.lease}));
    } else if (r.url.ends_with("/down")) {
      ASSERT_OK(scheduler->Failed({.url = r.url, .lease = r.lease, .http_status = 503,
                                   .reason = "down"}));
    } else {
      ASSERT_OK(scheduler->Crawled({.page = Page(r.url, 200), .lease = r.lease}));
    }
  }
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(std::vector<BrokenPage> broken, FindBrokenPages(*db, snapshot));
  ASSERT_EQ(broken.size(), 2u);
  // /down: linked from / and from /gone; failed for good. /gone: linked from / alone.
  EXPECT_EQ(broken[0].url, "http://a.test/down");
  EXPECT_TRUE(broken[0].failed);
  EXPECT_EQ(broken[0].http_status, 503);
  ASSERT_EQ(broken[0].referrers.size(), 2u);
  ASSERT_OK_AND_ASSIGN(PageRecord home, snapshot.FindUrl("http://a.test/"));
  ASSERT_OK_AND_ASSIGN(PageRecord gone, snapshot.FindUrl("http://a.test/gone"));
  EXPECT_EQ(broken[0].referrers, (std::vector<uint32_t>{home.id, gone.id}));
  EXPECT_EQ(broken[1].url, "http://a.test/gone");
  EXPECT_FALSE(broken[1].failed);
  EXPECT_EQ(broken[1].http_status, 404);
  EXPECT_EQ(broken[1].referrers, (std::vector<uint32_t>{home.id}));
}

}  // namespace
}  // namespace crawlrank
