// page_db_bench: PageDB ingest and edge-stream speed on a generated web-like graph.
//
// Crawls the generated graph page by page (in generator order) into a fresh PageDB with
// AddBatch, then streams every edge back from one snapshot. Baselines measured in the same
// run: ingest with one transaction per page (as Aduana wrote), and a pass over the same
// edges held in memory as CSR arrays. Prints `key value` lines; see docs/benchmarks.md.
#include <sys/resource.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "bench_util.h"
#include "crawlrank/page_db.h"
#include "web_graph.h"

namespace crawlrank::bench {
namespace {

// CPU time of this process (all threads), in seconds: steadier than wall time on a shared
// machine, where other tenants' load shows up as stolen time.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

long PeakRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

CrawledPage PageOf(const WebGraph& graph, uint32_t page, std::vector<uint32_t>& targets) {
  graph.OutLinks(page, targets);
  CrawledPage crawled;
  crawled.url = graph.Url(page);
  crawled.crawl_time_ms = 1'700'000'000'000 + page;
  crawled.content_hash = page;
  crawled.links.reserve(targets.size());
  for (uint32_t t : targets) crawled.links.push_back(Link{graph.Url(t), 0.f});
  return crawled;
}

struct IngestResult {
  double seconds = 0;      // inside PageDb calls only
  double cpu_seconds = 0;  // the same, process CPU time
  uint64_t pages = 0;
  uint64_t links = 0;
};

// Crawls pages [0, pages) of `graph` into `db`, `batch_pages` per transaction.
IngestResult Ingest(PageDb& db, const WebGraph& graph, uint32_t pages, uint32_t batch_pages) {
  IngestResult result;
  std::vector<uint32_t> targets;
  std::vector<CrawledPage> batch;
  for (uint32_t first = 0; first < pages; first += batch_pages) {
    batch.clear();
    for (uint32_t p = first; p < std::min(pages, first + batch_pages); ++p) {
      batch.push_back(PageOf(graph, p, targets));
      result.links += batch.back().links.size();
    }
    const auto start = Clock::now();
    const double cpu_start = CpuSeconds();
    Check(db.AddBatch(batch));
    result.seconds += Seconds(start);
    result.cpu_seconds += CpuSeconds() - cpu_start;
    result.pages += batch.size();
  }
  return result;
}

struct Csr {
  std::vector<uint64_t> offsets{0};
  std::vector<uint32_t> targets;
};

struct StreamResult {
  double seconds = 0;  // median of the warm passes
  uint64_t checksum = 0;
};

// Streams every edge of `db` 1 + `repeats` times; the first pass warms the page cache and
// fills `csr` when given.
StreamResult Stream(const PageDb& db, int repeats, uint64_t expected_edges, Csr* csr) {
  StreamResult result;
  std::vector<double> times;
  for (int r = 0; r <= repeats; ++r) {
    const Snapshot snapshot = Check(db.NewSnapshot());
    const auto start = Clock::now();
    uint64_t sum = 0, n = 0;
    EdgeCursor cursor = snapshot.Edges();
    for (; cursor.Valid(); cursor.Next()) {
      for (uint32_t t : cursor.targets()) sum += t ^ cursor.source();
      n += cursor.targets().size();
      if (r == 0 && csr != nullptr) {
        csr->targets.insert(csr->targets.end(), cursor.targets().begin(), cursor.targets().end());
        csr->offsets.push_back(csr->targets.size());
      }
    }
    Check(cursor.status());
    if (r > 0) times.push_back(Seconds(start));
    if (n != expected_edges) Die(InternalError("edge stream count differs from the header"));
    result.checksum = sum;
  }
  result.seconds = Median(times);
  return result;
}

int Main(int argc, char** argv) {
  CLI::App app("PageDB ingest and edge-stream benchmark on a generated web-like graph.",
               "page_db_bench");
  WebGraphOptions graph_options;
  uint32_t batch_pages = 1000, baseline_pages = 20'000;
  int repeats = 5;
  std::string dir = "/tmp/crawlrank-bench";
  app.add_option("--pages", graph_options.pages, "pages to crawl")->capture_default_str();
  app.add_option("--degree", graph_options.mean_out_degree, "mean out-degree")
      ->capture_default_str();
  app.add_option("--seed", graph_options.seed, "graph seed")->capture_default_str();
  app.add_option("--batch-pages", batch_pages, "pages per AddBatch")->capture_default_str();
  app.add_option("--baseline-pages", baseline_pages,
                 "pages of the one-page-per-transaction baseline")
      ->capture_default_str();
  app.add_option("--repeats", repeats, "edge-stream passes (median reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--dir", dir, "scratch directory (emptied)")->capture_default_str();
  PageDbOptions options;
  app.add_option("--fingerprint-batch", options.fingerprint_batch,
                 "file new pages in the fingerprints table once at least this many wait "
                 "(or a quarter of those filed, if more)")
      ->capture_default_str();
  bool keep = false;
  app.add_flag("--keep", keep, "keep the ingested DB in DIR/db");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const WebGraph graph(graph_options);
  std::printf("graph_pages %u\ngraph_hosts %zu\nseed %llu\n", graph.pages(), graph.hosts(),
              static_cast<unsigned long long>(graph_options.seed));

  // Baseline: one transaction per page, as Aduana's page_db_add did.
  double baseline_links_per_s = 0;
  {
    auto db = Check(PageDb::Open(dir + "/baseline"));
    const IngestResult base = Ingest(*db, graph, std::min(baseline_pages, graph.pages()), 1);
    std::printf("baseline_one_txn_per_page_links_per_s %.0f\n", base.links / base.seconds);
    std::printf("baseline_pages %llu\n", static_cast<unsigned long long>(base.pages));
    baseline_links_per_s = base.links / base.seconds;
  }
  std::filesystem::remove_all(dir + "/baseline");

  auto db = Check(PageDb::Open(dir + "/db", options));
  const IngestResult ingest = Ingest(*db, graph, graph.pages(), batch_pages);
  Check(db->Sync());
  const double ingest_links_per_s = ingest.links / ingest.seconds;
  std::printf("ingest_seconds %.3f\n", ingest.seconds);
  std::printf("ingest_cpu_seconds %.3f\n", ingest.cpu_seconds);
  std::printf("ingest_links_per_cpu_s %.0f\n", ingest.links / ingest.cpu_seconds);
  std::printf("ingest_links_per_s %.0f\n", ingest_links_per_s);
  std::printf("ingest_pages_per_s %.0f\n", ingest.pages / ingest.seconds);
  std::printf("ingest_vs_one_txn_per_page %.1f\n", ingest_links_per_s / baseline_links_per_s);

  const PageDbInfo info = Check(db->Info());
  std::printf("db_pages %llu\ndb_links %llu\n",
              static_cast<unsigned long long>(info.counters.pages),
              static_cast<unsigned long long>(info.counters.edges));
  std::printf("links_table_bytes_per_link %.3f\n",
              double(info.links_bytes) / double(info.counters.edges));
  std::printf("file_bytes_per_link %.3f\n", double(info.file_bytes) / double(info.counters.edges));

  // Edge stream from one snapshot, warm (the first pass warms the page cache).
  Csr csr;
  const StreamResult live = Stream(*db, repeats, info.counters.edges, &csr);
  // Baseline: the same pass over in-memory CSR arrays (sources re-numbered densely).
  std::vector<double> csr_s;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    uint64_t sum = 0;
    for (size_t s = 0; s + 1 < csr.offsets.size(); ++s) {
      for (uint64_t i = csr.offsets[s]; i < csr.offsets[s + 1]; ++i) sum += csr.targets[i] ^ s;
    }
    csr_s.push_back(Seconds(start));
    if (sum == 42) std::printf("#\n");  // keeps the loop
  }
  const double edges = static_cast<double>(info.counters.edges);
  std::printf("stream_links_per_s %.0f\n", edges / live.seconds);
  std::printf("csr_pass_links_per_s %.0f\n", edges / Median(csr_s));
  std::printf("stream_vs_csr_pass %.3f\n", Median(csr_s) / live.seconds);
  std::printf("stream_checksum %llu\n", static_cast<unsigned long long>(live.checksum));

  // The same DB compacted (PageDb::CompactTo): full B-tree pages.
  const auto compact_start = Clock::now();
  Check(db->CompactTo(dir + "/compact"));
  std::printf("compact_seconds %.3f\n", Seconds(compact_start));
  PageDbOptions reading;
  reading.read_only = true;
  auto compact = Check(PageDb::Open(dir + "/compact", reading));
  const PageDbInfo compact_info = Check(compact->Info());
  std::printf("compact_links_table_bytes_per_link %.3f\n",
              double(compact_info.links_bytes) / edges);
  std::printf("compact_file_bytes_per_link %.3f\n", double(compact_info.file_bytes) / edges);
  const StreamResult packed = Stream(*compact, repeats, info.counters.edges, nullptr);
  if (packed.checksum != live.checksum)
    Die(InternalError("the compacted copy streams other edges"));
  std::printf("compact_stream_links_per_s %.0f\n", edges / packed.seconds);
  std::printf("peak_rss_mib %.1f\n", PeakRssKiB() / 1024.0);
  compact.reset();
  db.reset();
  if (!keep) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  return crawlrank::bench::Main(argc, argv);
}
