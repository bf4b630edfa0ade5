// The truth and the measures of a crawl (measures.h).
#include "measures.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "crawlrank/edge_source.h"
#include "crawlrank/url.h"
#include "kendall.h"

namespace crawlrank::bench {

Result<Truth> ComputeTruth(const LinkGraph& graph, bool template_links) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(graph.links());
  for (uint32_t node = 0; node < graph.pages(); ++node) {
    for (uint32_t target : graph.OutLinks(node)) edges.emplace_back(node, target);
  }
  VectorEdgeSource source(graph.pages(), std::move(edges));
  RankOptions options;
  options.damping = 0.85;
  // Tighter than the default 1e-6, so that the order at the hot set's edge is settled.
  options.tolerance = 1e-10;
  options.max_iterations = 1000;
  options.template_links.drop = template_links;
  std::vector<uint32_t> hosts;
  if (template_links) {
    std::unordered_map<std::string, uint32_t> number;
    for (const std::string& url : graph.urls) {
      CRAWLRANK_ASSIGN_OR_RETURN(std::string host, HostKey(url));
      hosts.push_back(number.try_emplace(host, static_cast<uint32_t>(number.size())).first->second);
    }
  }
  RankInput input;
  input.hosts = hosts;
  CRAWLRANK_ASSIGN_OR_RETURN(RankResult result,
                             ComputeRank(source, RankAlgorithm::kPageRank, options, input));
  Truth truth;
  truth.rank = std::move(result.scores);
  truth.report = result.report;
  // Top kHotShare of the pages (rounded up), ties by node (order of first mention).
  truth.hot_pages = static_cast<uint32_t>(std::ceil(graph.pages() * kHotShare));
  std::vector<uint32_t> order(graph.pages());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return truth.rank[a] > truth.rank[b]; });
  truth.hot.assign(graph.pages(), false);
  for (uint32_t i = 0; i < truth.hot_pages; ++i) truth.hot[order[i]] = true;
  return truth;
}

std::array<uint64_t, kShareAt.size()> SharePages(uint32_t pages) {
  std::array<uint64_t, kShareAt.size()> at;
  for (size_t k = 0; k < kShareAt.size(); ++k) {
    at[k] = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(pages * kShareAt[k])));
  }
  return at;
}

std::optional<double> TauOf(const HeldScores& held, const Truth& truth) {
  std::vector<double> truth_of(held.nodes.size());
  for (size_t i = 0; i < held.nodes.size(); ++i) truth_of[i] = truth.rank[held.nodes[i]];
  return KendallTauB(held.scores, truth_of);
}

void Measure(const std::vector<uint32_t>& order, const Truth& truth, uint32_t pages,
             CrawlOutcome& out) {
  std::array<uint64_t, kHotTargets.size()> hot_needed;
  for (size_t t = 0; t < kHotTargets.size(); ++t) {
    hot_needed[t] = static_cast<uint64_t>(std::ceil(truth.hot_pages * kHotTargets[t]));
  }
  const std::array<uint64_t, kShareAt.size()> share_pages = SharePages(pages);
  out.fetched = order.size();
  out.hot_fetched = 0;
  out.pages_to_hot = {};
  out.rank_share_at = {};
  out.curve.clear();
  double rank = 0;
  for (uint64_t i = 0; i < order.size(); ++i) {
    const uint32_t node = order[i];
    rank += truth.rank[node];
    if (truth.hot[node]) {
      ++out.hot_fetched;
      for (size_t t = 0; t < kHotTargets.size(); ++t) {
        if (out.hot_fetched == hot_needed[t]) out.pages_to_hot[t] = i + 1;
      }
    }
    for (size_t k = 0; k < kShareAt.size(); ++k) {
      if (i + 1 == share_pages[k]) out.rank_share_at[k] = rank;
    }
    while (out.curve.size() < kCurvePoints &&
           i + 1 == static_cast<uint64_t>(std::llround(pages * (out.curve.size() + 1.0) / kCurvePoints))) {
      out.curve.push_back(rank);
    }
  }
  out.rank_share_end = rank;
}

std::optional<double> HarvestArea(const std::vector<double>& curve) {
  if (curve.size() != kCurvePoints) return std::nullopt;
  double sum = 0;
  for (double h : curve) sum += h;
  return sum / static_cast<double>(curve.size());
}

}  // namespace crawlrank::bench
