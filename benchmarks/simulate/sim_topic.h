// A topic for crawlrank_simulate (issue #28, docs/benchmarks.md "Topical crawls"): the
// scores a topical crawl gives pages and links, and the pages relevant to the topic.
//
//   --scores FILE    what benchmarks/doc_suite.py --keywords writes: `URL SCORE` lines, a
//                    page's content score, and `SRC DST SCORE` lines, a link's score
//                    ('#' comments; a page or link not named scores 0). The simulated
//                    fetch reports them as the crawler would (CrawledPage::content_score,
//                    Link::score), so that ppr, topic-hits and link-score steer by them.
//   --relevant FILE  URL prefixes, one a line ('#' comments): a page is relevant when its
//                    URL starts with one (benchmarks/topics/*.relevant).
//
// The harvest rate after n pages is the share of them that are relevant.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_SIM_TOPIC_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_SIM_TOPIC_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank::bench {

// The node of a URL of the graph, or nullopt when the graph has no such page.
using NodeLookup = std::function<std::optional<uint32_t>(std::string_view url)>;

struct TopicScores {
  std::vector<float> content;                  // by node
  std::unordered_map<uint64_t, float> links;  // by (src << 32 | dst)

  float Link(uint32_t src, uint32_t dst) const {
    const auto it = links.find(uint64_t{src} << 32 | dst);
    return it == links.end() ? 0.f : it->second;
  }
};

// Reads a scores file for a graph of `pages` nodes. A URL the graph does not have, a
// score outside [0, 1] or a line of another shape is an error naming the line.
Result<TopicScores> ReadTopicScores(const std::string& path, uint32_t pages,
                                    const NodeLookup& node_of);

// Reads a prefix file; `urls` are the graph's pages by node. Returns each node's relevance.
// A file with no prefix, or whose prefixes match no page, is an error.
Result<std::vector<bool>> ReadRelevant(const std::string& path, std::span<const std::string> urls);

// The harvest rate after each `points`th of `crawl_pages` pages of `order` (point k: the
// relevant share of the first round(crawl_pages x k / points) pages fetched); points past
// the end of `order` are left out.
std::vector<double> HarvestCurve(std::span<const uint32_t> order, const std::vector<bool>& relevant,
                                 uint64_t crawl_pages, size_t points);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_SIM_TOPIC_H_
