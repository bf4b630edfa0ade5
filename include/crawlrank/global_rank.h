// crawlrank/global_rank.h: a cluster's global ranks, computed by its nodes' PageDBs
// together (docs/cluster.md, "Global ranks").
//
// In a cluster of `crawlrank serve` nodes each PageDB holds its own hosts' pages, their
// out-links, and ghosts (pages other nodes own that its links name), so a rank of one
// PageDB is not the crawl's. RankGlobally runs on every node at once, one participant per
// PageDB, joined by a ShardExchange (shard_exchange.h: MPI in crawlrank_rank_mpi), and
// ranks the union of their graphs, each page once, as ComputeRank (rank.h) would rank one
// PageDB holding the whole crawl:
//   1. Setup: each participant reads one snapshot of its PageDB (its pages, the inputs of
//      the algorithm, its links into an in-memory CSR) and releases it once built, so a
//      node's `crawlrank serve` goes on writing. One all-to-all maps each ghost to its
//      owner's page by fingerprint; a ghost whose owner holds no such page yet (its write
//      came after the snapshot) becomes a vertex of the owner with no links out.
//   2. Iterations: shard_rank.h. Each participant uses RankOptions::threads threads.
//   3. Output: each writes its part, by its own page ids (a ghost holds its owner's
//      value), to `ranks/global/<algorithm>.rank` (rank_store.h: format version 3, naming
//      the run, this node, the number of nodes and the whole graph's counts); each file
//      is written aside, the participants meet, and only then does each rename its own
//      into place. A participant that dies before the meeting leaves every node's
//      previous run in place.
// A node's own re-ranks keep writing `ranks/<algorithm>.rank`; the two never mix.
//
// Each PageDB must be node i of the list it stores, i being its participant's shard, and
// every participant's list the same (one that ran alone is node 0 of 1). Every participant
// calls with the same algorithm and options; an error on one is returned on all.
#ifndef CRAWLRANK_GLOBAL_RANK_H_
#define CRAWLRANK_GLOBAL_RANK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/shard_exchange.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct GlobalRankOptions {
  // Damping, tolerance, max_iterations, threads (per participant) and uniform_teleport as
  // for ComputeRank. The iterations are plain power iterations over an in-memory CSR:
  // mode, renumber, extrapolation and template links do not apply.
  RankOptions rank;
  // TrustRank: fingerprints of the trusted pages, each on whichever node owns it; empty:
  // the crawl's seeds (depth 0). NotFound when one is on no node.
  std::vector<uint64_t> trusted;
  // Write the result to ranks/global/ (false: compute only).
  bool save = true;
};

struct GlobalRankReport {
  // This node's part, as saved: scores (and hubs) by this PageDB's page ids.
  StoredRank stored;
  uint64_t ghosts = 0;  // this node's pages owned elsewhere
  uint64_t extras = 0;  // vertices this node ranked for other nodes' ghosts, without a page
  uint64_t words_per_iteration = 0;  // 8-byte words this node sent each iteration
  double setup_seconds = 0;          // the snapshot read, the ghosts mapped, the CSR built
  double rank_seconds = 0;           // the iterations
};

// The name of a global rank's file under ranks/ (RankFilePath): "global/<algorithm>".
std::string GlobalRankName(RankAlgorithm algorithm);

// Ranks the graph of every participant's PageDB with `algorithm` (any but kInDegree);
// `db` is this participant's (opened read-only or not). FailedPrecondition naming both
// when the PageDB is not node exchange.shard() of exchange.shards(), when the
// participants' lists differ, or when a ghost has links; errors of any participant as
// AgreeOverShards names them.
Result<GlobalRankReport> RankGlobally(const PageDb& db, ShardExchange& exchange,
                                      RankAlgorithm algorithm, const GlobalRankOptions& options);

// A stored rank by the name the tools, the dashboard and Python take: "display" (rank_store.h),
// an algorithm's name ("pagerank", ...: the PageDB's own rank), or "global-" and one
// ("global-pagerank": the cluster's global rank). InvalidArgument listing them otherwise.
struct StoredRankName {
  std::string file;  // for RankFilePath: "display", "pagerank", "global/pagerank", ...
  RankAlgorithm algorithm = RankAlgorithm::kPageRank;
  bool global = false;
};
Result<StoredRankName> ParseStoredRankName(std::string_view name);

// The global rank of `algorithm` stored with the PageDB at `db_path` (LoadRank's errors;
// NotFound when none was computed).
Result<StoredRank> LoadGlobalRank(const std::string& db_path, RankAlgorithm algorithm);

}  // namespace crawlrank

#endif  // CRAWLRANK_GLOBAL_RANK_H_
