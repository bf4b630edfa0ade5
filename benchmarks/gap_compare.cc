// gap_compare: the numerical half of benchmarks/run_gap_bench.sh, which sets crawlrank's
// PageRank beside GAPBS's `pr` (issue #14; docs/benchmarks.md, "Ranking beside GAPBS").
//
// GAPBS's `pr` solves another equation than crawlrank, and does not print its vector:
//   score = (1 - d) / n + d * sum over in-links (v -> u) of score[v] / outdeg(v),
// in float, updated in place in id order (Gauss-Seidel), and the share of pages without
// out-links is dropped rather than spread over all pages, so its scores sum to less than 1.
// To compare the two at equal *true* error, this tool
//   - computes that equation's fixed point in double by Jacobi iteration (a different
//     method than the one it checks) until the L1 change is at most 1e-12;
//   - repeats `pr`'s update rule sequentially in float (one thread's order) and reports,
//     for each target error, the first iteration whose vector, normalised to sum 1, lies
//     within that L1 distance of the normalised fixed point;
//   - measures a stored crawlrank rank against a stored reference rank the same way.
// The graph is read from GAPBS's serialized format (`converter -b X.sg`): a byte `directed`,
// int64 edge and node counts, int64 out-offsets[n + 1], int32 out-neighbours[m], then for
// a directed graph the same for in-neighbours. Reading the very file `pr` reads keeps the
// in-neighbour order, hence the float sums, the same.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "crawlrank/rank_store.h"

namespace crawlrank::bench {
namespace {

constexpr double kFixedPointTolerance = 1e-12;

// The in-link CSR of a .sg file and each vertex's out-degree.
struct InGraph {
  int64_t nodes = 0;
  int64_t edges = 0;
  std::vector<int64_t> in_offsets;  // nodes + 1
  std::vector<int32_t> in_neighbours;
  std::vector<int64_t> out_degree;

  static Result<InGraph> Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return NotFoundError("open \"" + path + "\": cannot read");
    const auto fail = [&](const std::string& what) {
      return DataLossError("read \"" + path + "\": " + what);
    };
    InGraph g;
    char directed = 0;
    in.read(&directed, 1);
    in.read(reinterpret_cast<char*>(&g.edges), 8);
    in.read(reinterpret_cast<char*>(&g.nodes), 8);
    if (!in || g.nodes <= 0 || g.edges < 0 || g.nodes > INT32_MAX) return fail("bad header");
    std::vector<int64_t> offsets(g.nodes + 1);
    in.read(reinterpret_cast<char*>(offsets.data()), std::streamsize(offsets.size() * 8));
    if (!in || offsets.back() != g.edges) return fail("bad out-offsets");
    g.out_degree.resize(g.nodes);
    for (int64_t u = 0; u < g.nodes; ++u) g.out_degree[u] = offsets[u + 1] - offsets[u];
    if (directed) {
      in.seekg(std::streamoff(g.edges * 4), std::ios::cur);  // out-neighbours: not needed
      offsets.assign(g.nodes + 1, 0);
      in.read(reinterpret_cast<char*>(offsets.data()), std::streamsize(offsets.size() * 8));
      if (!in || offsets.back() != g.edges) return fail("bad in-offsets");
    }
    g.in_offsets = std::move(offsets);
    g.in_neighbours.resize(g.edges);
    in.read(reinterpret_cast<char*>(g.in_neighbours.data()), std::streamsize(g.edges * 4));
    if (!in) return fail("truncated neighbours");
    for (int32_t v : g.in_neighbours) {
      if (v < 0 || v >= g.nodes) return fail("neighbour id out of range");
    }
    return g;
  }
};

// x = (1 - d)/n + d * A^T D^-1 x in double, dangling shares dropped: Jacobi from 1/n until
// the L1 change is at most kFixedPointTolerance. Returns the iterations run.
int FixedPoint(const InGraph& g, double damping, std::vector<double>& x) {
  const int64_t n = g.nodes;
  x.assign(n, 1.0 / double(n));
  std::vector<double> share(n);
  for (int it = 1; it <= 10000; ++it) {
    for (int64_t v = 0; v < n; ++v) share[v] = g.out_degree[v] ? x[v] / double(g.out_degree[v]) : 0;
    double change = 0;
    for (int64_t u = 0; u < n; ++u) {
      double sum = 0;
      for (int64_t i = g.in_offsets[u]; i < g.in_offsets[u + 1]; ++i)
        sum += share[g.in_neighbours[i]];
      const double next = (1 - damping) / double(n) + damping * sum;
      change += std::abs(next - x[u]);
      x[u] = next;
    }
    if (change <= kFixedPointTolerance) return it;
  }
  Die(InternalError("the fixed point did not converge in 10000 iterations"));
}

double Sum(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  return s;
}

template <typename T>
double NormalisedL1(const std::vector<T>& a, const std::vector<double>& b, double b_sum) {
  double a_sum = 0;
  for (T v : a) a_sum += double(v);
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += std::abs(double(a[i]) / a_sum - b[i] / b_sum);
  return d;
}

// One thread's run of GAPBS pr's update, exactly: float scores and contributions, each
// vertex's new score visible to the vertices after it in the same sweep.
class GaussSeidelReplica {
 public:
  explicit GaussSeidelReplica(const InGraph& g) : g_(g) {
    const float init = 1.0f / float(g.nodes);
    scores_.assign(g.nodes, init);
    contrib_.resize(g.nodes);
    for (int64_t v = 0; v < g.nodes; ++v) contrib_[v] = init / float(g.out_degree[v]);
  }

