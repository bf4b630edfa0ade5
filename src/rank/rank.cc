#include "crawlrank/rank.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

#include "base/parallel.h"
#include "rank/rank_graph.h"
#include "rank/template_links.h"

namespace crawlrank {
namespace {

constexpr std::pair<RankAlgorithm, std::string_view> kAlgorithmNames[] = {
    {RankAlgorithm::kPageRank, "pagerank"},    {RankAlgorithm::kPersonalized, "ppr"},
    {RankAlgorithm::kTrustRank, "trustrank"},  {RankAlgorithm::kHits, "hits"},
    {RankAlgorithm::kTopicHits, "topic-hits"}, {RankAlgorithm::kWeightedPageRank, "wpr"},
    {RankAlgorithm::kInDegree, "indegree"},
};

bool IsHits(RankAlgorithm a) {
  return a == RankAlgorithm::kHits || a == RankAlgorithm::kTopicHits;
}

// Sums per-block partial results in block order: the same bits for any thread count.
double SumBlocks(const std::vector<double>& partials) {
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

Status CheckVector(std::span<const double> v, const char* what) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]) || v[i] < 0) {
      return InvalidArgumentError(std::string(what) + "[" + std::to_string(i) + "] is " +
                                  std::to_string(v[i]) + "; it must be finite and not negative");
    }
  }
  return Status::Ok();
}

Status CheckOptions(const RankOptions& o) {
  if (!(o.damping >= 0 && o.damping <= 1)) {
    return InvalidArgumentError("damping " + std::to_string(o.damping) + " is outside [0, 1]");
  }
  if (o.max_iterations == 0) return InvalidArgumentError("max_iterations must be at least 1");
  if (!(o.uniform_teleport >= 0 && o.uniform_teleport <= 1)) {
    return InvalidArgumentError("uniform_teleport " + std::to_string(o.uniform_teleport) +
                                " is outside [0, 1]");
  }
  if (!(o.tolerance >= 0) || !std::isfinite(o.tolerance)) {
    return InvalidArgumentError("tolerance " + std::to_string(o.tolerance) +
                                " must be finite and not negative");
  }
  return Status::Ok();
}

// The teleport vector r (sums to 1): uniform, or per page.
struct Teleport {
  std::vector<double> weights;  // empty: uniform
  double uniform = 0;
  double operator[](size_t i) const { return weights.empty() ? uniform : weights[i]; }
};

Result<Teleport> MakeTeleport(RankAlgorithm algorithm, std::span<const double> given, uint32_t n,
                              double uniform_share) {
  Teleport r;
  r.uniform = n == 0 ? 0 : 1.0 / n;
  if (algorithm == RankAlgorithm::kPageRank || algorithm == RankAlgorithm::kWeightedPageRank) {
    return r;
  }
  CRAWLRANK_RETURN_IF_ERROR(CheckVector(given, "teleport"));
  if (given.size() > n) {
    return InvalidArgumentError("teleport has " + std::to_string(given.size()) +
                                " entries for a graph of " + std::to_string(n) + " pages");
  }
  std::vector<double> w(n, 0.0);
  double sum = 0;
  for (size_t i = 0; i < given.size(); ++i) {
    w[i] = algorithm == RankAlgorithm::kTrustRank ? (given[i] > 0 ? 1.0 : 0.0) : given[i];
    sum += w[i];
  }
  if (sum == 0) {
    if (algorithm == RankAlgorithm::kTrustRank) {
      return InvalidArgumentError("TrustRank needs at least one trusted page (teleport > 0)");
    }
    return r;  // no information: uniform
  }
  if (algorithm == RankAlgorithm::kTopicHits) {
    r.weights = std::move(w);  // topic scores are used as given
    return r;
  }
  for (double& x : w) x = (1 - uniform_share) * x / sum + uniform_share * r.uniform;
  r.weights = std::move(w);
  return r;
}

// The starting vector: `given` padded with `fill`, scaled to sum 1 (fill alone if empty).
Result<std::vector<double>> MakeStart(std::span<const double> given, uint32_t n,
                                      const std::function<double(uint32_t)>& fill) {
  CRAWLRANK_RETURN_IF_ERROR(CheckVector(given, "start"));
  std::vector<double> v(n);
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    v[i] = i < given.size() ? given[i] : fill(i);
    sum += v[i];
  }
  if (sum <= 0) {
    for (uint32_t i = 0; i < n; ++i) v[i] = fill(i);
    sum = 0;
    for (double x : v) sum += x;
  }
  if (sum > 0) {
    for (double& x : v) x /= sum;
  }
  return v;
}

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

