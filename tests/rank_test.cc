#include "crawlrank/rank.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "rank/rank_graph.h"
#include "rank_reference.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::EdgeList;
using testing::L1;
using testing::RandomGraph;

RankOptions Options(RankMode mode, unsigned threads = 1, double damping = 0.85) {
  RankOptions o;
  o.mode = mode;
  o.threads = threads;
  o.damping = damping;
  o.tolerance = 1e-13;
  o.max_iterations = 10000;
  return o;
}

RankResult Rank(const EdgeList& edges, uint32_t n, RankAlgorithm algorithm, const RankOptions& o,
                const RankInput& input = {}) {
  VectorEdgeSource source(n, edges);
  Result<RankResult> result = ComputeRank(source, algorithm, o, input);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? std::move(result).value() : RankResult{};
}

RankInput WithTeleport(std::span<const double> teleport) {
  RankInput input;
  input.teleport = teleport;
  return input;
}

RankInput WithStart(std::span<const double> start) {
  RankInput input;
  input.start = start;
  return input;
}

constexpr RankMode kModes[] = {RankMode::kStream, RankMode::kCsr};

TEST(RankTest, LectureExampleWithoutTeleportConverges) {
  // Seed 004: A→B, A→C, B→C, C→A with no teleport gives A = 0.4, B = 0.2, C = 0.4.
  const EdgeList edges = {{0, 1}, {0, 2}, {1, 2}, {2, 0}};
  for (RankMode mode : kModes) {
    const RankResult r = Rank(edges, 3, RankAlgorithm::kPageRank, Options(mode, 1, 1.0));
    ASSERT_EQ(r.scores.size(), 3u);
    EXPECT_NEAR(r.scores[0], 0.4, 1e-12) << RankModeName(mode);
    EXPECT_NEAR(r.scores[1], 0.2, 1e-12);
    EXPECT_NEAR(r.scores[2], 0.4, 1e-12);
    EXPECT_TRUE(r.report.converged);
    EXPECT_EQ(r.report.mode, mode);
  }
}

TEST(RankTest, PublishedFiveNodeCase) {
  // Aduana's test: 1→{2,5}, 2→{3,5}, 3→{4,5}, 4→{1,5}, 5 dangling (ids shifted to 0..4).
  // By symmetry p = c·p/2 + (1 − 4cp)/5, so p = 0.2 / 1.255 and node 5 has 1 − 4p.
  const EdgeList edges = {{0, 1}, {0, 4}, {1, 2}, {1, 4}, {2, 3}, {2, 4}, {3, 0}, {3, 4}};
  for (RankMode mode : kModes) {
    for (unsigned threads : {1u, 2u, 3u}) {
      const RankResult pr = Rank(edges, 5, RankAlgorithm::kPageRank, Options(mode, threads));
      for (int i = 0; i < 4; ++i) EXPECT_NEAR(pr.scores[i], 0.2 / 1.255, 1e-12);
      EXPECT_NEAR(pr.scores[4], 1 - 0.8 / 1.255, 1e-12);
      EXPECT_NEAR(pr.scores[0], 0.15936255, 5e-9);
      EXPECT_NEAR(pr.scores[4], 0.3625498, 5e-8);

      // Damping 1: Kleinberg's HITS, no random jump.
      const RankResult hits = Rank(edges, 5, RankAlgorithm::kHits, Options(mode, threads, 1.0));
      for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(hits.hubs[i], 0.25, 1e-12);
        EXPECT_NEAR(hits.scores[i], 0.125, 1e-12);
      }
      EXPECT_NEAR(hits.hubs[4], 0.0, 1e-12);
      EXPECT_NEAR(hits.scores[4], 0.5, 1e-12);
    }
  }
}

// Every algorithm against the dense reference of rank_reference.h, in both modes.
class RankReferenceTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RankReferenceTest, MatchesDenseReference) {
  const uint64_t seed = GetParam();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 40;
  const EdgeList edges = RandomGraph(n, 3.0, seed);
  const testing::Matrix a = testing::Adjacency(n, edges);
  std::vector<double> uniform(n, 1.0 / n);
  std::vector<double> scores(n);
  std::mt19937_64 rng(seed);
  for (double& s : scores) s = std::uniform_real_distribution<double>(0, 1)(rng);
  scores[5] = 0;
  double total = 0;
  for (double s : scores) total += s;
  std::vector<double> personal(n);
  for (uint32_t i = 0; i < n; ++i) personal[i] = scores[i] / total;
  std::vector<double> trusted_input(n, 0.0), trusted(n, 0.0);
  for (uint32_t i : {1u, 8u, 30u}) {
    trusted_input[i] = 0.5 * i;  // any positive value marks a trusted page
    trusted[i] = 1.0 / 3;
  }

