// A deterministic generator of web-like link graphs for benchmarks.
//
// Shape, after what crawls of the web look like:
//   - hosts of skewed (Pareto) sizes; page ids are grouped by host, as a crawl that
//     discovers a site's pages together would number them;
//   - skewed (log-normal) out-degree;
//   - most links stay within the host and near the source page; the rest go to other
//     hosts, chosen in proportion to their size, preferring each host's first pages
//     (home and section pages).
// Every page's links are a pure function of (seed, page id): the graph can be produced in
// any order, in parallel, and is the same on every machine and compiler (no <random>
// distributions, whose output the standard leaves to the implementation).
#ifndef CRAWLRANK_BENCHMARKS_WEB_GRAPH_H_
#define CRAWLRANK_BENCHMARKS_WEB_GRAPH_H_

#include <cstdint>
#include <string>
#include <vector>

namespace crawlrank::bench {

struct WebGraphOptions {
  uint32_t pages = 1'000'000;
  double mean_out_degree = 27.3;  // before duplicate targets merge: ~16.8 distinct links per page
  double local_fraction = 0.8;    // share of links that stay within the source's host
  // Share of all links whose target is a page drawn uniformly at random (0: none); the
  // rest follow local_fraction. A crawl's cross-host links are not all to front pages: a
  // uniform share makes the pull's gathers miss the cache as a web-scale graph's do.
  double random_share = 0.0;
  uint64_t seed = 1;
};

class WebGraph {
 public:
  explicit WebGraph(const WebGraphOptions& options);

  uint32_t pages() const { return options_.pages; }
  size_t hosts() const { return host_start_.size(); }

  // Sets `out` to the distinct targets of `page`, in increasing order.
  void OutLinks(uint32_t page, std::vector<uint32_t>& out) const;

  // A canonical URL for `page`, e.g. "http://www.site12.com/a/17".
  std::string Url(uint32_t page) const;

 private:
  size_t HostOf(uint32_t page) const;

  WebGraphOptions options_;
  std::vector<uint32_t> host_start_;  // first page id of each host; host_start_[0] == 0
};

// A uniformly random permutation of 0..n-1 (Fisher-Yates over SplitMix64), the same for a
// seed on every machine: page p becomes page result[p].
std::vector<uint32_t> RandomPermutation(uint32_t n, uint64_t seed);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_WEB_GRAPH_H_
