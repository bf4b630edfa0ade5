#include "crawlrank/db_rank.h"

#include <gtest/gtest.h>

#include "rank_reference.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::L1;
using testing::TempDir;

std::string Url(uint32_t host, uint32_t page) {
  return "http://h" + std::to_string(host) + ".example/" + std::to_string(page);
}

// A crawl of 3 hosts with 20 pages each; page p of host h links to a few pages, some on
// other hosts. Returns the edges by page id as the DB numbered them.
struct Crawl {
  std::unique_ptr<PageDb> db;
  testing::EdgeList edges;
  uint32_t pages = 0;
};

std::unique_ptr<PageDb> OpenScratchDb(const TempDir& dir) {
  PageDbOptions options;
  options.durability = Durability::kNone;
  return std::move(PageDb::Open(dir.Sub("db"), options)).value();
}

// Every stored link, by page id.
testing::EdgeList EdgesOf(const Snapshot& snapshot) {
  testing::EdgeList edges;
  for (EdgeCursor c = snapshot.Edges(); c.Valid(); c.Next()) {
    for (uint32_t t : c.targets()) edges.emplace_back(c.source(), t);
  }
  return edges;
}

Crawl MakeCrawl(const TempDir& dir) {
  Crawl crawl;
  crawl.db = OpenScratchDb(dir);
  std::vector<CrawledPage> batch;
  for (uint32_t h = 0; h < 3; ++h) {
    for (uint32_t p = 0; p < 20; ++p) {
      CrawledPage page;
      page.url = Url(h, p);
      page.content_score = float(p % 4) / 4;
      for (uint32_t k = 1; k <= p % 5; ++k) page.links.push_back({Url(h, (p * k + 3) % 20), 0.5f});
      if (p % 3 == 0) page.links.push_back({Url((h + 1) % 3, p), 0.f});
      batch.push_back(std::move(page));
    }
  }
  EXPECT_OK(crawl.db->AddBatch(batch));
  auto snapshot = std::move(crawl.db->NewSnapshot()).value();
  crawl.pages = static_cast<uint32_t>(snapshot.counters().pages);
  crawl.edges = EdgesOf(snapshot);
  return crawl;
}

TEST(DbRankTest, RanksTheStoredGraphAndSavesIt) {
  TempDir dir;
  Crawl crawl = MakeCrawl(dir);
  ASSERT_EQ(crawl.pages, 60u);
  DbRankOptions options;
  options.rank.tolerance = 1e-12;
  ASSERT_OK_AND_ASSIGN(StoredRank got, RankPageDb(*crawl.db, RankAlgorithm::kPageRank, options));
  const auto a = testing::Adjacency(crawl.pages, crawl.edges);
  const auto want = testing::PowerIterate(
      testing::UniformWeights(a), std::vector<double>(crawl.pages, 1.0 / crawl.pages), 0.85);
  EXPECT_LT(L1(got.rank.scores, want), 1e-10);
  ASSERT_OK_AND_ASSIGN(StoredRank loaded, LoadRank(crawl.db->path(), RankAlgorithm::kPageRank));
  EXPECT_EQ(loaded.rank.scores, got.rank.scores);
  EXPECT_FALSE(loaded.cross_host_only);
}

TEST(DbRankTest, PersonalizedUsesContentScoresAndTrustRankTheSeeds) {
  TempDir dir;
  Crawl crawl = MakeCrawl(dir);
  const auto a = testing::Adjacency(crawl.pages, crawl.edges);
  const auto w = testing::UniformWeights(a);
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, crawl.db->NewSnapshot());
  std::vector<double> scores(crawl.pages, 0.0), seeds(crawl.pages, 0.0);
  double total = 0, n_seeds = 0;
  ASSERT_OK(snapshot.ForEachPage([&](const PageRecord& page) {
    scores[page.id] = page.content_score;
    total += page.content_score;
    if (page.depth == 0) {
      seeds[page.id] = 1;
      ++n_seeds;
    }
    return Status::Ok();
  }));
  for (double& s : scores) s /= total;
  for (double& s : seeds) s /= n_seeds;
  DbRankOptions options;
  options.rank.tolerance = 1e-12;
  options.rank.max_iterations = 1000;
  options.save = false;
  ASSERT_OK_AND_ASSIGN(StoredRank ppr,
                       RankPageDb(*crawl.db, RankAlgorithm::kPersonalized, options));
  EXPECT_LT(L1(ppr.rank.scores, testing::PowerIterate(w, scores, 0.85)), 1e-10);
  ASSERT_OK_AND_ASSIGN(StoredRank trust, RankPageDb(*crawl.db, RankAlgorithm::kTrustRank, options));
  EXPECT_TRUE(trust.rank.report.converged);
  EXPECT_LT(L1(trust.rank.scores, testing::PowerIterate(w, seeds, 0.85)), 1e-10);
  EXPECT_EQ(LoadRank(crawl.db->path(), RankAlgorithm::kPersonalized).status().code(),
            StatusCode::kNotFound)
      << "save = false stores nothing";

  // Named trusted pages.
  const uint64_t fp = UrlFingerprint(Url(2, 7));
  options.trusted = {fp};
  ASSERT_OK_AND_ASSIGN(trust, RankPageDb(*crawl.db, RankAlgorithm::kTrustRank, options));
  std::vector<double> one(crawl.pages, 0.0);
  one[snapshot.Find(fp)->id] = 1;
  EXPECT_LT(L1(trust.rank.scores, testing::PowerIterate(w, one, 0.85)), 1e-10);
  options.trusted = {12345};
  EXPECT_EQ(RankPageDb(*crawl.db, RankAlgorithm::kTrustRank, options).status().code(),
            StatusCode::kNotFound);
}

// Personalized PageRank teleports to a crawled page by its content score and to a page
// only discovered by its link score (the best of the links to it); a negative score
// weighs nothing.
TEST(DbRankTest, PersonalizedFallsBackToLinkScoresOfUncrawledPages) {
  TempDir dir;
  auto db = OpenScratchDb(dir);
  CrawledPage a, d;
  a.url = "http://a.example/";
  a.content_score = 0.6f;
  a.links = {{"http://b.example/", 0.3f}, {"http://c.example/", 0.1f}};
  d.url = "http://d.example/";
  d.content_score = -1.f;
  d.links = {{"http://c.example/", 0.5f}, {"http://a.example/", 0.9f}};
  ASSERT_OK(db->AddBatch(std::vector<CrawledPage>{a, d}));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  ASSERT_EQ(snapshot.counters().pages, 4u);
  auto id = [&](const char* url) { return snapshot.FindUrl(url)->id; };
  // a: its content score 0.6 (not the 0.9 of d's link); b: 0.3; c: max(0.1, 0.5);
  // d: its content score, -1, counts as 0. (Scores are stored as floats.)
  const double sa = 0.6f, sb = 0.3f, sc = 0.5f, total = sa + sb + sc;
  std::vector<double> teleport(4, 0.0);
  teleport[id("http://a.example/")] = sa / total;
  teleport[id("http://b.example/")] = sb / total;
  teleport[id("http://c.example/")] = sc / total;
  const testing::EdgeList edges = EdgesOf(snapshot);
  ASSERT_EQ(edges.size(), 4u);
  DbRankOptions options;
  options.rank.tolerance = 1e-12;
  options.rank.max_iterations = 1000;
  options.save = false;
  ASSERT_OK_AND_ASSIGN(StoredRank ppr, RankPageDb(*db, RankAlgorithm::kPersonalized, options));
  const auto w = testing::UniformWeights(testing::Adjacency(4, edges));
  EXPECT_LT(L1(ppr.rank.scores, testing::PowerIterate(w, teleport, 0.85)), 1e-10);
}

TEST(DbRankTest, CrossHostOnlyDropsLinksWithinAHost) {
  TempDir dir;
  Crawl crawl = MakeCrawl(dir);
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, crawl.db->NewSnapshot());
  testing::EdgeList cross;
  for (const auto& [s, t] : crawl.edges) {
    if (HostKey(snapshot.FindId(s)->url).value() != HostKey(snapshot.FindId(t)->url).value()) {
      cross.emplace_back(s, t);
    }
  }
  ASSERT_FALSE(cross.empty());
  ASSERT_LT(cross.size(), crawl.edges.size());
  DbRankOptions options;
  options.rank.tolerance = 1e-12;
  options.cross_host_only = true;
  ASSERT_OK_AND_ASSIGN(StoredRank got, RankPageDb(*crawl.db, RankAlgorithm::kPageRank, options));
  const auto want =
      testing::PowerIterate(testing::UniformWeights(testing::Adjacency(crawl.pages, cross)),
                            std::vector<double>(crawl.pages, 1.0 / crawl.pages), 0.85);
  EXPECT_LT(L1(got.rank.scores, want), 1e-10);
  EXPECT_EQ(got.rank.report.links, cross.size());
  EXPECT_TRUE(LoadRank(crawl.db->path(), RankAlgorithm::kPageRank)->cross_host_only);
}

// Two hosts of 15 pages; every page links to its host's pages 0 and 1 and to h0's page 2
// (template links: on more than half of each host's pages), and to two content pages
// among 5-14 (each linked from at most 5 pages of a host). The hosts come from the URLs.
TEST(DbRankTest, TemplateLinksComeFromEachPagesHostAndAreFlaggedInTheFile) {
  TempDir dir;
  std::unique_ptr<PageDb> db = OpenScratchDb(dir);
  std::vector<CrawledPage> batch;
  for (uint32_t h = 0; h < 2; ++h) {
    for (uint32_t p = 0; p < 15; ++p) {
      CrawledPage page;
      page.url = Url(h, p);
      std::vector<std::string> targets = {Url(h, 0), Url(h, 1), Url(0, 2)};
      for (uint32_t k = 1; k <= 2; ++k) targets.push_back(Url(h, 5 + (p * k + 3) % 10));
      for (const std::string& t : targets) {
        if (t != page.url) page.links.push_back({t, 0.5f});
      }
      batch.push_back(std::move(page));
    }
  }
  ASSERT_OK(db->AddBatch(batch));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  const auto pages = static_cast<uint32_t>(snapshot.counters().pages);
  ASSERT_EQ(pages, 30u);
  testing::EdgeList kept;
  for (const auto& [s, t] : EdgesOf(snapshot)) {
    const std::string from = snapshot.FindId(s)->url, to = snapshot.FindId(t)->url;
    const std::string host = from.substr(0, from.find('/', 7) + 1);
    if (to != host + "0" && to != host + "1" && to != Url(0, 2)) kept.emplace_back(s, t);
  }
  DbRankOptions options;
  options.rank.tolerance = 1e-12;
  options.rank.template_links.drop = true;
  ASSERT_OK_AND_ASSIGN(StoredRank got, RankPageDb(*db, RankAlgorithm::kPageRank, options));
  const auto want = testing::PowerIterate(testing::UniformWeights(testing::Adjacency(pages, kept)),
                                          std::vector<double>(pages, 1.0 / pages), 0.85);
  EXPECT_LT(L1(got.rank.scores, want), 1e-10);
  EXPECT_EQ(got.rank.report.links, kept.size());
  EXPECT_EQ(got.rank.report.template_targets, 6u);
  ASSERT_OK_AND_ASSIGN(StoredRank loaded, LoadRank(db->path(), RankAlgorithm::kPageRank));
  EXPECT_TRUE(loaded.rank.options.template_links.drop);
  EXPECT_EQ(loaded.rank.report.links, kept.size());
  options.rank.template_links.drop = false;
  ASSERT_OK(RankPageDb(*db, RankAlgorithm::kPageRank, options).status());
  EXPECT_FALSE(LoadRank(db->path(), RankAlgorithm::kPageRank)->rank.options.template_links.drop);
  // The in-memory rank of a scheduler does not drop them: it declines the option.
  options.rank.template_links.drop = true;
  EXPECT_FALSE(LiveDbRank::Supports(RankAlgorithm::kPageRank, options));
}

TEST(DbRankTest, WarmStartAfterTheGraphGrewSavesIterations) {
  TempDir dir;
  Crawl crawl = MakeCrawl(dir);
  DbRankOptions options;
  options.rank.tolerance = 1e-10;
  options.rank.max_iterations = 1000;
  // Warm start alone: on 60 pages extrapolation speeds the cold run more than a warm
  // start does (45 against 113 iterations; warm 103 either way).
  options.rank.extrapolation_period = 0;
  ASSERT_OK(RankPageDb(*crawl.db, RankAlgorithm::kPageRank, options).status());
  CrawledPage more;
  more.url = Url(0, 3);
  more.links = {{Url(1, 4), 0.f}, {Url(5, 0), 0.f}};  // a new page on a new host
  ASSERT_OK(crawl.db->Add(more));
  options.save = false;
  ASSERT_OK_AND_ASSIGN(StoredRank cold, RankPageDb(*crawl.db, RankAlgorithm::kPageRank, options));
  options.warm_start = true;
  ASSERT_OK_AND_ASSIGN(StoredRank warm, RankPageDb(*crawl.db, RankAlgorithm::kPageRank, options));
  EXPECT_EQ(warm.rank.scores.size(), 61u);
  EXPECT_TRUE(cold.rank.report.converged);
  EXPECT_TRUE(warm.rank.report.converged);
  EXPECT_LT(warm.rank.report.iterations, cold.rank.report.iterations);
  EXPECT_LT(L1(warm.rank.scores, cold.rank.scores), 1e-9);
}

TEST(DbRankTest, LiveRankReadsOnlyWhatItIsToldChangedAndRereadsWhenTheCountsDisagree) {
  TempDir dir;
  Crawl crawl = MakeCrawl(dir);
  DbRankOptions options;
  options.rank.tolerance = 1e-12;
  options.rank.max_iterations = 1000;
  options.save = false;
  LiveDbRank live(RankAlgorithm::kPageRank, options);
  std::vector<uint32_t> told;
  const auto rank_and_compare = [&](uint32_t full_reads) {
    auto snapshot = std::move(crawl.db->NewSnapshot()).value();
    ASSERT_OK_AND_ASSIGN(StoredRank got, live.Rank(*crawl.db, snapshot, told));
    told.clear();
    const auto n = static_cast<uint32_t>(snapshot.counters().pages);
    const std::vector<double> reference = testing::PowerIterate(
        testing::UniformWeights(testing::Adjacency(n, EdgesOf(snapshot))),
        std::vector<double>(n, 1.0 / n), 0.85);
    EXPECT_LT(L1(got.rank.scores, reference), 1e-9);
    EXPECT_EQ(live.full_reads(), full_reads);
  };
  rank_and_compare(1);
  // A page crawled again with other links, a new one crawled: the caller says which.
  CrawledPage again;
  again.url = Url(0, 4);
  again.links = {{Url(2, 19), 0.f}, {Url(7, 1), 0.f}};
  CrawledPage fresh;
  fresh.url = Url(7, 1);
  fresh.links = {{Url(0, 0), 0.f}, {Url(7, 2), 0.f}};
  ASSERT_OK(crawl.db->AddBatch(std::vector<CrawledPage>{again, fresh}));
  {
    auto snapshot = std::move(crawl.db->NewSnapshot()).value();
    for (const CrawledPage* page : {&again, &fresh}) {
      told.push_back(std::move(snapshot.FindUrl(page->url)).value().id);
    }
  }
  told.push_back(told.front());  // repeats are allowed
  rank_and_compare(1);
  // A write nobody reports, which changes the count of links: every link is read again.
  CrawledPage unseen;
  unseen.url = Url(1, 1);
  unseen.links = {{Url(0, 0), 0.f}, {Url(0, 1), 0.f}};  // it had one link
  ASSERT_OK(crawl.db->Add(unseen));
  rank_and_compare(2);
  // Not for an algorithm it cannot keep.
  LiveDbRank hits(RankAlgorithm::kHits, options);
  auto snapshot = std::move(crawl.db->NewSnapshot()).value();
  EXPECT_EQ(hits.Rank(*crawl.db, snapshot, {}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawlrank
