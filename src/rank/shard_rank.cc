// Ranks over shards (shard_rank.h): the ghost exchange, the global reductions, and the
// PageRank family and HITS over one shard's rows.
#include "rank/shard_rank.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "rank/gather.h"
#include "rank/rank_kernels.h"

namespace crawlrank {
namespace {

using rank_internal::ForBlocks;

// The two directions of the ghost exchange over one shard's lists (ShardGraph::ghosts
// and served): ghosts' partial sums to their masters, masters' values to their ghosts.
class GhostExchange {
 public:
  GhostExchange(const ShardGraph& g, ShardExchange& exchange) : g_(g), exchange_(exchange) {
    for (const auto& list : g.ghosts) ghost_counts_.push_back(list.size());
    for (const auto& list : g.served) served_counts_.push_back(list.size());
    ghost_words_.resize(std::accumulate(ghost_counts_.begin(), ghost_counts_.end(), uint64_t{0}));
    served_words_.resize(
        std::accumulate(served_counts_.begin(), served_counts_.end(), uint64_t{0}));
  }

  // Each master's entry of `v` plus its ghosts' entries on every shard, in shard order.
  Status AddGhostsToMasters(std::vector<double>& v) {
    Pack(g_.ghosts, v, ghost_words_);
    CRAWLRANK_RETURN_IF_ERROR(
        exchange_.AllToAll(ghost_words_, ghost_counts_, served_words_, served_counts_));
    size_t at = 0;
    for (const auto& list : g_.served) {
      for (uint32_t id : list) v[id] += std::bit_cast<double>(served_words_[at++]);
    }
    return Status::Ok();
  }

  // Each ghost's entry of `v` set to its master's.
  Status CopyMastersToGhosts(std::vector<double>& v) {
    Pack(g_.served, v, served_words_);
    CRAWLRANK_RETURN_IF_ERROR(
        exchange_.AllToAll(served_words_, served_counts_, ghost_words_, ghost_counts_));
    size_t at = 0;
    for (const auto& list : g_.ghosts) {
      for (uint32_t id : list) v[id] = std::bit_cast<double>(ghost_words_[at++]);
    }
    return Status::Ok();
  }

  uint64_t ghost_words() const { return ghost_words_.size(); }
  uint64_t served_words() const { return served_words_.size(); }

 private:
  static void Pack(const std::vector<std::vector<uint32_t>>& lists, const std::vector<double>& v,
                   std::vector<uint64_t>& words) {
    size_t at = 0;
    for (const auto& list : lists) {
      for (uint32_t id : list) words[at++] = std::bit_cast<uint64_t>(v[id]);
    }
  }

  const ShardGraph& g_;
  ShardExchange& exchange_;
  std::vector<uint64_t> ghost_counts_, served_counts_;
  std::vector<uint64_t> ghost_words_, served_words_;
};

// Σ over this shard's masters of fn(id), in fixed blocks (thread count does not matter).
template <typename Fn>
double SumMasters(const ShardGraph& g, unsigned threads, Fn&& fn) {
  return ForBlocks(threads, g.size(), [&](uint32_t begin, uint32_t end) {
    double s = 0;
    for (uint32_t i = begin; i < end; ++i) {
      if (g.IsMaster(i)) s += fn(i);
    }
    return s;
  });
}

// What a run needs besides the graph: the exchange, the options and the teleport vector.
struct ShardRun {
  const ShardGraph& g;
  ShardExchange& exchange;
  GhostExchange ghosts;
  const RankOptions& options;
  unsigned threads;
  double n;                  // every shard's vertices
  rank_internal::Teleport r; // by local id
  RankReport& report;

