// The two ways the rank kernels reach edges: passes over an EdgeSource (optionally
// pipelined: one thread decodes, the others consume disjoint target ranges) and an
// in-memory CSR built from one source.
#ifndef CRAWLRANK_SRC_RANK_GRAPH_H_
#define CRAWLRANK_SRC_RANK_GRAPH_H_

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "crawlrank/edge_source.h"
#include "crawlrank/rank.h"
#include "crawlrank/status.h"
#include "rank/link_bins.h"

namespace crawlrank {

// Vertex arrays are processed in blocks of this many pages; reductions add per-block
// partial sums in block order, so they do not depend on the number of threads.
inline constexpr size_t kRankBlock = 4096;
inline size_t RankBlocks(uint32_t pages) {
  return (pages + kRankBlock - 1) / kRankBlock;
}

static_assert(LinkBins::kPartPages % kRankBlock == 0, "a partition is whole rank blocks");

// What BuildCsr builds: pull rows of the in-links; those and rows of the out-links (for
// HITS hubs); or the in-links split by partitions (for the PageRank kernel: link_bins.h).
enum class CsrShape { kInRows, kInAndOutRows, kSplit };

// Compressed sparse rows of a graph: the in-links of every page (sources in increasing
// order, for pull updates) or their split, and, when asked, the out-links.
struct CsrGraph {
  uint64_t links = 0;
  std::vector<uint64_t> in_offsets;        // pages + 1 entries, or empty when split
  std::unique_ptr<uint32_t[]> in_sources;  // links entries, or null when split
  LinkBins split;                          // split.parts == 0: not split
  std::vector<uint32_t> out_degree;        // pages entries
  std::vector<uint64_t> out_offsets;       // pages + 1 entries, or empty
  std::vector<uint32_t> out_targets;       // links entries, or empty
  // Empty: rows are by page id. Else rows, sources and out_degree are by position in
  // this order: order[i] is the page at position i.
  std::vector<uint32_t> order;