// The weights need every page's in- and out-degree, then per source the sums of both over
// its targets. With a CSR both come from its arrays; otherwise each takes a pass.
Result<EdgeWeights> WeightedPageRankWeights(EdgeSource& graph, const CsrGraph* csr) {
  const uint32_t n = graph.num_pages();
  std::vector<uint32_t> in(n, 0), out(n, 0);
  if (csr != nullptr) {
    for (uint32_t u = 0; u < n; ++u) {
      in[u] = static_cast<uint32_t>(csr->InLinks(u).size());
      out[u] = csr->out_degree[u];
    }
  } else {
    CRAWLRANK_RETURN_IF_ERROR(graph.Scan([&](EdgeChunk& chunk) {
      for (size_t i = 0; i < chunk.size(); ++i) {
        out[chunk.sources[i]] = static_cast<uint32_t>(chunk.TargetsOf(i).size());
      }
      for (uint32_t t : chunk.targets) ++in[t];
      return Status::Ok();
    }));
  }
  EdgeWeights w;
  w.factor.resize(n);
  w.denominator.assign(n, 0.0);
  // O_u + 1, not O_u: a page with no out-links known (in a crawl, every page not fetched
  // yet) would otherwise take no weight at all, and every page of the frontier would rank
  // alike (docs/ranking.md, "Weighted PageRank").
  for (uint32_t u = 0; u < n; ++u) w.factor[u] = double(in[u]) * (double(out[u]) + 1);
  // Integer sums: exact in any order, so both ways give the same denominators.
  std::vector<uint64_t> sum_in(n, 0), sum_out(n, 0);
  if (csr != nullptr) {
    for (uint32_t p = 0; p < n; ++p) {
      for (uint32_t v : csr->InLinks(p)) {
        sum_in[v] += in[p];
        sum_out[v] += out[p] + 1;
      }
    }
  } else {
    CRAWLRANK_RETURN_IF_ERROR(graph.Scan([&](EdgeChunk& chunk) {
      for (size_t i = 0; i < chunk.size(); ++i) {
        const uint32_t v = chunk.sources[i];
        for (uint32_t p : chunk.TargetsOf(i)) {
          sum_in[v] += in[p];
          sum_out[v] += out[p] + 1;
        }
      }
      return Status::Ok();
    }));
  }
  for (uint32_t v = 0; v < n; ++v) w.denominator[v] = double(sum_in[v]) * double(sum_out[v]);
  if (csr != nullptr) {
    w.passed.assign(n, 0.0);
    for (uint32_t p = 0; p < n; ++p) {
      for (uint32_t v : csr->InLinks(p)) {
        if (w.denominator[v] > 0) w.passed[v] += w.factor[p] / w.denominator[v];
      }
    }
  }
  return w;
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
    for (report.iterations = 0; report.iterations < options.max_iterations;) {
      CRAWLRANK_ASSIGN_OR_RETURN(report.residual, iterate());
      ++report.iterations;
      if (report.residual <= options.tolerance) break;
    }
    report.converged = report.residual <= options.tolerance;
    return Status::Ok();
  }
};

