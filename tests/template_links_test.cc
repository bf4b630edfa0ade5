// RankOptions::template_links (rank.h; src/rank/template_links.cc): the ranks over a graph
// with its template links dropped equal the ranks of the graph without them, written out
// by hand here, whatever the mode, the threads or the algorithm.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "crawlrank/rank.h"
#include "rank_reference.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::EdgeList;
using testing::L1;

// Hosts A (pages 0-11), B (12-23), C (24-27) and D (28), numbered 0 to 3.
constexpr uint32_t kPages = 29;
uint32_t HostOf(uint32_t page) {
  return page < 12 ? 0 : page < 24 ? 1 : page < 28 ? 2 : 3;
}

// Every page of A links to A's index 0 and license 1; 2-11 form a ring; 7 is linked from
// 6 of A's 12 pages (not more than half: kept), 8 from 7 of them (template). Every page of
// B links to B's index 12 and to A's license 1 (a template link across hosts); 12-23 form
// a chain, and 22's only links are B's template links. C's 4 pages link to 24 and 25 (C
// has fewer than 10 pages: nothing dropped). D's one page has no links.
EdgeList HandGraph() {
  EdgeList e;
  const auto link = [&](uint32_t s, uint32_t t) {
    if (s != t) e.emplace_back(s, t);
  };
  for (uint32_t p = 0; p < 12; ++p) {
    link(p, 0);
    link(p, 1);
    if (p >= 2) link(p, p == 11 ? 2 : p + 1);
  }
  for (uint32_t p : {0, 2, 3, 4, 5}) link(p, 7);     // and 6 -> 7 from the ring: 6 pages
  for (uint32_t p : {0, 1, 2, 3, 4, 5}) link(p, 8);  // and 7 -> 8: 7 pages
  for (uint32_t p = 12; p < 24; ++p) {
    link(p, 12);
    link(p, 1);
    if (p < 23 && p != 22) link(p, p + 1);
  }
  link(23, 13);
  link(12, 5);  // a content link across hosts
  for (uint32_t p = 24; p < 28; ++p) {
    link(p, 24);
    link(p, 25);
  }
  link(26, 0);
  return e;
}

// The template links of HandGraph, by hand: A -> 0 (11 pages of 12), A -> 1 (11), A -> 8
// (7), B -> 12 (11), B -> 1 (12): 52 links, 5 (host, target) pairs.
bool IsTemplateByHand(uint32_t s, uint32_t t) {
  if (HostOf(s) == 0) return t == 0 || t == 1 || t == 8;
  if (HostOf(s) == 1) return t == 12 || t == 1;
  return false;
}

std::vector<uint32_t> Hosts(uint32_t n) {
  std::vector<uint32_t> hosts(n);
  for (uint32_t p = 0; p < n; ++p) hosts[p] = HostOf(p);
  return hosts;
}

RankOptions Dropping(RankMode mode, unsigned threads = 1) {
  RankOptions o;
  o.mode = mode;
  o.threads = threads;
  o.tolerance = 1e-13;
  o.max_iterations = 10000;
  o.extrapolation_period = 0;
  o.template_links.drop = true;
  return o;
}

Result<RankResult> Rank(const EdgeList& edges, uint32_t n, RankAlgorithm algorithm,
                        const RankOptions& o, std::span<const uint32_t> hosts) {
  VectorEdgeSource source(n, edges);
  RankInput input;
  input.hosts = hosts;
  return ComputeRank(source, algorithm, o, input);
}

TEST(TemplateLinksTest, PageRankEqualsPowerIterationOverTheGraphWithoutThem) {
  const EdgeList all = HandGraph();
  EdgeList kept;
  for (const auto& [s, t] : all) {
    if (!IsTemplateByHand(s, t)) kept.emplace_back(s, t);
  }
  ASSERT_EQ(all.size() - kept.size(), 52u);
  const auto want = testing::PowerIterate(testing::UniformWeights(testing::Adjacency(kPages, kept)),
                                          std::vector<double>(kPages, 1.0 / kPages), 0.85);
  const std::vector<uint32_t> hosts = Hosts(kPages);
  for (RankMode mode : {RankMode::kStream, RankMode::kCsr}) {
    SCOPED_TRACE(std::string(RankModeName(mode)));
    ASSERT_OK_AND_ASSIGN(RankResult got,
                         Rank(all, kPages, RankAlgorithm::kPageRank, Dropping(mode), hosts));
    EXPECT_LT(L1(got.scores, want), 1e-11);
    EXPECT_EQ(got.report.template_links, 52u);
    EXPECT_EQ(got.report.template_targets, 5u);
    EXPECT_EQ(got.report.links, kept.size());
  }
  // Without the option every link counts, and A's index and license lead.
  ASSERT_OK_AND_ASSIGN(RankResult plain,
                       Rank(all, kPages, RankAlgorithm::kPageRank, RankOptions(), hosts));
  EXPECT_EQ(plain.report.template_links, 0u);
  EXPECT_GT(plain.scores[1], plain.scores[7]);
}

TEST(TemplateLinksTest, InDegreeCountsTheLinksLeft) {
  const std::vector<uint32_t> hosts = Hosts(kPages);
  ASSERT_OK_AND_ASSIGN(RankResult got, Rank(HandGraph(), kPages, RankAlgorithm::kInDegree,
                                            Dropping(RankMode::kAuto), hosts));
  EXPECT_EQ(got.scores[0], 1);   // from C's page 26 only
  EXPECT_EQ(got.scores[1], 0);   // every link to it is some host's template link
  EXPECT_EQ(got.scores[7], 6);   // 6 of 12 pages: not more than half
  EXPECT_EQ(got.scores[8], 0);   // 7 of 12 pages
  EXPECT_EQ(got.scores[24], 3);  // C is too small to have template links
}

