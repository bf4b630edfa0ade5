// The scheduler (crawlrank/scheduler.h) against hand-computed orders and times, on a
// ManualClock: nothing here sleeps.
#include "crawlrank/scheduler.h"

#include <lmdb.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "crawlrank/rank_store.h"
#include "page_db/page_db_impl.h"
#include "page_db/schedule_table.h"
#include "rank_reference.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::TempDir;

using testing::Fast;

// Opens the DB at `path` read-only and expects Check() to report DataLoss naming `what`.
void ExpectCheckReports(const std::string& path, std::string_view what) {
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  const Status check = db->Check();
  EXPECT_EQ(check.code(), StatusCode::kDataLoss);
  EXPECT_NE(check.message().find(what), std::string::npos) << check.ToString();
}

CrawledPage Fetched(std::string url, std::vector<std::pair<std::string, float>> links = {}) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = 1;
  page.http_status = 200;
  for (auto& [target, score] : links) page.links.push_back(Link{std::move(target), score});
  return page;
}

std::vector<std::string> Urls(const std::vector<Request>& requests) {
  std::vector<std::string> urls;
  for (const Request& r : requests) urls.push_back(r.url);
  return urls;
}

QueuedExtra Extra(std::string url, std::string payload, int32_t priority = 0) {
  return {std::move(url), std::move(payload), priority};
}

// (url, payload, priority) of each request, in order.
using Handed = std::tuple<std::string, std::string, int32_t>;
std::vector<Handed> Extras(const std::vector<Request>& requests) {
  std::vector<Handed> out;
  for (const Request& r : requests) out.emplace_back(r.url, r.payload, r.priority);
  return out;
}

// Every row of one of the scheduler's tables keyed by page id (`schedule`, `payloads`),
// read through a snapshot of `db`: page id -> value bytes.
std::map<uint32_t, std::string> Rows(PageDb& db, MDB_dbi PageDbImpl::*table) {
  std::map<uint32_t, std::string> rows;
  auto snapshot = db.NewSnapshot();
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  if (!snapshot.ok()) return rows;
  MDB_cursor* cursor;
  EXPECT_EQ(
      mdb_cursor_open(PageDbInternals::TxnOf(*snapshot), PageDbInternals::Of(db).*table, &cursor),
      0);
  MDB_val k, v;
  for (MDB_cursor_op op = MDB_FIRST; mdb_cursor_get(cursor, &k, &v, op) == 0; op = MDB_NEXT) {
    EXPECT_EQ(k.mv_size, 4u);
    rows[coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data))] =
        std::string(static_cast<const char*>(v.mv_data), v.mv_size);
  }
  mdb_cursor_close(cursor);
  return rows;
}

class SchedulerTest : public ::testing::Test {
 protected:
  void Open(SchedulerOptions options) {
    scheduler_.reset();
    db_.reset();
    auto db = PageDb::Open(dir_.Sub("db"), Fast());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *std::move(db);
    options.clock = &clock_;
    auto scheduler = Scheduler::Open(*db_, options);
    ASSERT_TRUE(scheduler.ok()) << scheduler.status().ToString();
    scheduler_ = *std::move(scheduler);
  }
  // No politeness: ordering tests.
  // Link-score order (hand-computed in each test), no politeness.
  static SchedulerOptions Unthrottled() {
    SchedulerOptions options;
    options.score = ScoreMode::kLinkScore;
    options.delay_ms = 0;
    options.per_host = 1000;
    return options;
  }
  // A rank mode, no politeness, ranked only by Rerank() (none due by growth), in Next
  // when asked: the keys are what the test computes.
  static SchedulerOptions RankedWhenAsked(ScoreMode mode) {
    SchedulerOptions options = Unthrottled();
    options.score = mode;
    options.background_rerank = false;
    options.rerank_min_new_pages = 1'000'000;
    options.rerank_graph_growth = 0;
    return options;
  }
  // `options` with revisits on, due 1 s to 100 s after a crawl.
  static SchedulerOptions WithRevisits(SchedulerOptions options) {
    options.revisits = true;
    options.min_revisit_ms = 1000;
    options.max_revisit_ms = 100'000;
    return options;
  }
  std::vector<Request> Next(size_t n) {
    auto next = scheduler_->Next(n);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    return next.ok() ? *next : std::vector<Request>{};
  }
  void Crawl(const Request& r, std::vector<std::pair<std::string, float>> links = {},
             std::vector<QueuedExtra> extras = {}) {
    ASSERT_OK(scheduler_->Crawled({Fetched(r.url, std::move(links)), r.lease, std::move(extras)}));
  }
  // The output of a tool run on this test's DB.
  std::string RunTool(const std::string& args) {
    const std::string command = std::string(CRAWLRANK_TOOLS_DIR) + "/" + args + " 2>&1";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    if (pipe == nullptr) return "";
    std::string out;
    char buffer[4096];
    for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
      out.append(buffer, got);
    }
    EXPECT_EQ(::pclose(pipe), 0) << out;
    return out;
  }

  TempDir dir_;
  ManualClock clock_{1'000'000};
  std::unique_ptr<PageDb> db_;
  std::unique_ptr<Scheduler> scheduler_;
};

TEST_F(SchedulerTest, LinkScoreOrderIsBestFirstWithTiesInDiscoveryOrder) {
  Open(Unthrottled());
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  auto seed = Next(10);
  ASSERT_EQ(Urls(seed), std::vector<std::string>{"http://a.example/"});
  EXPECT_EQ(seed[0].depth, 0u);
  Crawl(seed[0], {{"http://a.example/low", 0.1f},
                  {"http://b.example/high", 0.9f},
                  {"http://a.example/mid", 0.5f},
                  {"http://c.example/mid2", 0.5f}});
  // A later in-link raises a score (max over in-links), and re-keys the queued page.
  ASSERT_OK(db_->Add(Fetched("http://z.example/", {{"http://a.example/low", 0.7f}})));
  EXPECT_EQ(Urls(Next(10)),
            (std::vector<std::string>{"http://b.example/high", "http://a.example/low",
                                      "http://a.example/mid", "http://c.example/mid2"}));
  EXPECT_TRUE(Next(10).empty());
}

TEST_F(SchedulerTest, AScoreRaisedWhileAPageIsOutOfTheQueueHoldsWhenItReturns) {
  SchedulerOptions options = Unthrottled();
  options.retry_ms = 1000;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Crawl(Next(1).at(0),
        {{"http://b.example/", 0.1f}, {"http://d.example/", 0.3f}, {"http://c.example/", 0.5f}});
  auto c = Next(1);
  ASSERT_EQ(Urls(c), std::vector<std::string>{"http://c.example/"});
  Crawl(c[0], {{"http://b.example/", 0.9f}});
  auto b = Next(1);
  ASSERT_EQ(Urls(b), std::vector<std::string>{"http://b.example/"});
  ASSERT_OK(scheduler_->Failed({.url = b[0].url, .lease = b[0].lease}));
  clock_.Advance(1000);
  auto next = Next(2);
  EXPECT_EQ(Urls(next), (std::vector<std::string>{"http://b.example/", "http://d.example/"}));
  ASSERT_EQ(next.size(), 2u);
  EXPECT_FLOAT_EQ(next[0].score, 0.9f);
}

TEST_F(SchedulerTest, BreadthFirstOrderIsByDepth) {
  SchedulerOptions options = Unthrottled();
  options.score = ScoreMode::kBreadthFirst;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Crawl(Next(1).at(0), {{"http://a.example/1", 0.f}, {"http://a.example/2", 0.f}});
  auto one = Next(1);
  ASSERT_EQ(Urls(one), std::vector<std::string>{"http://a.example/1"});
  Crawl(one[0], {{"http://a.example/1/deep", 1.f}});
  // Depth 1 before depth 2, whatever the link score.
  EXPECT_EQ(Urls(Next(10)),
            (std::vector<std::string>{"http://a.example/2", "http://a.example/1/deep"}));
}

TEST_F(SchedulerTest, OpicPassesCashOnAndRestartReplaysIt) {
  SchedulerOptions options = Unthrottled();
  options.score = ScoreMode::kOpic;
  Open(options);
  // S (cash 1) -> A, B: 1/2 each. A -> B, C: B 1/2 + 1/4, C 1/4. D -> C, E (D is new and
  // fetched at once: a depth-0 page with the cash of one): C 1/4 + 1/2, E 1/2.
  ASSERT_OK(
      db_->Add(Fetched("http://s.example/", {{"http://a.example/", 0}, {"http://b.example/", 0}})));
  ASSERT_OK(
      db_->Add(Fetched("http://a.example/", {{"http://b.example/", 0}, {"http://c.example/", 0}})));
  ASSERT_OK(
      db_->Add(Fetched("http://d.example/", {{"http://c.example/", 0}, {"http://e.example/", 0}})));
  const std::vector<std::string> expected = {"http://b.example/", "http://c.example/",
                                             "http://e.example/"};
  const std::vector<float> cash = {0.75f, 0.75f, 0.5f};
  Open(options);  // the cash is replayed from the DB
  auto next = Next(10);
  EXPECT_EQ(Urls(next), expected);
  for (size_t i = 0; i < next.size() && i < cash.size(); ++i)
    EXPECT_FLOAT_EQ(next[i].score, cash[i]);
}

TEST_F(SchedulerTest, InDegreeCountsLinksFromFetchedPages) {
  SchedulerOptions options = Unthrottled();
  options.score = ScoreMode::kInDegree;
  Open(options);
  ASSERT_OK(db_->Add(
      Fetched("http://s.example/",
              {{"http://a.example/", 0}, {"http://b.example/", 0}, {"http://c.example/", 0}})));
  ASSERT_OK(
      db_->Add(Fetched("http://t.example/", {{"http://c.example/", 0}, {"http://b.example/", 0}})));
  ASSERT_OK(db_->Add(Fetched("http://u.example/", {{"http://c.example/", 0}})));
  // c: 3, b: 2, a: 1.
  const std::vector<std::string> expected = {"http://c.example/", "http://b.example/",
                                             "http://a.example/"};
  EXPECT_EQ(Urls(Next(10)), expected);
  Open(options);  // counted again from the links on restart; the leases came back
  EXPECT_EQ(Urls(Next(10)), expected);
}

