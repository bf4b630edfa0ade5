// scheduler_bench: the scheduler's costs (docs/benchmarks.md, "Scheduler").
//
//   frontier  A frontier of --pages queued URLs over --hosts hosts of Zipf sizes, found by
//             --hubs crawled pages linking to them all. Reports the Scheduler's open time,
//             its memory per queued URL and per host, and Next(64) latency p50/p99 (the
//             clock moving 1 ms a call, default politeness), then again while a PageRank
//             re-rank and re-key of the whole DB runs in the background.
//   ingest    --report-pages crawled pages with 40 links each, reported in batches of
//             --batch through Scheduler::CrawledBatch, against PageDb::AddBatch of the same
//             pages into a bare PageDB in the same run (alternating, --repeats times).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "crawlrank/clock.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"

namespace crawlrank::bench {
namespace {

// Anonymous resident memory in bytes (RssAnon of /proc/self/status): the heap, without
// the pages of data.mdb that reading the DB brought into the map.
uint64_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stoull(line.substr(8)) * 1024;
  }
  return 0;
}

std::string PageUrl(uint64_t host, uint64_t page) {
  return "http://h" + std::to_string(host) + ".bench/p" + std::to_string(page);
}

// Host of each page: Zipf (s = 1) over `hosts`, by inverse transform on the harmonic sums.
std::vector<uint32_t> ZipfHosts(uint64_t pages, uint32_t hosts, uint64_t seed) {
  std::vector<double> cumulative(hosts);
  double sum = 0;
  for (uint32_t h = 0; h < hosts; ++h) cumulative[h] = sum += 1.0 / (h + 1);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<uint32_t> host(pages);
  for (auto& h : host) {
    h = static_cast<uint32_t>(std::lower_bound(cumulative.begin(), cumulative.end(), u(rng)) -
                              cumulative.begin());
  }
  return host;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// Next(64) latencies in seconds over `calls` calls; leases are acknowledged by nobody, the
// clock moves 1 ms a call.
std::vector<double> NextLatencies(Scheduler& scheduler, ManualClock& clock, int calls) {
  std::vector<double> latencies;
  latencies.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    clock.Advance(1);
    const auto start = Clock::now();
    auto next = Check(scheduler.Next(64));
    latencies.push_back(Seconds(start));
  }
  return latencies;
}

void Frontier(const std::string& dir, uint64_t pages, uint32_t hosts, uint32_t hubs, int calls) {
  const std::string path = dir + "/frontier";
  std::filesystem::remove_all(path);
  PageDbOptions db_options;
  db_options.durability = Durability::kNone;
  auto db = Check(PageDb::Open(path, db_options));
  const std::vector<uint32_t> host = ZipfHosts(pages, hosts, 1);
  auto start = Clock::now();
  // Hub h links to pages h, h + hubs, h + 2 hubs, ...: every page is found by one hub.
  for (uint32_t h = 0; h < hubs; ++h) {
    CrawledPage hub;
    hub.url = "http://hub" + std::to_string(h) + ".bench/";
    hub.http_status = 200;
    for (uint64_t p = h; p < pages; p += hubs) {
      hub.links.push_back({PageUrl(host[p], p), 1.0f / static_cast<float>(1 + p % 1000)});
    }
    Check(db->Add(hub));
  }
  std::printf("frontier: %llu pages over %u hosts (Zipf), found by %u hubs: built in %.1f s\n",
              static_cast<unsigned long long>(pages), hosts, hubs, Seconds(start));

  // Let the writeback of the build finish first: a commit's pwrite of a page still under
  // writeback waits for it, which would be counted as the scheduler's latency.
  Check(db->Sync());
  ::sync();
  ManualClock clock(1'700'000'000'000);
  SchedulerOptions options;  // default politeness: 1 s, one in flight per host
  options.clock = &clock;
  options.score = ScoreMode::kPageRank;
  options.rerank_min_new_pages = UINT64_MAX / 2;  // re-ranked only when asked, below
  options.rerank_graph_growth = 0;
  if (std::getenv("SCHEDULER_BENCH_STREAM") != nullptr) options.rank.mode = RankMode::kStream;
  const uint64_t rss_before = ResidentBytes();
  start = Clock::now();
  auto scheduler = Check(Scheduler::Open(*db, options));
  const double open_s = Seconds(start);
  const uint64_t rss_after = ResidentBytes();
  const SchedulerStats stats = scheduler->GetStats();
  std::printf(
      "open: %.2f s; resident memory +%.1f MB: %.1f B per queued URL (%llu queued, "
      "%llu hosts)\n",
      open_s, static_cast<double>(rss_after - rss_before) / 1e6,
      static_cast<double>(rss_after - rss_before) / static_cast<double>(stats.queued),
      static_cast<unsigned long long>(stats.queued), static_cast<unsigned long long>(stats.hosts));

  const auto report = [](const char* what, const std::vector<double>& latencies) {
    std::printf("%s: Next(64) over %zu calls: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", what,
                latencies.size(), 1e3 * Percentile(latencies, 0.5),
                1e3 * Percentile(latencies, 0.99),
                1e3 * *std::max_element(latencies.begin(), latencies.end()));
  };
  report("idle", NextLatencies(*scheduler, clock, calls));

  // The same while a full re-rank and re-key runs in another thread.
  std::atomic<bool> done{false};
  double rerank_s = 0;
  std::thread rerank([&] {
    const auto t = Clock::now();
    Check(scheduler->Rerank());
    rerank_s = Seconds(t);
    done = true;
  });
  std::vector<double> during;
  while (!done.load()) {
    auto more = NextLatencies(*scheduler, clock, 50);
    during.insert(during.end(), more.begin(), more.end());
  }
  rerank.join();
  std::printf("re-rank (PageRank) and re-key of %llu pages: %.2f s\n",
              static_cast<unsigned long long>(scheduler->GetStats().ranked_pages), rerank_s);
  report("during the re-rank", during);
}

