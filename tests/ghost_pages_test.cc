// Ghost pages (format version 9): a node of a cluster keeps the pages another node owns
// for the links to them (SchedulerOptions::elsewhere), and never queues, counts or shows
// them. The expectations are worked out by hand from the links each test writes.
#include <lmdb.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/coding.h"
#include "crawlrank/page_standing.h"
#include "crawlrank/scheduler.h"
#include "page_db/page_db_impl.h"
#include "page_db/schedule_table.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

// This node owns every host but b.test.
SchedulerOptions NodeOptions() {
  SchedulerOptions options;
  options.delay_ms = 0;
  options.elsewhere = [](std::string_view url) { return url.starts_with("http://b.test/"); };
  return options;
}

std::vector<std::string> HandOutAll(Scheduler& scheduler) {
  std::vector<std::string> urls;
  auto batch = scheduler.Next(100);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  if (!batch.ok()) return urls;
  for (const Request& r : *batch) urls.push_back(r.url);
  std::sort(urls.begin(), urls.end());
  return urls;
}

// Seeds http://a.test/, hands it out and reports it crawled with links to a.test/x and,
// on the other node, b.test/y and b.test/z.
Status CrawlSeedLinkingAcross(Scheduler& scheduler) {
  CRAWLRANK_RETURN_IF_ERROR(scheduler.AddSeeds({"http://a.test/"}));
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<Request> first, scheduler.Next(10));
  if (first.size() != 1) return InternalError("the seed was not handed out");
  return scheduler.Crawled(
      {.page = {.url = "http://a.test/",
                .http_status = 200,
                .links = {{.url = "http://a.test/x"}, {.url = "http://b.test/y"},
                          {.url = "http://b.test/z"}}},
       .lease = first[0].lease});
}

TEST(GhostEntryTest, StateSixHasNothingButItsByteAndNoFailuresFromVersion9) {
  ScheduleEntry ghost;
  ghost.state = EntryState::kElsewhere;
  std::string value;
  EncodeScheduleEntry(ghost, &value);
  EXPECT_EQ(value, std::string("\x06\x00", 2));
  ScheduleEntry read;
  EXPECT_OK(DecodeScheduleEntry(7, value, &read, 9));
  EXPECT_EQ(read.state, EntryState::kElsewhere);
  EXPECT_EQ(DecodeScheduleEntry(7, value, &read, 8).code(), StatusCode::kDataLoss);
  EXPECT_EQ(DecodeScheduleEntry(7, std::string("\x06\x01", 2), &read, 9).code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(DecodeScheduleEntry(7, std::string("\x06\x00\x02", 3), &read, 9).code(),
            StatusCode::kDataLoss);
}

TEST(GhostPagesTest, LinksToAnotherNodesPagesAreKeptAndThosePagesNeverHandedOut) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, NodeOptions()));
    ASSERT_OK(CrawlSeedLinkingAcross(*scheduler));
    EXPECT_EQ(HandOutAll(*scheduler), std::vector<std::string>{"http://a.test/x"});
    const SchedulerStats stats = scheduler->GetStats();
    EXPECT_EQ(stats.ghosts, 2u);
    EXPECT_EQ(stats.queued, 0u);
    EXPECT_EQ(stats.in_flight, 1u);
    EXPECT_EQ(stats.hosts, 1u);  // b.test is the other node's
  }
  // Read back without the predicate: the state is stored.
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  EXPECT_OK(db->Check());
  EXPECT_EQ(db->Info()->format_version, kPageDbFormatVersion);
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  EXPECT_EQ(snapshot.counters().pages, 4u);  // every record: a.test/, its three links
  std::vector<uint32_t> targets;
  for (EdgeCursor edges = snapshot.Edges(); edges.Valid(); edges.Next()) {
    for (uint32_t t : edges.targets()) targets.push_back(t);
  }
  EXPECT_EQ(targets.size(), 3u);  // the links to the ghosts stay in the graph
  ASSERT_OK_AND_ASSIGN(const CrawlCounters totals, snapshot.CrawlTotals());
  EXPECT_EQ(totals.pages, 2u);
  EXPECT_EQ(totals.ghost_pages, 2u);
  std::vector<std::string> hosts;
  ASSERT_OK(snapshot.ForEachHostTotals([&](std::string_view host, const CrawlCounters&) {
    hosts.emplace_back(host);
    return Status::Ok();
  }));
  EXPECT_EQ(hosts, std::vector<std::string>{"a.test"});
  ASSERT_OK_AND_ASSIGN(const std::vector<uint32_t> ghosts, Scheduler::GhostPages(*db, snapshot));
  ASSERT_EQ(ghosts.size(), 2u);
  for (uint32_t id : ghosts) {
    ASSERT_OK_AND_ASSIGN(const PageRecord page, snapshot.FindId(id));
    EXPECT_TRUE(page.url.starts_with("http://b.test/")) << page.url;
    EXPECT_EQ(page.depth, 1u);
    ASSERT_OK_AND_ASSIGN(const auto states, Scheduler::StatesOf(*db, snapshot, {&page, 1}));
    EXPECT_EQ(states.front().kind, PageState::Kind::kElsewhere);
  }
  ASSERT_OK_AND_ASSIGN(const PageStandings standings,
                       ReadPageStandings(*db, snapshot, SchedulerOptions()));
  EXPECT_EQ(standings.NameOf(ghosts[0]), "elsewhere");
  ASSERT_OK_AND_ASSIGN(const ScheduleView view, Scheduler::Inspect(*db, SchedulerOptions(), 0, 10));
  EXPECT_EQ(view.stats.ghosts, 2u);
  EXPECT_EQ(view.stats.in_flight, 1u);
  EXPECT_EQ(view.stats.hosts, 1u);
}

