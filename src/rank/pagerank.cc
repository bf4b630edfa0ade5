// The PageRank family (PageRank, personalized PageRank, TrustRank, weighted PageRank):
// the kernel over the in-link CSR (with a CsrPatch of changed edges, and quadratic
// extrapolation), the kernel streamed from an EdgeSource, and the renumbering of page ids
// around them (PageRankFamilyByPage, rank_kernels.h).
#include "rank/rank_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "rank/gather.h"
#include "rank/huge_pages.h"

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
// of π as floats: rounding each to 24 bits moves a step by at most c·2^-24 in L1 (every
// page's share of mass, summed), under 3% of such a change, and halves the bytes every
// gather brings into the cache. Below it, it takes one step from double contributions,
// which removes what the float steps left behind and yields the step's change δ exactly,
// then iterates on the change (defect correction): the step is linear, so
// δ' = c·A·(δ/d) − r·c·(the mass δ passes on), and π += δ'. The changes are gathered as
// floats again, but a float now rounds by 2^-24 of δ, not of π: over every step after the
// switch, at most about 2^-24 · 2^-19 / (1 − c) ≈ 8e-13 in L1 at c = 0.85.
constexpr double kFloatUntil = 1.0 / (1 << 19);

// What one CSR step gathers and leaves for the next (CsrPageRankFamily's `iterate`).
enum class CsrStep {
  kRanks,        // contributions of π; leaves those of the new π
  kRanksToDelta,  // contributions of π (doubles); leaves those of the change δ (floats)
  kDelta,        // contributions of δ; adds δ' to π and leaves those of δ'
};

// The iterations of CsrPageRankFamily, on π (`pi`): `contribute(x)` fills x (a vector of
// floats or doubles) with the contributions of π, `iterate<kind>(x, next)` runs one step
// from x into next and returns its residual (the L1 norm of the change). Takes float steps
// on π while the last change is above kFloatUntil, then one exact step and steps on the
// change (above), and extrapolates every extrapolation_period iterations (then starts
// again from the contributions of the new π).
template <typename Contribute, typename Iterate>
Status IterateCsr(Run& run, std::vector<double>& pi, Contribute& contribute, Iterate& iterate) {
  std::vector<float> x32, next32;
  ReserveHuge(next32, run.n);
  next32.resize(run.n);
  std::vector<double> x64;
  // x32 or x64 holds the contributions of π for the next step (`of_ranks`), or x32 those
  // of the last change. From the contributions of π as it stands:
  bool of_ranks = true;
  const auto contribute_ranks = [&](bool exact) {
    of_ranks = true;
    if (exact) {
      contribute(x64);
    } else {
      x64.clear();  // no longer of π
      contribute(x32);
    }
  };
  // The first step of a warm start is exact: its change may be tiny.
  double last_residual = run.warm ? 0 : std::numeric_limits<double>::infinity();
  contribute_ranks(!(last_residual > kFloatUntil));
  const uint32_t period = run.options.extrapolation_period;
  // π of the last `kept` iterations, oldest first, in buffers reused from one
  // extrapolation to the next: on a virtual machine fresh memory is dear (three copies
  // of π allocated every period took 0.4 s of 41 iterations on graph W).
  std::vector<std::vector<double>> past;
  size_t kept = 0;
  const auto keep = [&] {
    if (kept == 3) {  // the oldest buffer takes π
      std::rotate(past.begin(), past.begin() + 1, past.end());
      --kept;
    }
    if (past.size() == kept) {
      past.emplace_back();
      ReserveHuge(past.back(), pi.size());
    }
    past[kept++].assign(pi.begin(), pi.end());
  };
  return run.Loop([&]() -> Result<double> {
    // Floats of π while the change is large; below, one exact step, then on the change.
    // (A change that grows again, after a warm start's first step, goes back to floats.)
    const bool large = last_residual > kFloatUntil;
    if (large && (!of_ranks || !x64.empty())) contribute_ranks(false);
    if (!large && of_ranks && x64.empty()) contribute_ranks(true);
    double residual = 0;
    if (large) {
      residual = iterate(x32, next32, std::integral_constant<CsrStep, CsrStep::kRanks>{});
    } else if (of_ranks) {
      residual = iterate(x64, next32, std::integral_constant<CsrStep, CsrStep::kRanksToDelta>{});
      x64.clear();  // keeps its memory for the next exact step
      x32.swap(next32);
      ReserveHuge(next32, run.n);
      next32.resize(run.n);
      of_ranks = false;
    } else {
      residual = iterate(x32, next32, std::integral_constant<CsrStep, CsrStep::kDelta>{});
    }
    last_residual = residual;
    if (period > 0 && residual > run.options.tolerance) {  // the last vector is a step's
      const uint32_t iteration = run.report.iterations + 1;
      if (kept == 3 && iteration % period == 0) {
        QuadraticExtrapolation(run, past, residual, pi);
        kept = 0;
        contribute_ranks(!(residual > kFloatUntil));
      } else if (period <= 3 || iteration % period >= period - 3) {
        keep();  // only the three iterations before an extrapolation are kept
      }
    }
    return residual;
  });
}