// S -> A, B, C, D; P -> D; then A -> B and C -> B are fetched. Before any rank, the
// estimates (a fetched page passes its key on, split over its links) put D first
// (1/4 + 1 against B's 1/4 + 1/4 + 1/4); PageRank of that graph puts B first.
void BuildRerankScenario(PageDb& db) {
  ASSERT_OK(db.Add(Fetched("http://s.example/", {{"http://a.example/", 0},
                                                 {"http://b.example/", 0},
                                                 {"http://c.example/", 0},
                                                 {"http://d.example/", 0}})));
  ASSERT_OK(db.Add(Fetched("http://p.example/", {{"http://d.example/", 0}})));
  ASSERT_OK(db.Add(Fetched("http://a.example/", {{"http://b.example/", 0}})));
  ASSERT_OK(db.Add(Fetched("http://c.example/", {{"http://b.example/", 0}})));
}

// The default order (docs/scheduler.md, "The default order"): 0.4 x rank + 0.6 x RankMass
// / seeds. In BuildRerankScenario s and p are seeds (depth 0), each with mass 1 - d = 0.15.
// s sends 0.85 x 0.15 / 4 to each of a b c d, p 0.85 x 0.15 to d; a and c each send 0.85 x
// their mass on to b. Before a rank the rank parts are 0 (the seeds have none to pass on):
// the mass alone orders, d before b. A rank of the known graph puts b first.
TEST_F(SchedulerTest, BlendIsRankMassFromTheSeedsWithThePartialRankAndSurvivesReopening) {
  SchedulerOptions options = RankedWhenAsked(ScoreMode::kBlend);
  Open(options);
  BuildRerankScenario(*db_);
  const double d = 0.85, seed = 1 - d;
  const double mass_a = d * seed / 4;
  const double mass_b = mass_a + 2 * d * mass_a;
  const double mass_d = mass_a + d * seed;
  const auto blend = [](double rank, double mass) { return 0.4 * rank + 0.6 * mass / 2; };
  auto before = Next(10);
  EXPECT_EQ(Urls(before), (std::vector<std::string>{"http://d.example/", "http://b.example/"}));
  ASSERT_EQ(before.size(), 2u);
  EXPECT_NEAR(before[0].score, blend(0, mass_d), 1e-6);
  EXPECT_NEAR(before[1].score, blend(0, mass_b), 1e-6);
  Open(options);  // the mass is replayed from the DB: the same keys
  auto reopened = Next(10);
  ASSERT_EQ(reopened.size(), 2u);
  EXPECT_NEAR(reopened[0].score, before[0].score, 1e-6);
  EXPECT_NEAR(reopened[1].score, before[1].score, 1e-6);

  Open(options);
  ASSERT_OK(scheduler_->Rerank());
  // An independent PageRank of the known graph (ids in discovery order: s a b c d p).
  const testing::EdgeList edges = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {5, 4}, {1, 2}, {3, 2}};
  const std::vector<double> reference = testing::PowerIterate(
      testing::UniformWeights(testing::Adjacency(6, edges)), std::vector<double>(6, 1.0 / 6), 0.85);
  ASSERT_GT(blend(reference[2], mass_b), blend(reference[4], mass_d));
  auto ranked = Next(10);
  EXPECT_EQ(Urls(ranked), (std::vector<std::string>{"http://b.example/", "http://d.example/"}));
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_NEAR(ranked[0].score, blend(reference[2], mass_b), 1e-4);
  EXPECT_NEAR(ranked[1].score, blend(reference[4], mass_d), 1e-4);
  Open(options);  // the stored ranks and the replayed mass: the same keys again
  auto again = Next(10);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(Urls(again), Urls(ranked));
  EXPECT_NEAR(again[0].score, ranked[0].score, 1e-6);
  EXPECT_NEAR(again[1].score, ranked[1].score, 1e-6);
}

// docs/scheduler.md, "Topical crawls": best-first on link scores, ties among pages whose
// link score is above 0 broken by a mass that carries the content scores. Seeds s and p
// (mass 0.15 each); s (content 0) links to a (0.5) and c (0); p (content 1) links to b
// (0.5). s sends 0.85 x 0.15 / 2 to a and c, p sends 0.85 x (0.15 + 1) to b: b goes
// before a, which best-first (link-score) would hand out in discovery order, a first; c,
// whose link scores 0, has no mass part.
TEST_F(SchedulerTest, TopicalIsBestFirstWithTiesBrokenByTheMassOfRelevantPages) {
  SchedulerOptions options = Unthrottled();
  options.score = ScoreMode::kTopical;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://s.example/", "http://p.example/"}));
  ASSERT_EQ(Next(2).size(), 2u);
  CrawledPage s = Fetched("http://s.example/", {{"http://a.example/", 0.5f}, {"http://c.example/", 0}});
  CrawledPage p = Fetched("http://p.example/", {{"http://b.example/", 0.5f}});
  p.content_score = 1;
  ASSERT_OK(db_->Add(s));
  ASSERT_OK(db_->Add(p));
  const double a = 0.5 + 0.001 * 0.85 * 0.15 / 2, b = 0.5 + 0.001 * 0.85 * (0.15 + 1);
  for (int round = 0; round < 2; ++round) {  // live, then replayed on open
    auto next = Next(10);
    EXPECT_EQ(Urls(next), (std::vector<std::string>{"http://b.example/", "http://a.example/",
                                                    "http://c.example/"}));
    ASSERT_EQ(next.size(), 3u);
    EXPECT_NEAR(next[0].score, b, 1e-6);
    EXPECT_NEAR(next[1].score, a, 1e-6);
    EXPECT_EQ(next[2].score, 0.f);
    Open(options);
  }
  options.score = ScoreMode::kLinkScore;  // the same crawl, best-first alone
  Open(options);
  EXPECT_EQ(Urls(Next(10)), (std::vector<std::string>{"http://a.example/", "http://b.example/",
                                                      "http://c.example/"}));
}

// A URLFrontier client sends a page's links first (discovered items naming it as their
// source), then the page (a known item without links): the page passes its mass along all
// of them, the links the earlier write merged in, as the replay on open would.
TEST_F(SchedulerTest, BlendPassesMassAlongTheLinksAnEarlierWriteGaveThePage) {
  SchedulerOptions options = RankedWhenAsked(ScoreMode::kBlend);
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://s.example/"}));
  ASSERT_EQ(Next(1).size(), 1u);
  WriteBatch links;
  links.MergeLinks("http://s.example/", {Link{.url = "http://a.example/"},
                                         Link{.url = "http://b.example/"}});
  ASSERT_OK(scheduler_->Write(links, {}));
  WriteBatch page;
  page.AddCrawledMergingLinks(Fetched("http://s.example/"));
  ASSERT_OK(scheduler_->Write(page, {}));
  const float each = 0.6f * 0.85f * 0.15f / 2;  // one seed's mass over its two links
  auto live = Next(10);
  ASSERT_EQ(live.size(), 2u);
  EXPECT_NEAR(live[0].score, each, 1e-6);
  EXPECT_NEAR(live[1].score, each, 1e-6);
  Open(options);
  for (const Request& r : Next(10)) EXPECT_NEAR(r.score, each, 1e-6) << r.url;
}

// A revisit's report does not pass the page's mass on again (the replay on open passes it
// once, at the first crawl): the key of the page it links to stays where it was.
TEST_F(SchedulerTest, BlendPassesMassOnAtTheFirstCrawlOnly) {
  const SchedulerOptions options = WithRevisits(RankedWhenAsked(ScoreMode::kBlend));
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://s.example/"}));
  auto first = Next(1);
  ASSERT_EQ(first.size(), 1u);
  CrawledPage page = Fetched(first[0].url, {{"http://a.example/", 0}});
  page.crawl_time_ms = clock_.NowMs();
  ASSERT_OK(scheduler_->Crawled({page, first[0].lease}));
  const float once = 0.6f * 0.85f * 0.15f;
  ASSERT_EQ(scheduler_->Scores().size(), 2u);
  EXPECT_NEAR(scheduler_->Scores()[1], once, 1e-6);
  clock_.Advance(1000);
  const std::vector<Request> again = Next(10);
  const auto revisit = std::find_if(again.begin(), again.end(), [](const Request& r) { return r.revisit; });
  ASSERT_NE(revisit, again.end());
  page.crawl_time_ms = clock_.NowMs();
  ASSERT_OK(scheduler_->Crawled({page, revisit->lease}));
  EXPECT_NEAR(scheduler_->Scores()[1], once, 1e-6);
  Open(options);
  EXPECT_NEAR(scheduler_->Scores()[1], once, 1e-6);
}

// A page fetched as it is written, before anything links to it, is a seed of the blend at
// once (it joins the schedule through KeyOf, queued, then fetched in the same commit), in
// the live schedule as after reopening: its links carry mass.
TEST_F(SchedulerTest, BlendGivesAPageWrittenFetchedAtDepthZeroTheMassOfASeed) {
  SchedulerOptions options = RankedWhenAsked(ScoreMode::kBlend);
  Open(options);
  ASSERT_OK(db_->Add(Fetched("http://s.example/", {{"http://a.example/", 0}})));
  auto live = Next(10);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_NEAR(live[0].score, 0.6 * 0.85 * 0.15, 1e-6);  // one seed
  Open(options);
  auto reopened = Next(10);
  ASSERT_EQ(reopened.size(), 1u);
  EXPECT_NEAR(reopened[0].score, live[0].score, 1e-6);
}

TEST_F(SchedulerTest, RerankMovesQueuedEntries) {
  SchedulerOptions options = RankedWhenAsked(ScoreMode::kPageRank);
  Open(options);
  BuildRerankScenario(*db_);
  auto before = Next(10);
  EXPECT_EQ(Urls(before), (std::vector<std::string>{"http://d.example/", "http://b.example/"}));
  ASSERT_EQ(before.size(), 2u);
  EXPECT_FLOAT_EQ(before[0].score, 1.25f);
  EXPECT_FLOAT_EQ(before[1].score, 0.75f);

  // The same crawl in a second DB, re-ranked before it is asked.
  TempDir other;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(other.Sub("db"), Fast()));
  options.clock = &clock_;
  ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
  BuildRerankScenario(*db);
  ASSERT_OK(scheduler->Rerank());
  EXPECT_EQ(scheduler->GetStats().ranked_pages, 6u);
  ASSERT_OK_AND_ASSIGN(std::vector<Request> after, scheduler->Next(10));
  EXPECT_EQ(Urls(after), (std::vector<std::string>{"http://b.example/", "http://d.example/"}));
  // An independent PageRank of the same graph (ids in discovery order: s a b c d p).
  const testing::EdgeList edges = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {5, 4}, {1, 2}, {3, 2}};
  const std::vector<double> reference = testing::PowerIterate(
      testing::UniformWeights(testing::Adjacency(6, edges)), std::vector<double>(6, 1.0 / 6), 0.85);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_GT(reference[2], reference[4]);
  EXPECT_NEAR(after[0].score, reference[2], 1e-4);
  EXPECT_NEAR(after[1].score, reference[4], 1e-4);
}