TEST(GhostPagesTest, AWriterReopenedKeepsItsGhostsOutOfTheQueue) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, NodeOptions()));
    ASSERT_OK(scheduler->AddSeeds({"http://a.test/"}));
    ASSERT_OK(scheduler->Crawled({.page = {.url = "http://a.test/",
                                           .http_status = 200,
                                           .links = {{.url = "http://b.test/y"}}}}));
  }
  // Reopened as a writer without the predicate (e.g. crawled alone by mistake): the ghost
  // stays one, and the reopened writer's own links to b.test are ordinary pages.
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
  SchedulerOptions alone;
  alone.delay_ms = 0;
  ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, alone));
  EXPECT_EQ(HandOutAll(*scheduler), std::vector<std::string>{});
  SchedulerStats stats = scheduler->GetStats();
  EXPECT_EQ(stats.ghosts, 1u);
  EXPECT_EQ(stats.crawled, 1u);
  // A late report of the ghost takes its record, and it stays a ghost.
  ASSERT_OK(scheduler->Crawled({.page = {.url = "http://b.test/y", .http_status = 200}}));
  stats = scheduler->GetStats();
  EXPECT_EQ(stats.ghosts, 1u);
  EXPECT_EQ(stats.crawled, 1u);
}

TEST(GhostPagesTest, CheckReportsAGhostThatWasCrawledOrHasAPayload) {
  for (const bool crawled : {true, false}) {
    SCOPED_TRACE(crawled ? "crawled" : "payload");
    TempDir dir;
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
    {
      ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, NodeOptions()));
      ASSERT_OK(scheduler->Crawled({.page = {.url = "http://a.test/",
                                             .http_status = 200,
                                             .links = {{.url = "http://b.test/y"}}}}));
    }
    ASSERT_OK(db->Check());
    uint32_t ghost = 0;
    {
      ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
      ASSERT_OK_AND_ASSIGN(const PageRecord page, snapshot.FindUrl("http://b.test/y"));
      ghost = page.id;
    }
    if (crawled) {  // a crawl recorded past the scheduler, which would have kept it out
      ASSERT_OK(db->Add({.url = "http://b.test/y", .http_status = 200}));
    } else {
      PageDbImpl& impl = PageDbInternals::Of(*db);
      MDB_txn* txn;
      ASSERT_EQ(mdb_txn_begin(impl.env.get(), nullptr, 0, &txn), 0);
      char key[4];
      coding::EncodeBigEndian32(ghost, key);
      const std::string payload = "p";
      MDB_val k{sizeof key, key}, v{payload.size(), const_cast<char*>(payload.data())};
      ASSERT_EQ(mdb_put(txn, impl.payloads, &k, &v, 0), 0);
      ASSERT_EQ(mdb_txn_commit(txn), 0);
    }
    const Status checked = db->Check();
    EXPECT_EQ(checked.code(), StatusCode::kDataLoss);
    EXPECT_NE(checked.message().find(crawled ? "which is crawled" : "is a ghost"), std::string::npos)
        << checked.ToString();
  }
}

// OPIC: a page's cash goes in equal parts along its links; the parts that reach ghosts
// are taken for their owners, once.
TEST(PassedSharesTest, AFetchedPageSharesItsCashWithGhostsOnce) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  SchedulerOptions options = NodeOptions();
  options.score = ScoreMode::kOpic;
  ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
  ASSERT_OK(CrawlSeedLinkingAcross(*scheduler));  // a.test/ had cash 1
  const std::vector<PassedShare> passed = scheduler->TakePassedShares();
  ASSERT_EQ(passed.size(), 2u);
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  for (const PassedShare& share : passed) {
    ASSERT_OK_AND_ASSIGN(const PageRecord ghost, snapshot.FindId(share.page));
    EXPECT_TRUE(ghost.url.starts_with("http://b.test/")) << ghost.url;
    EXPECT_FLOAT_EQ(share.share, 1.f / 3);
  }
  EXPECT_TRUE(scheduler->TakePassedShares().empty());
  // A recrawl passes nothing again.
  ASSERT_OK(scheduler->Crawled({.page = {.url = "http://a.test/", .http_status = 200,
                                         .links = {{.url = "http://b.test/y"}}}}));
  EXPECT_TRUE(scheduler->TakePassedShares().empty());
}