// The in-link sums of a CSR step over a split (link_bins.h): from the contributions `in`,
// calls update(q, sums) with partition q's sums, sums[u - its first page] for each page u.
class SplitSums {
 public:
  explicit SplitSums(const LinkBins& bins) : bins_(bins) {}

  template <typename T, typename Update>
  void Step(unsigned threads, const T* in, Update&& update) {
    if (slots_ == nullptr) slots_ = HugeArray<float>(bins_.crossing());
    Scatter(threads, in, false);
    if constexpr (std::is_same_v<T, float>) {
      // Each thread sums a partition at a time into its own scratch.
      const auto scratch = [] { return std::vector<double>(LinkBins::kPartPages); };
      ParallelForWith(threads, bins_.parts, scratch, [&](size_t q, std::vector<double>& sums) {
        Sum(static_cast<uint32_t>(q), in, sums.data(), true);
        update(static_cast<uint32_t>(q), static_cast<const double*>(sums.data()));
      });
    } else {
      // An exact step: the slots take each double in two floats, within 2^-48 of it (the
      // slots stay 4 bytes a link), and every page's sums wait for the second.
      if (all_ == nullptr) all_ = HugeArray<double>(bins_.pages);  // kept for the next
      ParallelFor(threads, bins_.parts, [&](size_t q) {
        Sum(static_cast<uint32_t>(q), in, all_.get() + LinkBins::PartBegin(q), true);
      });
      Scatter(threads, in, true);
      ParallelFor(threads, bins_.parts, [&](size_t q) {
        double* sums = all_.get() + LinkBins::PartBegin(q);
        Sum(static_cast<uint32_t>(q), in, sums, false);
        update(static_cast<uint32_t>(q), static_cast<const double*>(sums));
      });
    }
  }

 private:
  // Every crossing link's contribution into its slot, as a float: partition p writes its
  // bins. With `rest`, what the float nearest a double contribution leaves of it.
  template <typename T>
  void Scatter(unsigned threads, const T* in, bool rest) {
    ParallelFor(threads, bins_.parts, [&](size_t part) {
      const auto p = static_cast<uint32_t>(part);
      const T* from = in + LinkBins::PartBegin(p);
      for (uint32_t q = 0; q < bins_.parts; ++q) {
        const uint64_t first = bins_.Bin(p, q), last = bins_.Bin(p + 1, q);
        if constexpr (std::is_same_v<T, float>) {
          GatherSlots(bins_.slot_source.get() + first, last - first, from, slots_.get() + first);
        } else {
          for (uint64_t i = first; i < last; ++i) {
            const T v = from[bins_.slot_source[i]];
            slots_[i] = rest ? float(double(v) - double(float(v))) : float(v);
          }
        }
      }
    });
  }
  // Partition q's sums: its rows (when `rows`; else adds to the sums there), then its
  // bins in order.
  template <typename T>
  void Sum(uint32_t q, const T* in, double* sums, bool rows) const {
    const uint32_t begin = LinkBins::PartBegin(q);
    if (rows) {
      const T* local = in + begin;
      if constexpr (std::is_same_v<T, float>) {
        SumRows(bins_.local_offsets.data(), bins_.local_sources.get(), begin, bins_.PartEnd(q),
                local, sums);
      } else {
        for (uint32_t u = begin; u < bins_.PartEnd(q); ++u) {
          sums[u - begin] = RowSum(bins_.LocalLinks(u), local);
        }
      }
    }
    const uint64_t last = bins_.Bin(bins_.parts, q);
    for (uint64_t i = bins_.Bin(0, q); i < last; ++i) sums[bins_.slot_target[i]] += double(slots_[i]);
  }

  const LinkBins& bins_;
  std::unique_ptr<float[]> slots_;  // every step writes them all before it reads them
  std::unique_ptr<double[]> all_;   // every page's sums in an exact step
};

// Calls update(begin, end, sum_of) for every rank block [begin, end) of n pages, where
// sum_of(u) is the sum of the contributions in `in` of u's in-links: over pull rows, or
// over g's split.
template <typename T, typename Update>
void ForEachBlock(unsigned threads, const CsrGraph& g, uint32_t n, SplitSums& split, const T* in,
                  Update&& update) {
  const LinkBins& bins = g.split;
  if (bins.parts == 0) {
    ParallelFor(threads, RankBlocks(n), [&](size_t block) {
      const auto begin = static_cast<uint32_t>(block * kRankBlock);
      const auto end = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{begin} + kRankBlock, n));
      update(begin, end, [&](uint32_t u) { return RowSum(g.InLinks(u), in); });
    });
    return;
  }
  split.Step(threads, in, [&](uint32_t q, const double* sums) {
    const uint32_t begin = LinkBins::PartBegin(q), end = bins.PartEnd(q);
    for (uint32_t block = begin; block < end; block += kRankBlock) {
      update(block, std::min<uint32_t>(block + kRankBlock, end),
             [&](uint32_t u) { return sums[u - begin]; });
    }
  });
}