  const auto uniform_w = testing::UniformWeights(a);
  const std::vector<double> want_pr = testing::PowerIterate(uniform_w, uniform, 0.85);
  const std::vector<double> want_ppr = testing::PowerIterate(uniform_w, personal, 0.85);
  const std::vector<double> want_trust = testing::PowerIterate(uniform_w, trusted, 0.85);
  const std::vector<double> want_wpr =
      testing::PowerIterate(testing::WeightedPageRankWeights(a), uniform, 0.85);
  const auto [want_auth, want_hub] = testing::ReferenceHits(a, std::vector<double>(n, 1.0));
  const auto [want_topic_auth, want_topic_hub] = testing::ReferenceHits(a, scores);

  for (RankMode mode : kModes) {
    SCOPED_TRACE(std::string(RankModeName(mode)));
    const RankOptions o = Options(mode, 2);
    EXPECT_LT(L1(Rank(edges, n, RankAlgorithm::kPageRank, o).scores, want_pr), 1e-11);
    EXPECT_LT(
        L1(Rank(edges, n, RankAlgorithm::kPersonalized, o, WithTeleport(scores)).scores, want_ppr),
        1e-11);
    EXPECT_LT(L1(Rank(edges, n, RankAlgorithm::kTrustRank, o, WithTeleport(trusted_input)).scores,
                 want_trust),
              1e-11);
    EXPECT_LT(L1(Rank(edges, n, RankAlgorithm::kWeightedPageRank, o).scores, want_wpr), 1e-11);
    const RankResult hits = Rank(edges, n, RankAlgorithm::kHits, o);
    EXPECT_LT(L1(hits.scores, want_auth), 1e-9);
    EXPECT_LT(L1(hits.hubs, want_hub), 1e-9);
    const RankResult topic = Rank(edges, n, RankAlgorithm::kTopicHits, o, WithTeleport(scores));
    EXPECT_LT(L1(topic.scores, want_topic_auth), 1e-9);
    EXPECT_LT(L1(topic.hubs, want_topic_hub), 1e-9);

    std::vector<double> indegree(n, 0.0);
    for (const auto& [s, t] : edges) indegree[t] += 1;
    EXPECT_EQ(Rank(edges, n, RankAlgorithm::kInDegree, o).scores, indegree);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RankReferenceTest, ::testing::Values(1, 2, 3, 2026));

TEST(RankTest, StreamEqualsCsrAndThreadsDoNotChangeTheResult) {
  const uint64_t seed = 77;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 30000;  // several blocks and chunks
  const EdgeList edges = RandomGraph(n, 8.0, seed);
  for (RankAlgorithm algorithm :
       {RankAlgorithm::kPageRank, RankAlgorithm::kWeightedPageRank, RankAlgorithm::kHits}) {
    SCOPED_TRACE(std::string(RankAlgorithmName(algorithm)));
    RankOptions o = Options(RankMode::kStream, 1);
    o.tolerance = 1e-10;
    o.extrapolation_period = 0;  // the same power steps in both modes
    const RankResult base = Rank(edges, n, algorithm, o);
    ASSERT_TRUE(base.report.converged);
    for (RankMode mode : kModes) {
      for (unsigned threads : {1u, 2u, 3u, 5u}) {
        o.mode = mode;
        o.threads = threads;
        const RankResult r = Rank(edges, n, algorithm, o);
        EXPECT_LT(L1(r.scores, base.scores), 1e-12) << RankModeName(mode) << " x" << threads;
        EXPECT_LT(L1(r.hubs, base.hubs), 1e-12);
        if (mode == RankMode::kStream) {
          EXPECT_EQ(r.scores, base.scores) << "same mode: the same bits for any thread count";
          EXPECT_EQ(r.report.iterations, base.report.iterations);
        }
      }
    }
  }
}

TEST(RankTest, ExtrapolationReachesTheToleranceSoonerAndNearerTheFixedPoint) {
  // Web-like locality: hosts of 50 consecutive ids, 4 links in 5 inside the host.
  const uint64_t seed = 12;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 20000;
  std::mt19937_64 rng(seed);
  EdgeList edges;
  for (uint32_t s = 0; s < n; ++s) {
    if (s % 11 == 0) continue;
    for (int k = 0; k < 8; ++k) {
      const uint32_t t = rng() % 5 == 0 ? rng() % n : s / 50 * 50 + rng() % 50;
      edges.emplace_back(s, std::min(t, n - 1));
    }
  }
  for (RankAlgorithm algorithm : {RankAlgorithm::kPageRank, RankAlgorithm::kPersonalized}) {
    SCOPED_TRACE(std::string(RankAlgorithmName(algorithm)));
    RankOptions o = Options(RankMode::kCsr, 1);
    o.extrapolation_period = 0;
    const RankResult exact = Rank(edges, n, algorithm, o);  // tolerance 1e-13
    o.tolerance = 1e-6;
    const RankResult plain = Rank(edges, n, algorithm, o);
    o.extrapolation_period = 10;
    const RankResult fast = Rank(edges, n, algorithm, o);
    ASSERT_TRUE(plain.report.converged);
    ASSERT_TRUE(fast.report.converged);
    EXPECT_LT(fast.report.iterations, plain.report.iterations);
    EXPECT_LT(L1(fast.scores, exact.scores), L1(plain.scores, exact.scores));
    for (unsigned threads : {2u, 3u}) {
      o.threads = threads;
      EXPECT_EQ(Rank(edges, n, algorithm, o).scores, fast.scores) << threads << " threads";
    }
  }
}

TEST(RankTest, RenumberedCsrRanksByPageIdAsStreamDoes) {
  // Random targets: few links join pages under 4096 ids apart, so auto renumbers.
  const uint64_t seed = 41;
  SCOPED_TRACE("seed " + std::to_string(seed));
  // A random link joins pages under 4096 apart 2 x 4096 / n of the time: 20% here, under
  // the quarter at which auto renumbers (smaller, so that the sanitizer pass runs it fast).
  const uint32_t n = 40000;
  const EdgeList edges = RandomGraph(n, 3.0, seed);
  std::vector<double> teleport(n, 0.0), start(n, 0.0);
  for (uint32_t i = 0; i < n; i += 7) teleport[i] = 1 + i % 3;
  for (uint32_t i = 0; i < n; ++i) start[i] = 1 + i % 5;
  RankInput input;
  input.teleport = teleport;
  input.start = start;
  for (RankAlgorithm algorithm :
       {RankAlgorithm::kPageRank, RankAlgorithm::kPersonalized, RankAlgorithm::kWeightedPageRank}) {
    SCOPED_TRACE(std::string(RankAlgorithmName(algorithm)));
    RankOptions o = Options(RankMode::kStream);
    o.tolerance = 1e-10;
    o.extrapolation_period = 0;
    const RankResult streamed = Rank(edges, n, algorithm, o, input);
    o.mode = RankMode::kCsr;
    for (unsigned threads : {1u, 3u}) {
      o.threads = threads;
      const RankResult r = Rank(edges, n, algorithm, o, input);
      EXPECT_TRUE(r.report.renumbered);
      EXPECT_LT(L1(r.scores, streamed.scores), 1e-12) << threads << " threads";
    }
    o.renumber = RankRenumber::kNever;
    const RankResult kept = Rank(edges, n, algorithm, o, input);
    EXPECT_FALSE(kept.report.renumbered);
    EXPECT_LT(L1(kept.scores, streamed.scores), 1e-12);
  }
  // HITS keeps page ids (its CSR has out-links too).
  EXPECT_FALSE(Rank(edges, n, RankAlgorithm::kHits, Options(RankMode::kCsr)).report.renumbered);
}

// Over 2^16 pages the CSR kernel splits the in-links by partitions of pages (pull rows
// within a partition, bins across: src/rank/link_bins.h); the same ranks as a stream pass,
// and the same bits for any thread count, renumbered or not.
TEST(RankTest, SplitCsrRanksAsStreamDoesAndThreadsDoNotChangeTheBits) {
  const uint64_t seed = 45;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 80000;  // two partitions, the last one short
  std::mt19937_64 rng(seed);
  EdgeList edges;
  for (uint32_t s = 0; s < n; ++s) {
    if (s % 13 == 0) continue;  // dangling
    for (int k = 0; k < 6; ++k) {  // hosts of 50 ids; a quarter of the links anywhere
      const uint32_t t = rng() % 4 == 0 ? rng() % n : s / 50 * 50 + rng() % 50;
      edges.emplace_back(s, std::min(t, n - 1));
    }
  }
  std::vector<double> teleport(n, 0.0);
  for (uint32_t i = 0; i < n; i += 101) teleport[i] = 1 + i % 3;
  for (RankAlgorithm algorithm : {RankAlgorithm::kPageRank, RankAlgorithm::kTrustRank}) {
    SCOPED_TRACE(std::string(RankAlgorithmName(algorithm)));
    RankOptions o = Options(RankMode::kStream);
    o.tolerance = 1e-10;
    o.extrapolation_period = 0;
    const RankResult streamed = Rank(edges, n, algorithm, o, WithTeleport(teleport));
    ASSERT_TRUE(streamed.report.converged);
    o.mode = RankMode::kCsr;
    for (RankRenumber renumber : {RankRenumber::kNever, RankRenumber::kAlways}) {
      o.renumber = renumber;
      o.threads = 1;
      const RankResult one = Rank(edges, n, algorithm, o, WithTeleport(teleport));
      EXPECT_EQ(one.report.renumbered, renumber == RankRenumber::kAlways);
      EXPECT_LT(L1(one.scores, streamed.scores), 1e-12);
      o.threads = 3;
      EXPECT_EQ(Rank(edges, n, algorithm, o, WithTeleport(teleport)).scores, one.scores)
          << "3 threads";
    }
  }
}

TEST(RankTest, AutoKeepsIdsWhoseLinksAreNearAndAlwaysRenumbersThem) {
  // Hosts of 50 consecutive ids, 9 links in 10 inside the host.
  const uint64_t seed = 8;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 30000;
  std::mt19937_64 rng(seed);
  EdgeList edges;
  for (uint32_t s = 0; s < n; ++s) {
    for (int k = 0; k < 5; ++k) {
      edges.emplace_back(s, rng() % 10 == 0 ? rng() % n : s / 50 * 50 + rng() % 50);
    }
  }
  RankOptions o = Options(RankMode::kCsr);
  o.tolerance = 1e-10;
  const RankResult kept = Rank(edges, n, RankAlgorithm::kPageRank, o);
  EXPECT_FALSE(kept.report.renumbered);
  o.renumber = RankRenumber::kAlways;
  const RankResult moved = Rank(edges, n, RankAlgorithm::kPageRank, o);
  EXPECT_TRUE(moved.report.renumbered);
  EXPECT_LT(L1(moved.scores, kept.scores), 1e-9);
}

TEST(RankTest, OneMoreIterationMovesAConvergedVectorByLessThanTheTolerance) {
  // An independent check of the stopping rule: recompute one step from the result.
  const uint32_t n = 2000;
  const EdgeList edges = RandomGraph(n, 5.0, 9);
  std::vector<uint32_t> degree(n, 0);
  for (const auto& [s, t] : edges) ++degree[s];
  for (RankMode mode : kModes) {
    RankOptions o = Options(mode, 2);
    o.tolerance = 1e-6;
    const RankResult r = Rank(edges, n, RankAlgorithm::kPageRank, o);
    ASSERT_TRUE(r.report.converged);
    EXPECT_LE(r.report.residual, 1e-6);
    std::vector<double> next(n, 0.0);
    double passed = 0;
    for (const auto& [s, t] : edges) {
      next[t] += 0.85 * r.scores[s] / degree[s];
      passed += 0.85 * r.scores[s] / degree[s];
    }
    for (double& x : next) x += (1 - passed) / n;
    // Power iteration contracts the error by c each step: the next change is at most
    // c·residual.
    EXPECT_LE(L1(next, r.scores), 0.85 * r.report.residual * (1 + 1e-9)) << RankModeName(mode);
    double sum = 0;
    for (double x : r.scores) sum += x;
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(RankTest, WarmStartFromTheAnswerNeedsOneIteration) {
  const uint32_t n = 5000;
  const EdgeList edges = RandomGraph(n, 6.0, 5);
  RankOptions o = Options(RankMode::kCsr, 1);
  o.tolerance = 1e-9;
  const RankResult cold = Rank(edges, n, RankAlgorithm::kPageRank, o);
  const RankResult warm = Rank(edges, n, RankAlgorithm::kPageRank, o, WithStart(cold.scores));
  EXPECT_GT(cold.report.iterations, 10u);
  EXPECT_LE(warm.report.iterations, 2u);
  EXPECT_LT(L1(warm.scores, cold.scores), 1e-8);
  // A start for fewer pages (the graph grew by 1%) is padded: still converges to the same
  // vector, and sooner.
  std::vector<double> partial(cold.scores.begin(), cold.scores.begin() + n - n / 100);
  const RankResult padded = Rank(edges, n, RankAlgorithm::kPageRank, o, WithStart(partial));
  EXPECT_LT(padded.report.iterations, cold.report.iterations);
  EXPECT_LT(L1(padded.scores, cold.scores), 1e-8);
}

TEST(RankTest, MaxIterationsStopsWithoutConverging) {
  const EdgeList edges = RandomGraph(500, 4.0, 3);
  RankOptions o = Options(RankMode::kStream);
  o.max_iterations = 3;
  const RankResult r = Rank(edges, 500, RankAlgorithm::kPageRank, o);
  EXPECT_EQ(r.report.iterations, 3u);
  EXPECT_FALSE(r.report.converged);
  EXPECT_GT(r.report.residual, o.tolerance);
}

TEST(RankTest, RejectsBadOptionsAndInputs) {
  VectorEdgeSource source(3, {{0, 1}, {1, 2}});
  RankOptions o;
  o.damping = 1.5;
  EXPECT_EQ(ComputeRank(source, RankAlgorithm::kPageRank, o).status().code(),
            StatusCode::kInvalidArgument);
  o = RankOptions{};
  o.max_iterations = 0;
  EXPECT_EQ(ComputeRank(source, RankAlgorithm::kPageRank, o).status().code(),
            StatusCode::kInvalidArgument);
  const std::vector<double> negative = {0.5, -1, 0};
  Result<RankResult> r =
      ComputeRank(source, RankAlgorithm::kPersonalized, {}, WithTeleport(negative));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("teleport[1]"), std::string::npos) << r.status().ToString();
  const std::vector<double> none = {0, 0, 0};
  r = ComputeRank(source, RankAlgorithm::kTrustRank, {}, WithTeleport(none));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("trusted"), std::string::npos);
  EXPECT_EQ(ParseRankAlgorithm("pagerank").value(), RankAlgorithm::kPageRank);
  EXPECT_EQ(ParseRankAlgorithm("topic-hits").value(), RankAlgorithm::kTopicHits);
  EXPECT_EQ(ParseRankAlgorithm("PageRank").status().code(), StatusCode::kInvalidArgument);
}

TEST(RankTest, CrossHostFilterMakesPagesWithOnlyLocalLinksDangling) {
  // Hosts: {0, 1} and {2, 3}. Page 0 links only inside its host: with the filter it is
  // dangling (Aduana kept all its local links instead).
  VectorEdgeSource all(4, {{0, 1}, {1, 0}, {1, 2}, {2, 3}, {3, 0}});
  CrossGroupEdgeSource cross(all, {7, 7, 9, 9});
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> seen;
  ASSERT_OK(cross.Scan([&](EdgeChunk& chunk) {
    for (size_t i = 0; i < chunk.size(); ++i) {
      const auto t = chunk.TargetsOf(i);
      seen.emplace_back(chunk.sources[i], std::vector<uint32_t>(t.begin(), t.end()));
    }
    return Status::Ok();
  }));
  const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> want = {{1, {2}}, {3, {0}}};
  EXPECT_EQ(seen, want);
  EXPECT_EQ(cross.num_links(), 2u);
  // Ranking it equals ranking the filtered edge list.
  const RankResult filtered =
      Rank({{1, 2}, {3, 0}}, 4, RankAlgorithm::kPageRank, Options(RankMode::kCsr));
  CrossGroupEdgeSource fresh(all, {7, 7, 9, 9});  // not yet scanned: knows only 5 links
  Result<RankResult> r = ComputeRank(fresh, RankAlgorithm::kPageRank, Options(RankMode::kStream));
  ASSERT_OK(r.status());
  EXPECT_LT(L1(r->scores, filtered.scores), 1e-12);
  EXPECT_EQ(r->report.links, 2u) << "the report counts the links that were ranked";
}

// A source that delivers `first` on its first pass and `later` on every other, or fails.
class ChangingSource final : public EdgeSource {
 public:
  ChangingSource(EdgeList first, EdgeList later, Status failure = Status::Ok())
      : first_(std::move(first)), later_(std::move(later)), failure_(std::move(failure)) {}
  uint32_t num_pages() const override { return 10; }
  uint64_t num_links() const override { return first_.size(); }
  Status Scan(const EdgeChunkSink& sink) override {
    const EdgeList& edges = passes_++ == 0 ? first_ : later_;
    EdgeChunk chunk;
    for (const auto& [s, t] : edges) {
      chunk.sources.push_back(s);
      chunk.targets.push_back(t);
      chunk.ends.push_back(static_cast<uint32_t>(chunk.targets.size()));
    }
    CRAWLRANK_RETURN_IF_ERROR(sink(chunk));
    return failure_;
  }

