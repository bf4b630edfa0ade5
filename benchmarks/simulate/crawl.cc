// The simulated crawl (crawl.h): the Scheduler's batches fetched from the graph, the scores
// it holds read at the checkpoints, and its stats checked at the end.
#include "crawl.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "bench_util.h"
#include "crawlrank/clock.h"

namespace crawlrank::bench {
namespace {

// The simulated clock starts here (2023-11-14 22:13:20 UTC), not at 0, so that crawl
// times look like times.
constexpr int64_t kStartMs = 1'700'000'000'000;

}  // namespace

struct Simulator::Progress {
  PageDb& db;
  Scheduler& scheduler;
  ManualClock& clock;
  CrawlOutcome out;
  std::array<uint64_t, kShareAt.size()> checkpoints;  // SharePages
  size_t next_checkpoint = 0;
  std::vector<bool> fetched;         // by node
  std::vector<CrawlReport> reports;  // of the batch
};

Result<Simulator::Attempt> Simulator::Crawl(ScoreMode mode,
                                            const std::filesystem::path& dir) const {
  if (options_.shards > 1 || options_.global_every > 0) return CrawlSharded(mode, dir);
  const std::string context = "simulate " + std::string(ScoreModeName(mode));
  const auto fail = [&](const Status& status) { return status.WithContext(context); };
  PageDbOptions db_options;
  db_options.error_if_exists = true;
  db_options.durability = Durability::kNone;
  Result<std::unique_ptr<PageDb>> db = PageDb::Open(dir.string(), db_options);
  if (!db.ok()) return fail(db.status());
  ManualClock clock(kStartMs);
  Result<std::unique_ptr<Scheduler>> opened =
      Scheduler::Open(**db, options_.ForMode(mode, &clock));
  if (!opened.ok()) return Attempt{opened.status(), {}};
  Scheduler* scheduler = opened->get();

  const bench::Clock::time_point start = bench::Clock::now();
  std::vector<std::string> seed_urls;
  for (uint32_t seed : seeds_) seed_urls.push_back(graph_.urls[seed]);
  if (Status s = scheduler->AddSeeds(seed_urls); !s.ok()) return fail(s);

  Progress crawl{**db, *scheduler, clock, {}, SharePages(graph_.pages()), 0,
                 std::vector<bool>(graph_.pages(), false), {}};
  for (;;) {
    Result<bool> more = Step(crawl);
    if (!more.ok()) return fail(more.status());
    if (!*more) break;
  }
  CrawlOutcome& out = crawl.out;
  out.seconds = Seconds(start);
  Measure(out.order, truth_, graph_.pages(), out);
  if (options_.relevant != nullptr) out.harvest = HarvestCurve(out.order, *options_.relevant, reachable_, kCurvePoints);
  CheckStats(crawl);
  out.simulated_ms = clock.NowMs() - kStartMs;
  return Attempt{Status::Ok(), std::move(out)};
}

Result<bool> Simulator::Step(Progress& crawl) const {
  const CrawlOutcome& out = crawl.out;
  if (out.fetched == reachable_) return false;
  size_t n = options_.batch;
  if (options_.max_pages != 0) {
    if (out.fetched >= options_.max_pages) return false;
    n = std::min<uint64_t>(n, options_.max_pages - out.fetched);
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<Request> requests, crawl.scheduler.Next(n));
  if (requests.empty()) {
    const SchedulerStats stats = crawl.scheduler.GetStats();
    if (stats.finished) return false;
    if (stats.next_ready_ms <= crawl.clock.NowMs()) {
      return InternalError("Next(" + std::to_string(n) + ") gave nothing at " +
                           std::to_string(crawl.clock.NowMs() - kStartMs) +
                           " ms, though GetStats says a request is ready (queued " +
                           std::to_string(stats.queued) + ", ready " +
                           std::to_string(stats.ready) + ")");
    }
    crawl.clock.Set(stats.next_ready_ms);  // nothing to do until a host's delay ends
    return true;
  }
  CRAWLRANK_RETURN_IF_ERROR(FetchBatch(crawl, requests));
  crawl.clock.Advance(options_.step_ms);
  if (options_.pace_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(options_.pace_us));
  return true;
}

Status Simulator::FetchBatch(Progress& crawl, std::vector<Request>& requests) const {
  CrawlOutcome& out = crawl.out;
  ++out.batches;
  crawl.reports.clear();
  for (Request& request : requests) {
    const auto it = graph_.node_of_fingerprint.find(request.fingerprint);
    if (it == graph_.node_of_fingerprint.end() || graph_.urls[it->second] != request.url) {
      return InternalError("Next handed out \"" + request.url +
                           "\", which is not a page of the graph");
    }
    const uint32_t node = it->second;
    if (crawl.fetched[node]) {
      ++out.refetched;
    } else {
      crawl.fetched[node] = true;
      out.order.push_back(node);
      ++out.fetched;
    }
    crawl.reports.push_back(Fetch(node, std::move(request), crawl.clock.NowMs()));
  }
  CRAWLRANK_RETURN_IF_ERROR(crawl.scheduler.CrawledBatch(crawl.reports));
  while (crawl.next_checkpoint < crawl.checkpoints.size() &&
         out.fetched >= crawl.checkpoints[crawl.next_checkpoint]) {
    CRAWLRANK_ASSIGN_OR_RETURN(const HeldScores held,
                               HeldBy(crawl.scheduler, crawl.db, out.fetched));
    out.tau_at[crawl.next_checkpoint++] = TauOf(held, truth_);
  }
  return Status::Ok();
}

void Simulator::CheckStats(Progress& crawl) const {
  CrawlOutcome& out = crawl.out;
  const SchedulerStats stats = crawl.scheduler.GetStats();
  out.reranks = stats.reranks;
  out.rerank_ms = stats.rerank_ms;
  const auto expect = [&](bool ok, std::string what) {
    if (!ok) out.anomalies.push_back(std::move(what));
  };
  expect(stats.crawled == out.fetched, "GetStats().crawled is " + std::to_string(stats.crawled) +
                                           " after " + std::to_string(out.fetched) + " pages");
  expect(stats.in_flight == 0, "GetStats().in_flight is " + std::to_string(stats.in_flight) +
                                   " with every lease ended");
  if (out.fetched == reachable_) {
    expect(stats.finished && stats.queued == 0,
           "every reachable page is crawled, but GetStats() says finished " +
               std::to_string(stats.finished) + ", queued " + std::to_string(stats.queued));
  }
}

Result<HeldScores> Simulator::HeldBy(const Scheduler& scheduler, const PageDb& db,
                                     uint64_t fetched) const {
  const std::vector<float> scores = scheduler.Scores();
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  HeldScores held;
  held.fetched = fetched;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) -> Status {
    const auto it = graph_.node_of_fingerprint.find(page.fingerprint);
    if (it == graph_.node_of_fingerprint.end() || page.id >= scores.size()) {
      return InternalError("page \"" + page.url + "\" of the PageDb is not in the graph");
    }
    held.nodes.push_back(it->second);
    held.scores.push_back(scores[page.id]);
    return Status::Ok();
  }));
  return held;
}

CrawlReport Simulator::Fetch(uint32_t node, Request request, int64_t now_ms) const {
  CrawlReport report;
  report.lease = request.lease;
  report.page.url = std::move(request.url);
  report.page.crawl_time_ms = now_ms;
  report.page.http_status = 200;
  const std::span<const uint32_t> out = graph_.OutLinks(node);
  report.page.links.reserve(out.size());
  for (uint32_t target : out) {
    report.page.links.push_back({graph_.urls[target], options_.LinkScoreOf(node, target, out.size())});
  }
  if (options_.topic_scores != nullptr) report.page.content_score = options_.topic_scores->content[node];
  return report;
}

}  // namespace crawlrank::bench
