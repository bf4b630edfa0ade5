// Ranks over a graph split into shards (docs/cluster.md, "Global ranks"): each shard
// holds its pages, their out-links, and ghosts (pages another shard owns that its links
// name); the shards together rank the union of their graphs, every page once, through a
// ShardExchange (crawlrank/shard_exchange.h: MPI in crawlrank_rank_mpi).
//
// Each page has one master, on the shard that owns it; a ghost stands for its master on
// the shard that holds it. Every iteration a shard computes, over its own in-link rows,
// the sums of its pages' contributions to each of its targets, ghosts included; one
// all-to-all carries each ghost's partial sum to its master, which adds them in shard
// order and updates; one all-gather reduces the global terms (the mass passed along links,
// the residual). HITS also sends the masters' authorities back to their ghosts, whose hubs
// need them. The formulas are docs/ranking.md's, the same as ComputeRank's (rank.h), with
// N the number of vertices over every shard.
#ifndef CRAWLRANK_SRC_RANK_SHARD_RANK_H_
#define CRAWLRANK_SRC_RANK_SHARD_RANK_H_

#include <cstdint>
#include <span>
#include <vector>

#include "crawlrank/rank.h"
#include "crawlrank/shard_exchange.h"
#include "crawlrank/status.h"
#include "rank/rank_graph.h"

namespace crawlrank {

// One shard's part of the graph. Local ids: [0, pages) are the pages of the shard's store,
// ghosts among them; [pages, pages + extras) are vertices the shard owns that it holds no
// page for (another shard's ghost whose page is not stored here yet: a page with no links
// out, as the union of the shards' graphs has it).
struct ShardGraph {
  uint32_t pages = 0;
  uint32_t extras = 0;
  // The pages' links by page id (BuildCsr with RankRenumber::kNever). A ghost has none.
  CsrGraph csr;
  // By page id (`pages` entries): 1 for a ghost.
  std::vector<uint8_t> ghost;
  // ghosts[j]: this shard's ghosts whose master is on shard j, ascending. served[j]: the
  // local ids of this shard's masters that shard j's ghosts[this shard] stand for, in
  // that order. Both have one list per shard (this shard's own are empty).
  std::vector<std::vector<uint32_t>> ghosts, served;
  // Every shard's vertices: its pages that are not ghosts, and its extras.
  uint64_t vertices = 0;

  uint32_t size() const { return pages + extras; }
  bool IsMaster(uint32_t id) const { return id >= pages || ghost[id] == 0; }
};

struct ShardRank {
  // Scores (and hubs for HITS) by local id, size() entries: a ghost holds its master's.
  RankResult result;
  // Words (8 bytes each) this shard sent to the others in one iteration.
  uint64_t words_per_iteration = 0;
};

// Ranks `graph` with `algorithm` (every one but kInDegree) and `options` (mode, renumber
// and extrapolation do not apply: plain iteration, every shard stopping at the same
// iteration on the same global residual). `teleport` by local id (at most size() entries;
// a ghost's is ignored: its master's counts), as RankInput::teleport. Every shard calls it
// with the same algorithm and options. InvalidArgument as ComputeRank; the exchange's
// errors as they come.
Result<ShardRank> RankShard(const ShardGraph& graph, ShardExchange& exchange,
                            RankAlgorithm algorithm, const RankOptions& options,
                            std::span<const double> teleport);

// Element-wise sums of every shard's `values`, added in shard order (the same bits on
// every shard), written back over them.
Status SumOverShards(ShardExchange& exchange, std::span<double> values);

// Every shard's `status` agreed: OK when all are OK, else this shard's own error, or the
// first other shard's (in shard order), named. Every shard calls it at the same point.
Status AgreeOverShards(ShardExchange& exchange, const Status& status);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_RANK_SHARD_RANK_H_