  std::span<const uint32_t> InLinks(uint32_t page) const {
    return {in_sources.get() + in_offsets[page], in_offsets[page + 1] - in_offsets[page]};
  }
  std::span<const uint32_t> OutLinks(uint32_t page) const {
    return {out_targets.data() + out_offsets[page], out_offsets[page + 1] - out_offsets[page]};
  }
  // The most bytes BuildCsr holds at once for a graph of this shape: while it transposes,
  // both orientations (8 bytes a link, 20 a page) and up to kTransposeParts write cursors
  // of 8 bytes a page. Saturating: a count from a damaged header can be anything.
  // A split (up to LinkBins::kMaxParts partitions) holds no more, its table aside.
  static uint64_t Bytes(uint64_t pages, uint64_t links) {
    constexpr uint64_t kLarge = uint64_t{1} << 56;
    if (pages > kLarge || links > kLarge) return UINT64_MAX;
    const uint64_t split = pages <= uint64_t{LinkBins::kMaxParts} * LinkBins::kPartPages
                               ? LinkBins::BuildBytes(pages, kTransposeParts)
                               : 0;
    return pages * 20 + std::max(pages * 8 * kTransposeParts, split) + links * 8;
  }
  static constexpr uint64_t kTransposeParts = 4;
};

// Edges of a CsrGraph changed since it was built (LiveRank keeps one between rebuilds):
// each iteration adds the contribution of s to t for every (s, t) in `added` and takes it
// out for every (s, t) in `removed`, in this order, so the sums are the same for any
// thread count. The CSR's out_degree must be every page's degree with the patch applied.
struct CsrPatch {
  std::vector<std::pair<uint32_t, uint32_t>> added, removed;
  bool empty() const { return added.empty() && removed.empty(); }
};

// The algorithms a patched CSR can rank: those whose edge weights are 1/out-degree, so
// a changed row changes nothing but its own contributions.
inline bool RanksOverPatchedCsr(RankAlgorithm algorithm) {
  return algorithm == RankAlgorithm::kPageRank || algorithm == RankAlgorithm::kPersonalized ||
         algorithm == RankAlgorithm::kTrustRank;
}

// PageRank, personalized PageRank or TrustRank over `csr` with `patch` applied, as
// ComputeRank ranks in CSR mode (same options and inputs; scores by page id). `csr` has
// in-link rows for all `pages` (those it was built without have empty rows).
// InvalidArgument for another algorithm, options out of range or bad inputs.
Result<RankResult> RankCsrGraph(const CsrGraph& csr, uint32_t pages, const CsrPatch& patch,
                                RankAlgorithm algorithm, const RankOptions& options,
                                const RankInput& input);

// The part of a sorted target list that lies in [lo, hi).
inline std::span<const uint32_t> InRange(std::span<const uint32_t> targets, uint32_t lo,
                                         uint32_t hi) {
  if (lo == 0 && (targets.empty() || targets.back() < hi)) return targets;
  const auto begin = std::lower_bound(targets.begin(), targets.end(), lo);
  const auto end = std::lower_bound(begin, targets.end(), hi);
  return {begin, end};
}

// Builds the CSR from one pass over `graph` (decoded on the caller's thread while another
// appends the out-links, when threads > 1), then transposes it in memory with up to
// CsrGraph::kTransposeParts threads, each over a contiguous range of sources, so every
// in-link row (and bin) comes out in source order. Keeps the out-links for
// kInAndOutRows. kSplit splits the in-links (LinkBins) unless the graph has more than
// LinkBins::kMaxParts partitions: then it builds rows.
// ResourceExhausted when the links, counted as they arrive, need more than `budget`
// bytes (CsrGraph::Bytes); FailedPrecondition when the source delivers a page out of
// order or out of range.
// Without the out-links, `renumber` (rank.h) may have it number the pages in first-seen order
// (rank_graph.cc), computed on the out-links before the transpose, which then writes the
// rows in that numbering at no extra pass over the links.
Result<CsrGraph> BuildCsr(EdgeSource& graph, CsrShape shape, unsigned threads,
                          uint64_t budget = UINT64_MAX,
                          RankRenumber renumber = RankRenumber::kNever);

// One pass over `graph`, calling work(chunk, lo, hi) for every chunk. With threads <= 1
// the caller does it all (lo = 0, hi = pages). Otherwise the caller decodes and
// threads - 1 workers each see every chunk, worker w owning page ids [lo, hi) of an even
// split: a worker writes only to pages it owns, so no two threads write the same entry
// and each entry sees its updates in source order.
template <typename Work>
Status StreamPass(EdgeSource& graph, unsigned threads, Work&& work) {
  const uint32_t pages = graph.num_pages();
  if (threads <= 1) {
    return graph.Scan([&](EdgeChunk& chunk) {
      work(static_cast<const EdgeChunk&>(chunk), 0u, pages);
      return Status::Ok();
    });
  }
  const unsigned workers = threads - 1;
  std::vector<uint32_t> bounds(workers + 1);
  for (unsigned w = 0; w <= workers; ++w) {
    bounds[w] = static_cast<uint32_t>(uint64_t{pages} * w / workers);
  }
  constexpr size_t kRing = 4;  // chunks in flight
  std::mutex mutex;
  std::condition_variable changed;
  std::array<EdgeChunk, kRing> ring;
  std::array<unsigned, kRing> pending{};  // workers yet to finish each slot
  uint64_t produced = 0;
  bool done = false;
  const auto consume = [&](unsigned w) {
    for (uint64_t n = 0;; ++n) {
      const size_t slot = n % kRing;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return produced > n || done; });
        if (produced <= n) return;
      }
      work(static_cast<const EdgeChunk&>(ring[slot]), bounds[w], bounds[w + 1]);
      std::lock_guard lock(mutex);
      if (--pending[slot] == 0) changed.notify_all();
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) pool.emplace_back(consume, w);
  Status status = graph.Scan([&](EdgeChunk& chunk) {
    const size_t slot = produced % kRing;  // only this thread changes `produced`
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return pending[slot] == 0; });
    lock.unlock();
    std::swap(ring[slot], chunk);  // the source refills the buffers it gets back
    chunk.Clear();
    lock.lock();
    pending[slot] = workers;
    ++produced;
    changed.notify_all();
    return Status::Ok();
  });
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  changed.notify_all();
  pool.clear();  // joins: every produced chunk has been consumed
  return status;
}

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_RANK_GRAPH_H_