 private:
  EdgeList first_, later_;
  Status failure_;
  int passes_ = 0;
};

TEST(RankTest, CsrModeReadsTheSourceOnceAndAFailingSourceIsAnError) {
  // Same count and degrees, other targets on later passes. CSR mode reads one pass, so it
  // ranks the first pass's graph; HITS's CSR too.
  const EdgeList first = {{0, 1}, {2, 3}, {4, 5}};
  for (RankAlgorithm algorithm : {RankAlgorithm::kPageRank, RankAlgorithm::kHits}) {
    ChangingSource changing(first, {{0, 1}, {2, 3}, {4, 9}});
    ASSERT_OK_AND_ASSIGN(RankResult got, ComputeRank(changing, algorithm, Options(RankMode::kCsr)));
    EXPECT_EQ(got.scores, Rank(first, 10, algorithm, Options(RankMode::kCsr)).scores)
        << RankAlgorithmName(algorithm);
  }
  for (RankMode mode : kModes) {
    for (unsigned threads : {1u, 3u}) {
      ChangingSource failing({{0, 1}}, {{0, 1}}, DataLossError("block 7 is damaged"));
      const Status status =
          ComputeRank(failing, RankAlgorithm::kPageRank, Options(mode, threads)).status();
      EXPECT_EQ(status.code(), StatusCode::kDataLoss) << RankModeName(mode);
      EXPECT_NE(status.message().find("block 7"), std::string::npos);
    }
  }
}

TEST(RankTest, ASourceThatBreaksItsContractIsAnErrorNotACrash) {
  // Sources out of order, and a target past the last page.
  for (const EdgeList& edges : {EdgeList{{3, 1}, {2, 0}}, EdgeList{{0, 1}, {1, 12}}}) {
    ChangingSource bad(edges, edges);
    EXPECT_EQ(ComputeRank(bad, RankAlgorithm::kPageRank, Options(RankMode::kCsr)).status().code(),
              StatusCode::kFailedPrecondition);
  }
}

// A source whose own count of links says far fewer than it streams (as a damaged PageDB
// header would): kAuto picks the CSR by that count, then the build counts the real links
// and, over the budget, falls back to streaming instead of allocating.
class UndercountingSource final : public EdgeSource {
 public:
  explicit UndercountingSource(VectorEdgeSource& inner) : inner_(inner) {}
  uint32_t num_pages() const override { return inner_.num_pages(); }
  uint64_t num_links() const override { return 0; }
  Status Scan(const EdgeChunkSink& sink) override { return inner_.Scan(sink); }

