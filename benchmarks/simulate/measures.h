// What crawlrank_simulate measures a crawl by (docs/benchmarks.md, "Crawl guidance
// quality"): the truth no crawler has (PageRank of the whole graph and its hot pages, the
// top 10%), and for each crawl the pages fetched before 50%, 80% and 90% of the hot pages
// were, the share of the whole graph's PageRank fetched after the first 1, 5, 10 and 25% of
// its pages, that share after each 1% (the curve) and, with a topic, the harvest rate.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_MEASURES_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_MEASURES_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "crawlrank/rank.h"
#include "crawlrank/status.h"
#include "link_graph.h"
#include "sim_orders.h"

namespace crawlrank::bench {

// The hot pages: this share of the graph, by PageRank. And the points of the crawl at which
// the PageRank share is read: these shares of the graph's pages fetched (PR@1% ...).
constexpr double kHotShare = 0.10;
constexpr std::array<double, 4> kShareAt = {0.01, 0.05, 0.10, 0.25};
constexpr size_t kShareAt10 = 2;  // kShareAt[2]: 10%
constexpr std::array<double, 3> kHotTargets = {0.5, 0.8, 0.9};
// The PageRank curve kept in the JSON: the share fetched after each 1% of the pages.
constexpr int kCurvePoints = 100;
constexpr size_t kRatioTarget = 1;  // kHotTargets[1]: 80%

// The truth a crawler does not have: PageRank of the whole graph, and its hot pages.
struct Truth {
  std::vector<double> rank;  // sums to 1
  std::vector<bool> hot;
  uint32_t hot_pages = 0;
  RankReport report;
};

// `template_links`: the hot pages by PageRank without the graph's template links
// (RankOptions::template_links, each node's host from its URL).
Result<Truth> ComputeTruth(const LinkGraph& graph, bool template_links);

// What one crawl of the graph in one mode gave. The counts are deterministic.
struct CrawlOutcome {
  uint64_t fetched = 0;
  uint64_t hot_fetched = 0;
  std::array<std::optional<uint64_t>, kHotTargets.size()> pages_to_hot;
  // PageRank fetched with kShareAt of the graph's pages (none when the crawl ended first).
  std::array<std::optional<double>, kShareAt.size()> rank_share_at;
  double rank_share_end = 0;
  std::vector<double> curve;  // PageRank fetched after each 1% of the pages (kCurvePoints)
  // With a topic: the harvest rate after each 1% of the reachable pages (sim_topic.h).
  std::vector<double> harvest;
  // Kendall's tau-b, over the pages discovered, between the scores the order held and the
  // whole graph's PageRank, at the end of the first batch at or past each kShareAt.
  std::array<std::optional<double>, kShareAt.size()> tau_at;
  uint64_t refetched = 0;  // pages handed out again after they were fetched (should be 0)
  // What disagrees with the crawl (should be nothing): GetStats at the end, and the
  // hand-out order against an independent replay (CheckOrder).
  std::vector<std::string> anomalies;
  uint64_t batches = 0;
  uint64_t reranks = 0;
  uint64_t rerank_ms = 0;  // SchedulerStats::rerank_ms: the re-ranks' time
  uint64_t global_runs = 0;   // a cluster's crawl: the global ranks computed
  double global_seconds = 0;  // and their time
  int64_t simulated_ms = 0;
  double seconds = 0;
  std::vector<uint32_t> order;  // the pages (nodes) in the order Next handed them out

  // Everything but the time taken.
  bool SameCounts(const CrawlOutcome& o) const {
    return fetched == o.fetched && hot_fetched == o.hot_fetched && pages_to_hot == o.pages_to_hot &&
           rank_share_at == o.rank_share_at && tau_at == o.tau_at && refetched == o.refetched &&
           batches == o.batches && reranks == o.reranks && simulated_ms == o.simulated_ms &&
           order == o.order;
  }
};

// The pages fetched at each kShareAt of the graph's `pages` (at least 1).
std::array<uint64_t, kShareAt.size()> SharePages(uint32_t pages);

// Tau-b between held scores and the true PageRank of the same pages.
std::optional<double> TauOf(const HeldScores& held, const Truth& truth);

// The measures of a crawl that fetched `order` (each page once): hot pages, PageRank shares
// and the curve.
void Measure(const std::vector<uint32_t>& order, const Truth& truth, uint32_t pages,
             CrawlOutcome& out);

// The area under a harvest curve of kCurvePoints points (the mean harvest rate over the
// crawl, each 1% of it weighing the same); none for a crawl that ended first.
std::optional<double> HarvestArea(const std::vector<double>& curve);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_MEASURES_H_