// docs/scheduler.md: a seed goes before every ranked page, and a re-rank does not change
// that. A seed nothing links to ranks at the bottom of the known graph (teleport alone), so
// before the fix a second site's seed waited for the first site's whole crawl.
TEST_F(SchedulerTest, ASeedNotFetchedYetStaysFirstAfterReRanks) {
  SchedulerOptions options = RankedWhenAsked(ScoreMode::kPageRank);
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://one.example/", "http://two.example/"}));
  std::vector<Request> first = Next(1);
  ASSERT_EQ(Urls(first), std::vector<std::string>{"http://one.example/"});
  Crawl(first[0], {{"http://one.example/a", 0}, {"http://one.example/b", 0}});
  ASSERT_OK(scheduler_->Rerank());
  std::vector<Request> after = Next(3);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].url, "http://two.example/");
  EXPECT_GE(after[0].score, 1.f);
  EXPECT_LT(after[1].score, 1.f);  // the ranked pages, by their ranks
  // Fetched, it no longer keeps its place: the next re-rank gives it its rank.
  Crawl(after[0]);
  Open(options);  // and from the stored rank on open, a seed still waiting goes first
  ASSERT_OK(scheduler_->AddSeeds({"http://three.example/"}));
  ASSERT_OK(scheduler_->Rerank());
  EXPECT_EQ(Urls(Next(1)), std::vector<std::string>{"http://three.example/"});
}

TEST_F(SchedulerTest, ReranksKeepTheGraphAndReadOnlyThePagesWrittenSince) {
  SchedulerOptions options = RankedWhenAsked(ScoreMode::kPageRank);
  options.rank.tolerance = 1e-12;
  options.rank.max_iterations = 1000;
  Open(options);
  // The stored rank against an independent PageRank of every link the DB holds.
  const auto expect_rank_of_the_db = [&] {
    ASSERT_OK_AND_ASSIGN(StoredRank stored, LoadRank(db_->path(), RankAlgorithm::kPageRank));
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db_->NewSnapshot());
    const auto n = static_cast<uint32_t>(snapshot.counters().pages);
    testing::EdgeList edges;
    for (EdgeCursor c = snapshot.Edges(); c.Valid(); c.Next()) {
      for (uint32_t t : c.targets()) edges.emplace_back(c.source(), t);
    }
    const std::vector<double> reference = testing::PowerIterate(
        testing::UniformWeights(testing::Adjacency(n, edges)), std::vector<double>(n, 1.0 / n),
        0.85);
    EXPECT_LT(testing::L1(stored.rank.scores, reference), 1e-9);
  };
  BuildRerankScenario(*db_);
  ASSERT_OK(scheduler_->Rerank());
  expect_rank_of_the_db();
  // Pages crawled through the scheduler, one crawled again with other links, and links
  // written to the DB directly: the next re-rank sees them all without reading every link.
  for (const Request& r : Next(10)) {
    ASSERT_OK(scheduler_->Crawled(
        {Fetched(r.url, {{"http://s.example/", 0}, {"http://f.example/", 0}}), r.lease}));
  }
  ASSERT_OK(db_->Add(Fetched("http://a.example/", {{"http://d.example/", 0}})));
  WriteBatch batch;
  batch.AddLinks("http://g.example/", {{"http://a.example/", 0}});
  ASSERT_OK(db_->Write(batch));
  ASSERT_OK(scheduler_->Rerank());
  expect_rank_of_the_db();
  const SchedulerStats stats = scheduler_->GetStats();
  EXPECT_EQ(stats.reranks, 2u);
  EXPECT_EQ(stats.rank_full_reads, 1u);
  EXPECT_EQ(stats.ranked_pages, 8u);
}

TEST_F(SchedulerTest, ReranksWithoutAKeptGraphReadEveryLink) {
  for (const bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "over the memory budget" : "keep_rank_graph off");
    SchedulerOptions options = RankedWhenAsked(ScoreMode::kPageRank);
    options.keep_rank_graph = keep;
    options.rank.memory_budget = keep ? 64 : options.rank.memory_budget;  // streams instead
    Open(options);
    if (!keep) BuildRerankScenario(*db_);
    ASSERT_OK(scheduler_->Rerank());
    ASSERT_OK(db_->Add(Fetched("http://d.example/", {{"http://b.example/", 0}})));
    ASSERT_OK(scheduler_->Rerank());
    const SchedulerStats stats = scheduler_->GetStats();
    EXPECT_EQ(stats.reranks, 2u);
    EXPECT_EQ(stats.rank_full_reads, 2u);
    EXPECT_EQ(Urls(Next(1)), std::vector<std::string>{"http://b.example/"});
  }
}

// A crawl that only fetches pages it knows adds links and crawled pages, never pages: the
// graph-growth trigger re-ranks it, the page-growth trigger alone never does. Thresholds
// by hand: size = links + crawled pages; due when size - size at the last rank >=
// max(rerank_min_graph_growth = 10, ceil(0.5 * size at the last rank)).
TEST_F(SchedulerTest, GraphGrowthTriggersAReRankWithoutNewPages) {
  for (const bool graph_trigger : {true, false}) {
    SCOPED_TRACE(graph_trigger ? "with the graph trigger" : "without");
    SchedulerOptions options = Unthrottled();
    options.score = ScoreMode::kPageRank;
    options.background_rerank = false;
    options.rerank_min_new_pages = 1;
    options.rerank_graph_growth = graph_trigger ? 0.5 : 0;
    options.rerank_min_graph_growth = 10;
    options.clock = &clock_;
    TempDir dir;
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
    ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
    std::vector<std::string> seeds;
    for (int i = 0; i < 30; ++i) seeds.push_back("http://h.example/" + std::to_string(i));
    ASSERT_OK(scheduler->AddSeeds(seeds));
    // Each step: the next page handed out (a Next re-ranks first when due), crawled with
    // `links` links to known pages; then the re-ranks counted so far.
    const auto step = [&](int links) -> uint64_t {
      auto next = scheduler->Next(1);
      EXPECT_TRUE(next.ok() && next->size() == 1) << next.status().ToString();
      if (!next.ok() || next->empty()) return 0;
      CrawledPage page = Fetched((*next)[0].url);
      for (size_t i = 0; static_cast<int>(page.links.size()) < links; ++i) {
        if (seeds[i] != page.url) page.links.push_back(Link{seeds[i], 0});  // no self-links
      }
      EXPECT_OK(scheduler->Crawled({page, (*next)[0].lease}));
      return scheduler->GetStats().reranks;
    };
    const uint64_t on = graph_trigger ? 1 : 0;
    EXPECT_EQ(step(8), 1u);           // 30 new pages: ranked over size 0
    EXPECT_EQ(step(0), 1u);           // size 9 < 10
    EXPECT_EQ(step(3), 1u + on);      // size 10: ranked over it
    EXPECT_EQ(step(6), 1u + on);      // 14: 4 more
    EXPECT_EQ(step(9), 1u + 2 * on);  // 21: 11 more >= max(10, 5): ranked over it
    EXPECT_EQ(step(0), 1u + 2 * on);  // 31: 10 more < max(10, ceil(10.5))
    EXPECT_EQ(step(0), 1u + 3 * on);  // 32: 11 more
    const SchedulerStats stats = scheduler->GetStats();
    EXPECT_EQ(stats.ranked_pages, 30u);
    ASSERT_OK_AND_ASSIGN(StoredRank stored, LoadRank(db->path(), RankAlgorithm::kPageRank));
    ASSERT_TRUE(stored.graph.has_value());
    EXPECT_EQ(stored.graph->pages, 30u);
    EXPECT_EQ(stored.graph->crawled_pages, graph_trigger ? 6u : 0u);
    EXPECT_EQ(stored.graph->edges, graph_trigger ? 26u : 0u);
  }
}