 private:
  VectorEdgeSource& inner_;
};

TEST(RankTest, AutoModeKeepsTheBudgetWhenTheSourceUndercountsItsLinks) {
  const uint32_t n = 200, seed = 31;
  SCOPED_TRACE("seed " + std::to_string(seed));
  VectorEdgeSource graph(n, RandomGraph(n, 8.0, seed));
  UndercountingSource lying(graph);
  RankOptions options = Options(RankMode::kAuto);
  // The pages fit, the links not.
  options.memory_budget = CsrGraph::Bytes(n, 0) + 100;
  ASSERT_OK_AND_ASSIGN(RankResult got, ComputeRank(lying, RankAlgorithm::kPageRank, options));
  EXPECT_EQ(got.report.mode, RankMode::kStream);
  ASSERT_OK_AND_ASSIGN(RankResult streamed,
                       ComputeRank(graph, RankAlgorithm::kPageRank, Options(RankMode::kStream)));
  EXPECT_EQ(got.scores, streamed.scores);
  // Within the budget, the same source gets its CSR.
  options.memory_budget = CsrGraph::Bytes(n, graph.num_links());
  ASSERT_OK_AND_ASSIGN(got, ComputeRank(lying, RankAlgorithm::kPageRank, options));
  EXPECT_EQ(got.report.mode, RankMode::kCsr);
}

TEST(RankTest, EmptyGraphAndGraphWithoutLinks) {
  const RankResult empty = Rank({}, 0, RankAlgorithm::kPageRank, Options(RankMode::kCsr));
  EXPECT_TRUE(empty.scores.empty());
  const RankResult isolated = Rank({}, 4, RankAlgorithm::kPageRank, Options(RankMode::kStream));
  for (double s : isolated.scores) EXPECT_DOUBLE_EQ(s, 0.25);
  const RankResult hits = Rank({}, 4, RankAlgorithm::kHits, Options(RankMode::kCsr));
  for (double s : hits.scores) EXPECT_DOUBLE_EQ(s, 0.25);
}

// A crawl's frontier has no out-links known: with the paper's W_out (O_u) every page of it
// took no weight, and all ranked alike. With O_u + 1 they take shares by their in-links.
TEST(RankTest, WeightedPageRankGivesPagesWithoutOutLinksAShare) {
  // Fetched: 0 -> 1, 2, 3 and 1 -> 2, 3 and 4 -> 3. Not fetched (no out-links): 2, 3.
  const std::vector<std::pair<uint32_t, uint32_t>> edges = {{0, 1}, {0, 2}, {0, 3}, {1, 2},
                                                            {1, 3}, {4, 3}};
  RankOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 1000;
  const RankResult wpr = Rank(edges, 5, RankAlgorithm::kWeightedPageRank, o);
  const RankResult pr = Rank(edges, 5, RankAlgorithm::kPageRank, o);
  // Both frontier pages rank above the teleport alone (a page nothing links to: 0, 4), and
  // the one with more in-links higher, as in PageRank.
  EXPECT_GT(wpr.scores[2], wpr.scores[0] * 1.1);
  EXPECT_GT(wpr.scores[3], wpr.scores[2] * 1.1);
  EXPECT_GT(pr.scores[3], pr.scores[2]);
  // By hand: page 4 passes all it passes to 3, whose weight from 4 is
  // I_3·(O_3 + 1) / (I_3 · (O_3 + 1)) = 1.
  const auto a = testing::Adjacency(5, edges);
  const auto w = testing::WeightedPageRankWeights(a);
  EXPECT_DOUBLE_EQ(w[4][3], 1.0);
  // 0's targets 1, 2, 3: I = 1, 2, 3 and O + 1 = 3, 1, 1, so w(0,2) = (2/6)·(1/5).
  EXPECT_DOUBLE_EQ(w[0][2], (2.0 / 6) * (1.0 / 5));
  EXPECT_LT(L1(wpr.scores, testing::PowerIterate(w, std::vector<double>(5, 0.2), 0.85)), 1e-10);
}

// Two sites that do not link to each other, as a crawl of two seeds begins: a hub with
// five links and one with three. Kleinberg's HITS (damping 1) converges to the larger
// community's eigenvector and gives the other site's pages no authority at all, so a crawl
// ordered by it starves the smaller site; randomized HITS (the default damping 0.85) keeps
// both, each page of a site above its own hub's other targets' nothing.
TEST(RankTest, RandomizedHitsKeepsAuthorityInACommunityTheMainOneDoesNotReach) {
  const EdgeList edges = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5},  // site A: hub 0
                          {6, 7}, {6, 8}, {6, 9}};                 // site B: hub 6
  const RankResult kleinberg = Rank(edges, 10, RankAlgorithm::kHits, Options(RankMode::kCsr, 1, 1.0));
  for (uint32_t p : {7u, 8u, 9u}) EXPECT_LT(kleinberg.scores[p], 1e-9) << p;  // the defect
  for (RankMode mode : kModes) {
    const RankResult randomized = Rank(edges, 10, RankAlgorithm::kHits, Options(mode));
    for (uint32_t p : {7u, 8u, 9u}) {
      EXPECT_GT(randomized.scores[p], 2 * randomized.scores[0]) << p;  // above a hub's jump
    }
    EXPECT_GT(randomized.scores[1], randomized.scores[7]);  // the larger community first
    const auto [auth, hub] = testing::ReferenceHits(testing::Adjacency(10, edges),
                                                    std::vector<double>(10, 1.0));
    EXPECT_LT(L1(randomized.scores, auth), 1e-9);
    EXPECT_LT(L1(randomized.hubs, hub), 1e-9);
  }
}

