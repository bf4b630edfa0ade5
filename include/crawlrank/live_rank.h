// crawlrank/live_rank.h: PageRank of a graph that keeps growing, held in memory between
// solves, so that a re-rank costs neither a read of every link nor a cold start.
//
// A crawl's graph changes a little between two ranks: pages crawled since get their
// out-links, pages they discover are added. LiveRank reads the graph once (Build), takes
// those changes as they are reported (Grow, SetLinks) and solves again from the last
// solution (Solve). Results are those of ComputeRank (rank.h) in CSR mode on the graph as
// it is then, to about the tolerance, and the same for any thread count.
//
// How it works: the in-memory CSR built by Build stays as it is; the rows changed since are
// kept beside it, and each iteration corrects the in-link sums of their targets (a pass
// over the changed links only). When the changed links outnumber an eighth of the CSR's,
// Solve folds them in with an in-memory rebuild (no read of the source). docs/ranking.md,
// "Re-ranking a growing graph", has the figures and what was tried.
//
// Algorithms: PageRank, personalized PageRank and TrustRank, whose teleport vector a
// Solve may change. HITS and weighted PageRank (whose edge weights change with every
// degree) are ranked with ComputeRank.
//
// Memory: 8 bytes a link (both orientations) and about 40 a page, with the last result;
// plus up to about 30 bytes per changed link until they are folded in. Build and every
// Solve check RankOptions::memory_budget against what a build of the graph needs
// (ResourceExhausted over it).
//
// Threads: not thread-safe; one thread at a time (the scheduler calls it from its
// re-rank thread). RankOptions::threads sets the threads each Solve and rebuild use.
#ifndef CRAWLRANK_LIVE_RANK_H_
#define CRAWLRANK_LIVE_RANK_H_

#include <cstdint>
#include <memory>
#include <span>

#include "crawlrank/edge_source.h"
#include "crawlrank/rank.h"
#include "crawlrank/status.h"

namespace crawlrank {

class LiveRank {
 public:
  // Reads `graph` once into memory. InvalidArgument for an algorithm other than PageRank,
  // ppr or trustrank, or options out of range; ResourceExhausted when the graph needs
  // more than options.memory_budget; the source's errors as they come.
  static Result<LiveRank> Build(EdgeSource& graph, RankAlgorithm algorithm,
                                const RankOptions& options);
  // Whether Build takes `algorithm`: PageRank, ppr and trustrank.
  static bool Supports(RankAlgorithm algorithm);

  LiveRank(LiveRank&&) noexcept;
  LiveRank& operator=(LiveRank&&) noexcept;
  ~LiveRank();

  uint32_t num_pages() const;
  uint64_t num_links() const;
  // The out-links of `page` as they are now (empty when it has none or is out of range).
  std::span<const uint32_t> Links(uint32_t page) const;

  // Adds pages, without links, up to `pages` in all. InvalidArgument when fewer than now.
  Status Grow(uint32_t pages);
  // Replaces the out-links of `page` by `targets`: strictly increasing page ids, each
  // below num_pages(). InvalidArgument naming the page otherwise (nothing changes).
  Status SetLinks(uint32_t page, std::span<const uint32_t> targets);

  // Ranks the graph as it is now (ResourceExhausted when it has outgrown the memory
  // budget; nothing changes then). `input` as for ComputeRank; without input.start, the
  // solve starts from the last Solve's scores (pages added since from the teleport
  // vector), or cold on the first. The result's report counts the iterations of this
  // solve; report.seconds includes folding changes in when that happened.
  Result<RankResult> Solve(const RankInput& input = {});

  // How many times Solve has folded the changed rows into a rebuilt CSR.
  uint32_t rebuilds() const;
  // Bytes held: the CSR, the changed rows and the last result.
  uint64_t Bytes() const;

 private:
  struct Impl;
  explicit LiveRank(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_LIVE_RANK_H_