TEST(TemplateLinksTest, ShareAndMinPagesMoveTheThreshold) {
  const std::vector<uint32_t> hosts = Hosts(kPages);
  RankOptions o = Dropping(RankMode::kStream);
  o.template_links.share = 0.7;  // 7 of 12 is 0.58: 8 stays, the indexes (11 of 12) go
  ASSERT_OK_AND_ASSIGN(RankResult r, Rank(HandGraph(), kPages, RankAlgorithm::kInDegree, o, hosts));
  EXPECT_EQ(r.scores[8], 7);
  EXPECT_EQ(r.report.template_targets, 4u);
  o.template_links.min_pages = 13;  // A and B have 12 pages with links
  ASSERT_OK_AND_ASSIGN(r, Rank(HandGraph(), kPages, RankAlgorithm::kInDegree, o, hosts));
  EXPECT_EQ(r.report.template_links, 0u);
  o.template_links.min_pages = 4;  // now C (4 pages) counts: 24 and 25 from 3 of 4 pages
  o.template_links.share = 0.5;
  ASSERT_OK_AND_ASSIGN(r, Rank(HandGraph(), kPages, RankAlgorithm::kInDegree, o, hosts));
  EXPECT_EQ(r.scores[24], 0);
  EXPECT_EQ(r.report.template_targets, 7u);
}

// Pages past the end of RankInput::hosts are hosts of their own.
TEST(TemplateLinksTest, PagesWithoutAHostKeepTheirLinks) {
  const std::vector<uint32_t> hosts = Hosts(12);  // A only
  ASSERT_OK_AND_ASSIGN(RankResult r, Rank(HandGraph(), kPages, RankAlgorithm::kInDegree,
                                          Dropping(RankMode::kStream), hosts));
  EXPECT_EQ(r.report.template_links, 29u);  // A's 11 + 11 + 7
  EXPECT_EQ(r.scores[1], 12);               // B's links to it stay
}

// A random graph of 40 hosts with template links (each host's pages link to 3 pages of
// their own host and one shared page), seed printed: the CSR and the stream agree for
// every thread count, and HITS runs over the same graph as the reference.
TEST(TemplateLinksTest, CsrAndStreamAgree) {
  const uint64_t seed = 24;
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 8000, per_host = 200;
  std::mt19937_64 rng(seed);
  std::set<std::pair<uint32_t, uint32_t>> edges;
  std::uniform_int_distribution<uint32_t> page(0, n - 1);
  std::vector<uint32_t> hosts(n);
  for (uint32_t p = 0; p < n; ++p) {
    hosts[p] = p / per_host;
    const uint32_t first = hosts[p] * per_host;
    if (p % 9 == 4) continue;  // dangling
    for (uint32_t k = 0; k < 3; ++k) edges.emplace(p, first + k);
    if (rng() % 10 != 0) edges.emplace(p, 17);  // 90% of pages: a template link
    for (int k = 0; k < 6; ++k) edges.emplace(p, page(rng));
  }
  std::erase_if(edges, [](const auto& e) { return e.first == e.second; });
  const EdgeList list(edges.begin(), edges.end());
  for (RankAlgorithm algorithm : {RankAlgorithm::kPageRank, RankAlgorithm::kHits}) {
    SCOPED_TRACE(std::string(RankAlgorithmName(algorithm)));
    RankOptions o = Dropping(RankMode::kStream);
    o.tolerance = 1e-11;
    ASSERT_OK_AND_ASSIGN(RankResult base, Rank(list, n, algorithm, o, hosts));
    ASSERT_TRUE(base.report.converged);
    EXPECT_GE(base.report.template_targets, 4 * n / per_host);
    for (unsigned threads : {1u, 3u}) {
      o.mode = RankMode::kCsr;
      o.threads = threads;
      ASSERT_OK_AND_ASSIGN(RankResult csr, Rank(list, n, algorithm, o, hosts));
      EXPECT_LT(L1(csr.scores, base.scores), 1e-10) << "x" << threads;
      EXPECT_EQ(csr.report.template_links, base.report.template_links);
      o.mode = RankMode::kStream;
      ASSERT_OK_AND_ASSIGN(RankResult stream, Rank(list, n, algorithm, o, hosts));
      EXPECT_EQ(stream.scores, base.scores) << "stream: the same bits for any thread count";
    }
  }
}

TEST(TemplateLinksTest, RejectsBadOptionsAndHosts) {
  const std::vector<uint32_t> hosts = Hosts(kPages);
  RankOptions o = Dropping(RankMode::kStream);
  for (double share : {0.0, 1.0, -0.5, std::nan("")}) {
    o.template_links.share = share;
    EXPECT_EQ(Rank(HandGraph(), kPages, RankAlgorithm::kPageRank, o, hosts).status().code(),
              StatusCode::kInvalidArgument);
  }
  o = Dropping(RankMode::kStream);
  o.template_links.min_pages = 0;
  EXPECT_EQ(Rank(HandGraph(), kPages, RankAlgorithm::kPageRank, o, hosts).status().code(),
            StatusCode::kInvalidArgument);
  o = Dropping(RankMode::kStream);
  std::vector<uint32_t> bad = hosts;
  bad[3] = kPages;
  EXPECT_EQ(Rank(HandGraph(), kPages, RankAlgorithm::kPageRank, o, bad).status().code(),
            StatusCode::kInvalidArgument);
  o.memory_budget = 64;  // 8 bytes a link
  EXPECT_EQ(Rank(HandGraph(), kPages, RankAlgorithm::kPageRank, o, hosts).status().code(),
            StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace crawlrank