// Quadratic extrapolation (Kamvar, Haveliwala, Manning & Golub, 2003): from the iterates
// x(k-3) .. x(k-1) in `past` and x(k) in `now`, estimates the fixed point by removing the
// two next largest eigenvector components, and writes it to `now` (clamped at 0, scaled to
// sum 1). Declines (leaves `now`) when the least-squares system is near singular (the
// differences point one way) or when the estimate would move further from `now` than 20×
// the last step's change `residual`: the error left after a step is residual·λ/(1−λ) for a
// decay λ, 5.7× at λ = 0.85, so a larger move means the model does not fit.
void QuadraticExtrapolation(Run& run, const std::vector<std::vector<double>>& past, double residual,
                            std::vector<double>& now) {
  const std::vector<double>& x0 = past[0];
  const std::vector<double>& x1 = past[1];
  const std::vector<double>& x2 = past[2];
  // y_j = x(k-3+j) - x(k-3); dot(a, b) over those differences, in block order.
  const auto dot = [&](const std::vector<double>& a, const std::vector<double>& b) {
    return ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
      double sum = 0;
      for (uint32_t i = begin; i < end; ++i) sum += (a[i] - x0[i]) * (b[i] - x0[i]);
      return sum;
    });
  };
  const double a11 = dot(x1, x1), a12 = dot(x1, x2), a22 = dot(x2, x2);
  const double b1 = dot(x1, now), b2 = dot(x2, now);
  const double det = a11 * a22 - a12 * a12;
  if (!(det > 1e-10 * a11 * a22) || !std::isfinite(det)) return;
  const double g1 = (-b1 * a22 + b2 * a12) / det;
  const double g2 = (-b2 * a11 + b1 * a12) / det;
  const double beta0 = g1 + g2 + 1, beta1 = g2 + 1, beta2 = 1;
  // The estimate is a combination whose weights need not sum to 1: scale it to sum 1.
  const auto raw = [&](uint32_t i) {
    return std::max(0.0, beta0 * x1[i] + beta1 * x2[i] + beta2 * now[i]);
  };
  const double sum = ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    double s = 0;
    for (uint32_t i = begin; i < end; ++i) s += raw(i);
    return s;
  });
  if (!(sum > 0) || !std::isfinite(sum)) return;
  const double move = ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    double s = 0;
    for (uint32_t i = begin; i < end; ++i) s += std::abs(raw(i) / sum - now[i]);
    return s;
  });
  if (!(move <= 20 * residual)) return;
  ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; ++i) now[i] = raw(i) / sum;
    return 0.0;
  });
}

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

// The PageRank family from a start vector given by page id (padded with r), with scores by
// page id: through the renumbering of a renumbered CSR (csr.order) when there is one.
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

Result<std::vector<double>> InDegree(Run& run) {
  std::vector<double> count(run.n, 0.0);
  CRAWLRANK_RETURN_IF_ERROR(
      StreamPass(*run.graph, run.threads, [&](const EdgeChunk& chunk, uint32_t lo, uint32_t hi) {
        for (uint32_t t : chunk.targets) {
          if (t >= lo && t < hi) count[t] += 1;
        }
      }));
  run.report.iterations = 1;
  run.report.converged = true;
  return count;
}

}  // namespace

std::string_view RankAlgorithmName(RankAlgorithm algorithm) {
  for (const auto& [a, name] : kAlgorithmNames) {
    if (a == algorithm) return name;
  }
  return "unknown";
}

std::vector<std::string_view> RankAlgorithmNames() {
  std::vector<std::string_view> names;
  for (const auto& [a, n] : kAlgorithmNames) names.push_back(n);
  return names;
}