TEST_F(SchedulerTest, RerankRunsInTheBackgroundWhenTheGraphGrows) {
  SchedulerOptions options = Unthrottled();
  options.score = ScoreMode::kPageRank;
  options.rerank_min_new_pages = 5;
  Open(Unthrottled());
  BuildRerankScenario(*db_);
  Open(options);  // 6 pages, none ranked: due at once
  for (int i = 0; i < 2000 && scheduler_->GetStats().reranks == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const SchedulerStats stats = scheduler_->GetStats();
  EXPECT_EQ(stats.reranks, 1u) << stats.rerank_error;
  EXPECT_EQ(stats.ranked_pages, 6u);
  EXPECT_EQ(Urls(Next(10)), (std::vector<std::string>{"http://b.example/", "http://d.example/"}));
}

TEST_F(SchedulerTest, PolitenessDelaysEachHostAndSaysWhenTheNextIsReady) {
  SchedulerOptions options;  // defaults: 1 s, 1 in flight
  options.score = ScoreMode::kLinkScore;
  Open(options);
  ASSERT_OK(
      scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2", "http://b.example/1"}));
  auto first = Next(10);
  // One per host: a.example's second page waits for the first's lease and the delay.
  EXPECT_EQ(Urls(first), (std::vector<std::string>{"http://a.example/1", "http://b.example/1"}));
  EXPECT_TRUE(Next(10).empty());
  Crawl(first[0]);
  SchedulerStats stats = scheduler_->GetStats();
  EXPECT_EQ(stats.queued, 1u);
  EXPECT_EQ(stats.in_flight, 1u);
  EXPECT_EQ(stats.ready, 0u);
  EXPECT_FALSE(stats.finished);
  EXPECT_EQ(stats.next_ready_ms, 1'001'000);
  clock_.Advance(999);
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(1);
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://a.example/2"});
}

TEST_F(SchedulerTest, HostsOfOneGroupShareOneBudget) {
  SchedulerOptions options;  // 1 s between requests, one in flight
  options.score = ScoreMode::kLinkScore;
  Open(options);
  ASSERT_OK(scheduler_->SetHostGroup("a.example", "10.0.0.1"));
  ASSERT_OK(scheduler_->SetHostGroup("b.example", "10.0.0.1"));
  ASSERT_OK(
      scheduler_->AddSeeds({"http://a.example/1", "http://b.example/1", "http://c.example/1"}));
  auto first = Next(10);
  EXPECT_EQ(Urls(first), (std::vector<std::string>{"http://a.example/1", "http://c.example/1"}));
  ASSERT_EQ(first.size(), 2u);
  Crawl(first[0]);  // the group's request ends; its delay runs from it
  clock_.Advance(999);
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(1);
  auto b = Next(10);
  EXPECT_EQ(Urls(b), std::vector<std::string>{"http://b.example/1"});
  Crawl(b.at(0));
  // The grouping persists (c.example/1 comes back: its lease was the dead writer's).
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/2", "http://b.example/2"}));
  EXPECT_EQ(Urls(Next(10)), (std::vector<std::string>{"http://c.example/1", "http://a.example/2"}));
  // Out of the group, b.example has its own budget again.
  ASSERT_OK(scheduler_->SetHostGroup("b.example", ""));
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://b.example/2"});
}

TEST_F(SchedulerTest, ExpiredLeaseComesBackWithANewLease) {
  SchedulerOptions options = Unthrottled();
  options.lease_ms = 100;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  auto first = Next(1);
  ASSERT_EQ(first.size(), 1u);
  clock_.Advance(99);
  EXPECT_TRUE(Next(1).empty()) << "handed out twice while leased";
  clock_.Advance(1);
  auto again = Next(1);
  ASSERT_EQ(Urls(again), Urls(first));
  EXPECT_NE(again[0].lease, first[0].lease);
  Crawl(again[0]);
  EXPECT_TRUE(scheduler_->GetStats().finished);
}

// Next(n, lease_ms): a remote client's own lease (URLFrontier's delay_requestable) in place
// of the options' lease_ms, for what that call hands out only.
TEST_F(SchedulerTest, ACallerNamedLeaseReplacesTheOptionsLeaseForThatCall) {
  SchedulerOptions options = Unthrottled();
  options.lease_ms = 100;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/", "http://b.example/"}));
  ASSERT_OK_AND_ASSIGN(auto long_lease, scheduler_->Next(1, 5000));
  ASSERT_EQ(long_lease.size(), 1u);
  auto short_lease = Next(1);  // the options' 100 ms
  ASSERT_EQ(short_lease.size(), 1u);
  clock_.Advance(100);
  auto again = Next(2);
  EXPECT_EQ(Urls(again), Urls(short_lease)) << "only the 100 ms lease has run out";
  ASSERT_EQ(again.size(), 1u);
  Crawl(again[0]);
  clock_.Advance(4899);
  EXPECT_TRUE(Next(2).empty());
  clock_.Advance(1);
  EXPECT_EQ(Urls(Next(2)), Urls(long_lease));
  EXPECT_EQ(scheduler_->Next(1, 0).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SchedulerTest, FailuresRetryWithDoublingBackOffThenFail) {
  SchedulerOptions options = Unthrottled();
  options.retry_ms = 1000;
  options.max_retries = 2;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  const int64_t waits[] = {1000, 2000};
  for (int64_t wait : waits) {
    auto r = Next(1);
    ASSERT_EQ(r.size(), 1u);
    ASSERT_OK(scheduler_->Failed({.url = r[0].url, .lease = r[0].lease, .reason = "timeout"}));
    EXPECT_EQ(scheduler_->GetStats().retrying, 1u);
    clock_.Advance(wait - 1);
    EXPECT_TRUE(Next(1).empty());
    clock_.Advance(1);
  }
  auto last = Next(1);
  ASSERT_EQ(last.size(), 1u);
  ASSERT_OK(scheduler_->Failed({.url = last[0].url, .lease = last[0].lease, .reason = "timeout"}));
  const SchedulerStats stats = scheduler_->GetStats();
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.retrying, 0u);
  EXPECT_TRUE(stats.finished);
}

TEST_F(SchedulerTest, TooManyRequestsHoldsTheWholeHost) {
  SchedulerOptions options = Unthrottled();
  options.per_host = 1;
  options.hold_ms = 10'000;
  Open(options);
  ASSERT_OK(
      scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2", "http://a.example/3"}));
  auto r = Next(1);
  ASSERT_OK(scheduler_->Failed(
      {.url = r[0].url, .lease = r[0].lease, .http_status = 429, .retry_after_ms = 5000}));
  clock_.Advance(4999);
  EXPECT_TRUE(Next(1).empty()) << "other pages of a held host were handed out";
  clock_.Advance(1);
  r = Next(1);
  ASSERT_EQ(r.size(), 1u);
  // A 503 without Retry-After: hold_ms, doubled for the second in a row.
  ASSERT_OK(scheduler_->Failed({.url = r[0].url, .lease = r[0].lease, .http_status = 503}));
  clock_.Advance(10'000 * 2 - 1);
  EXPECT_TRUE(Next(1).empty());
  clock_.Advance(1);
  EXPECT_EQ(Next(1).size(), 1u);
}

TEST_F(SchedulerTest, LimitsOfDepthPagesPerHostAndPages) {
  SchedulerOptions options = Unthrottled();
  options.max_depth = 1;
  options.max_pages_per_host = 2;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Crawl(Next(1).at(0),
        {{"http://a.example/1", 0.9f}, {"http://a.example/2", 0.8f}, {"http://b.example/1", 0.7f}});
  auto next = Next(10);
  // a.example: the seed and one more; b.example's page at depth 1 is allowed.
  EXPECT_EQ(Urls(next), (std::vector<std::string>{"http://a.example/1", "http://b.example/1"}));
  Crawl(next[1], {{"http://b.example/deep", 1.f}});  // depth 2: filtered
  EXPECT_EQ(scheduler_->GetStats().filtered, 1u);
  Crawl(next[0]);
  EXPECT_TRUE(Next(10).empty());
  EXPECT_EQ(scheduler_->GetStats().queued, 1u);  // a.example/2, over its host's budget
}

TEST_F(SchedulerTest, SchemesAndUrlPatternsFilterPages) {
  SchedulerOptions options = Unthrottled();
  options.deny = {"/private/"};
  options.allow = {"^https?://[a-z]\\.example/"};
  options.allowed_schemes = {"http"};
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Crawl(Next(1).at(0), {{"http://a.example/public", 0.5f},
                        {"http://a.example/private/x", 0.9f},
                        {"https://a.example/secure", 0.9f},
                        {"http://other.test/", 0.9f}});
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://a.example/public"});
  EXPECT_EQ(scheduler_->GetStats().filtered, 3u);
  scheduler_.reset();
  options.deny = {"("};
  const Status bad = Scheduler::Open(*db_, options).status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("URL pattern \"(\""), std::string::npos) << bad.ToString();
}

// Aduana's SOFT_CRAWL_LIMIT 0.25/s and HARD_CRAWL_LIMIT 100/s: 4 s between requests to a
// host, down to 10 ms when no host is ready at 4 s.
TEST_F(SchedulerTest, HardRateAppliesOnlyWhenNothingIsReadyAtTheSoftRate) {
  SchedulerOptions options;
  options.delay_ms = 1000 / 0.25;
  options.busy_delay_ms = 1000 / 100;
  Open(options);
  ASSERT_OK(
      scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2", "http://a.example/3"}));
  auto first = Next(10);
  ASSERT_EQ(Urls(first), std::vector<std::string>{"http://a.example/1"});
  Crawl(first[0]);
  clock_.Advance(9);
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(1);
  auto second = Next(10);
  EXPECT_EQ(Urls(second), std::vector<std::string>{"http://a.example/2"});
  Crawl(second[0]);
  // Another host ready at the soft rate goes first; a.example waits for it.
  ASSERT_OK(scheduler_->AddSeeds({"http://b.example/1"}));
  clock_.Advance(10);
  EXPECT_EQ(Urls(Next(1)), std::vector<std::string>{"http://b.example/1"});
  EXPECT_EQ(Urls(Next(1)), std::vector<std::string>{"http://a.example/3"});
}

TEST_F(SchedulerTest, MaxPagesEndsTheCrawl) {
  SchedulerOptions options = Unthrottled();
  options.max_pages = 2;
  Open(options);
  ASSERT_OK(
      scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2", "http://a.example/3"}));
  auto r = Next(10);
  EXPECT_EQ(r.size(), 2u);
  for (const Request& request : r) Crawl(request);
  EXPECT_TRUE(Next(10).empty());
  EXPECT_TRUE(scheduler_->GetStats().finished);
}

TEST_F(SchedulerTest, RestartReturnsLeasesAtOnceAndKeepsRetriesHoldsAndDelays) {
  SchedulerOptions options = Unthrottled();
  options.per_host = 1;
  options.retry_ms = 60'000;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/", "http://b.example/", "http://c.example/"}));
  ASSERT_OK(scheduler_->SetCrawlDelay("d.example", 7000));
  auto r = Next(3);
  ASSERT_EQ(r.size(), 3u);
  ASSERT_OK(scheduler_->Failed({.url = "http://a.example/", .lease = r[0].lease}));
  ASSERT_OK(scheduler_->Failed({.url = "http://b.example/",
                                .lease = r[1].lease,
                                .http_status = 429,
                                .retry_after_ms = 30'000}));
  // c.example stays leased; the process "dies" (the scheduler and DB are closed).
  Open(options);
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://c.example/"})
      << "the dead writer's lease must come back at once; retries and holds must persist";
  const SchedulerStats stats = scheduler_->GetStats();
  EXPECT_EQ(stats.retrying, 2u);
  EXPECT_EQ(stats.in_flight, 1u);
  clock_.Advance(60'000);
  EXPECT_EQ(Urls(Next(10)), (std::vector<std::string>{"http://a.example/", "http://b.example/"}));
  // The crawl delay persisted: d.example's two pages are 7 s apart.
  ASSERT_OK(scheduler_->AddSeeds({"http://d.example/1", "http://d.example/2"}));
  auto d = Next(10);
  ASSERT_EQ(Urls(d), std::vector<std::string>{"http://d.example/1"});
  Crawl(d[0]);
  clock_.Advance(6999);
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(1);
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://d.example/2"});
  EXPECT_OK(db_->Check());
}

TEST_F(SchedulerTest, HostRobotsBytesPersistBesideTheHostsOtherState) {
  Open(Unthrottled());
  EXPECT_EQ(scheduler_->HostRobots("a.example"), "");
  ASSERT_OK(scheduler_->SetCrawlDelay("a.example", 5000));
  ASSERT_OK(scheduler_->SetHostRobots("a.example", std::string("rules\0bytes", 11)));
  ASSERT_OK(scheduler_->SetHostRobots("b.example", "other"));
  EXPECT_EQ(scheduler_->HostRobots("a.example"), std::string("rules\0bytes", 11));
  Open(Unthrottled());
  EXPECT_EQ(scheduler_->HostRobots("a.example"), std::string("rules\0bytes", 11));
  EXPECT_EQ(scheduler_->HostRobots("b.example"), "other");
  ASSERT_OK(scheduler_->SetHostRobots("b.example", ""));
  Open(Unthrottled());
  EXPECT_EQ(scheduler_->HostRobots("b.example"), "");
  // The crawl delay set before the robots bytes is kept with them.
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2"}));
  auto a = Next(10);
  ASSERT_EQ(Urls(a), std::vector<std::string>{"http://a.example/1"});
  Crawl(a[0]);
  clock_.Advance(4999);
  EXPECT_TRUE(Next(10).empty());
  EXPECT_OK(db_->Check());
}

TEST_F(SchedulerTest, HoldHostHoldsUntilItsTimeSurvivesReopeningAndZeroLetsGo) {
  Open(Unthrottled());
  ASSERT_OK(scheduler_->AddSeeds({"http://held.example/", "http://free.example/"}));
  const int64_t until = clock_.NowMs() + 60'000;
  ASSERT_OK(scheduler_->HoldHost("held.example", until));
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://free.example/"});
  Open(Unthrottled());  // the hold is in the host's entry
  clock_.Advance(59'999);
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://free.example/"})
      << "the dead writer's lease comes back; the held host stays held";
  ASSERT_OK(scheduler_->HoldHost("held.example", 0));
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://held.example/"});
  EXPECT_EQ(scheduler_->HoldHost("held.example", -1).code(), StatusCode::kInvalidArgument);
  EXPECT_OK(db_->Check());
}

TEST_F(SchedulerTest, NextOfHostHandsOutThatHostsPagesWithinItsPoliteness) {
  SchedulerOptions options = Unthrottled();
  options.per_host = 2;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2", "http://a.example/3",
                                  "http://b.example/1"}));
  auto a = scheduler_->NextOfHost("a.example", 10, 60'000);
  ASSERT_OK(a.status());
  ASSERT_EQ(a->size(), 2u);  // its room
  for (const Request& r : *a) EXPECT_EQ(r.host, "a.example");
  EXPECT_GT((*a)[0].lease, 0u);
  auto none = scheduler_->NextOfHost("nowhere.example", 10, 60'000);
  ASSERT_OK(none.status());
  EXPECT_TRUE(none->empty());
  // The other host is still handed out by Next, and a.example's third page after a report.
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://b.example/1"});
  Crawl((*a)[0]);
  auto third = scheduler_->NextOfHost("a.example", 10, 60'000);
  ASSERT_OK(third.status());
  ASSERT_EQ(third->size(), 1u);
  EXPECT_EQ(scheduler_->NextOfHost("a.example", 1, 0).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_OK(db_->Check());
}

TEST_F(SchedulerTest, SetDefaultDelaySpacesEveryHostFromItsLastHandOut) {
  SchedulerOptions options = Unthrottled();
  options.per_host = 1;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/1", "http://a.example/2", "http://a.example/3",
                                  "http://b.example/1", "http://b.example/2"}));
  auto first = Next(10);
  ASSERT_EQ(first.size(), 2u);  // one of each host
  for (const Request& r : first) Crawl(r);
  clock_.Advance(1000);
  ASSERT_OK(scheduler_->SetDefaultDelay(5000));
  // 1 s since the last hand-out: 4 s to wait under the new delay.
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(3999);
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(1);
  auto second = Next(10);
  EXPECT_EQ(second.size(), 2u);
  for (const Request& r : second) Crawl(r);
  // Back to no delay: a.example's last page goes at once.
  ASSERT_OK(scheduler_->SetDefaultDelay(0));
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://a.example/3"});
  EXPECT_EQ(scheduler_->SetDefaultDelay(-1).code(), StatusCode::kInvalidArgument);
}

TEST_F(SchedulerTest, StatesOfSaysWhereEachPageStands) {
  SchedulerOptions options = Unthrottled();
  options.max_retries = 0;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/done", "http://a.example/gone",
                                  "http://a.example/out", "http://a.example/wait"}));
  auto r = Next(3);
  ASSERT_EQ(r.size(), 3u);
  Crawl(r[0]);
  ASSERT_OK(scheduler_->Failed({.url = r[1].url, .lease = r[1].lease}));
  auto snapshot = db_->NewSnapshot();
  ASSERT_OK(snapshot.status());
  std::vector<PageRecord> pages;
  for (const Request& q : r) pages.push_back(*snapshot->FindUrl(q.url));
  for (const char* url : {"http://a.example/done", "http://a.example/gone", "http://a.example/out",
                          "http://a.example/wait"}) {
    if (std::none_of(r.begin(), r.end(), [&](const Request& q) { return q.url == url; })) {
      pages.push_back(*snapshot->FindUrl(url));  // the one not handed out
    }
  }
  ASSERT_EQ(pages.size(), 4u);
  auto states = Scheduler::StatesOf(*db_, *snapshot, pages);
  ASSERT_OK(states.status());
  std::vector<PageState::Kind> kinds;
  for (const PageState& s : *states) kinds.push_back(s.kind);
  EXPECT_EQ(kinds, (std::vector<PageState::Kind>{PageState::Kind::kCrawled, PageState::Kind::kFailed,
                                                 PageState::Kind::kLeased,
                                                 PageState::Kind::kQueued}));
  EXPECT_GT((*states)[2].time_ms, clock_.NowMs());  // the lease's expiry
}

TEST_F(SchedulerTest, PagesWrittenBesideTheSchedulerAreScheduled) {
  Open(Unthrottled());
  ASSERT_OK(db_->Add(Fetched("http://a.example/", {{"http://a.example/x", 0.3f}})));
  EXPECT_EQ(Urls(Next(10)), std::vector<std::string>{"http://a.example/x"});
  EXPECT_EQ(scheduler_->GetStats().crawled, 1u);
}

TEST_F(SchedulerTest, SecondSchedulerOnOnePageDbIsRefused) {
  Open(Unthrottled());
  auto second = Scheduler::Open(*db_, Unthrottled());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(SchedulerTest, RevisitsComeBackAndTheCrawlIsNeverFinished) {
  SchedulerOptions options = WithRevisits(Unthrottled());
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  auto first = Next(10);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].revisit);
  CrawledPage page = Fetched(first[0].url);
  page.crawl_time_ms = clock_.NowMs();
  ASSERT_OK(scheduler_->Crawled({page, first[0].lease}));
  SchedulerStats stats = scheduler_->GetStats();
  EXPECT_FALSE(stats.finished);
  EXPECT_EQ(stats.next_revisit_ms, clock_.NowMs() + 1000);  // seen once: min_revisit_ms
  clock_.Advance(999);
  EXPECT_TRUE(Next(10).empty());
  clock_.Advance(1);
  auto again = Next(10);
  ASSERT_EQ(Urls(again), Urls(first));
  EXPECT_TRUE(again[0].revisit);
  {  // A reader sees the revisit in flight.
    PageDbOptions reading = Fast();
    reading.read_only = true;
    ASSERT_OK_AND_ASSIGN(auto reader, PageDb::Open(dir_.Sub("db"), reading));
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(ScheduleView view, Scheduler::Inspect(*reader, options, 10, 10));
    ASSERT_EQ(view.in_flight.size(), 1u);
    EXPECT_EQ(view.in_flight[0].lease, again[0].lease);
    EXPECT_EQ(view.stats.in_flight, 1u);
  }
  // Killed while the revisit is in flight: the next writer takes it back; Check is clean.
  Open(options);
  EXPECT_OK(db_->Check());
  auto after_restart = Next(10);
  ASSERT_EQ(Urls(after_restart), Urls(first));
  page.crawl_time_ms = clock_.NowMs();
  ASSERT_OK(scheduler_->Crawled({page, after_restart[0].lease}));
  // The content never changes. Every second unchanged interval ends an epoch whose
  // estimated rate is -ln((2 - 0 + 0.5) / (2 + 0.5)) = 0: the interval grows 4x.
  EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, clock_.NowMs() + 1000);
  for (const int64_t interval : {4000, 4000, 16'000, 16'000}) {
    clock_.Set(scheduler_->GetStats().next_revisit_ms);
    auto due = Next(10);
    ASSERT_EQ(due.size(), 1u);
    page.crawl_time_ms = clock_.NowMs();
    ASSERT_OK(scheduler_->Crawled({page, due[0].lease}));
    EXPECT_EQ(scheduler_->GetStats().next_revisit_ms, clock_.NowMs() + interval);
  }
  EXPECT_OK(db_->Check());
}

// Three pages whose content changes as Poisson processes of `rates` (per ms), each on its
// own host, revisited for `duration_ms` of simulated time; returns the visits of each.
std::vector<uint64_t> SimulateRevisits(Scheduler& scheduler, ManualClock& clock,
                                       const std::vector<double>& rates, int64_t duration_ms,
                                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> seeds;
  for (size_t i = 0; i < rates.size(); ++i)
    seeds.push_back("http://p" + std::to_string(i) + ".example/");
  EXPECT_OK(scheduler.AddSeeds(seeds));
  std::vector<double> next_change(rates.size());
  std::vector<uint64_t> hash(rates.size(), 1), visits(rates.size(), 0);
  for (size_t i = 0; i < rates.size(); ++i) {
    next_change[i] = clock.NowMs() + std::exponential_distribution<double>(rates[i])(rng);
  }
  const int64_t end = clock.NowMs() + duration_ms;
  while (clock.NowMs() < end) {
    auto next = scheduler.Next(8);
    EXPECT_TRUE(next.ok());
    if (!next.ok()) break;
    if (next->empty()) {
      const SchedulerStats stats = scheduler.GetStats();
      EXPECT_GT(stats.next_ready_ms, clock.NowMs());
      if (stats.next_ready_ms <= clock.NowMs()) break;
      clock.Set(stats.next_ready_ms);
      continue;
    }
    for (const Request& r : *next) {
      const size_t i = static_cast<size_t>(r.url[8] - '0');
      const double now = static_cast<double>(clock.NowMs());
      if (next_change[i] <= now) {
        ++hash[i];
        while (next_change[i] <= now) {
          next_change[i] += std::exponential_distribution<double>(rates[i])(rng);
        }
      }
      CrawledPage page = Fetched(r.url);
      page.crawl_time_ms = clock.NowMs();
      page.content_hash = hash[i];
      EXPECT_OK(scheduler.Crawled({page, r.lease}));
      ++visits[i];
    }
  }
  return visits;
}

void ExpectShares(const std::vector<uint64_t>& visits, const std::vector<double>& weights,
                  double tolerance) {
  double total = 0, weight = 0;
  for (size_t i = 0; i < visits.size(); ++i) {
    total += static_cast<double>(visits[i]);
    weight += weights[i];
  }
  for (size_t i = 0; i < visits.size(); ++i) {
    const double expected = weights[i] / weight;
    EXPECT_NEAR(static_cast<double>(visits[i]) / total, expected, expected * tolerance)
        << "page " << i << " visited " << visits[i] << " times of " << total;
  }
}

// Revisit frequencies of 0.1, 0.2 and 0.4 Hz (rules: intervals of 10, 5 and 2.5 s): over
// a long run the crawl counts are within 1% of those proportions.
TEST_F(SchedulerTest, RevisitSharesFollowTheirFrequencies) {
  SchedulerOptions options = Unthrottled();
  options.revisits = true;
  options.revisit_share = 1;
  options.min_revisit_ms = 10;
  options.revisit_rules = {{"//p0\\.", 10'000, 0}, {"//p1\\.", 5'000, 0}, {"//p2\\.", 2'500, 0}};
  Open(options);
  const auto visits =
      SimulateRevisits(*scheduler_, clock_, {0.1e-3, 0.2e-3, 0.4e-3}, 20'000'000, 1);
  ExpectShares(visits, {0.1, 0.2, 0.4}, 0.01);
}

// The same rates, estimated: pages whose content changes as Poisson processes of 0.1, 0.2
// and 0.4 changes a second are revisited in proportion, once the estimator has settled.
TEST_F(SchedulerTest, RevisitsFollowEstimatedChangeRates) {
  const uint64_t seed = 20261124;
  std::printf("RevisitsFollowEstimatedChangeRates seed %lu\n", static_cast<unsigned long>(seed));
  SchedulerOptions options = Unthrottled();
  options.revisits = true;
  options.revisit_share = 1;
  options.min_revisit_ms = 10;
  options.max_revisit_ms = 10'000'000;
  Open(options);
  const auto visits =
      SimulateRevisits(*scheduler_, clock_, {0.1e-3, 0.2e-3, 0.4e-3}, 100'000'000, seed);
  std::printf("visits %lu %lu %lu\n", static_cast<unsigned long>(visits[0]),
              static_cast<unsigned long>(visits[1]), static_cast<unsigned long>(visits[2]));
  ExpectShares(visits, {0.1, 0.2, 0.4}, 0.05);
}

TEST_F(SchedulerTest, InspectShowsTheScheduleToAReaderBesideTheCrawl) {
  SchedulerOptions options = Unthrottled();
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/"}));
  Crawl(Next(1).at(0),
        {{"http://a.example/1", 0.2f}, {"http://b.example/1", 0.9f}, {"http://c.example/1", 0.5f}});
  auto leased = Next(1);  // b.example/1, the best
  ASSERT_EQ(Urls(leased), std::vector<std::string>{"http://b.example/1"});
  ASSERT_OK(scheduler_->Failed(
      {.url = "http://c.example/1", .http_status = 503, .retry_after_ms = 30'000}));
  // The crawl goes on in this process; a reader opens the DB beside it.
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto reader, PageDb::Open(dir_.Sub("db"), reading));
  options.clock = &clock_;
  ASSERT_OK_AND_ASSIGN(ScheduleView view, Scheduler::Inspect(*reader, options, 10, 10));
  ASSERT_EQ(view.next.size(), 1u);
  EXPECT_EQ(view.next[0].url, "http://a.example/1");
  EXPECT_FLOAT_EQ(view.next[0].score, 0.2f);
  ASSERT_EQ(view.in_flight.size(), 1u);
  EXPECT_EQ(view.in_flight[0].url, "http://b.example/1");
  EXPECT_EQ(view.in_flight[0].lease, leased[0].lease);
  EXPECT_EQ(view.stats.retrying, 1u);
  EXPECT_EQ(view.stats.crawled, 1u);
  bool held = false;
  for (const auto& host : view.hosts) {
    if (host.key == "c.example") held = host.hold_until_ms == clock_.NowMs() + 30'000;
  }
  EXPECT_TRUE(held) << "the 503's hold is not shown";
  // The tool prints the same (on the system clock, long past this test's holds).
  const std::string command = std::string(CRAWLRANK_TOOLS_DIR) + "/page_db_schedule " +
                              dir_.Sub("db") + " --hosts --score link-score 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, got);
  EXPECT_EQ(::pclose(pipe), 0) << out;
  EXPECT_NE(out.find("queued 1, in flight 1, retrying 1, crawled 1"), std::string::npos) << out;
  EXPECT_NE(out.find("0.200000003 http://a.example/1 a.example"), std::string::npos) << out;
  EXPECT_NE(out.find(std::to_string(leased[0].lease) + " "), std::string::npos) << out;
}

// Payloads and priorities are given with the call that creates a page and come back with
// it; the first request for a page wins, as in Scrapy's dupefilter.
TEST_F(SchedulerTest, PayloadsAndPrioritiesComeBackWithThePagesTheyCreated) {
  Open(Unthrottled());
  // Seeds: a (id 0), b (id 1), c (id 2), all with link score 1. b's priority puts it first.
  ASSERT_OK(scheduler_->AddSeeds(
      {Extra("http://a.example/", "seed-a"), Extra("http://b.example/", "seed-b", 2)}));
  // a exists: this extra (the same URL before canonicalisation) is ignored. Of two extras
  // naming one new page, the first wins.
  ASSERT_OK(scheduler_->AddSeeds({Extra("HTTP://A.example", "other", 5),
                                  Extra("http://c.example/", "first"),
                                  Extra("http://c.example/", "second", 7)}));
  auto first = Next(2);
  EXPECT_EQ(Extras(first), (std::vector<Handed>{{"http://b.example/", "seed-b", 2},
                                                {"http://a.example/", "seed-a", 0}}));
  ASSERT_EQ(first.size(), 2u);
  // b's links create b/1 (id 3) and d (id 4); c already exists (queued) and e is no link
  // of the report: their extras are ignored.
  Crawl(first[0],
        {{"http://b.example/1", 0.3f}, {"http://c.example/", 0.9f}, {"http://d.example/", 0.5f}},
        {Extra("http://b.example/1", "b1"), Extra("http://c.example/", "replaced", 9),
         Extra("http://d.example/", "d", 1), Extra("http://e.example/", "e", 3)});
  Crawl(first[1]);
  // d (priority 1) first; then by score: c (1, its seed score), b/1 (0.3).
  EXPECT_EQ(Extras(Next(10)), (std::vector<Handed>{{"http://d.example/", "d", 1},
                                                   {"http://c.example/", "first", 0},
                                                   {"http://b.example/1", "b1", 0}}));
  EXPECT_EQ(scheduler_->GetStats().queued, 0u);
  // An extra whose URL cannot be canonicalised fails the whole report, which writes
  // nothing: the page stays in flight and its links unknown.
  ASSERT_OK(scheduler_->AddSeeds({"http://f.example/"}));
  auto f = Next(1);
  ASSERT_EQ(Urls(f), std::vector<std::string>{"http://f.example/"});
  const Status bad = scheduler_->Crawled({Fetched(f[0].url, {{"http://f.example/1", 0.5f}}),
                                          f[0].lease,
                                          {Extra("http://f.example/1", "ok"), Extra("::", "x")}});
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("\"::\""), std::string::npos) << bad.ToString();
  EXPECT_EQ(scheduler_->GetStats().crawled, 2u);
  EXPECT_EQ(scheduler_->GetStats().in_flight, 4u);
  EXPECT_EQ(db_->NewSnapshot()->counters().pages, 6u);
}

// The referrer travels with the request (the crawl log's), so a crawler never reads the
// PageDB for it: the page whose link found the URL first, a later linker changing nothing.
TEST_F(SchedulerTest, ARequestNamesThePageWhoseLinkFoundItFirst) {
  SchedulerOptions options = Unthrottled();
  options.name_referrers = true;
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://a.example/", "http://b.example/"}));
  std::vector<Request> seeds = Next(10);
  ASSERT_EQ(seeds.size(), 2u);
  for (const Request& r : seeds) EXPECT_EQ(r.referrer, "") << r.url;
  std::sort(seeds.begin(), seeds.end(), [](const Request& x, const Request& y) { return x.url < y.url; });
  Crawl(seeds[0], {{"http://c.example/", 0.5f}});  // a.example finds c.example first
  Crawl(seeds[1], {{"http://c.example/", 0.9f}, {"http://d.example/", 0.1f}});
  std::vector<Request> found = Next(10);
  ASSERT_EQ(found.size(), 2u);
  std::map<std::string, std::string> referrers;
  for (const Request& r : found) referrers[r.url] = r.referrer;
  EXPECT_EQ(referrers, (std::map<std::string, std::string>{
                           {"http://c.example/", "http://a.example/"},
                           {"http://d.example/", "http://b.example/"}}));
  // Not asked for: not looked up.
  Open(Unthrottled());
  ASSERT_OK(scheduler_->AddSeeds({"http://e.example/"}));
  Crawl(Next(1).at(0), {{"http://f.example/", 0.5f}});
  EXPECT_EQ(Next(1).at(0).referrer, "");
}

// Scheduler::Write: a PageDb write batch (a URLFrontier client's discovered URLs, each a
// link from its source) with extras for the pages it creates.
TEST_F(SchedulerTest, AWriteBatchGivesTheExtrasToThePagesItCreates) {
  Open(Unthrottled());
  ASSERT_OK(scheduler_->AddSeeds({"http://old.example/"}));
  WriteBatch batch;
  batch.MergeLinks("http://src.example/", {Link{.url = "http://old.example/"},
                                           Link{.url = "http://new.example/a"},
                                           Link{.url = "http://new.example/b"}});
  const std::vector<QueuedExtra> extras{Extra("http://old.example/", "ignored", 9),
                                        Extra("HTTP://NEW.example/a", "payload-a", 3),
                                        Extra("http://new.example/a", "second", 4)};
  ASSERT_OK(scheduler_->Write(batch, extras));
  // a (priority 3) first; then the others in discovery order (equal link scores).
  EXPECT_EQ(Extras(Next(10)), (std::vector<Handed>{{"http://new.example/a", "payload-a", 3},
                                                   {"http://old.example/", "", 0},
                                                   {"http://src.example/", "", 0},
                                                   {"http://new.example/b", "", 0}}));
  const Status bad = scheduler_->Write(batch, std::vector<QueuedExtra>{Extra("::", "x")});
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("\"::\""), std::string::npos) << bad.ToString();
  EXPECT_OK(db_->Check());
}

// Priority goes before score, within a host's queue and across hosts; a re-key (a raised
// link score) keeps the page's tier. Inspect and page_db_schedule order the same way.
TEST_F(SchedulerTest, PriorityGoesBeforeScoreWithinAndAcrossHosts) {
  SchedulerOptions options = Unthrottled();
  Open(options);
  ASSERT_OK(scheduler_->AddSeeds({"http://s.example/"}));
  Crawl(Next(1).at(0),
        {{"http://a.example/1", 0.9f},
         {"http://a.example/2", 0.1f},
         {"http://b.example/1", 0.8f},
         {"http://b.example/2", 0.2f},
         {"http://b.example/3", 0.3f},
         {"http://a.example/3", 0.5f}},
        {Extra("http://a.example/2", "", 1), Extra("http://b.example/2", "", 2),
         Extra("http://b.example/3", "", 1), Extra("http://a.example/3", "", -1)});
  // Later in-links raise a/2 to 0.35 and a/3 to 0.95 (max over in-links).
  ASSERT_OK(db_->Add(Fetched("http://z.example/",
                             {{"http://a.example/2", 0.35f}, {"http://a.example/3", 0.95f}})));
  // (priority, score): b/2 (2, .2), a/2 (1, .35), b/3 (1, .3), a/1 (0, .9), b/1 (0, .8),
  // a/3 (-1, .95). By score alone: a/3, a/1, b/1, a/2, b/3, b/2.
  const std::vector<std::string> expected = {"http://b.example/2", "http://a.example/2",
                                             "http://b.example/3", "http://a.example/1",
                                             "http://b.example/1", "http://a.example/3"};
  const std::vector<int32_t> priorities = {2, 1, 1, 0, 0, -1};
  PageDbOptions reading = Fast();
  reading.read_only = true;
  {
    ASSERT_OK_AND_ASSIGN(auto reader, PageDb::Open(dir_.Sub("db"), reading));
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(ScheduleView view, Scheduler::Inspect(*reader, options, 10, 0));
    ASSERT_EQ(view.next.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(view.next[i].url, expected[i]) << i;
      EXPECT_EQ(view.next[i].priority, priorities[i]) << i;
    }
  }
  const std::string out = RunTool("page_db_schedule " + dir_.Sub("db") + " --score link-score");
  EXPECT_NE(out.find("# next: priority score url host\n2 0.200000003 http://b.example/2 b.example\n"
                     "1 0.349999994 http://a.example/2 a.example\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\n-1 0.949999988 http://a.example/3 a.example\n"), std::string::npos) << out;
  auto next = Next(10);
  EXPECT_EQ(Urls(next), expected);
  ASSERT_EQ(next.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(next[i].priority, priorities[i]) << i;
  EXPECT_FLOAT_EQ(next[1].score, 0.35f);
}

// The tiers persist in the `schedule` table and the payloads in `payloads`: after a
// restart the queue hands pages out in the same order with the same payloads, and a lease
// in flight at the close, or a retry, comes back at its tier.
TEST_F(SchedulerTest, PrioritiesAndPayloadsSurviveARestart) {
  SchedulerOptions options = Unthrottled();
  options.retry_ms = 1000;
  Open(options);
  // Ids in this order; all seeds score 1. Order: b/2 (3), a/2 (1), c/0, a/1, b/1 (0, by
  // id), d/1 (-1).
  ASSERT_OK(scheduler_->AddSeeds(
      {Extra("http://c.example/0", "pc0"), Extra("http://d.example/1", "pd1", -1),
       Extra("http://a.example/1", "pa1"), Extra("http://a.example/2", "pa2", 1),
       Extra("http://b.example/2", "pb2", 3), Extra("http://b.example/1", "pb1")}));
  auto leased = Next(2);
  ASSERT_EQ(Extras(leased), (std::vector<Handed>{{"http://b.example/2", "pb2", 3},
                                                 {"http://a.example/2", "pa2", 1}}));
  ASSERT_OK(scheduler_->Failed({.url = leased[1].url, .lease = leased[1].lease}));
  // b/2 is still leased when the process "dies"; a/2 waits to retry until +1000 ms.
  Open(options);
  EXPECT_EQ(Extras(Next(2)), (std::vector<Handed>{{"http://b.example/2", "pb2", 3},
                                                  {"http://c.example/0", "pc0", 0}}));
  clock_.Advance(1000);
  // Had a/2 come back at priority 0 it would follow a/1 (a lower id); had d/1 lost its
  // tier, it would lead (the lowest id left).
  EXPECT_EQ(Extras(Next(10)), (std::vector<Handed>{{"http://a.example/2", "pa2", 1},
                                                   {"http://a.example/1", "pa1", 0},
                                                   {"http://b.example/1", "pb1", 0},
                                                   {"http://d.example/1", "pd1", -1}}));
  EXPECT_OK(db_->Check());
}

// A payload lives from the transaction that creates its page to the one that records it
// crawled or failed for good; a queued page's tier is a `schedule` entry. Check(kFull)
// reports a payload of a crawled page, or of one failed for good.
TEST_F(SchedulerTest, PayloadsGoWithTheCrawlOrTheFinalFailure) {
  SchedulerOptions options = Unthrottled();
  options.retry_ms = 1000;
  Open(options);
  ASSERT_OK(
      scheduler_->AddSeeds({Extra("http://a.example/", "pa"), Extra("http://b.example/", "pb"),
                            Extra("http://c.example/", "pc", 3), Extra("http://d.example/", "")}));
  using Table = std::map<uint32_t, std::string>;
  EXPECT_EQ(Rows(*db_, &PageDbImpl::payloads), (Table{{0, "pa"}, {1, "pb"}, {2, "pc"}}));
  // c's tier: state 0 (queued), 0 failures, zigzag(3) = 6.
  EXPECT_EQ(Rows(*db_, &PageDbImpl::schedule), (Table{{2, std::string("\x00\x00\x06", 3)}}));
  auto r = Next(10);  // c, a, b, d
  ASSERT_EQ(Urls(r), (std::vector<std::string>{"http://c.example/", "http://a.example/",
                                               "http://b.example/", "http://d.example/"}));
  Crawl(r[1]);                                                            // a
  ASSERT_OK(scheduler_->Failed({.url = r[2].url, .lease = r[2].lease}));  // b: retries
  ASSERT_OK(scheduler_->Failed({.url = r[0].url, .lease = r[0].lease, .retryable = false}));
  EXPECT_EQ(Rows(*db_, &PageDbImpl::payloads), (Table{{1, "pb"}}));
  clock_.Advance(1000);
  auto retry = Next(10);
  ASSERT_EQ(Extras(retry), (std::vector<Handed>{{"http://b.example/", "pb", 0}}));
  Crawl(retry[0]);
  EXPECT_TRUE(Rows(*db_, &PageDbImpl::payloads).empty());
  ASSERT_OK(db_->Check());
  scheduler_.reset();
  db_.reset();
  // Planted: page 2 (c) failed for good, page 0 (a) crawled. The check reads payloads in
  // id order.
  const std::string path = dir_.Sub("db");
  testing::PutRaw(path, "payloads", std::string("\0\0\0\x02", 4), "late");
  ExpectCheckReports(path, "payload of page 2, which failed for good");
  testing::PutRaw(path, "payloads", std::string(4, '\0'), "late");
  ExpectCheckReports(path, "payload of page 0, which is crawled");
}

// Many threads hand out and report pages while the clock moves: no host ever has two
// requests in flight, and two hand-outs to one host are at least the delay apart.
TEST_F(SchedulerTest, PolitenessHoldsUnderConcurrentRandomOperations) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::printf("PolitenessHoldsUnderConcurrentRandomOperations seed %u\n", seed);
  SchedulerOptions options;
  options.delay_ms = 50;
  options.lease_ms = 1'000'000;
  Open(options);
  std::vector<std::string> seeds;
  for (int h = 0; h < 8; ++h) {
    for (int p = 0; p < 40; ++p) {
      seeds.push_back("http://h" + std::to_string(h) + ".example/" + std::to_string(p));
    }
  }
  ASSERT_OK(scheduler_->AddSeeds(seeds));
  // h0 and h1 share one budget: they count as one politeness unit below.
  ASSERT_OK(scheduler_->SetHostGroup("h0.example", "shared"));
  ASSERT_OK(scheduler_->SetHostGroup("h1.example", "shared"));
  const auto unit = [](const std::string& host) {
    return host == "h0.example" || host == "h1.example" ? std::string("shared") : host;
  };
  std::mutex mu;
  std::map<std::string, int> in_flight;
  struct HandOut {
    uint64_t lease;
    int64_t before, after;  // the clock before and after the Next that handed it out
  };
  std::map<std::string, std::vector<HandOut>> handed;
  std::atomic<int> violations{0};
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(seed + t);
      for (int op = 0; op < 1500 && done.load() < static_cast<int>(seeds.size()); ++op) {
        clock_.Advance(rng() % 7);
        const int64_t before = clock_.NowMs();
        auto next = scheduler_->Next(1 + rng() % 4);
        if (!next.ok()) {
          ++violations;
          continue;
        }
        const int64_t after = clock_.NowMs();
        for (const Request& r : *next) {
          {
            std::lock_guard lock(mu);
            if (++in_flight[unit(r.host)] > 1) ++violations;
            handed[unit(r.host)].push_back({r.lease, before, after});
          }
          {
            std::lock_guard lock(mu);
            --in_flight[unit(r.host)];
          }
          Status reported = rng() % 5 == 0 ? scheduler_->Failed({.url = r.url, .lease = r.lease})
                                           : scheduler_->Crawled({Fetched(r.url), r.lease});
          if (!reported.ok()) ++violations;
          ++done;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(violations.load(), 0);
  // Leases are numbered in hand-out order. The scheduler read the clock somewhere in
  // [before, after] of each Next, so a delay it kept shows as after >= before + delay.
  for (auto& [host, list] : handed) {
    std::sort(list.begin(), list.end(),
              [](const HandOut& a, const HandOut& b) { return a.lease < b.lease; });
    for (size_t i = 1; i < list.size(); ++i) {
      EXPECT_GE(list[i].after, list[i - 1].before + options.delay_ms)
          << host << ": hand-outs " << i - 1 << " and " << i << " too close";
    }
  }
  EXPECT_GT(done.load(), 100);
  EXPECT_OK(db_->Check());
}

}  // namespace
}  // namespace crawlrank

namespace crawlrank {
namespace {

// Check(kFull) reads the scheduler's tables: an entry for a crawled page is damage.
TEST(SchedulerCheckTest, ScheduleEntryOfACrawledPageIsReported) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    ASSERT_OK(db->Add(Fetched("http://a.example/", {{"http://a.example/x", 0.5f}})));
    ASSERT_OK(db->Check());
  }
  // Page 0, the crawled one: "queued after one failure".
  testing::PutRaw(path, "schedule", std::string(4, '\0'), std::string("\x00\x01", 2));
  ExpectCheckReports(path, "schedule entry of page 0, which is crawled");
}

// docs/format.md's worked example of a `schedule` value, and the codec's round trips.
TEST(ScheduleTableTest, EncodesTheDocumentedExampleAndRoundTrips) {
  ScheduleEntry leased;
  leased.state = EntryState::kLeased;
  leased.failures = 1;
  leased.lease = 300;
  leased.time_ms = 1'700'000'000'000;
  std::string value;
  EncodeScheduleEntry(leased, &value);
  EXPECT_EQ(value, std::string("\x01\x01\xac\x02\x80\xa0\xab\xfe\xf9\x62", 10));
  ScheduleEntry failed;
  failed.state = EntryState::kFailed;
  failed.failures = 4;
  failed.http_status = 503;
  failed.reason = "server error";
  failed.kind = FailureKind::kHttp5xx;
  failed.failed_ms = 1'700'000'000'000;
  for (const ScheduleEntry& entry : {leased, failed}) {
    std::string encoded;
    EncodeScheduleEntry(entry, &encoded);
    ScheduleEntry decoded;
    ASSERT_OK(DecodeScheduleEntry(7, encoded, &decoded));
    EXPECT_EQ(decoded.state, entry.state);
    EXPECT_EQ(decoded.failures, entry.failures);
    EXPECT_EQ(decoded.lease, entry.lease);
    EXPECT_EQ(decoded.time_ms, entry.time_ms);
    EXPECT_EQ(decoded.http_status, entry.http_status);
    EXPECT_EQ(decoded.reason, entry.reason);
    EXPECT_EQ(decoded.kind, entry.kind);
    EXPECT_EQ(decoded.failed_ms, entry.failed_ms);
    // Every shorter value is damage, named by its page.
    for (size_t cut = 0; cut < encoded.size(); ++cut) {
      const Status status = DecodeScheduleEntry(7, encoded.substr(0, cut), &decoded);
      EXPECT_EQ(status.code(), StatusCode::kDataLoss) << cut;
      EXPECT_NE(status.message().find("page 7"), std::string::npos);
    }
  }
  HostEntry host{1'000, 2, 5'000, "robots", "10.0.0.1"};
  value.clear();
  EncodeHostEntry(host, &value);
  HostEntry back;
  ASSERT_OK(DecodeHostEntry("example.com", value, &back));
  EXPECT_EQ(back.hold_until_ms, 1'000);
  EXPECT_EQ(back.holds_in_a_row, 2u);
  EXPECT_EQ(back.crawl_delay_ms, 5'000);
  EXPECT_EQ(back.robots, "robots");
  EXPECT_EQ(back.group, "10.0.0.1");
  EXPECT_EQ(DecodeHostEntry("example.com", value + "x", &back).code(), StatusCode::kDataLoss);
}

// The optional trailing priority of states 0, 1 and 2: docs/format.md's examples, round
// trips at the ends of int32, and values written before it existed (priority 0).
TEST(ScheduleTableTest, PriorityIsAnOptionalTrailingField) {
  ScheduleEntry queued;
  queued.priority = 100;  // zigzag 200: varint c8 01
  std::string value;
  EncodeScheduleEntry(queued, &value);
  EXPECT_EQ(value, std::string("\x00\x00\xc8\x01", 4));
  ScheduleEntry leased;
  leased.state = EntryState::kLeased;
  leased.failures = 1;
  leased.lease = 300;
  leased.time_ms = 1'700'000'000'000;
  leased.priority = -2;  // zigzag 3
  value.clear();
  EncodeScheduleEntry(leased, &value);
  EXPECT_EQ(value, std::string("\x01\x01\xac\x02\x80\xa0\xab\xfe\xf9\x62\x03", 11));
  ScheduleEntry decoded;
  // Without it (the first example of the format), the priority is 0.
  decoded.priority = 9;
  ASSERT_OK(DecodeScheduleEntry(7, std::string("\x01\x01\xac\x02\x80\xa0\xab\xfe\xf9\x62", 10),
                                &decoded));
  EXPECT_EQ(decoded.lease, 300u);
  EXPECT_EQ(decoded.priority, 0);
  ASSERT_OK(DecodeScheduleEntry(7, std::string("\x00\x02", 2), &decoded));
  EXPECT_EQ(decoded.failures, 2u);
  EXPECT_EQ(decoded.priority, 0);
  ScheduleEntry retrying;
  retrying.state = EntryState::kRetrying;
  retrying.failures = 2;
  retrying.time_ms = -5;
  for (const int32_t priority : {INT32_MIN, -1, 1, INT32_MAX}) {
    for (ScheduleEntry entry : {queued, leased, retrying}) {
      entry.priority = priority;
      std::string encoded;
      EncodeScheduleEntry(entry, &encoded);
      ScheduleEntry back;
      ASSERT_OK(DecodeScheduleEntry(7, encoded, &back));
      EXPECT_EQ(back.state, entry.state);
      EXPECT_EQ(back.failures, entry.failures);
      EXPECT_EQ(back.lease, entry.lease);
      EXPECT_EQ(back.time_ms, entry.time_ms);
      EXPECT_EQ(back.priority, priority);
    }
  }
  // A page failed for good has no tier: none is written, and a trailing field is damage.
  ScheduleEntry failed;
  failed.state = EntryState::kFailed;
  failed.failures = 4;
  failed.reason = "gone";
  failed.priority = 5;
  value.clear();
  EncodeScheduleEntry(failed, &value);
  EXPECT_EQ(value, std::string("\x03\x04\x00\x04gone\x00\x00", 10));
  EXPECT_EQ(DecodeScheduleEntry(7, value + "\x0a", &decoded).code(), StatusCode::kDataLoss);
  // A priority beyond int32 (zigzag(2^31) = 2^32: 80 80 80 80 10) is damage; so is a
  // second trailing field.
  EXPECT_EQ(DecodeScheduleEntry(7, std::string("\x00\x00\x80\x80\x80\x80\x10", 7), &decoded).code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(DecodeScheduleEntry(7, std::string("\x00\x00\x06\x06", 4), &decoded).code(),
            StatusCode::kDataLoss);
}

// Format version 4's failed entry (docs/format.md): the kind byte and the time after the
// reason. A version 3 entry has neither and reads with the kind its status and reason give.
TEST(ScheduleTableTest, FailedEntryKeepsItsKindAndTimeFromVersion4) {
  ScheduleEntry failed;
  failed.state = EntryState::kFailed;
  failed.failures = 1;
  failed.reason = "x";
  failed.kind = FailureKind::kRobotsUnreachable;  // 9
  failed.failed_ms = -1;                           // zigzag 1
  std::string value;
  EncodeScheduleEntry(failed, &value);
  EXPECT_EQ(value, std::string("\x03\x01\x00\x01x\x09\x01", 7));
  ScheduleEntry decoded;
  // The same bytes without the two fields: damage in version 4, a version 3 entry in 3.
  const std::string v3("\x03\x01\x00\x01x", 5);
  EXPECT_EQ(DecodeScheduleEntry(7, v3, &decoded).code(), StatusCode::kDataLoss);
  ASSERT_OK(DecodeScheduleEntry(7, v3, &decoded, 3));
  EXPECT_EQ(decoded.kind, FailureKind::kOther);
  EXPECT_EQ(decoded.failed_ms, 0);
  ASSERT_OK(DecodeScheduleEntry(7, std::string("\x03\x01\xf7\x03\x08HTTP 503", 13), &decoded, 3));
  EXPECT_EQ(decoded.http_status, 503);
  EXPECT_EQ(decoded.kind, FailureKind::kHttp5xx);
  ASSERT_OK(DecodeScheduleEntry(
      7, std::string("\x03\x01\x00\x17robots.txt disallows it", 27), &decoded, 3));
  EXPECT_EQ(decoded.kind, FailureKind::kRobotsDisallowed);
  // A kind past the last known one is damage.
  std::string unknown = value;
  unknown[5] = static_cast<char>(kMaxFailureKind + 1);
  EXPECT_EQ(DecodeScheduleEntry(7, unknown, &decoded).code(), StatusCode::kDataLoss);
}

// Format version 6: a removed entry (state 4: failures, then the time of the removal; no
// priority), and the hosts entry's version 2 with its page limit (docs/format.md).
TEST(ScheduleTableTest, RemovedEntryAndHostLimitAreNewInVersion6) {
  ScheduleEntry removed;
  removed.state = EntryState::kRemoved;
  removed.failures = 2;
  removed.time_ms = 1'700'000'000'000;
  removed.priority = 7;  // not kept: a removed page is never queued again
  std::string value;
  EncodeScheduleEntry(removed, &value);
  EXPECT_EQ(value, std::string("\x04\x02\x80\xa0\xab\xfe\xf9\x62", 8));
  ScheduleEntry decoded;
  ASSERT_OK(DecodeScheduleEntry(7, value, &decoded));
  EXPECT_EQ(decoded.state, EntryState::kRemoved);
  EXPECT_EQ(decoded.failures, 2u);
  EXPECT_EQ(decoded.time_ms, 1'700'000'000'000);
  EXPECT_EQ(decoded.priority, 0);
  EXPECT_EQ(DecodeScheduleEntry(7, value + "\x0e", &decoded).code(), StatusCode::kDataLoss);
  // Version 5 knew no state 4.
  EXPECT_EQ(DecodeScheduleEntry(7, value, &decoded, 5).code(), StatusCode::kDataLoss);
  HostEntry limited{0, 0, 0, "", "", 300};
  value.clear();
  EncodeHostEntry(limited, &value);
  EXPECT_EQ(value, std::string("\x02\x00\x00\x00\x00\x00\xac\x02", 8));
  HostEntry back;
  ASSERT_OK(DecodeHostEntry("example.com", value, &back));
  EXPECT_EQ(back.page_limit, 300u);
  // Version 1 (format versions 3 to 5) has no limit field: none.
  ASSERT_OK(DecodeHostEntry("example.com", std::string("\x01\x00\x00\x00\x00\x00", 6), &back));
  EXPECT_EQ(back.page_limit, 0u);
  EXPECT_EQ(DecodeHostEntry("example.com", std::string("\x01\x00\x00\x00\x00\x00\x01", 7),
                            &back)
                .code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(DecodeHostEntry("example.com", std::string("\x03\x00\x00\x00\x00\x00\x00", 7),
                            &back)
                .code(),
            StatusCode::kDataLoss);
}

}  // namespace
}  // namespace crawlrank