std::vector<CrawledPage> ReportPages(uint64_t count) {
  std::vector<CrawledPage> pages(count);
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < count; ++i) {
    CrawledPage& page = pages[i];
    page.url = PageUrl(i % 5000, i);
    page.http_status = 200;
    page.content_hash = i;
    page.crawl_time_ms = 1'700'000'000'000;
    // What crawlrank crawl reports of a fetch (format version 7): kept per page, counted.
    page.fetch = {.content_type = "text/html; charset=utf-8",
                  .wire_bytes = 12'000 + i % 997,
                  .decoded_bytes = 40'000 + i % 1009,
                  .fetch_ms = static_cast<uint32_t>(50 + i % 300),
                  .title = "Page " + std::to_string(i) + " of the benchmark's site"};
    for (int l = 0; l < 40; ++l) {
      const uint64_t target = rng() % (count * 20);
      page.links.push_back({PageUrl(target % 5000, target), 0.5f});
    }
  }
  return pages;
}

void Ingest(const std::string& dir, uint64_t count, size_t batch, int repeats, ScoreMode mode) {
  const std::vector<CrawledPage> pages = ReportPages(count);
  std::vector<double> bare, scheduled;
  uint64_t reranks = 0, rerank_ms = 0;  // the last run's
  for (int r = 0; r < repeats; ++r) {
    for (const bool with_scheduler : {false, true}) {
      const std::string path = dir + "/ingest";
      std::filesystem::remove_all(path);
      auto db = Check(PageDb::Open(path, {}));  // default durability: within a second
      std::unique_ptr<Scheduler> scheduler;
      SchedulerOptions options;
      options.score = mode;
      if (with_scheduler) scheduler = Check(Scheduler::Open(*db, options));
      std::vector<CrawlReport> reports;
      const auto start = Clock::now();
      for (size_t first = 0; first < pages.size(); first += batch) {
        const size_t end = std::min(pages.size(), first + batch);
        if (with_scheduler) {
          reports.clear();
          for (size_t i = first; i < end; ++i) reports.emplace_back().page = pages[i];
          Check(scheduler->CrawledBatch(reports));
        } else {
          Check(db->AddBatch(std::span(pages).subspan(first, end - first)));
        }
      }
      Check(db->Sync());
      (with_scheduler ? scheduled : bare).push_back(static_cast<double>(count) / Seconds(start));
      if (with_scheduler) {
        const SchedulerStats stats = scheduler->GetStats();
        reranks = stats.reranks;
        rerank_ms = stats.rerank_ms;
      }
    }
  }
  const double b = Median(bare), s = Median(scheduled);
  std::printf(
      "ingest of %llu pages x 40 links in batches of %zu, median of %d: PageDB %.0f "
      "pages/s, through the Scheduler %.0f pages/s: %.2fx the time (%llu re-ranks, %.2f s "
      "of rank thread, in the last run)\n",
      static_cast<unsigned long long>(count), batch, repeats, b, s, b / s,
      static_cast<unsigned long long>(reranks), static_cast<double>(rerank_ms) / 1000);
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  CLI::App app(
      "Measures the scheduler: Next latency on a large frontier, its memory, and "
      "the cost of reporting crawled pages through it.",
      "scheduler_bench");
  std::string what = "all", dir = "/tmp/crawlrank-scheduler-bench";
  uint64_t pages = 10'000'000, report_pages = 50'000;
  uint32_t hosts = 100'000, hubs = 100;
  int calls = 5000, repeats = 5;
  size_t batch = 100;
  std::string mode = std::string(crawlrank::ScoreModeName(crawlrank::SchedulerOptions().score));
  app.add_option("what", what, "frontier, ingest or all")->capture_default_str();
  app.add_option("--dir", dir, "scratch directory")->capture_default_str();
  app.add_option("--pages", pages, "frontier: queued URLs")->capture_default_str();
  app.add_option("--hosts", hosts, "frontier: hosts")->capture_default_str();
  app.add_option("--hubs", hubs, "frontier: crawled pages that link to the frontier")
      ->capture_default_str();
  app.add_option("--calls", calls, "frontier: Next(64) calls timed")->capture_default_str();
  app.add_option("--report-pages", report_pages, "ingest: pages reported")->capture_default_str();
  app.add_option("--batch", batch, "ingest: pages per report")->capture_default_str();
  app.add_option("--repeats", repeats, "ingest: runs of each, alternating")->capture_default_str();
  app.add_option("--score", mode, "ingest: the Scheduler's score mode")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::filesystem::create_directories(dir);
  if (what == "frontier" || what == "all") {
    crawlrank::bench::Frontier(dir, pages, hosts, hubs, calls);
  }
  if (what == "ingest" || what == "all") {
    crawlrank::bench::Ingest(dir, report_pages, batch, repeats,
                             crawlrank::bench::Check(crawlrank::ParseScoreMode(mode)));
  }
  std::filesystem::remove_all(dir);
  return 0;
}
