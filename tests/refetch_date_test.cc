// Refetch dates (CrawlReport::refetch_at_ms; URLFrontier's refetchable_from_date): a
// crawled page due again at a time its fetcher gave, kept as schedule state 5 (format
// version 8). Every time below is worked out by hand from the ManualClock; nothing sleeps.
#include <filesystem>

#include "crawlrank/scheduler.h"
#include "page_db/schedule_table.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

CrawledPage PageFetchedAt(const std::string& url, int64_t when_ms) {
  CrawledPage page;
  page.url = url;
  page.crawl_time_ms = when_ms;
  page.http_status = 200;
  return page;
}

class RefetchDateTest : public ::testing::Test {
 protected:
  // Revisits off (the default), no politeness: only dates bring a page back.
  static SchedulerOptions NoRevisits() {
    SchedulerOptions options;
    options.score = ScoreMode::kLinkScore;
    options.delay_ms = 0;
    options.per_host = 1000;
    return options;
  }
  void Open(SchedulerOptions options) {
    scheduler_.reset();
    db_.reset();
    ASSERT_OK_AND_ASSIGN(db_, PageDb::Open(dir_.Sub("db"), Fast()));
    options.clock = &clock_;
    options_ = options;
    ASSERT_OK_AND_ASSIGN(scheduler_, Scheduler::Open(*db_, options));
  }
  std::vector<Request> Next(size_t n) {
    auto next = scheduler_->Next(n);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    return next.ok() ? *next : std::vector<Request>{};
  }
  // Reports `r` fetched now, due again at `date_ms` (0: no date).
  void Report(const Request& r, int64_t date_ms) {
    ASSERT_OK(scheduler_->Crawled(
        {.page = PageFetchedAt(r.url, clock_.NowMs()), .lease = r.lease, .refetch_at_ms = date_ms}));
  }
  // Where `url` stands, as a reader beside the crawl sees it.
  PageState StateOf(const std::string& url) {
    PageDbOptions reading = Fast();
    reading.read_only = true;
    auto reader = PageDb::Open(dir_.Sub("db"), reading);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return {};
    auto snapshot = (*reader)->NewSnapshot();
    EXPECT_TRUE(snapshot.ok());
    auto record = snapshot->Find(UrlFingerprint(url));
    EXPECT_TRUE(record.ok()) << url;
    if (!record.ok()) return {};
    auto states = Scheduler::StatesOf(**reader, *snapshot, std::span(&*record, 1));
    EXPECT_TRUE(states.ok()) << states.status().ToString();
    return states.ok() ? states->front() : PageState{};
  }

  TempDir dir_;
  ManualClock clock_{1'000'000};
  SchedulerOptions options_;
  std::unique_ptr<PageDb> db_;
  std::unique_ptr<Scheduler> scheduler_;
};

TEST_F(RefetchDateTest, ADatedPageComesBackAtItsDateWithRevisitsOff) {
  Open(NoRevisits());
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/", "http://b.example/"}));
  const std::vector<Request> first = Next(10);
  ASSERT_EQ(first.size(), 2u);
  const Request& a = first[0].url == "http://a.example/" ? first[0] : first[1];
  const Request& b = first[0].url == "http://a.example/" ? first[1] : first[0];
  Report(a, 1'005'000);
  Report(b, 0);
  SchedulerStats stats = scheduler_->GetStats();
  EXPECT_FALSE(stats.finished);  // a is due again
  EXPECT_EQ(stats.next_revisit_ms, 1'005'000);
  clock_.Advance(4'999);
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(1);
  const std::vector<Request> again = Next(10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].url, "http://a.example/");
  EXPECT_TRUE(again[0].revisit);
  EXPECT_EQ(again[0].last_crawl_ms, 1'000'000);
  // Reported without a date: with revisits off it is done, and the crawl with it.
  Report(again[0], 0);
  stats = scheduler_->GetStats();
  EXPECT_TRUE(stats.finished);
  EXPECT_EQ(stats.next_revisit_ms, -1);
  clock_.Advance(1'000'000);
  EXPECT_TRUE(Next(10).empty());
  EXPECT_EQ(StateOf("http://a.example/").time_ms, 0);
  EXPECT_OK(db_->Check());
}

TEST_F(RefetchDateTest, ADateSurvivesRestartsAndARevisitCutShortIsDueAtTheNextOpen) {
  Open(NoRevisits());
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Report(Next(1).at(0), 1'007'000);
  const PageState stored = StateOf("http://a.example/");
  EXPECT_EQ(stored.kind, PageState::Kind::kCrawled);
  EXPECT_EQ(stored.time_ms, 1'007'000);
  Open(NoRevisits());  // the crawl stopped and resumed
  EXPECT_OK(db_->Check());
  EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, 1'007'000);
  EXPECT_TRUE(Next(10).empty());
  clock_.Set(1'007'000);
  ASSERT_EQ(Next(10).size(), 1u);
  // Killed with the revisit out: the next writer finds it due at once.
  clock_.Set(1'009'000);
  Open(NoRevisits());
  EXPECT_OK(db_->Check());
  EXPECT_EQ(StateOf("http://a.example/").time_ms, 1'009'000);
  const std::vector<Request> resumed = Next(10);
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_TRUE(resumed[0].revisit);
  Report(resumed[0], 0);
  EXPECT_TRUE(scheduler_->GetStats().finished);
  Open(NoRevisits());
  EXPECT_TRUE(scheduler_->GetStats().finished);
}

