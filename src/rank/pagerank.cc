// The PageRank family (PageRank, personalized PageRank, TrustRank, weighted PageRank):
// the kernel over the in-link CSR (with a CsrPatch of changed edges, and quadratic
// extrapolation), the kernel streamed from an EdgeSource, and the renumbering of page ids
// around them (PageRankFamilyByPage, rank_kernels.h).
#include "rank/rank_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace crawlrank::rank_internal {
namespace {

// A CsrPatch as per-iteration corrections of the in-link sums: the pages it changes, in
// id order, and each one's signed sum of the contributions of added and removed in-links,
// taken in the patch's order (the same bits for any thread count).
struct PatchSums {
  struct Edge {
    uint32_t source;
    uint32_t index;  // into targets
    bool added;
  };
  std::vector<uint32_t> targets;      // increasing
  std::vector<uint32_t> block_first;  // per rank block, the first entry of targets in it
  std::vector<Edge> edges;
  std::vector<double> sums;  // by entry of targets

  PatchSums(const CsrPatch* patch, uint32_t pages) {
    if (patch == nullptr || patch->empty()) return;
    for (const auto& [s, t] : patch->added) targets.push_back(t);
    for (const auto& [s, t] : patch->removed) targets.push_back(t);
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    const auto index = [&](uint32_t t) {
      return static_cast<uint32_t>(std::lower_bound(targets.begin(), targets.end(), t) -
                                   targets.begin());
    };
    edges.reserve(patch->added.size() + patch->removed.size());
    for (const auto& [s, t] : patch->added) edges.push_back({s, index(t), true});
    for (const auto& [s, t] : patch->removed) edges.push_back({s, index(t), false});
    block_first.resize(RankBlocks(pages) + 1);
    for (size_t b = 0; b < block_first.size(); ++b) {
      block_first[b] = index(static_cast<uint32_t>(std::min<uint64_t>(b * kRankBlock, pages)));
    }
    sums.resize(targets.size());
  }
  template <typename T>
  void Gather(const T* x) {
    std::fill(sums.begin(), sums.end(), 0.0);
    for (const Edge& e : edges) sums[e.index] += e.added ? double(x[e.source]) : -double(x[e.source]);
  }
  size_t FirstOf(uint32_t begin) const {
    return targets.empty() ? 0 : block_first[begin / kRankBlock];
  }
  bool Changes(size_t entry, uint32_t u) const {
    return entry < targets.size() && targets[entry] == u;
  }
};

// While the L1 change of an iteration is above this, the CSR kernel gathers contributions
// as floats: rounding each to 24 bits moves a step by at most c·2^-24 in L1 (every page's
// share of mass, summed), under 3% of such a change, and halves the bytes every gather
// brings into the cache. Below it, and so for the last iterations before any tolerance
// under 2^-19 ≈ 1.9e-6, it gathers doubles, which also remove what the float steps left
// behind (each step contracts the error by c).
constexpr double kFloatUntil = 1.0 / (1 << 19);

// The iterations of CsrPageRankFamily, on π (`pi`): `contribute(x)` fills x (a vector of
// floats or doubles) with the contributions of π, `iterate(x, next)` runs one step from x
// and returns its residual. Gathers floats while the last change is above kFloatUntil and
// doubles below it, and extrapolates every extrapolation_period iterations.
template <typename Contribute, typename Iterate>
Status IterateCsr(Run& run, std::vector<double>& pi, Contribute& contribute, Iterate& iterate) {
  // The first step of a warm start gathers doubles: its change may be tiny.
  std::vector<float> x32, next32;
  std::vector<double> x64, next64;
  double last_residual = run.warm ? 0 : std::numeric_limits<double>::infinity();
  bool single = last_residual > kFloatUntil;
  // Contributions of the current π in floats or doubles (the other pair freed).
  const auto use = [&](bool floats) {
    single = floats;
    if (single) {
      std::vector<double>().swap(x64);
      std::vector<double>().swap(next64);
      contribute(x32);
      next32.resize(run.n);
    } else {
      std::vector<float>().swap(x32);
      std::vector<float>().swap(next32);
      contribute(x64);
      next64.resize(run.n);
    }
  };
  use(single);
  const uint32_t period = run.options.extrapolation_period;
  std::vector<std::vector<double>> past;  // π of the last iterations, oldest first
  return run.Loop([&]() -> Result<double> {
    if (single != (last_residual > kFloatUntil)) use(!single);
    const double residual = single ? iterate(x32, next32) : iterate(x64, next64);
    last_residual = residual;
    if (period > 0 && residual > run.options.tolerance) {  // the last vector is a step's
      const uint32_t iteration = run.report.iterations + 1;
      if (past.size() == 3 && iteration % period == 0) {
        QuadraticExtrapolation(run, past, residual, pi);
        past.clear();
        use(single);
      } else if (period <= 3 || iteration % period >= period - 3) {
        // Only the three iterations before an extrapolation are kept.
        if (past.size() == 3) past.erase(past.begin());
        past.push_back(pi);
      }
    }
    return residual;
  });
}

// The PageRank family over the in-link CSR, one pass over the pages per iteration:
//   y_u = factor_u · Σ_{v→u} x_v,   π_u ← c·y_u + r_u·(1 − c·P)
// with x_v = π_v / denominator_v gathered from the last iteration's array and
// P = Σ_v π_v·passed_v the mass the last vector passed on (for PageRank, that of the pages
// with out-links), known before the pass, so the update, the residual, the next x and
// the next P come out of the same pass. Rows are summed in source order: the same bits for
// any thread count.
Result<std::vector<double>> CsrPageRankFamily(Run& run, const Teleport& r, const EdgeWeights& w,
                                              std::vector<double> pi) {
  const CsrGraph& g = *run.csr;
  const uint32_t n = run.n;
  const double c = run.options.damping;
  const auto den = [&](uint32_t v) {
    return w.denominator.empty() ? double(g.out_degree[v]) : w.denominator[v];
  };
  const auto passes = [&](uint32_t v) {
    return w.passed.empty() ? (g.out_degree[v] > 0 ? 1.0 : 0.0) : w.passed[v];
  };
  const auto factor = [&](uint32_t u) { return w.factor.empty() ? 1.0 : w.factor[u]; };
  std::vector<double> passed_part(RankBlocks(n));
  double passed = 0;  // P of the current π
  PatchSums patch(run.patch, n);

  // x from π (0 where the denominator is: such a page passes nothing on), and P.
  const auto contribute = [&]<typename T>(std::vector<T>& x) {
    x.resize(n);
    passed = ForBlocks(run.threads, n, [&](uint32_t begin, uint32_t end) {
      double sum = 0;
      for (uint32_t v = begin; v < end; ++v) {
        const double d = den(v);
        x[v] = d > 0 ? T(pi[v] / d) : T(0);
        sum += pi[v] * passes(v);
      }
      return sum;
    });
  };
  // One iteration from x; leaves the next contributions in x and returns the residual.
  // Plain: no edge weights and a uniform teleport vector (PageRank), a loop without the
  // per-page lookups the other algorithms need.
  const auto step = [&]<typename T, bool kPlain>(std::vector<T>& x, std::vector<T>& next,
                                                 std::bool_constant<kPlain>) {
    const double base = 1 - c * passed;
    const double uniform_base = r.uniform * base;
    const T* in = x.data();
    patch.Gather(in);
    const double residual = ForBlocks(run.threads, n, [&](uint32_t begin, uint32_t end) {
      double residual = 0, mass = 0;
      size_t changed = patch.FirstOf(begin);  // the next page at or after u the patch changes
      for (uint32_t u = begin; u < end; ++u) {
        // Four sums, added in a fixed order: one chain of additions bounds long rows.
        const auto row = g.InLinks(u);
        double s[4] = {0, 0, 0, 0};
        size_t i = 0;
        for (; i + 4 <= row.size(); i += 4) {
          for (int k = 0; k < 4; ++k) s[k] += double(in[row[i + k]]);
        }
        for (; i < row.size(); ++i) s[0] += double(in[row[i]]);
        double sum = (s[0] + s[1]) + (s[2] + s[3]);
        if (patch.Changes(changed, u)) sum += patch.sums[changed++];
        const double value = kPlain ? c * sum + uniform_base : c * factor(u) * sum + r[u] * base;
        residual += std::abs(value - pi[u]);
        pi[u] = value;
        const double d = kPlain ? double(g.out_degree[u]) : den(u);
        next[u] = d > 0 ? T(value / d) : T(0);
        mass += kPlain ? (d > 0 ? value : 0) : value * passes(u);
      }
      passed_part[begin / kRankBlock] = mass;
      return residual;
    });
    x.swap(next);
    passed = SumBlocks(passed_part);
    return residual;
  };
  const bool plain = w.factor.empty() && w.denominator.empty() && r.weights.empty();
  const auto iterate = [&]<typename T>(std::vector<T>& x, std::vector<T>& next) {
    return plain ? step(x, next, std::true_type{}) : step(x, next, std::false_type{});
  };
  CRAWLRANK_RETURN_IF_ERROR(IterateCsr(run, pi, contribute, iterate));
  return pi;
}

// PageRank, personalized PageRank, TrustRank and weighted PageRank:
//   y_u = factor_u · Σ_{v→u} π_v / denominator_v,   π_u ← c·y_u + r_u·(1 − c·Σ y)
Result<std::vector<double>> PageRankFamily(Run& run, const Teleport& r, const EdgeWeights& w,
                                           std::vector<double> pi) {
  if (run.csr != nullptr) return CsrPageRankFamily(run, r, w, std::move(pi));
  // Stream mode: each pass pushes every source's share to its targets.
  const uint32_t n = run.n;
  const double c = run.options.damping;
  std::vector<double> y(n, 0.0);
  const auto denominator = [&](uint32_t v, size_t degree) {
    return w.denominator.empty() ? double(degree) : w.denominator[v];
  };
  const auto factor = [&](uint32_t u) { return w.factor.empty() ? 1.0 : w.factor[u]; };
  CRAWLRANK_RETURN_IF_ERROR(run.Loop([&]() -> Result<double> {
    CRAWLRANK_RETURN_IF_ERROR(
        StreamPass(*run.graph, run.threads, [&](const EdgeChunk& chunk, uint32_t lo, uint32_t hi) {
          for (size_t i = 0; i < chunk.size(); ++i) {
            const auto all = chunk.TargetsOf(i);
            const uint32_t v = chunk.sources[i];
            const double d = denominator(v, all.size());
            const double share = d > 0 ? pi[v] / d : pi[v];
            for (uint32_t u : InRange(all, lo, hi)) y[u] += share;
          }
        }));
    const double propagated = ForBlocks(run.threads, n, [&](uint32_t begin, uint32_t end) {
      double sum = 0;
      for (uint32_t u = begin; u < end; ++u) sum += (y[u] *= factor(u));
      return sum;
    });
    const double base = 1 - c * propagated;
    return ForBlocks(run.threads, n, [&](uint32_t begin, uint32_t end) {
      double residual = 0;
      for (uint32_t u = begin; u < end; ++u) {
        const double next = c * y[u] + r[u] * base;
        residual += std::abs(next - pi[u]);
        pi[u] = next;
        y[u] = 0;
      }
      return residual;
    });
  }));
  return pi;
}

}  // namespace

Result<std::vector<double>> PageRankFamilyByPage(Run& run, Teleport r, const EdgeWeights& weights,
                                                 std::span<const double> given) {
  const uint32_t n = run.n;
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<double> start,
                             MakeStart(given, n, [&r](uint32_t i) { return r[i]; }));
  // A renumbered CSR runs on positions: per-page inputs go in by csr.order, scores come
  // back out by it.
  const std::span<const uint32_t> order =
      run.csr != nullptr ? std::span<const uint32_t>(run.csr->order) : std::span<const uint32_t>();
  run.report.renumbered = !order.empty();
  const auto renumber = [order](std::vector<double>& v) {
    std::vector<double> moved(v.size());
    for (size_t i = 0; i < v.size(); ++i) moved[i] = v[order[i]];
    v.swap(moved);
  };
  if (run.report.renumbered) {
    renumber(start);
    if (!r.weights.empty()) renumber(r.weights);
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<double> scores,
                             PageRankFamily(run, r, weights, std::move(start)));
  if (run.report.renumbered) {
    std::vector<double> by_page(n);
    for (uint32_t i = 0; i < n; ++i) by_page[order[i]] = scores[i];
    scores.swap(by_page);
  }
  return scores;
}

}  // namespace crawlrank::rank_internal