  // Runs iterate() until the global residual it returns is within the tolerance.
  template <typename Iterate>
  Status Loop(Iterate&& iterate) {
    return rank_internal::IterateUntilConverged(options, report, iterate);
  }
};

// The teleport vector over every shard (rank_kernels.h, MakeTeleport), from the masters'
// entries of `given`: uniform 1/N, or the weights scaled by their sum over every shard.
Result<rank_internal::Teleport> ShardTeleport(const ShardGraph& g, ShardExchange& exchange,
                                              RankAlgorithm algorithm,
                                              std::span<const double> given, double n,
                                              double uniform_share) {
  rank_internal::Teleport r;
  r.uniform = n == 0 ? 0 : 1.0 / n;
  if (algorithm == RankAlgorithm::kPageRank || algorithm == RankAlgorithm::kWeightedPageRank) {
    return r;
  }
  Status checked = given.size() > g.size()
                       ? InvalidArgumentError("teleport has " + std::to_string(given.size()) +
                                              " entries for a shard of " +
                                              std::to_string(g.size()) + " vertices")
                       : Status::Ok();
  std::vector<double> w(g.size(), 0.0);
  for (size_t i = 0; i < given.size() && checked.ok(); ++i) {
    if (!std::isfinite(given[i]) || given[i] < 0) {
      checked = InvalidArgumentError("teleport[" + std::to_string(i) + "] is " +
                                     std::to_string(given[i]) + "; it must be finite and not negative");
    } else if (g.IsMaster(static_cast<uint32_t>(i))) {
      w[i] = algorithm == RankAlgorithm::kTrustRank ? (given[i] > 0 ? 1.0 : 0.0) : given[i];
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(AgreeOverShards(exchange, checked));
  double sum[1] = {std::accumulate(w.begin(), w.end(), 0.0)};
  CRAWLRANK_RETURN_IF_ERROR(SumOverShards(exchange, sum));
  if (sum[0] == 0) {
    if (algorithm == RankAlgorithm::kTrustRank) {
      return InvalidArgumentError("TrustRank needs at least one trusted page on some shard");
    }
    return r;
  }
  if (algorithm != RankAlgorithm::kTopicHits) {
    for (double& x : w) x = (1 - uniform_share) * x / sum[0] + uniform_share * r.uniform;
  }
  r.weights = std::move(w);
  return r;
}

// Weighted PageRank's weights (rank_kernels.h, EdgeWeights) from the global degrees: each
// page's in-links summed over the shards, and out-links, known to every ghost.
Result<rank_internal::EdgeWeights> ShardWeights(ShardRun& run) {
  const ShardGraph& g = run.g;
  const CsrGraph& csr = g.csr;
  std::vector<double> in(g.size(), 0.0), out(g.size(), 0.0);
  for (uint32_t v = 0; v < g.pages; ++v) {
    in[v] = double(csr.in_offsets[v + 1] - csr.in_offsets[v]);
    out[v] = double(csr.out_degree[v]);
  }
  CRAWLRANK_RETURN_IF_ERROR(run.ghosts.AddGhostsToMasters(in));
  CRAWLRANK_RETURN_IF_ERROR(run.ghosts.CopyMastersToGhosts(in));
  CRAWLRANK_RETURN_IF_ERROR(run.ghosts.CopyMastersToGhosts(out));
  rank_internal::EdgeWeights w;
  w.factor.resize(g.size());
  for (uint32_t u = 0; u < g.size(); ++u) w.factor[u] = in[u] * (out[u] + 1);
  w.denominator.assign(g.size(), 0.0);
  w.passed.assign(g.size(), 0.0);
  for (uint32_t v = 0; v < g.pages; ++v) {
    uint64_t sum_in = 0, sum_out = 0;  // exact, as the single-process weights
    for (uint32_t p : csr.OutLinks(v)) {
      sum_in += static_cast<uint64_t>(in[p]);
      sum_out += static_cast<uint64_t>(out[p]) + 1;
    }
    w.denominator[v] = double(sum_in) * double(sum_out);
    if (w.denominator[v] > 0) {
      for (uint32_t p : csr.OutLinks(v)) w.passed[v] += w.factor[p] / w.denominator[v];
    }
  }
  return w;
}

// While an iteration changes π by more than this in L1, the rows gather the contributions
// as floats (half the bytes of the random reads: the single-process kernel's rule, rank.h);
// below it, as doubles, to the tolerance. The switch depends on the global residual, the
// same on every shard.
constexpr double kShardFloatUntil = 1.0 / (1 << 19);

// The PageRank family: x_v = π_v / denominator_v over this shard's rows, y_u = factor_u ·
// Σ x_v with the ghosts' sums added at their masters, π_u ← c·y_u + r_u·(1 − c·P), P the
// mass π passes along links, summed over the shards with the residual. A run does not
// stop while it gathers floats: it goes on with doubles first.
// The PageRank family's arrays over one shard, and its passes.
class ShardPageRank {
 public:
  ShardPageRank(ShardRun& run, const rank_internal::EdgeWeights& w, std::vector<double>& pi)
      : run_(run), g_(run.g), w_(w), pi_(pi), x_(g_.pages, 0.0), xf_(g_.pages, 0.f),
        y_(g_.size(), 0.0), pull_(g_.csr, g_.pages) {}

  // π = r on the masters; the contributions; returns this shard's part of the mass passed.
  double Start() {
    pi_.assign(g_.size(), 0.0);
    for (uint32_t i = 0; i < g_.size(); ++i) pi_[i] = g_.IsMaster(i) ? run_.r[i] : 0.0;
    return Prepare();
  }
  // The contributions x_v = π_v / denominator_v in the current precision; returns this
  // shard's part of the mass π passes along links.
  double Prepare() {
    return Fused([](uint32_t) {});
  }
  // One step with the global mass passed `mass`: the pull, the ghosts' sums to their
  // masters, then in one pass the update, its change, the mass the new π passes and the
  // next contributions. Returns this shard's parts of the change and of that mass.
  Result<std::pair<double, double>> Step(double mass) {
    if (floats_) {
      pull_.Step(run_.threads, xf_.data(), y_.data());
    } else {
      pull_.Step(run_.threads, x_.data(), y_.data());
    }
    std::fill(y_.begin() + g_.pages, y_.end(), 0.0);
    CRAWLRANK_RETURN_IF_ERROR(run_.ghosts.AddGhostsToMasters(y_));
    const double c = run_.options.damping, base = 1 - c * mass;
    std::vector<double> change(RankBlocks(g_.size()), 0.0);
    const double passed = Fused([&](uint32_t u) {
      const double next = c * Factor(u) * y_[u] + run_.r[u] * base;
      change[u / kRankBlock] += std::abs(next - pi_[u]);
      pi_[u] = next;
    });
    return std::pair(rank_internal::SumBlocks(change), passed);
  }
  bool floats() const { return floats_; }
  void UseDoubles() {
    floats_ = false;
    (void)Prepare();
  }

 private:
  // Over the masters, in fixed blocks: update(u) first, then u's mass passed and its
  // contribution; returns the mass, added in block order.
  template <typename Update>
  double Fused(Update&& update) {
    return ForBlocks(run_.threads, g_.size(), [&](uint32_t begin, uint32_t end) {
      double mass = 0;
      for (uint32_t u = begin; u < end; ++u) {
        if (!g_.IsMaster(u)) continue;  // a ghost: no links out, its contribution stays 0
        update(u);
        if (u >= g_.pages) continue;  // an extra vertex: no links out
        mass += pi_[u] * Passed(u);
        const double d = Denominator(u);
        const double share = d > 0 ? pi_[u] / d : 0.0;
        if (floats_) {
          xf_[u] = static_cast<float>(share);
        } else {
          x_[u] = share;
        }
      }
      return mass;
    });
  }
  double Denominator(uint32_t v) const {
    return w_.denominator.empty() ? double(g_.csr.out_degree[v]) : w_.denominator[v];
  }
  double Passed(uint32_t v) const {
    return w_.passed.empty() ? (g_.csr.out_degree[v] > 0 ? 1.0 : 0.0) : w_.passed[v];
  }
  double Factor(uint32_t u) const { return w_.factor.empty() ? 1.0 : w_.factor[u]; }

  ShardRun& run_;
  const ShardGraph& g_;
  const rank_internal::EdgeWeights& w_;
  std::vector<double>& pi_;
  std::vector<double> x_;
  std::vector<float> xf_;
  std::vector<double> y_;
  rank_internal::PullSums pull_;
  bool floats_ = true;
};

Status PageRankFamily(ShardRun& run, const rank_internal::EdgeWeights& w, std::vector<double>& pi) {
  ShardPageRank steps(run, w, pi);
  double global[2] = {0, steps.Start()};
  CRAWLRANK_RETURN_IF_ERROR(SumOverShards(run.exchange, std::span(global).subspan(1)));
  RankReport& report = run.report;
  for (report.iterations = 0; report.iterations < run.options.max_iterations;) {
    const bool gathered_floats = steps.floats();
    CRAWLRANK_ASSIGN_OR_RETURN(const auto parts, steps.Step(global[1]));
    global[0] = parts.first;
    global[1] = parts.second;
    CRAWLRANK_RETURN_IF_ERROR(SumOverShards(run.exchange, global));  // change and mass
    report.residual = global[0];
    ++report.iterations;
    if (gathered_floats && !(report.residual > std::max(kShardFloatUntil, run.options.tolerance))) {
      steps.UseDoubles();
    }
    if (!gathered_floats && report.residual <= run.options.tolerance) break;
  }
  report.converged = !steps.floats() && report.residual <= run.options.tolerance;
  return Status::Ok();
}

// Scales the masters' entries of `v` to sum 1 over every shard (uniform when they sum to
// 0), mixes in `jump` of 1/N, and returns this shard's part of the L1 distance to `old`.
Result<double> NormaliseOverShards(ShardRun& run, std::vector<double>& v,
                                   const std::vector<double>& old, double jump) {
  double sum[1] = {SumMasters(run.g, run.threads, [&](uint32_t i) { return v[i]; })};
  CRAWLRANK_RETURN_IF_ERROR(SumOverShards(run.exchange, sum));
  const double scale = sum[0] > 0 ? (1 - jump) / sum[0] : 0;
  const double base = sum[0] > 0 ? jump / run.n : 1.0 / run.n;
  return SumMasters(run.g, run.threads, [&](uint32_t i) {
    v[i] = base + v[i] * scale;
    return std::abs(v[i] - old[i]);
  });
}

// HITS and topic HITS (hits.cc's step): authorities from the hubs along this shard's
// in-link rows, the ghosts' sums added at their masters; hubs from the authorities (and
// topic scores) of each page's targets, a ghost's copied from its master first.
Status ShardHits(ShardRun& run, std::vector<double>& a, std::vector<double>& h) {
  const ShardGraph& g = run.g;
  const double jump = 1 - run.options.damping;
  std::vector<double> topic(g.size(), 1.0);
  if (!run.r.weights.empty()) {
    topic = run.r.weights;
    CRAWLRANK_RETURN_IF_ERROR(run.ghosts.CopyMastersToGhosts(topic));
  }
  a.assign(g.size(), 1.0 / run.n);
  h.assign(g.size(), 1.0 / run.n);
  std::vector<double> a2(g.size(), 0.0), h2(g.size(), 0.0);
  return run.Loop([&]() -> Result<double> {
    ForBlocks(run.threads, g.pages, [&](uint32_t begin, uint32_t end) {
      for (uint32_t i = begin; i < end; ++i) {
        double sa = 0, sh = 0;
        for (uint32_t j : g.csr.InLinks(i)) sa += h[j];
        for (uint32_t j : g.csr.OutLinks(i)) sh += topic[j] * a[j];
        a2[i] = sa;
        h2[i] = sh;
      }
      return 0.0;
    });
    std::fill(a2.begin() + g.pages, a2.end(), 0.0);
    std::fill(h2.begin() + g.pages, h2.end(), 0.0);
    CRAWLRANK_RETURN_IF_ERROR(run.ghosts.AddGhostsToMasters(a2));
    CRAWLRANK_ASSIGN_OR_RETURN(const double ra, NormaliseOverShards(run, a2, a, jump));
    CRAWLRANK_ASSIGN_OR_RETURN(const double rh, NormaliseOverShards(run, h2, h, jump));
    double residual[1] = {ra + rh};
    CRAWLRANK_RETURN_IF_ERROR(SumOverShards(run.exchange, residual));
    a.swap(a2);
    h.swap(h2);
    CRAWLRANK_RETURN_IF_ERROR(run.ghosts.CopyMastersToGhosts(a));
    return residual[0];
  });
}

}  // namespace

Status SumOverShards(ShardExchange& exchange, std::span<double> values) {
  std::string mine(values.size() * sizeof(double), '\0');
  if (!values.empty()) std::memcpy(mine.data(), values.data(), mine.size());
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<std::string> all, exchange.AllGather(mine));
  std::fill(values.begin(), values.end(), 0.0);
  for (size_t j = 0; j < all.size(); ++j) {
    if (all[j].size() != mine.size()) {
      return InternalError("a sum over shards: shard " + std::to_string(j) + " gave " +
                           std::to_string(all[j].size() / sizeof(double)) + " values, not " +
                           std::to_string(values.size()));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      double x;
      std::memcpy(&x, all[j].data() + i * sizeof(double), sizeof(double));
      values[i] += x;
    }
  }
  return Status::Ok();
}

Status AgreeOverShards(ShardExchange& exchange, const Status& status) {
  std::string mine;
  if (!status.ok()) mine = char(static_cast<int>(status.code())) + status.message();
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<std::string> all, exchange.AllGather(mine));
  if (!status.ok()) return status;
  for (size_t j = 0; j < all.size(); ++j) {
    if (all[j].empty()) continue;
    return Status(static_cast<StatusCode>(all[j][0]),
                  "shard " + std::to_string(j) + ": " + all[j].substr(1));
  }
  return Status::Ok();
}

Result<ShardRank> RankShard(const ShardGraph& graph, ShardExchange& exchange,
                            RankAlgorithm algorithm, const RankOptions& options,
                            std::span<const double> teleport) {
  const auto start = std::chrono::steady_clock::now();
  Status checked = rank_internal::CheckOptions(options);
  if (checked.ok() && algorithm == RankAlgorithm::kInDegree) {
    checked = InvalidArgumentError("in-degree is not ranked over shards");
  }
  CRAWLRANK_RETURN_IF_ERROR(AgreeOverShards(exchange, checked));
  ShardRank out;
  RankResult& result = out.result;
  result.algorithm = algorithm;
  result.options = options;
  RankReport& report = result.report;
  report.mode = RankMode::kCsr;
  report.threads = ResolveThreads(options.threads);
  report.pages = graph.size();
  report.links = graph.csr.links;
  const double n = double(graph.vertices);
  CRAWLRANK_ASSIGN_OR_RETURN(
      rank_internal::Teleport r,
      ShardTeleport(graph, exchange, algorithm, teleport, n, options.uniform_teleport));
  ShardRun run{graph,   exchange,       GhostExchange(graph, exchange), options, report.threads,
               n,       std::move(r),   report};
  const bool hits = algorithm == RankAlgorithm::kHits || algorithm == RankAlgorithm::kTopicHits;
  if (hits) {
    CRAWLRANK_RETURN_IF_ERROR(ShardHits(run, result.scores, result.hubs));
    CRAWLRANK_RETURN_IF_ERROR(run.ghosts.CopyMastersToGhosts(result.hubs));
    out.words_per_iteration = run.ghosts.ghost_words() + run.ghosts.served_words();
  } else {
    rank_internal::EdgeWeights weights;
    if (algorithm == RankAlgorithm::kWeightedPageRank) {
      CRAWLRANK_ASSIGN_OR_RETURN(weights, ShardWeights(run));
    }
    CRAWLRANK_RETURN_IF_ERROR(PageRankFamily(run, weights, result.scores));
    CRAWLRANK_RETURN_IF_ERROR(run.ghosts.CopyMastersToGhosts(result.scores));
    out.words_per_iteration = run.ghosts.ghost_words();
  }
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace crawlrank