TEST_F(RefetchDateTest, AFailedRevisitIsDueAgainAfterRetryMsAcrossARestart) {
  SchedulerOptions options = NoRevisits();
  options.retry_ms = 2'000;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Report(Next(1).at(0), 1'001'000);
  clock_.Set(1'001'000);
  const Request revisit = Next(1).at(0);
  ASSERT_OK(scheduler_->Failed({.url = revisit.url, .lease = revisit.lease, .reason = "timed out"}));
  EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, 1'003'000);
  Open(options);
  EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, 1'003'000);
  EXPECT_EQ(scheduler_->GetStats().crawled, 1u);  // it keeps its crawl
  clock_.Set(1'002'999);
  EXPECT_TRUE(Next(1).empty());
  clock_.Set(1'003'000);
  EXPECT_EQ(Next(1).size(), 1u);
}

TEST_F(RefetchDateTest, TheFetchersDateWinsOverTheRevisitEstimate) {
  SchedulerOptions options = NoRevisits();
  options.revisits = true;
  options.min_revisit_ms = 1'000;
  options.max_revisit_ms = 100'000;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Report(Next(1).at(0), 1'050'000);  // the estimate would say 1'001'000 (min_revisit_ms)
  EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, 1'050'000);
  clock_.Set(1'001'000);
  EXPECT_TRUE(Next(1).empty());
  clock_.Set(1'050'000);
  const Request revisit = Next(1).at(0);
  // Without a date, the estimate again: seen twice, unchanged, still min_revisit_ms.
  Report(revisit, 0);
  EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, 1'051'000);
  // On open the estimate restarts from the record (revisit_estimator.h): two crawls 50 s
  // apart, so 50 s after the last. The date is gone: it was not kept past its revisit.
  Open(options);
  EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, 1'100'000);
}

TEST_F(RefetchDateTest, AtMaxPagesTheCrawlIsFinishedYetDatedPagesAreRevisited) {
  SchedulerOptions options = NoRevisits();
  options.max_pages = 1;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  ASSERT_OK(scheduler_->AddSeeds({"http://b.example/"}));
  const Request a = Next(10).at(0);
  EXPECT_EQ(a.url, "http://a.example/");
  Report(a, 1'001'000);
  const SchedulerStats stats = scheduler_->GetStats();
  EXPECT_TRUE(stats.finished);
  EXPECT_TRUE(stats.limit_reached);
  clock_.Set(1'001'000);
  const std::vector<Request> due = Next(10);
  ASSERT_EQ(due.size(), 1u);  // b stays queued: max_pages counts pages, not fetches
  EXPECT_EQ(due[0].url, "http://a.example/");
  EXPECT_TRUE(due[0].revisit);
}

TEST_F(RefetchDateTest, ADateBefore1970IsRefusedBeforeAnythingIsWritten) {
  Open(NoRevisits());
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  const Request a = Next(1).at(0);
  const Status refused =
      scheduler_->Crawled({.page = PageFetchedAt(a.url, 1), .lease = a.lease, .refetch_at_ms = -5});
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("http://a.example/"), std::string::npos) << refused.ToString();
  EXPECT_NE(refused.message().find("before 1970"), std::string::npos) << refused.ToString();
  EXPECT_EQ(scheduler_->GetStats().crawled, 0u);
  EXPECT_EQ(scheduler_->GetStats().in_flight, 1u);
}

// docs/format.md's example of state 5.
TEST(RefetchDateTableTest, StateFiveIsNewInVersion8AndKeepsNoTier) {
  ScheduleEntry due;
  due.state = EntryState::kDue;
  due.time_ms = 1'700'000'000'000;
  due.priority = 3;  // not kept: a crawled page has no tier
  std::string value;
  EncodeScheduleEntry(due, &value);
  EXPECT_EQ(value, std::string("\x05\x00\x80\xa0\xab\xfe\xf9\x62", 8));
  ScheduleEntry decoded;
  ASSERT_OK(DecodeScheduleEntry(7, value, &decoded));
  EXPECT_EQ(decoded.state, EntryState::kDue);
  EXPECT_EQ(decoded.time_ms, 1'700'000'000'000);
  EXPECT_EQ(decoded.priority, 0);
  EXPECT_EQ(DecodeScheduleEntry(7, value + "\x06", &decoded).code(), StatusCode::kDataLoss);
  EXPECT_EQ(DecodeScheduleEntry(7, value, &decoded, 7).code(), StatusCode::kDataLoss);
  EXPECT_EQ(DecodeScheduleEntry(7, std::string("\x06\x00\x00", 3), &decoded).code(),
            StatusCode::kDataLoss);
}

// A date is kept only for a crawled page: on any other, Check and the scheduler say so.
TEST(RefetchDateCheckTest, ADateOfAPageNeverCrawledIsDamage) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    CrawledPage page = PageFetchedAt("http://a.example/", 1);
    page.links.push_back({"http://a.example/x", 0});
    ASSERT_OK(db->Add(page));
  }
  // Page 1, http://a.example/x, never crawled: "due at 1 ms".
  testing::PutRaw(path, "schedule", std::string("\0\0\0\x01", 4), std::string("\x05\x00\x02", 3));
  PageDbOptions reading = Fast();
  reading.read_only = true;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
    const Status check = db->Check();
    EXPECT_EQ(check.code(), StatusCode::kDataLoss);
    EXPECT_NE(check.message().find("page 1: due again, but it was never crawled"),
              std::string::npos)
        << check.ToString();
  }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
  const Status opened = Scheduler::Open(*db, SchedulerOptions()).status();
  EXPECT_EQ(opened.code(), StatusCode::kDataLoss);
  EXPECT_NE(opened.message().find("page 1, which is not crawled, due again"), std::string::npos)
      << opened.ToString();
}

}  // namespace
}  // namespace crawlrank
