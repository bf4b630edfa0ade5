// Crawl orders crawlrank_simulate replays on its own, without a Scheduler or a PageDB: the
// crawl-ordering literature's baselines that are not score modes, and the ceiling.
//
//   oracle                true PageRank first, among the pages discovered so far: the best
//                         any order that only knows what it has discovered could do with a
//                         perfect estimate (every other order is reported as a share of it);
//   topic-oracle          with a topic (crawlrank_simulate --relevant): the relevant pages
//                         first among those discovered, then discovery order: what knowing
//                         each page's relevance gives (a greedy reference, not a strict
//                         ceiling: an irrelevant hub fetched first can reveal more);
//   larger-sites-first    the host with the most pages discovered and not fetched first,
//                         its pages in discovery order (Baeza-Yates et al., WWW 2005);
//   rankmass              the largest lower bound of personalized PageRank from the seeds,
//                         computed from the fetched pages' links (Cho and Schonfeld, VLDB
//                         2007): a seed starts with (1 - d)/|seeds|; fetching page p sends
//                         d·rm(p)/outdeg(p) along each of its links, once;
//   pagerank-every-N      partial PageRank (Cho, Garcia-Molina and Page, WWW 1998):
//                         PageRank of the known graph (the pages discovered, the links of the
//                         pages fetched; teleport over the known pages, damping 0.85),
//                         recomputed after every N pages fetched; a page discovered since the
//                         last rank waits behind the ranked ones, in discovery order;
//   pagerank-hosts-every-N the same with the teleport shared equally by the hosts known
//                         (each host's share split over its known pages): the same as
//                         pagerank-every-N on one host; on several, a host with few pages
//                         known yet is not drowned by one with many (an experiment).
//   blend[n|g]-W-every-N[-grow-G]
//                         the search that chose the default score mode (an experiment):
//                         W x partial PageRank (teleport over the known pages; with
//                         blend-hosts-, shared by the hosts) + (1 - W) x RankMass, a page
//                         discovered since the last rank estimated as the Scheduler does
//                         (its fetched linkers' ranks over their out-degrees); ranked
//                         again when the pages fetched or known grew by N, or by G of
//                         what they were at the last rank, whichever is more; blendn-
//                         divides each part by its sum over the pages waiting at the
//                         last rank; blendg- blends their logarithms instead
//                         (W x log rank + (1 - W) x log mass: a page must do well on both).
//
// Every order hands out `batch` pages at a time, the best first (ties: discovery order),
// then applies the batch's links in order, as the simulated Scheduler crawl does. The
// result is deterministic.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_SIM_ORDERS_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_SIM_ORDERS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank::bench {

// A link graph as the orders read it.
struct OrderGraph {
  std::span<const uint64_t> offsets;  // out-links as CSR: pages + 1 entries
  std::span<const uint32_t> targets;
  std::span<const uint32_t> host;     // each page's host, numbered from 0

  uint32_t pages() const { return static_cast<uint32_t>(offsets.size() - 1); }
  std::span<const uint32_t> OutLinks(uint32_t node) const {
    return targets.subspan(offsets[node], offsets[node + 1] - offsets[node]);
  }
};

struct ReplayOrder {
  enum class Kind { kOracle, kTopicOracle, kLargerSitesFirst, kRankMass, kPartialPageRank, kBlend };
  Kind kind = Kind::kOracle;
  uint64_t rerank_every = 0;  // kPartialPageRank, kBlend: pages fetched between two ranks
  bool host_teleport = false;  // kPartialPageRank: the teleport shared equally by hosts
  double weight = 0;  // kBlend: the partial PageRank's weight against RankMass's
  bool normalize = false;  // kBlend: each part over its sum on the pages waiting
  bool geometric = false;  // kBlend: W x log(rank) + (1 - W) x log(mass) (blendg-)
  double growth = 0;  // kBlend: rank again when fetched or known pages grew by this share
  // An experiment, not a baseline.
  bool experiment() const { return host_teleport || kind == Kind::kBlend; }
  // One of the literature's baselines: neither an oracle (a reference) nor an experiment.
  bool baseline() const {
    return kind != Kind::kOracle && kind != Kind::kTopicOracle && !experiment();
  }

  std::string Name() const;
};

// "oracle", "topic-oracle", "larger-sites-first", "rankmass", "pagerank-every-N",
// "pagerank-hosts-every-N" (N ≥ 1) or a blend (above).
Result<ReplayOrder> ParseReplayOrder(std::string_view name);

// The scores an order holds for every page discovered so far, at one point of the crawl:
// the priority each page has (a fetched page keeps its last; larger-sites-first: its host's
// pages waiting).
struct HeldScores {
  uint64_t fetched = 0;  // pages fetched when they were read
  std::vector<uint32_t> nodes;
  std::vector<double> scores;
};

struct ReplayResult {
  std::vector<uint32_t> order;   // the pages, in the order fetched
  std::vector<HeldScores> held;  // one for each checkpoint reached
};

// The pages a crawl from `seeds` fetches, in order, until no discovered page is left (or
// `max_pages`, when not 0). `oracle_scores`, one a page, are what the oracles fetch by:
// the whole graph's PageRank (oracle), 1 for a relevant page and 0 for another (topic
// oracle); the other orders do not read them. The held scores are read at the end of the first batch at or past each of `checkpoints`
// (pages fetched, ascending). `polite`: a host gives at most one page to a batch, as the
// Scheduler's defaults do in crawlrank_simulate --polite (1 s between two requests to a
// host, each batch a simulated second); the best pages of the hosts free go first.
Result<ReplayResult> Replay(const OrderGraph& graph, std::span<const uint32_t> seeds,
                            const ReplayOrder& order, size_t batch, uint64_t max_pages,
                            std::span<const double> oracle_scores,
                            std::span<const uint64_t> checkpoints = {}, bool polite = false);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_SIM_ORDERS_H_
