// HITS and topic HITS (rank_kernels.h), over the CSR with out-links or streamed from an
// EdgeSource.
#include "rank/rank_kernels.h"

#include <algorithm>
#include <cmath>

namespace crawlrank::rank_internal {
namespace {

// Scales `v` to sum 1 (uniform when it sums to 0), mixes in `jump` of the uniform vector
// (v ← jump/N + (1 − jump)·v), and returns the L1 distance to `old`.
double NormaliseAndCompare(Run& run, std::vector<double>& v, const std::vector<double>& old,
                           double jump) {
  const double sum = ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    double s = 0;
    for (uint32_t i = begin; i < end; ++i) s += v[i];
    return s;
  });
  const double scale = sum > 0 ? (1 - jump) / sum : 0;
  const double base = sum > 0 ? jump / run.n : 1.0 / run.n;
  return ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    double residual = 0;
    for (uint32_t i = begin; i < end; ++i) {
      v[i] = base + v[i] * scale;
      residual += std::abs(v[i] - old[i]);
    }
    return residual;
  });
}

}  // namespace

// HITS, and topic HITS when r has weights (seed 000), both updated from the last step:
//   a_i ← Σ_{j→i} h_j,   h_i ← Σ_{i→j} r_j·a_j,   each then scaled to sum 1,
// and with damping c < 1 randomized (Ng, Zheng and Jordan 2001): each then (1 − c)/N +
// c·itself, so that a part of the graph the main community does not reach keeps scores.
Status Hits(Run& run, const Teleport& r, std::vector<double>& a, std::vector<double>& h) {
  const uint32_t n = run.n;
  const double jump = 1 - run.options.damping;
  std::vector<double> a2(n), h2(n);
  const auto topic = [&](uint32_t j) { return r.weights.empty() ? 1.0 : r.weights[j]; };
  return run.Loop([&]() -> Result<double> {
    if (run.csr != nullptr) {
      const CsrGraph& g = *run.csr;
      ForBlocks(run.threads, n, [&](uint32_t begin, uint32_t end) {
        for (uint32_t i = begin; i < end; ++i) {
          double sa = 0, sh = 0;
          for (uint32_t j : g.InLinks(i)) sa += h[j];
          for (uint32_t j : g.OutLinks(i)) sh += topic(j) * a[j];
          a2[i] = sa;
          h2[i] = sh;
        }
        return 0.0;
      });
    } else {
      std::fill(a2.begin(), a2.end(), 0.0);
      std::fill(h2.begin(), h2.end(), 0.0);
      CRAWLRANK_RETURN_IF_ERROR(
          StreamPass(*run.graph, run.threads, [&](const EdgeChunk& chunk, uint32_t lo, uint32_t hi) {
            for (size_t k = 0; k < chunk.size(); ++k) {
              const uint32_t i = chunk.sources[k];
              const auto all = chunk.TargetsOf(k);
              for (uint32_t j : InRange(all, lo, hi)) a2[j] += h[i];
              if (i >= lo && i < hi) {
                double sh = 0;
                for (uint32_t j : all) sh += topic(j) * a[j];
                h2[i] = sh;
              }
            }
          }));
    }
    const double residual =
        NormaliseAndCompare(run, a2, a, jump) + NormaliseAndCompare(run, h2, h, jump);
    a.swap(a2);
    h.swap(h2);
    return residual;
  });
}

}  // namespace crawlrank::rank_internal
