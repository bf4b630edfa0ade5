// The rank kernels' shared parts (private to src/rank/, not installed): the block-wise
// reductions, what a run needs (Run), its inputs (options checked, teleport and start
// vectors, weighted PageRank's edge weights), and the kernels rank.cc dispatches to, one
// family a file: pagerank.cc, hits.cc, in_degree.cc, with quadratic extrapolation in
// extrapolation.cc.
#ifndef CRAWLRANK_SRC_RANK_KERNELS_H_
#define CRAWLRANK_SRC_RANK_KERNELS_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/parallel.h"
#include "crawlrank/edge_source.h"
#include "crawlrank/rank.h"
#include "crawlrank/status.h"
#include "rank/rank_graph.h"

namespace crawlrank::rank_internal {

// Sums per-block partial results in block order: the same bits for any thread count.
inline double SumBlocks(const std::vector<double>& partials) {
  double sum = 0;
  for (double p : partials) sum += p;
  return sum;
}

// Runs fn(begin, end, block) over the page blocks of [0, pages) and returns the sum of
// what the calls returned, added in block order.
template <typename Fn>
double ForBlocks(unsigned threads, uint32_t pages, Fn&& fn) {
  std::vector<double> partials(RankBlocks(pages), 0.0);
  ParallelFor(threads, partials.size(), [&](size_t b) {
    const auto begin = static_cast<uint32_t>(b * kRankBlock);
    const auto end = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{begin} + kRankBlock, pages));
    partials[b] = fn(begin, end);
  });
  return SumBlocks(partials);
}

// InvalidArgument for options out of range (damping, max_iterations, uniform_teleport,
// tolerance).
Status CheckOptions(const RankOptions& o);

// The teleport vector r (sums to 1): uniform, or per page.
struct Teleport {
  std::vector<double> weights;  // empty: uniform
  double uniform = 0;
  double operator[](size_t i) const { return weights.empty() ? uniform : weights[i]; }
};

// The teleport vector of `algorithm` over n pages from the `given` one (RankInput::teleport):
// uniform for PageRank and weighted PageRank, or when `given` is all 0 (but for TrustRank,
// which needs a trusted page); topic HITS takes the scores as given; the others scale it
// to sum 1 with `uniform_share` of the uniform vector mixed in. InvalidArgument for an
// entry negative or not finite, or more entries than pages.
Result<Teleport> MakeTeleport(RankAlgorithm algorithm, std::span<const double> given, uint32_t n,
                              double uniform_share);

// The starting vector: `given` padded with `fill`, scaled to sum 1 (fill alone if empty).
Result<std::vector<double>> MakeStart(std::span<const double> given, uint32_t n,
                                      const std::function<double(uint32_t)>& fill);

// Edge weights of weighted PageRank (seed 002, docs/ranking.md): the weight of v→u is
// W_in·W_out = (I_u / Σ_{p∈R(v)} I_p) · ((O_u + 1) / Σ_{p∈R(v)} (O_p + 1))
//            = factor[u] / denominator[v]
// with factor[u] = I_u·(O_u + 1) and denominator[v] = Σ I_p · Σ (O_p + 1) over v's targets.
struct EdgeWeights {
  std::vector<double> factor;       // empty: 1 (plain PageRank)
  std::vector<double> denominator;  // empty: the out-degree; 0: v passes nothing on
  // CSR mode: the share of its rank each page passes on, Σ over its targets u of
  // factor_u / denominator_v. Empty: 1 for a page with out-links, 0 without.
  std::vector<double> passed;
};

// The weights of weighted PageRank over `graph`, from `csr` when there is one (then with
// `passed`), else from two passes over `graph` (pagerank_weights.cc).
Result<EdgeWeights> WeightedPageRankWeights(EdgeSource& graph, const CsrGraph* csr);

// Runs iterate() (one iteration; returns its residual, or the error that stopped it)
// until the residual is within options.tolerance or options.max_iterations ran, counting
// them in `report`.
template <typename Iterate>
Status IterateUntilConverged(const RankOptions& options, RankReport& report, Iterate&& iterate) {
  for (report.iterations = 0; report.iterations < options.max_iterations;) {
    CRAWLRANK_ASSIGN_OR_RETURN(report.residual, iterate());
    ++report.iterations;
    if (report.residual <= options.tolerance) break;
  }
  report.converged = report.residual <= options.tolerance;
  return Status::Ok();
}

// Everything one run needs, whichever algorithm.
struct Run {
  EdgeSource* graph;  // null for a graph held in memory (RankCsrGraph)
  const RankOptions& options;
  unsigned threads;
  uint32_t n;
  const CsrGraph* csr;  // null in stream mode
  const CsrPatch* patch = nullptr;  // CSR mode: edges changed since the CSR was built
  RankReport& report;
  bool warm = false;  // the start vector was given

  // Runs iterate() (one iteration; returns its residual, or the error that stopped it)
  // until the residual is within the tolerance or max_iterations ran.
  template <typename Iterate>
  Status Loop(Iterate&& iterate) {
    return IterateUntilConverged(options, report, iterate);
  }
};

// Quadratic extrapolation of the PageRank iterates (extrapolation.cc): from the iterates
// x(k-3) .. x(k-1) in `past` and x(k) in `now`, writes the estimate of the fixed point to
// `now`, or leaves it when the estimate does not fit.
void QuadraticExtrapolation(Run& run, const std::vector<std::vector<double>>& past, double residual,
                            std::vector<double>& now);

// The PageRank family (PageRank, personalized PageRank, TrustRank, weighted PageRank;
// pagerank.cc) from a start vector given by page id (padded with r), with scores by page
// id: through the renumbering of a renumbered CSR (csr.order) when there is one.
Result<std::vector<double>> PageRankFamilyByPage(Run& run, Teleport r, const EdgeWeights& weights,
                                                 std::span<const double> given);

// One pull step over a CSR's in-links, pull rows or its split (link_bins.h), as the PageRank
// kernel takes it: sums[u] = Σ in[v] over u's in-links v, for the `pages` first pages, in a
// fixed order (the same bits for any thread count). Float contributions are summed in
// doubles; double ones exactly. Holds the split's slots between steps (4 bytes a crossing
// link). Ranks over shards use it (shard_rank.h).
class PullSums {
 public:
  PullSums(const CsrGraph& g, uint32_t pages);
  ~PullSums();
  PullSums(const PullSums&) = delete;
  PullSums& operator=(const PullSums&) = delete;
  void Step(unsigned threads, const float* in, double* sums);
  void Step(unsigned threads, const double* in, double* sums);

 private:
  struct Split;
  template <typename T>
  void Sum(unsigned threads, const T* in, double* sums);
  const CsrGraph& g_;
  uint32_t pages_;
  std::unique_ptr<Split> split_;
};

// HITS, and topic HITS when r has weights (hits.cc): the authorities `a` and hubs `h`,
// updated in place from the start vectors they hold.
Status Hits(Run& run, const Teleport& r, std::vector<double>& a, std::vector<double>& h);

// Each page's count of in-links, in one pass over run.graph (in_degree.cc).
Result<std::vector<double>> InDegree(Run& run);

}  // namespace crawlrank::rank_internal

#endif  // CRAWLRANK_SRC_RANK_KERNELS_H_
