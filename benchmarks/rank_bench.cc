// rank_bench: PageRank speed on a generated web-like graph stored in a PageDB.
//
// Builds (or opens, with --db) a PageDB holding the generator's graph, then times
// crawlrank's PageRank in stream mode (edges read from the LMDB snapshot every iteration)
// and CSR mode, with 1 and 2 threads, and, as the baseline measured in the same run, a
// plain single-threaded Jacobi power iteration over out-link CSR arrays. Prints
// `key value` lines; docs/benchmarks.md explains them.
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "graph_db.h"
#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "web_graph.h"

namespace crawlrank::bench {
namespace {

// Private (anonymous) resident memory of this process, in bytes: the vertex arrays and
// CSR, not the LMDB pages mapped from the file.
uint64_t RssAnonBytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t kib = 0;
  while (status >> key) {
    if (key == "RssAnon:") {
      status >> kib;
      return kib << 10;
    }
    status.ignore(1 << 10, '\n');
  }
  return 0;
}

// Runs `fn` while a sampler thread records the peak of RssAnonBytes() above `base`.
template <typename Fn>
uint64_t PeakPrivateBytes(Fn&& fn) {
  const uint64_t base = RssAnonBytes();
  std::atomic<bool> done{false};
  uint64_t peak = base;
  std::thread sampler([&] {
    while (!done.load()) {
      peak = std::max(peak, RssAnonBytes());
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  fn();
  done = true;
  sampler.join();
  return peak - base;
}

// The baseline: textbook Jacobi power iteration, out-link CSR, one thread.
struct Baseline {
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> targets;

  static Baseline Load(EdgeSource& source) {
    Baseline b;
    b.offsets.assign(uint64_t{source.num_pages()} + 1, 0);
    b.targets.reserve(source.num_links());
    Check(source.Scan([&](EdgeChunk& chunk) {
      for (size_t i = 0; i < chunk.size(); ++i) {
        b.offsets[uint64_t{chunk.sources[i]} + 1] = chunk.TargetsOf(i).size();
      }
      b.targets.insert(b.targets.end(), chunk.targets.begin(), chunk.targets.end());
      return Status::Ok();
    }));
    for (size_t i = 1; i < b.offsets.size(); ++i) b.offsets[i] += b.offsets[i - 1];
    return b;
  }

  // Iterates until the L1 change is at most `tolerance` or `max_iterations`; returns the
  // iterations run.
  uint32_t Run(double tolerance, uint32_t max_iterations, std::vector<double>& pi) const {
    const size_t n = offsets.size() - 1;
    const double c = 0.85;
    pi.assign(n, 1.0 / n);
    std::vector<double> next(n);
    for (uint32_t it = 1;; ++it) {
      std::fill(next.begin(), next.end(), 0.0);
      double linked = 0;
      for (size_t s = 0; s < n; ++s) {
        const uint64_t begin = offsets[s], end = offsets[s + 1];
        if (begin == end) continue;
        linked += pi[s];
        const double share = pi[s] / double(end - begin);
        for (uint64_t i = begin; i < end; ++i) next[targets[i]] += share;
      }
      const double teleport = (1 - c * linked) / double(n);
      double change = 0;
      for (size_t i = 0; i < n; ++i) {
        const double v = c * next[i] + teleport;
        change += std::abs(v - pi[i]);
        pi[i] = v;
      }
      if (change <= tolerance || it == max_iterations) return it;
    }
  }
};

int Main(int argc, char** argv) {
  CLI::App app("PageRank benchmark on a generated web-like graph in a PageDB.", "rank_bench");
  WebGraphOptions graph_options;
  std::string dir = "/tmp/crawlrank-rank-bench", db_path;
  int repeats = 3;
  uint32_t timed_iterations = 10;
  app.add_option("--pages", graph_options.pages, "pages of the generated graph")
      ->capture_default_str();
  app.add_option("--degree", graph_options.mean_out_degree, "mean out-degree")
      ->capture_default_str();
  app.add_option("--seed", graph_options.seed, "graph seed")->capture_default_str();
  app.add_option("--db", db_path, "use this PageDB instead of generating one");
  app.add_option("--dir", dir, "where to build the PageDB (reused when it holds the graph)")
      ->capture_default_str();
  app.add_option("--repeats", repeats, "timed runs per configuration (median reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--iterations", timed_iterations,
                 "iterations per timed run (a 1-iteration run is subtracted: at least 2)")
      ->capture_default_str()
      ->check(CLI::Range(2u, 100000u));
  std::string export_path;
  std::vector<std::string> configs = {"stream_t1", "stream_t2", "csr_t1", "csr_t2"};
  app.add_option("--configs", configs, "which timed configurations to run")->capture_default_str();
  uint32_t extrapolation_period = RankOptions{}.extrapolation_period;
  app.add_option("--extrapolate", extrapolation_period,
                 "tolerance runs: crawlrank's quadratic extrapolation every N iterations "
                 "(0: none)")
      ->capture_default_str();
  bool convergence = true;
  app.add_option("--convergence", convergence, "also run to tolerances 1e-4 and 1e-6")
      ->capture_default_str();
  app.add_option("--export-edges", export_path,
                 "also write the graph as little-endian uint32 (src, dst) pairs, for "
                 "benchmarks/rank_peers.py");
  CLI11_PARSE(app, argc, argv);

  if (db_path.empty()) {
    char name[96];
    std::snprintf(name, sizeof name, "/db-%u-%g-%llu", graph_options.pages,
                  graph_options.mean_out_degree,
                  static_cast<unsigned long long>(graph_options.seed));
    db_path = dir + name;
    if (!std::filesystem::exists(db_path + "/data.mdb")) {
      const WebGraph graph(graph_options);
      std::filesystem::create_directories(dir);
      const auto start = Clock::now();
      WriteGraphDb(
          db_path, graph.pages(), [&](uint32_t p) { return graph.Url(p); },
          [&](uint32_t p, std::vector<uint32_t>& targets) { graph.OutLinks(p, targets); });
      std::printf("build_db_seconds %.1f\n", Seconds(start));
    }
  }
  PageDbOptions reading;
  reading.read_only = true;
  auto db = Check(PageDb::Open(db_path, reading));
  const Snapshot snapshot = Check(db->NewSnapshot());
  SnapshotEdgeSource source(snapshot);
  const uint32_t n = source.num_pages();
  std::printf("pages %u\nlinks %llu\n", n, static_cast<unsigned long long>(source.num_links()));
  if (!export_path.empty()) {
    std::ofstream out(export_path, std::ios::binary | std::ios::trunc);
    std::vector<uint32_t> pairs;
    Check(source.Scan([&](EdgeChunk& chunk) {
      pairs.clear();
      for (size_t i = 0; i < chunk.size(); ++i) {
        for (uint32_t t : chunk.TargetsOf(i)) pairs.insert(pairs.end(), {chunk.sources[i], t});
      }
      out.write(reinterpret_cast<const char*>(pairs.data()), std::streamsize(pairs.size() * 4));
      return Status::Ok();
    }));
    if (!out.flush()) Die(IoError("cannot write " + export_path));
  }

  // Seconds per iteration: a fixed number of iterations (tolerance 0), CSR build excluded.
  // Each configuration runs in a forked child, so that its private memory is its own.
  for (RankMode mode : {RankMode::kStream, RankMode::kCsr}) {
    for (unsigned threads : {1u, 2u}) {
      const std::string name = std::string(RankModeName(mode)) + "_t" + std::to_string(threads);
      if (std::find(configs.begin(), configs.end(), name) == configs.end()) continue;
      std::fflush(stdout);
      const pid_t child = fork();
      if (child < 0) Die(IoError("fork failed"));
      if (child > 0) {
        int status = 0;
        waitpid(child, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Die(InternalError("a run failed"));
        continue;
      }
      malloc_trim(0);  // what the parent freed must not be reused unseen
      std::vector<double> per_iteration;
      uint64_t private_bytes = 0;
      for (int r = 0; r < repeats; ++r) {
        RankOptions options;
        options.mode = mode;
        options.threads = threads;
        options.tolerance = 0;
        options.max_iterations = timed_iterations;
        options.extrapolation_period = 0;  // plain steps; the tolerance runs below extrapolate
        RankResult full;
        private_bytes =
            std::max(private_bytes, PeakPrivateBytes([&] {
                       full = Check(ComputeRank(source, RankAlgorithm::kPageRank, options));
                     }));
        options.max_iterations = 1;
        const RankResult one = Check(ComputeRank(source, RankAlgorithm::kPageRank, options));
        // The difference of the two runs cancels setup (CSR build, allocation).
        per_iteration.push_back((full.report.seconds - one.report.seconds) /
                                (timed_iterations - 1));
      }
      std::printf("%s_seconds_per_iteration %.4f\n", name.c_str(), Median(per_iteration));
      std::printf("%s_private_bytes_per_page %.1f\n", name.c_str(), double(private_bytes) / n);
      std::fflush(stdout);
      std::_Exit(0);
    }
  }

  // Baseline in the same run.
  const Baseline baseline = Baseline::Load(source);
  std::vector<double> pi, baseline_times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    baseline.Run(0, timed_iterations, pi);
    baseline_times.push_back(Seconds(start) / timed_iterations);
  }
  const double base = Median(baseline_times);
  std::printf("baseline_jacobi_t1_seconds_per_iteration %.4f\n", base);

  // To a tolerance: iterations and total time, crawlrank CSR with 2 threads vs baseline.
  // The fixed point to 1e-12, to tell how far each stopped vector is from it.
  const auto l1 = [n](const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0;
    for (uint32_t i = 0; i < n; ++i) d += std::abs(a[i] - b[i]);
    return d;
  };
  if (convergence) {
    RankOptions exact_options;
    exact_options.mode = RankMode::kCsr;
    exact_options.threads = 2;
    exact_options.tolerance = 1e-12;
    exact_options.max_iterations = 1000;
    const std::vector<double> exact =
        Check(ComputeRank(source, RankAlgorithm::kPageRank, exact_options)).scores;
    for (double tolerance : {1e-4, 1e-6}) {
      RankOptions options = exact_options;
      options.tolerance = tolerance;
      options.extrapolation_period = extrapolation_period;
      const RankResult r = Check(ComputeRank(source, RankAlgorithm::kPageRank, options));
      const auto start = Clock::now();
      const uint32_t base_iterations = baseline.Run(tolerance, 1000, pi);
      const double base_seconds = Seconds(start);
      std::printf("tol_%g_csr_t2_iterations %u\ntol_%g_csr_t2_seconds %.3f\n", tolerance,
                  r.report.iterations, tolerance, r.report.seconds);
      std::printf("tol_%g_baseline_iterations %u\ntol_%g_baseline_seconds %.3f\n", tolerance,
                  base_iterations, tolerance, base_seconds);
      std::printf("tol_%g_l1_between_them %.2e\n", tolerance, l1(pi, r.scores));
      std::printf("tol_%g_csr_t2_l1_error %.2e\ntol_%g_baseline_l1_error %.2e\n", tolerance,
                  l1(r.scores, exact), tolerance, l1(pi, exact));
    }
  }
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  return crawlrank::bench::Main(argc, argv);
}