// The score a rank mode queues a page by is the rank's `scores`: for HITS the authorities,
// which a page not fetched yet (no out-links known) has from the hubs linking to it; its
// hub score is only the random jump. Swapped sides would rank the whole frontier alike.
TEST(RankTest, HitsScoresAreTheAuthoritiesAFrontierPageHas) {
  // Fetched 0 -> 2, 3 and 1 -> 2; 2 and 3 have no out-links known.
  const EdgeList edges = {{0, 2}, {0, 3}, {1, 2}};
  const RankResult hits = Rank(edges, 4, RankAlgorithm::kHits, Options(RankMode::kCsr));
  EXPECT_GT(hits.scores[2], hits.scores[3]);  // two hubs link to 2, one to 3
  EXPECT_GT(hits.scores[3], hits.scores[0]);  // and nothing links to 0
  EXPECT_GT(hits.hubs[0], hits.hubs[2]);      // 0 is a hub, 2 is not
  EXPECT_NEAR(hits.hubs[2], 0.15 / 4, 1e-12);
}

// The defect issue #28 suspected first in the modes that crawl badly: scores too flat to
// order a frontier. Five fetched hubs, each linking to the next and to a prefix of five
// pages not fetched yet (no out-links known), so that those have 5, 4, 3, 2 and 1 linkers.
// A rank that orders the frontier never gives a page with fewer linkers more, and gives
// the best-linked page clearly more than the median one: max / median at least 1.25, where
// flat scores give 1 (here randomized HITS gives 1.29, its jump weighing much on ten pages,
// topic HITS 1.30, and PageRank, by networkx, 1.95).
TEST(RankTest, HitsTopicHitsAndWprOrderAFrontierByItsLinks) {
  EdgeList edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}};
  for (uint32_t hub = 0; hub < 5; ++hub) {
    for (uint32_t page = 5; page <= 5 + (4 - hub); ++page) edges.emplace_back(hub, page);
  }
  // Linkers of frontier page 5 + k: the hubs 0 .. 4 - k, so 5 - k of them.
  const std::vector<double> topic = {0.2, 0.2, 0.2, 0.2, 0.2, 1, 1, 1, 1, 1};
  for (RankMode mode : kModes) {
    for (RankAlgorithm algorithm :
         {RankAlgorithm::kHits, RankAlgorithm::kTopicHits, RankAlgorithm::kWeightedPageRank}) {
      const RankResult r = Rank(edges, 10, algorithm, Options(mode),
                                algorithm == RankAlgorithm::kTopicHits ? WithTeleport(topic)
                                                                       : RankInput{});
      const std::string name(RankAlgorithmName(algorithm));
      std::vector<double> frontier(r.scores.begin() + 5, r.scores.end());
      for (size_t k = 0; k + 1 < frontier.size(); ++k) {
        EXPECT_GT(frontier[k], frontier[k + 1]) << name << " page " << 5 + k;
      }
      std::vector<double> sorted = frontier;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_GE(sorted.back() / sorted[2], 1.25) << name;
    }
  }
}