Result<RankAlgorithm> ParseRankAlgorithm(std::string_view name) {
  std::string known;
  for (const auto& [a, n] : kAlgorithmNames) {
    if (n == name) return a;
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  return InvalidArgumentError("unknown rank algorithm \"" + std::string(name) +
                              "\"; known: " + known);
}

std::string_view RankRenumberName(RankRenumber renumber) {
  switch (renumber) {
    case RankRenumber::kAuto: return "auto";
    case RankRenumber::kNever: return "never";
    case RankRenumber::kAlways: return "always";
  }
  return "unknown";
}

std::string_view RankModeName(RankMode mode) {
  switch (mode) {
    case RankMode::kAuto: return "auto";
    case RankMode::kStream: return "stream";
    case RankMode::kCsr: return "csr";
  }
  return "unknown";
}

namespace {

// ComputeRank over `graph` as given, timed from `started`.
Result<RankResult> RankSource(EdgeSource& graph, RankAlgorithm algorithm,
                              const RankOptions& options, const RankInput& input,
                              std::chrono::steady_clock::time_point started) {
  CRAWLRANK_RETURN_IF_ERROR(CheckOptions(options));
  if (RankAlgorithmName(algorithm) == "unknown") {
    return InvalidArgumentError("unknown rank algorithm " + std::to_string(int(algorithm)));
  }
  RankResult result;
  result.algorithm = algorithm;
  result.options = options;
  RankReport& report = result.report;
  report.pages = graph.num_pages();
  report.links = graph.num_links();
  const uint32_t n = report.pages;
  CRAWLRANK_ASSIGN_OR_RETURN(Teleport r, MakeTeleport(algorithm, input.teleport, n, options.uniform_teleport));

  const bool hits = IsHits(algorithm);
  RankMode mode = options.mode;
  if (algorithm == RankAlgorithm::kInDegree) {
    mode = RankMode::kStream;  // one pass either way
  } else if (mode == RankMode::kAuto) {
    mode = CsrGraph::Bytes(n, report.links) <= options.memory_budget ? RankMode::kCsr
                                                                     : RankMode::kStream;
  }
  report.mode = mode;
  report.threads = ResolveThreads(options.threads);
  CsrGraph csr;
  if (mode == RankMode::kCsr) {
    // kAuto chose by the source's own count of links, which a damaged PageDB header can
    // understate: the build checks the budget again with the links it counted.
    Result<CsrGraph> built = BuildCsr(
        graph, hits, report.threads,
        options.mode == RankMode::kAuto ? options.memory_budget : UINT64_MAX, options.renumber);
    if (built.ok()) {
      csr = std::move(built).value();
      report.links = csr.links;
    } else if (built.status().code() == StatusCode::kResourceExhausted &&
               options.mode == RankMode::kAuto) {
      report.mode = mode = RankMode::kStream;
    } else {
      return built.status();
    }
  }
  Run run{&graph,
          options,
          report.threads,
          n,
          mode == RankMode::kCsr ? &csr : nullptr,
          nullptr,
          report,
          !input.start.empty()};

  if (algorithm == RankAlgorithm::kInDegree) {
    CRAWLRANK_ASSIGN_OR_RETURN(result.scores, InDegree(run));
  } else if (hits) {
    const auto uniform = [n](uint32_t) { return 1.0 / n; };
    CRAWLRANK_ASSIGN_OR_RETURN(result.scores, MakeStart(input.start, n, uniform));
    CRAWLRANK_ASSIGN_OR_RETURN(result.hubs, MakeStart(input.start_hubs, n, uniform));
    CRAWLRANK_RETURN_IF_ERROR(Hits(run, r, result.scores, result.hubs));
  } else {
    EdgeWeights weights;
    if (algorithm == RankAlgorithm::kWeightedPageRank) {
      CRAWLRANK_ASSIGN_OR_RETURN(weights, WeightedPageRankWeights(graph, run.csr));
    }
    CRAWLRANK_ASSIGN_OR_RETURN(result.scores, PageRankFamilyByPage(run, std::move(r), weights,
                                                                    input.start));
  }
  // A filtering source counts its links on its first pass: take the count that ran.
  if (mode == RankMode::kStream) report.links = graph.num_links();
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace

Result<RankResult> ComputeRank(EdgeSource& graph, RankAlgorithm algorithm,
                               const RankOptions& options, const RankInput& input) {
  const auto started = std::chrono::steady_clock::now();
  if (!options.template_links.drop) return RankSource(graph, algorithm, options, input, started);
  CRAWLRANK_RETURN_IF_ERROR(CheckOptions(options));
  CRAWLRANK_ASSIGN_OR_RETURN(
      TemplateLinkFilter filter,
      TemplateLinkFilter::Find(graph, input.hosts, options.template_links, options.memory_budget));
  CRAWLRANK_ASSIGN_OR_RETURN(RankResult result,
                             RankSource(filter, algorithm, options, input, started));
  result.report.template_links = filter.dropped();
  result.report.template_targets = static_cast<uint32_t>(filter.pairs().size());
  return result;
}

Result<RankResult> RankCsrGraph(const CsrGraph& csr, uint32_t pages, const CsrPatch& patch,
                                RankAlgorithm algorithm, const RankOptions& options,
                                const RankInput& input) {
  const auto started = std::chrono::steady_clock::now();
  CRAWLRANK_RETURN_IF_ERROR(CheckOptions(options));
  if (options.template_links.drop) {
    return InvalidArgumentError(
        "a graph kept in memory ranks over all its links: "
        "template links are dropped only by ComputeRank");
  }
  if (!RanksOverPatchedCsr(algorithm)) {
    return InvalidArgumentError("a graph kept in memory ranks by pagerank, ppr or trustrank, not " +
                                std::string(RankAlgorithmName(algorithm)));
  }
  RankResult result;
  result.algorithm = algorithm;
  result.options = options;
  RankReport& report = result.report;
  report.pages = pages;
  report.links = csr.links + patch.added.size() - patch.removed.size();
  report.mode = RankMode::kCsr;
  report.threads = ResolveThreads(options.threads);
  CRAWLRANK_ASSIGN_OR_RETURN(Teleport r, MakeTeleport(algorithm, input.teleport, pages, options.uniform_teleport));
  Run run{nullptr, options, report.threads, pages, &csr, &patch, report, !input.start.empty()};
  CRAWLRANK_ASSIGN_OR_RETURN(result.scores,
                             PageRankFamilyByPage(run, std::move(r), EdgeWeights{}, input.start));
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace crawlrank