// The owner's side: a share raises the page's key now and after a restart.
TEST(PassedSharesTest, AReceivedShareOrdersThePageAndSurvivesARestart) {
  for (const ScoreMode mode : {ScoreMode::kOpic, ScoreMode::kInDegree, ScoreMode::kBlend}) {
    SCOPED_TRACE(ScoreModeName(mode));
    TempDir dir;
    const std::string path = dir.Sub("db");
    SchedulerOptions options;
    options.delay_ms = 0;
    options.score = mode;
    options.elsewhere = [](std::string_view url) { return url.starts_with("http://a.test/"); };
    const auto first_handed = [&] {
      auto db = PageDb::Open(path, Fast());
      EXPECT_TRUE(db.ok()) << db.status().ToString();
      auto scheduler = Scheduler::Open(**db, options);
      EXPECT_TRUE(scheduler.ok()) << scheduler.status().ToString();
      auto next = (*scheduler)->Next(1);
      EXPECT_TRUE(next.ok() && next->size() == 1);
      return next.ok() && !next->empty() ? next->front().url : std::string();
    };
    {
      ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
      ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
      WriteBatch batch;  // two pages one link deep; the second gets a share
      batch.AddDiscovered("http://b.test/first", 1, 0.f);
      batch.AddDiscovered("http://b.test/second", 1, 0.f);
      const ReceivedShare share{"http://b.test/second", 0.5f};
      ASSERT_OK(scheduler->Write(batch, {}, {}, {&share, 1}));
      const ReceivedShare bad{"http://b.test/first", -1.f};
      EXPECT_EQ(scheduler->Write(WriteBatch(), {}, {}, {&bad, 1}).code(),
                StatusCode::kInvalidArgument);
      ASSERT_OK_AND_ASSIGN(auto next, scheduler->Next(1));
      ASSERT_EQ(next.size(), 1u);
      EXPECT_EQ(next[0].url, "http://b.test/second");  // without it, first (by id)
      EXPECT_OK(db->Check());
    }
    EXPECT_EQ(first_handed(), "http://b.test/second");  // its lease returned at the open
  }
}

// tests/data/format-v7.db and format-v8.db (their READMEs say what they hold; the same
// pages): read as they are, refused for writing, and carried over to the newest version
// with their schedules and counters unchanged.
TEST(GhostPagesUpgradeTest, CommittedVersion7And8DbsAreUpgradedChangingOnlyTheirVersion) {
  for (const uint32_t from : {7u, 8u}) {
    SCOPED_TRACE("version " + std::to_string(from));
    TempDir dir;
    const std::string path = testing::CopyCommittedDb(dir, static_cast<int>(from));
    PageDbOptions reading = Fast();
    reading.read_only = true;
    const auto stats_of = [&](uint32_t version) {
      auto db = PageDb::Open(path, reading);
      EXPECT_TRUE(db.ok()) << db.status().ToString();
      if (!db.ok()) return SchedulerStats();
      EXPECT_EQ((*db)->Info()->format_version, version);
      EXPECT_OK((*db)->Check());
      auto view = Scheduler::Inspect(**db, SchedulerOptions(), 0, 0);
      EXPECT_TRUE(view.ok()) << view.status().ToString();
      return view.ok() ? view->stats : SchedulerStats();
    };
    const SchedulerStats before = stats_of(from);
    EXPECT_EQ(before.crawled, 4u);
    EXPECT_EQ(before.queued, 7u);
    EXPECT_EQ(before.in_flight, 1u);
    EXPECT_EQ(before.failed, 5u);
    EXPECT_EQ(before.ghosts, 0u);
    const Status refused = PageDb::Open(path, Fast()).status();
    EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(refused.message().find("page_db_upgrade"), std::string::npos) << refused.ToString();
    EXPECT_NE(refused.message().find("sets its version to " + std::to_string(kPageDbFormatVersion)),
              std::string::npos)
        << refused.ToString();
    PageDbOptions upgrade = Fast();
    upgrade.upgrade = true;
    { ASSERT_OK(PageDb::Open(path, upgrade).status()); }
    const SchedulerStats after = stats_of(kPageDbFormatVersion);
    EXPECT_EQ(after.crawled, before.crawled);
    EXPECT_EQ(after.queued, before.queued);
    EXPECT_EQ(after.in_flight, before.in_flight);
    EXPECT_EQ(after.failed, before.failed);
    EXPECT_EQ(after.ghosts, 0u);
    // Counters written with 27 fields read as they were, with no ghosts.
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    ASSERT_OK_AND_ASSIGN(const CrawlCounters totals, snapshot.CrawlTotals());
    EXPECT_EQ(totals.pages, 17u);
    EXPECT_EQ(totals.crawled_pages, 4u);
    EXPECT_EQ(totals.ghost_pages, 0u);
  }
}

}  // namespace
}  // namespace crawlrank