// The PageRank family over the in-link CSR, one pass over the pages per iteration:
//   y_u = factor_u · Σ_{v→u} x_v,   π_u ← c·y_u + r_u·(1 − c·P)
// with x_v = π_v / denominator_v gathered from the last iteration's array and
// P = Σ_v π_v·passed_v the mass the last vector passed on (for PageRank, that of the pages
// with out-links), known before the pass, so the update, the residual, the next x and
// the next P come out of the same pass (ForEachBlock: over a split, one phase before
// it). Sums are taken in a fixed order: the same bits for any thread count.
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
  std::vector<double> passed_part(RankBlocks(n)), residual_part(RankBlocks(n));
  SplitSums split(g.split);
  double passed = 0;  // P of the current π
  PatchSums patch(run.patch, n);

  // x from π (0 where the denominator is: such a page passes nothing on), and P.
  const auto contribute = [&]<typename T>(std::vector<T>& x) {
    if (x.capacity() < n) ReserveHuge(x, n);
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
  // One step from x into next (swapped into x when of one type); returns the residual.
  // `passed` is P of what x stands for (π, or δ: then the teleport term is −c·P). Plain
  // (PageRank): a loop without the per-page lookups the other algorithms need.
  const auto step = [&]<typename T, typename N, bool kPlain, CsrStep kKind>(
                        std::vector<T>& x, std::vector<N>& next, std::bool_constant<kPlain>,
                        std::integral_constant<CsrStep, kKind>) {
    const double base = kKind == CsrStep::kDelta ? -c * passed : 1 - c * passed;
    const double uniform_base = r.uniform * base;
    const T* in = x.data();
    patch.Gather(in);
    // The update of pages [begin, end) (one rank block) from sum_of(u), the in-link sums.
    const auto update = [&](uint32_t begin, uint32_t end, auto&& sum_of) {
      double residual = 0, mass = 0;
      size_t changed = patch.FirstOf(begin);  // the next page at or after u the patch changes
      for (uint32_t u = begin; u < end; ++u) {
        double sum = sum_of(u);
        if (patch.Changes(changed, u)) sum += patch.sums[changed++];
        const double value = kPlain ? c * sum + uniform_base : c * factor(u) * sum + r[u] * base;
        double passes_on = value;  // what the next step gathers from: π or the change
        if constexpr (kKind == CsrStep::kDelta) {
          residual += std::abs(value);
          pi[u] += value;
        } else {
          residual += std::abs(value - pi[u]);
          if constexpr (kKind == CsrStep::kRanksToDelta) passes_on = value - pi[u];
          pi[u] = value;
        }
        const double d = kPlain ? double(g.out_degree[u]) : den(u);
        next[u] = d > 0 ? N(passes_on / d) : N(0);
        mass += kPlain ? (d > 0 ? passes_on : 0) : passes_on * passes(u);
      }
      passed_part[begin / kRankBlock] = mass;
      residual_part[begin / kRankBlock] = residual;
    };
    ForEachBlock(run.threads, g, n, split, in, update);
    const double residual = SumBlocks(residual_part);
    if constexpr (std::is_same_v<T, N>) x.swap(next);
    passed = SumBlocks(passed_part);
    return residual;
  };
  const bool plain = w.factor.empty() && w.denominator.empty() && r.weights.empty();
  const auto iterate = [&]<typename T, typename N, CsrStep kKind>(
                           std::vector<T>& x, std::vector<N>& next,
                           std::integral_constant<CsrStep, kKind> kind) {
    return plain ? step(x, next, std::true_type{}, kind) : step(x, next, std::false_type{}, kind);
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

struct PullSums::Split {
  explicit Split(const LinkBins& bins) : sums(bins) {}
  SplitSums sums;
};

PullSums::PullSums(const CsrGraph& g, uint32_t pages)
    : g_(g), pages_(pages), split_(std::make_unique<Split>(g.split)) {}
PullSums::~PullSums() = default;

template <typename T>
void PullSums::Sum(unsigned threads, const T* in, double* sums) {
  ForEachBlock(threads, g_, pages_, split_->sums, in, [&](uint32_t begin, uint32_t end, auto&& sum_of) {
    for (uint32_t u = begin; u < end; ++u) sums[u] = sum_of(u);
  });
}
void PullSums::Step(unsigned threads, const float* in, double* sums) { Sum(threads, in, sums); }
void PullSums::Step(unsigned threads, const double* in, double* sums) { Sum(threads, in, sums); }

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