  void Sweep() {
    const float damping = 0.85f;
    const float base = (1.0f - damping) / float(g_.nodes);
    for (int64_t u = 0; u < g_.nodes; ++u) {
      float incoming = 0;
      for (int64_t i = g_.in_offsets[u]; i < g_.in_offsets[u + 1]; ++i) {
        incoming += contrib_[g_.in_neighbours[i]];
      }
      scores_[u] = base + damping * incoming;
      contrib_[u] = scores_[u] / float(g_.out_degree[u]);
    }
  }

  const std::vector<float>& scores() const { return scores_; }

 private:
  const InGraph& g_;
  std::vector<float> scores_;
  std::vector<float> contrib_;  // +inf for a vertex without out-links: never read
};

std::vector<double> ParseTargets(const std::string& list) {
  std::vector<double> targets;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) targets.push_back(std::stod(item));
  std::sort(targets.begin(), targets.end(), std::greater<>());
  return targets;
}

int GapbsIterations(const std::string& sg_path, const std::string& target_list, int max_iterations,
                    int top_after, const std::string& csv_path) {
  const std::vector<double> targets = ParseTargets(target_list);
  const auto start = Clock::now();
  const InGraph g = Check(InGraph::Read(sg_path));
  std::printf("nodes %lld\nedges %lld\nread_seconds %.1f\n", static_cast<long long>(g.nodes),
              static_cast<long long>(g.edges), Seconds(start));
  std::vector<double> fixed;
  const auto fixed_start = Clock::now();
  const int fixed_iterations = FixedPoint(g, 0.85, fixed);
  const double fixed_sum = Sum(fixed);
  std::printf("fixed_point_jacobi_iterations %d\nfixed_point_seconds %.1f\n", fixed_iterations,
              Seconds(fixed_start));
  std::printf("fixed_point_mass %.6f\n", fixed_sum);  // below 1: dangling shares are dropped

  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path, std::ios::trunc);
    csv << "iteration,l1_error\n";
  }
  GaussSeidelReplica replica(g);
  size_t next_target = 0;
  double best = INFINITY;
  for (int k = 1; k <= std::max(max_iterations, top_after); ++k) {
    replica.Sweep();
    const double error = NormalisedL1(replica.scores(), fixed, fixed_sum);
    best = std::min(best, error);
    if (csv.is_open()) csv << k << ',' << error << '\n';
    for (; next_target < targets.size() && error <= targets[next_target]; ++next_target) {
      std::printf("gapbs_iterations_%.0e %d\ngapbs_l1_error_%.0e %.3e\n", targets[next_target], k,
                  targets[next_target], error);
    }
    if (k == top_after) {
      // The form of pr's analysis output (-a): the five best as id:score.
      std::vector<std::pair<float, int64_t>> top;
      for (int64_t u = 0; u < g.nodes; ++u) top.emplace_back(replica.scores()[u], u);
      std::partial_sort(top.begin(), top.begin() + std::min<int64_t>(5, g.nodes), top.end(),
                        std::greater<>());
      for (int i = 0; i < std::min<int64_t>(5, g.nodes); ++i) {
        std::cout << "replica_top " << top[i].second << ":" << top[i].first << "\n";
      }
      std::cout.flush();
    }
    if (next_target == targets.size() && k >= top_after) break;
  }
  for (; next_target < targets.size(); ++next_target) {
    std::printf("gapbs_iterations_%.0e none\n", targets[next_target]);
  }
  std::printf("gapbs_best_l1_error %.3e\n", best);
  return 0;
}

int RankL1(const std::string& reference_db, const std::string& db) {
  const StoredRank ref = Check(LoadRank(reference_db, RankAlgorithm::kPageRank));
  const StoredRank got = Check(LoadRank(db, RankAlgorithm::kPageRank));
  if (ref.rank.scores.size() != got.rank.scores.size()) {
    Die(FailedPreconditionError(
        "ranks of different sizes: " + std::to_string(ref.rank.scores.size()) + " and " +
        std::to_string(got.rank.scores.size())));
  }
  std::printf("l1 %.3e\niterations %u\n",
              NormalisedL1(got.rank.scores, ref.rank.scores, Sum(ref.rank.scores)),
              got.rank.report.iterations);
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app("Error trajectories for comparing crawlrank's PageRank with GAPBS pr.",
               "gap_compare");
  app.require_subcommand(1);
  std::string sg_path, targets = "1e-4,1e-6", csv_path;
  int max_iterations = 500, top_after = 0;
  CLI::App* gapbs = app.add_subcommand(
      "gapbs-iterations",
      "fixed point of pr's equation (double), then pr's float Gauss-Seidel sweeps: the first "
      "iteration within each target L1 error (vectors normalised to sum 1)");
  gapbs->add_option("sg", sg_path, "graph as written by GAPBS's converter -b")->required();
  gapbs->add_option("--targets", targets, "comma-separated L1 errors")->capture_default_str();
  gapbs->add_option("--max-iterations", max_iterations)->capture_default_str();
  gapbs->add_option("--top-after", top_after,
                    "print the five best pages after this many sweeps, as pr -a prints them");
  gapbs->add_option("--csv", csv_path, "write the error after every sweep here");
  std::string reference_db, db;
  CLI::App* l1 = app.add_subcommand(
      "rank-l1", "L1 distance between two stored PageRank vectors, each normalised to sum 1");
  l1->add_option("reference", reference_db, "directory holding ranks/pagerank.rank")->required();
  l1->add_option("db", db, "PageDB (or directory) holding ranks/pagerank.rank")->required();
  CLI11_PARSE(app, argc, argv);
  if (*gapbs) return GapbsIterations(sg_path, targets, max_iterations, top_after, csv_path);
  return RankL1(reference_db, db);
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  return crawlrank::bench::Main(argc, argv);
}
