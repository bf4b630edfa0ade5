// ReferenceOrder and CheckOrder (reference_order.h): breadth-first and link-score
// replayed with a priority queue, and the crawl's order compared with them.
#include "reference_order.h"

#include <algorithm>
#include <queue>
#include <span>
#include <string>

namespace crawlrank::bench {

std::vector<uint32_t> ReferenceOrder(const LinkGraph& graph, const std::vector<uint32_t>& seeds,
                                     ScoreMode mode, const SimulationOptions& options) {
  if (mode != ScoreMode::kBreadthFirst && mode != ScoreMode::kLinkScore) return {};
  constexpr uint32_t kUnseen = UINT32_MAX;
  std::vector<uint32_t> discovered(graph.pages(), kUnseen);  // discovery number
  std::vector<uint32_t> depth(graph.pages(), 0);
  std::vector<float> key(graph.pages(), 0.f);
  std::vector<bool> out(graph.pages(), false);  // handed out
  struct Entry {
    float key;
    uint32_t discovered, node;
    bool operator<(const Entry& o) const {  // max-heap: highest key, then first discovered
      return key < o.key || (key == o.key && discovered > o.discovered);
    }
  };
  std::priority_queue<Entry> queue;  // stale entries (a key raised since) are skipped
  uint32_t next_number = 0;
  const auto offer = [&](uint32_t node, float score, uint32_t at_depth) {
    if (discovered[node] == kUnseen) {
      discovered[node] = next_number++;
      depth[node] = at_depth;
      key[node] = mode == ScoreMode::kBreadthFirst ? -static_cast<float>(at_depth) : score;
    } else if (mode == ScoreMode::kLinkScore && !out[node] && score > key[node]) {
      key[node] = score;
    } else {
      return;
    }
    queue.push({key[node], discovered[node], node});
  };
  for (uint32_t seed : seeds) offer(seed, 1.0f, 0);
  std::vector<uint32_t> order, batch;
  while (!queue.empty() && (options.max_pages == 0 || order.size() < options.max_pages)) {
    batch.clear();
    const size_t n = options.max_pages == 0
                         ? options.batch
                         : std::min<uint64_t>(options.batch, options.max_pages - order.size());
    while (!queue.empty() && batch.size() < n) {
      const Entry top = queue.top();
      queue.pop();
      if (out[top.node] || top.key != key[top.node]) continue;
      out[top.node] = true;
      batch.push_back(top.node);
    }
    for (uint32_t node : batch) {
      order.push_back(node);
      const std::span<const uint32_t> links = graph.OutLinks(node);
      for (uint32_t target : links) {
        offer(target, options.LinkScoreOf(node, target, links.size()), depth[node] + 1);
      }
    }
  }
  return order;
}

void CheckOrder(const LinkGraph& graph, const std::vector<uint32_t>& seeds,
                const SimulationOptions& options, ModeRun& run) {
  if (options.polite) return;  // the replay has no hosts
  const std::vector<uint32_t> expected = ReferenceOrder(graph, seeds, run.mode, options);
  if (expected.empty()) return;
  run.order_checked = true;
  const std::vector<uint32_t>& got = run.outcome.order;
  const size_t n = std::min(expected.size(), got.size());
  const size_t first =
      std::mismatch(got.begin(), got.begin() + n, expected.begin()).first - got.begin();
  if (first < n) {
    run.outcome.anomalies.push_back(
        "page " + std::to_string(first + 1) + " handed out is " + graph.urls[got[first]] +
        ", where an independent replay of the mode has " + graph.urls[expected[first]]);
  } else if (expected.size() != got.size()) {
    run.outcome.anomalies.push_back("the crawl fetched " + std::to_string(got.size()) +
                                    " pages, an independent replay of the mode " +
                                    std::to_string(expected.size()));
  }
}

}  // namespace crawlrank::bench
