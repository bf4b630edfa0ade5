// crawlrank_rank_mpi: a cluster's global ranks as an MPI job over its nodes' PageDBs
// (crawlrank/global_rank.h; docs/cluster.md, "Global ranks"). Run under mpirun, one
// process per node of the cluster:
//   mpirun -n 3 --hostfile HOSTS crawlrank_rank_mpi --db /data/frontier --algo pagerank
// MPI rank i opens node i's PageDB: --db once names the same path on every machine; given
// N times, MPI rank i opens the i-th (one machine: the tests).
//
// The only program that links MPI. The exchange is MPI's: MPI_Alltoallv for the ghosts'
// words, MPI_Allgather(v) for the global terms and the agreement on errors.
#include <mpi.h>

#include <cinttypes>
#include <climits>
#include <cstdio>
#include <fstream>

#include "crawlrank/global_rank.h"
#include "rank/shard_rank.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// ShardExchange over MPI_COMM_WORLD (errors returned, not fatal).
class MpiExchange final : public ShardExchange {
 public:
  MpiExchange() {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<uint32_t>(rank);
    size_ = static_cast<uint32_t>(size);
  }
  uint32_t shard() const override { return rank_; }
  uint32_t shards() const override { return size_; }

  Status AllToAll(std::span<const uint64_t> send, std::span<const uint64_t> send_counts,
                  std::span<uint64_t> receive, std::span<const uint64_t> receive_counts) override {
    std::vector<int> sc, sd, rc, rd;
    if (!Layout(send_counts, send.size(), &sc, &sd) ||
        !Layout(receive_counts, receive.size(), &rc, &rd)) {
      return ResourceExhaustedError(
          "an all-to-all's buffers do not fit their counts, or pass 2^31 words (16 GiB)");
    }
    return Check(MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_UINT64_T, receive.data(),
                               rc.data(), rd.data(), MPI_UINT64_T, MPI_COMM_WORLD),
                 "MPI_Alltoallv");
  }

  Result<std::vector<std::string>> AllGather(std::string_view mine) override {
    if (mine.size() > INT_MAX) return ResourceExhaustedError("an all-gather of over 2 GiB");
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(size_), at(size_);
    CRAWLRANK_RETURN_IF_ERROR(Check(
        MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD),
        "MPI_Allgather"));
    int64_t total = 0;
    for (uint32_t j = 0; j < size_; ++j) {
      at[j] = static_cast<int>(total);
      total += lengths[j];
      if (total > INT_MAX) return ResourceExhaustedError("an all-gather of over 2 GiB");
    }
    std::string all(static_cast<size_t>(total), '\0');
    CRAWLRANK_RETURN_IF_ERROR(Check(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(),
                                                   lengths.data(), at.data(), MPI_CHAR,
                                                   MPI_COMM_WORLD),
                                    "MPI_Allgatherv"));
    std::vector<std::string> out;
    for (uint32_t j = 0; j < size_; ++j) out.push_back(all.substr(at[j], lengths[j]));
    return out;
  }

 private:
  // MPI's int counts and displacements for `counts` words over a buffer of `size`.
  static bool Layout(std::span<const uint64_t> counts, size_t size, std::vector<int>* c,
                     std::vector<int>* d) {
    uint64_t at = 0;
    for (uint64_t count : counts) {
      if (count > INT_MAX || at > INT_MAX) return false;
      c->push_back(static_cast<int>(count));
      d->push_back(static_cast<int>(at));
      at += count;
    }
    return at == size;
  }
  static Status Check(int code, const char* call) {
    if (code == MPI_SUCCESS) return Status::Ok();
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    return UnavailableError(std::string(call) + ": " + std::string(text, length));
  }

  uint32_t rank_ = 0, size_ = 1;
};

// Trusted pages for TrustRank: one fingerprint (16 hex digits) or absolute URL per line,
// '#' starting a comment. A URL is canonicalised with `db`'s profile: its page may be on
// any node.
Result<std::vector<uint64_t>> ReadTrustedFile(const PageDb& db, const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot open trusted-pages file \"" + path + "\"");
  CRAWLRANK_ASSIGN_OR_RETURN(const PageDbInfo info, db.Info());
  std::vector<uint64_t> trusted;
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    const std::vector<std::string_view> fields = SplitFields(line);
    if (fields.empty() || fields[0][0] == '#') continue;
    const auto where = "\"" + path + "\" line " + std::to_string(number);
    if (fields[0].find("://") != std::string_view::npos) {
      Result<std::string> url = CanonicalizeUrl(fields[0], info.url_profile);
      if (!url.ok()) return url.status().WithContext(where);
      trusted.push_back(UrlFingerprint(*url));
    } else {
      Result<uint64_t> fingerprint = ParseFingerprint(fields[0]);
      if (!fingerprint.ok()) return fingerprint.status().WithContext(where);
      trusted.push_back(*fingerprint);
    }
  }
  if (trusted.empty()) return InvalidArgumentError("\"" + path + "\" names no page");
  return trusted;
}