// RankOptions::uniform_teleport mixes the given teleport with the uniform one: 1 is plain
// PageRank, a share between is the reference's power iteration from the mixed vector.
TEST(RankTest, UniformTeleportBlendsTheGivenWeightsWithPageRanks) {
  const EdgeList edges = {{0, 1}, {1, 2}, {2, 0}, {3, 2}, {4, 3}, {2, 4}};
  const std::vector<double> trusted = {0, 0, 0, 1, 0};
  const auto a = testing::Adjacency(5, edges);
  for (RankMode mode : kModes) {
    RankOptions o = Options(mode);
    o.uniform_teleport = 1;
    const RankResult all = Rank(edges, 5, RankAlgorithm::kTrustRank, o, WithTeleport(trusted));
    EXPECT_LT(L1(all.scores, Rank(edges, 5, RankAlgorithm::kPageRank, Options(mode)).scores),
              1e-11);
    o.uniform_teleport = 0.25;
    const RankResult mixed = Rank(edges, 5, RankAlgorithm::kTrustRank, o, WithTeleport(trusted));
    std::vector<double> r(5, 0.25 / 5);
    r[3] += 0.75;
    EXPECT_LT(L1(mixed.scores, testing::PowerIterate(testing::UniformWeights(a), r, 0.85)), 1e-11);
  }
  RankOptions bad;
  bad.uniform_teleport = 1.5;
  VectorEdgeSource source(5, edges);
  EXPECT_EQ(ComputeRank(source, RankAlgorithm::kPersonalized, bad).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawlrank
