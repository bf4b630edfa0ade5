#include "crawlrank/live_rank.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "rank/rank_graph.h"
#include "rank_reference.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::L1;

// The test's own copy of the graph, changed beside the LiveRank: out-rows by page.
struct Rows {
  std::vector<std::vector<uint32_t>> out;

  static Rows From(uint32_t n, const testing::EdgeList& edges) {
    Rows rows;
    rows.out.resize(n);
    for (const auto& [s, t] : edges) rows.out[s].push_back(t);
    return rows;
  }
  testing::EdgeList Edges() const {
    testing::EdgeList edges;
    for (uint32_t s = 0; s < out.size(); ++s) {
      for (uint32_t t : out[s]) edges.emplace_back(s, t);
    }
    return edges;
  }
  VectorEdgeSource Source() const { return VectorEdgeSource(uint32_t(out.size()), Edges()); }
};

// A crawl's step: `grow` new pages, then `changes` random pages get new out-links (some
// into the new pages, some none at all), the same in `rows` and `live`.
void Step(std::mt19937_64& rng, uint32_t grow, uint32_t changes, Rows& rows, LiveRank& live) {
  const auto n = static_cast<uint32_t>(rows.out.size() + grow);
  rows.out.resize(n);
  ASSERT_OK(live.Grow(n));
  std::uniform_int_distribution<uint32_t> page(0, n - 1);
  for (uint32_t i = 0; i < changes; ++i) {
    const uint32_t s = page(rng);
    std::vector<uint32_t> row;
    const uint32_t degree = rng() % 4 == 0 ? 0 : 1 + rng() % 12;
    for (uint32_t k = 0; k < degree; ++k) row.push_back(page(rng));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    rows.out[s] = row;
    ASSERT_OK(live.SetLinks(s, row));
  }
}

RankOptions Precise(unsigned threads) {
  RankOptions options;
  options.tolerance = 1e-12;
  options.max_iterations = 1000;
  options.threads = threads;
  options.mode = RankMode::kCsr;
  return options;
}

// A random graph of `n` pages (seeded, seed printed), the test's copy of it, a LiveRank
// built from it and that rank's first (cold) solve.
struct Started {
  std::mt19937_64 rng;
  Rows rows;
  LiveRank live;
  RankResult cold;
};

Result<Started> Start(uint64_t seed, uint32_t n, double degree, RankAlgorithm algorithm,
                      const RankOptions& options, const RankInput& input = {}) {
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  Rows rows = Rows::From(n, testing::RandomGraph(n, degree, seed));
  VectorEdgeSource first = rows.Source();
  CRAWLRANK_ASSIGN_OR_RETURN(LiveRank live, LiveRank::Build(first, algorithm, options));
  CRAWLRANK_ASSIGN_OR_RETURN(RankResult cold, live.Solve(input));
  return Started{std::mt19937_64(seed), std::move(rows), std::move(live), std::move(cold)};
}

TEST(LiveRankTest, AGrowingGraphRanksAsAFreshBuildOfItDoes) {
  ASSERT_OK_AND_ASSIGN(Started started,
                       Start(20261124, 3000, 6, RankAlgorithm::kPageRank, Precise(2)));
  auto& [rng, rows, live, cold] = started;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Step(rng, 90, 30, rows, live);
    ASSERT_EQ(live.num_links(), rows.Edges().size());
    ASSERT_OK_AND_ASSIGN(RankResult got, live.Solve());
    VectorEdgeSource now = rows.Source();
    ASSERT_OK_AND_ASSIGN(RankResult fresh, ComputeRank(now, RankAlgorithm::kPageRank, Precise(1)));
    EXPECT_TRUE(got.report.converged);
    EXPECT_EQ(got.report.pages, rows.out.size());
    EXPECT_EQ(got.report.links, rows.Edges().size());
    EXPECT_LT(L1(got.scores, fresh.scores), 1e-9);
  }
  EXPECT_EQ(live.rebuilds(), 0u);  // 120 changed rows stay under an eighth of the links
}

TEST(LiveRankTest, MatchesTheDenseReferenceAfterRowsAreReplacedEmptiedAndFoldedIn) {
  ASSERT_OK_AND_ASSIGN(Started started, Start(77, 300, 4, RankAlgorithm::kPageRank, Precise(3)));
  auto& [rng, rows, live, cold] = started;
  // Past an eighth of the links changed, Solve folds them into a rebuilt CSR.
  Step(rng, 30, 150, rows, live);
  ASSERT_OK_AND_ASSIGN(RankResult got, live.Solve());
  EXPECT_EQ(live.rebuilds(), 1u);
  Step(rng, 5, 4, rows, live);  // and keeps changes again after it
  ASSERT_OK_AND_ASSIGN(got, live.Solve());
  EXPECT_EQ(live.rebuilds(), 1u);
  const auto n = static_cast<uint32_t>(rows.out.size());
  const std::vector<double> reference = testing::PowerIterate(
      testing::UniformWeights(testing::Adjacency(n, rows.Edges())), std::vector<double>(n, 1.0 / n),
      0.85);
  EXPECT_LT(L1(got.scores, reference), 1e-9);
  for (uint32_t page : {0u, 17u, 299u, 334u}) {
    const auto links = live.Links(page);
    EXPECT_EQ(std::vector<uint32_t>(links.begin(), links.end()), rows.out[page]) << "page " << page;
  }
}

TEST(LiveRankTest, TheSameChangesGiveTheSameBitsAtAnyThreadCount) {
  std::vector<std::vector<double>> results;
  for (unsigned threads : {1u, 3u}) {
    RankOptions options = Precise(threads);
    options.tolerance = 1e-8;
    ASSERT_OK_AND_ASSIGN(Started started, Start(5, 20000, 5, RankAlgorithm::kPageRank, options));
    auto& [rng, rows, live, cold] = started;
    Step(rng, 200, 300, rows, live);
    ASSERT_OK_AND_ASSIGN(RankResult got, live.Solve());
    results.push_back(got.scores);
  }
  EXPECT_EQ(results[0], results[1]);
}

TEST(LiveRankTest, AWarmSolveAfterASmallChangeNeedsFewerIterationsThanACold) {
  RankOptions options = Precise(2);
  options.tolerance = 1e-9;
  ASSERT_OK_AND_ASSIGN(Started started, Start(9, 20000, 5, RankAlgorithm::kPageRank, options));
  auto& [rng, rows, live, cold] = started;
  Step(rng, 40, 40, rows, live);
  ASSERT_OK_AND_ASSIGN(RankResult warm, live.Solve());
  EXPECT_LT(warm.report.iterations, cold.report.iterations)
      << warm.report.iterations << " against " << cold.report.iterations;
  VectorEdgeSource now = rows.Source();
  ASSERT_OK_AND_ASSIGN(RankResult fresh, ComputeRank(now, RankAlgorithm::kPageRank, options));
  EXPECT_LT(L1(warm.scores, fresh.scores), 1e-7);
}

TEST(LiveRankTest, PersonalizedAndTrustRankTakeTheTeleportOfEachSolve) {
  for (RankAlgorithm algorithm : {RankAlgorithm::kPersonalized, RankAlgorithm::kTrustRank}) {
    SCOPED_TRACE(std::string(RankAlgorithmName(algorithm)));
    std::vector<double> teleport(500, 0.0);
    for (uint32_t i = 0; i < 500; i += 7) teleport[i] = 1 + i % 3;
    RankInput input;
    input.teleport = teleport;
    ASSERT_OK_AND_ASSIGN(Started started, Start(31, 500, 4, algorithm, Precise(2), input));
    auto& [rng, rows, live, cold] = started;
    Step(rng, 20, 30, rows, live);
    teleport.resize(520, 0.0);
    teleport[510] = 5;  // a new page joins the teleport set, an old one leaves it
    teleport[0] = 0;
    input.teleport = teleport;
    ASSERT_OK_AND_ASSIGN(RankResult got, live.Solve(input));
    VectorEdgeSource now = rows.Source();
    ASSERT_OK_AND_ASSIGN(RankResult fresh, ComputeRank(now, algorithm, Precise(1), input));
    EXPECT_LT(L1(got.scores, fresh.scores), 1e-9);
  }
}

TEST(LiveRankTest, RejectsWhatItCannotRankOrTake) {
  VectorEdgeSource graph(4, {{0, 1}, {1, 2}, {2, 0}});
  EXPECT_EQ(LiveRank::Build(graph, RankAlgorithm::kHits, {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(LiveRank::Build(graph, RankAlgorithm::kWeightedPageRank, {}).status().code(),
            StatusCode::kInvalidArgument);
  RankOptions small;
  small.memory_budget = 64;
  EXPECT_EQ(LiveRank::Build(graph, RankAlgorithm::kPageRank, small).status().code(),
            StatusCode::kResourceExhausted);
  ASSERT_OK_AND_ASSIGN(LiveRank live, LiveRank::Build(graph, RankAlgorithm::kPageRank, {}));
  const std::vector<uint32_t> unsorted = {2, 1}, outside = {1, 4}, repeated = {1, 1};
  for (const auto* row : {&unsorted, &outside, &repeated}) {
    const Status status = live.SetLinks(3, *row);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("page 3"), std::string::npos) << status.message();
  }
  EXPECT_EQ(live.SetLinks(4, {}).code(), StatusCode::kInvalidArgument);
  // A graph that outgrows the budget after Build is refused by the next Solve.
  RankOptions tight;
  tight.memory_budget = CsrGraph::Bytes(4, 3);
  ASSERT_OK_AND_ASSIGN(LiveRank grows, LiveRank::Build(graph, RankAlgorithm::kPageRank, tight));
  ASSERT_OK(grows.Solve().status());
  ASSERT_OK(grows.Grow(5000));
  EXPECT_EQ(grows.Solve().status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(live.Grow(3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(live.num_links(), 3u);  // nothing changed
  EXPECT_TRUE(live.Links(3).empty());
}

}  // namespace
}  // namespace crawlrank
