// The scheduler's steering calls (src/schedule/scheduler_steer.cc): Remove and
// SetHostLimit, each state a page can be in, against counts worked out by hand, and kept
// across a reopen. A ManualClock drives the scheduler; nothing sleeps but the one test of
// creation times, which needs the PageDB's wall clock to pass a second.
#include <chrono>
#include <set>
#include <thread>

#include "crawlrank/scheduler.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

std::set<std::string> UrlSet(const std::vector<Request>& requests) {
  std::set<std::string> urls;
  for (const Request& r : requests) urls.insert(r.url);
  return urls;
}

CrawledPage FetchedPage(std::string url) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = 1;
  page.http_status = 200;
  return page;
}

class SchedulerSteerTest : public ::testing::Test {
 protected:
  void Open() {
    scheduler_.reset();
    db_.reset();
    ASSERT_OK_AND_ASSIGN(db_, PageDb::Open(dir_.Sub("db"), Fast()));
    SchedulerOptions options;
    options.score = ScoreMode::kLinkScore;
    options.delay_ms = 0;
    options.per_host = 1000;
    options.retry_ms = 1000;
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(scheduler_, Scheduler::Open(*db_, options));
  }
  std::vector<Request> Next(size_t n) {
    auto next = scheduler_->Next(n);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    return next.ok() ? *next : std::vector<Request>{};
  }
  // Where `url` stands, as a reader of the DB sees it.
  PageState::Kind KindOf(const std::string& url) {
    auto snapshot = db_->NewSnapshot();
    EXPECT_TRUE(snapshot.ok());
    auto page = snapshot->FindUrl(url);
    EXPECT_TRUE(page.ok()) << url;
    auto states = Scheduler::StatesOf(*db_, *snapshot, {&*page, 1});
    EXPECT_TRUE(states.ok());
    return states->front().kind;
  }

  TempDir dir_;
  ManualClock clock_{1'000'000};
  std::unique_ptr<PageDb> db_;
  std::unique_ptr<Scheduler> scheduler_;
};

// a.example holds a page in every state: crawled, failed for good, retrying, leased,
// queued; b.example one queued page.
TEST_F(SchedulerSteerTest, RemovingAHostTakesEveryStateAndCountsThoseNotDone) {
  Open();
  const std::string a = "http://a.example/";
  ASSERT_OK(scheduler_->AddSeeds({a + "crawled", a + "failed", a + "retrying", a + "leased",
                                  a + "queued", "http://b.example/"}));
  std::map<std::string, Request> out;
  for (Request& r : Next(6)) out[r.url] = r;
  ASSERT_EQ(out.size(), 6u);
  ASSERT_OK(scheduler_->Crawled({FetchedPage(a + "crawled"), out[a + "crawled"].lease}));
  ASSERT_OK(scheduler_->Failed({.url = a + "failed", .lease = out[a + "failed"].lease,
                                .retryable = false, .http_status = 404, .reason = "gone"}));
  ASSERT_OK(scheduler_->Failed({.url = a + "retrying", .lease = out[a + "retrying"].lease}));
  // "queued" and b.example's page go back: their leases run out.
  clock_.Advance(SchedulerOptions().lease_ms + 1);
  const std::vector<Request> again = Next(6);
  EXPECT_EQ(UrlSet(again), (std::set<std::string>{a + "leased", a + "queued", a + "retrying",
                                                 "http://b.example/"}));
  ASSERT_OK_AND_ASSIGN(const RemoveCounts counts, scheduler_->Remove({.host = "a.example"}));
  EXPECT_EQ(counts.removed, 5u);
  EXPECT_EQ(counts.active, 3u) << "retrying, leased and queued were not done";
  SchedulerStats stats = scheduler_->GetStats();
  EXPECT_EQ(stats.removed, 5u);
  EXPECT_EQ(stats.crawled, 0u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.in_flight, 1u) << "b.example's lease only";
  for (const char* path : {"crawled", "failed", "retrying", "leased", "queued"}) {
    EXPECT_EQ(KindOf(a + path), PageState::Kind::kRemoved) << path;
  }
  // A late report of a removed page: its record takes the fetch, it stays removed.
  for (const Request& r : again) {
    if (r.url == a + "leased") ASSERT_OK(scheduler_->Crawled({FetchedPage(r.url), r.lease}));
  }
  EXPECT_EQ(KindOf(a + "leased"), PageState::Kind::kRemoved);
  // Found again, it stays removed; a new page of the host is queued as usual.
  ASSERT_OK(scheduler_->AddSeeds({a + "queued", a + "new"}));
  clock_.Advance(SchedulerOptions().lease_ms + 1);
  EXPECT_EQ(UrlSet(Next(10)), (std::set<std::string>{a + "new", "http://b.example/"}));
  // Nothing is handed out again after a restart either; the DB checks clean.
  Open();
  stats = scheduler_->GetStats();
  EXPECT_EQ(stats.removed, 5u);
  EXPECT_EQ(stats.queued, 2u);
  EXPECT_EQ(UrlSet(Next(10)), (std::set<std::string>{a + "new", "http://b.example/"}));
  EXPECT_OK(db_->Check());
  ASSERT_OK_AND_ASSIGN(const RemoveCounts twice, scheduler_->Remove({.host = "a.example"}));
  EXPECT_EQ(twice.removed, 1u) << "only the new page";
  ASSERT_OK_AND_ASSIGN(const RemoveCounts none, scheduler_->Remove({.host = "c.example"}));
  EXPECT_EQ(none.removed, 0u);
}

TEST_F(SchedulerSteerTest, RemovingEverythingFinishesTheCrawl) {
  Open();
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/", "http://b.example/", "http://c.example/"}));
  const std::vector<Request> one = Next(1);
  ASSERT_OK_AND_ASSIGN(const RemoveCounts counts, scheduler_->Remove({}));
  EXPECT_EQ(counts.removed, 3u);
  EXPECT_EQ(counts.active, 3u);
  EXPECT_TRUE(Next(10).empty());
  EXPECT_TRUE(scheduler_->GetStats().finished);
  EXPECT_EQ(scheduler_->Remove({.created_before_ms = -1}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(SchedulerSteerTest, RemovingByCreationTimeTakesThePagesOfEarlierSecondsOnly) {
  Open();
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/old", "http://b.example/old"}));
  // Creation marks are of whole seconds of the wall clock (the PageDB's).
  const int64_t first = UnixNowMs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 - first % 1000 + 10));
  const int64_t boundary = UnixNowMs();
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/new"}));
  ASSERT_OK_AND_ASSIGN(auto snapshot, db_->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const std::vector<CreationMark> marks, snapshot.CreationMarks());
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[1].first_id, 2u);
  EXPECT_LE(marks[1].ms, UnixNowMs());
  EXPECT_GE(marks[1].ms, boundary);
  ASSERT_OK_AND_ASSIGN(const RemoveCounts counts,
                       scheduler_->Remove({.host = "a.example", .created_before_ms = boundary}));
  EXPECT_EQ(counts.removed, 1u);
  EXPECT_EQ(KindOf("http://a.example/old"), PageState::Kind::kRemoved);
  EXPECT_EQ(KindOf("http://b.example/old"), PageState::Kind::kQueued);
  EXPECT_EQ(KindOf("http://a.example/new"), PageState::Kind::kQueued);
}

TEST_F(SchedulerSteerTest, AHostLimitCapsItsPagesReplacesTheDefaultAndLasts) {
  Open();
  std::vector<std::string> seeds;
  for (int i = 0; i < 5; ++i) seeds.push_back("http://a.example/" + std::to_string(i));
  seeds.push_back("http://b.example/");
  ASSERT_OK(scheduler_->AddSeeds(seeds));
  ASSERT_OK(scheduler_->SetHostLimit("a.example", 2));
  std::vector<Request> out = Next(10);
  EXPECT_EQ(out.size(), 3u) << "2 of a.example (done + in flight), b.example's";
  for (const Request& r : out) ASSERT_OK(scheduler_->Crawled({FetchedPage(r.url), r.lease}));
  EXPECT_TRUE(Next(10).empty());
  Open();  // the limit is in the host's entry
  EXPECT_TRUE(Next(10).empty());
  ASSERT_OK(scheduler_->SetHostLimit("a.example", 3));
  EXPECT_EQ(Next(10).size(), 1u);
  ASSERT_OK(scheduler_->SetHostLimit("a.example", 0));  // no limit of its own: none at all
  EXPECT_EQ(Next(10).size(), 2u);
  EXPECT_OK(db_->Check());
}

}  // namespace
}  // namespace crawlrank