// What one node did, as a line for the report rank 0 prints.
std::string NodeLine(uint32_t shard, const std::string& path, const GlobalRankReport& r) {
  char line[512];
  std::snprintf(line, sizeof line,
                "node %u  %s: %" PRIu64 " pages, %" PRIu64 " ghosts, %" PRIu64
                " extra vertices, %" PRIu64 " links; setup %.3f s, %" PRIu64
                " bytes sent per iteration",
                shard, path.c_str(), r.stored.graph->pages, r.ghosts, r.extras,
                r.stored.graph->edges, r.setup_seconds, r.words_per_iteration * 8);
  return line;
}

struct Job {
  std::vector<std::string> dbs;
  std::string algo = "pagerank", trusted_path;
  GlobalRankOptions options;
};

// This process's part of the job; every process returns the same status.
Result<GlobalRankReport> RunJob(const Job& job, ShardExchange& exchange, std::string* path) {
  *path = job.dbs.size() == 1 ? job.dbs[0] : job.dbs[exchange.shard()];
  Result<RankAlgorithm> algorithm = ParseRankAlgorithm(job.algo);
  Result<std::unique_ptr<PageDb>> db =
      algorithm.ok() ? OpenForReading(*path) : Result<std::unique_ptr<PageDb>>(algorithm.status());
  GlobalRankOptions options = job.options;
  Status status = db.status();
  if (status.ok() && !job.trusted_path.empty()) {
    Result<std::vector<uint64_t>> trusted = ReadTrustedFile(**db, job.trusted_path);
    status = trusted.status();
    if (trusted.ok()) options.trusted = std::move(trusted).value();
  }
  CRAWLRANK_RETURN_IF_ERROR(AgreeOverShards(exchange, status));
  return RankGlobally(**db, exchange, *algorithm, options);
}

int Main(int argc, char** argv, ShardExchange& exchange) {
  CommandLine app(
      "Computes a cluster's global rank over every node's PageDB, as one MPI job with one "
      "process per node (mpirun -n N), and stores each node's part in "
      "DB/ranks/global/ALGO.rank. Reads one snapshot per node: works while the nodes "
      "serve. docs/cluster.md, \"Global ranks\".",
      "crawlrank_rank_mpi");
  Job job;
  app.Add("--db", job.dbs,
          "the node's PageDB: once, the same path on every machine; or N times, MPI rank i "
          "opening the i-th")
      ->Required();
  app.Add("--algo", job.algo, "pagerank, ppr, trustrank, hits, topic-hits or wpr")->ShowDefault();
  app.Add("--damping", job.options.rank.damping, "damping factor c in [0, 1]")->ShowDefault();
  app.Add("--tolerance", job.options.rank.tolerance,
          "stop when the L1 norm of an iteration's change over every node is at most this")
      ->ShowDefault();
  app.Add("--max-iterations", job.options.rank.max_iterations)->ShowDefault();
  app.Add("--threads", job.options.rank.threads, "threads per process (0: one per core)")
      ->ShowDefault();
  app.Add("--uniform-teleport", job.options.rank.uniform_teleport,
          "ppr, trustrank: this share of the teleport goes to every page alike")
      ->ShowDefault();
  app.Add("--trusted", job.trusted_path,
          "trustrank: file of trusted pages, one hash or URL per line, on any node "
          "(default: the crawl's seeds, depth 0)");
  bool dry = false;
  app.Flag("--no-save", dry, "compute and report, write nothing");
  return Run(app, argc, argv, [&] {
    if (job.dbs.size() != 1 && job.dbs.size() != exchange.shards()) {
      return UsageError(app, "--db given " + std::to_string(job.dbs.size()) + " times for " +
                                 std::to_string(exchange.shards()) +
                                 " processes: give it once, or once per process");
    }
    if (job.algo == "indegree") return UsageError(app, "indegree needs no job: page_db_rank");
    job.options.save = !dry;
    std::string path;
    Result<GlobalRankReport> report = RunJob(job, exchange, &path);
    if (!report.ok()) {
      if (exchange.shard() == 0) return Fail(app, report.status());
      return kExitFailure;
    }
    Result<std::vector<std::string>> lines =
        exchange.AllGather(NodeLine(exchange.shard(), path, *report));
    if (!lines.ok()) return Fail(app, lines.status());
    if (exchange.shard() != 0) return kExitOk;
    const StoredRank& s = report->stored;
    const RankReport& r = s.rank.report;
    std::printf("%s over %u nodes: %" PRIu64 " pages, %" PRIu64 " links\n", job.algo.c_str(),
                exchange.shards(), s.global->total.pages, s.global->total.edges);
    for (const std::string& line : *lines) std::printf("%s\n", line.c_str());
    std::printf("iterations %" PRIu32 "\n", r.iterations);
    std::printf("residual   %.3g (%s, tolerance %.3g)\n", r.residual,
                r.converged ? "converged" : "NOT converged", job.options.rank.tolerance);
    std::printf("seconds    %.3f setup, %.3f ranking\n", report->setup_seconds, r.seconds);
    std::printf("run        %016" PRIx64 "\n", s.global->run_id);
    if (!dry) {
      std::printf("saved      DB/%s on every node\n",
                  RankFilePath("", GlobalRankName(s.rank.algorithm)).substr(1).c_str());
    }
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "crawlrank_rank_mpi: MPI_Init failed\n");
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int code = 0;
  {
    crawlrank::tools::MpiExchange exchange;
    code = crawlrank::tools::Main(argc, argv, exchange);
  }
  MPI_Finalize();
  return code;
}
