// The crawler's private state (crawlrank/crawler.h), shared by its two files: crawler.cc
// (hand-outs, pages, parsing, the run loop) and crawler_robots.cc (robots.txt and sitemaps,
// over the robots.txt state of robots_table.h).
#ifndef CRAWLRANK_SRC_CRAWL_CRAWLER_IMPL_H_
#define CRAWLRANK_SRC_CRAWL_CRAWLER_IMPL_H_

#include "crawlrank/crawler.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/coding.h"
#include "crawl/crawl_options.h"
#include "crawl/fetcher.h"
#include "crawl/parse_pool.h"
#include "crawl/redirect_chains.h"
#include "crawl/robots_table.h"
#include "crawl/sitemap.h"
#include "crawl/warc_writer.h"
#include "crawlrank/clock.h"
#include "crawlrank/html_extract.h"
#include "crawlrank/robots.h"
#include "crawlrank/url.h"

namespace crawlrank {

// The window of CrawlProgress::recent_pages_per_s.
inline constexpr double kRecentWindowS = 10;
// Sitemaps fetched per robots.txt, and in all per run.
inline constexpr size_t kMaxSitemapsPerRobots = 10;
inline constexpr size_t kMaxSitemaps = 1000;
// How long a host the address guard refuses is held in the Scheduler: the run releases it
// when it ends; after a SIGKILL the hold lapses by itself.
inline constexpr int64_t kRefusedHoldMs = 3'600'000;

struct Crawler::Impl {
  // What the crawl drives: a Scheduler of its own (`owned`, Open on a PageDb) or the
  // caller's frontier.
  std::unique_ptr<Scheduler> owned;
  Frontier* frontier = nullptr;
  CrawlerOptions options;
  UrlProfile profile = UrlProfile::kRfc3986;
  std::unique_ptr<Fetcher> fetcher;
  std::unique_ptr<WarcWriter> warc;  // with options.warc_dir
  std::optional<KeywordScorer> keywords;
  HtmlExtractOptions extract;
  std::atomic<bool> stop{false};
  SystemClock clock;

  // robots.txt by origin, and the pages waiting for one (made by Make).
  std::optional<RobotsTable> robots;
  RedirectChains redirects;
  // Hosts fetched from before that the address guard refuses now (CrawlSummary::
  // refused_hosts): held in the Scheduler for the run, their pages kept here with their
  // leases, never reported (they come back at the next open).
  std::map<std::string, std::string> refused_hosts;
  std::vector<Request> held;
  bool only_refused_left = false;  // Round found nothing else to do

  enum class Kind : uint8_t { kPage, kRobots, kSitemap };
  struct Pending {
    Kind kind;
    Request request;     // kPage; for kRobots only its host and URL (the origin's page)
    std::string origin;  // kRobots
    int depth = 0;       // kSitemap: nesting of sitemap indexes
    int64_t started_ms = 0;
  };
  struct Fetched {  // a page's fetch, for the crawl log
    const FetchResult& result;
    int64_t started_ms;
  };
  // The crawl log (Run's); each entry's referrer comes with its Request.
  FetchLogFn fetch_log;
  void Log(const Request& request, std::optional<FailureKind> failure, uint16_t http_status,
           const Fetched* fetched);
  std::unordered_map<uint64_t, Pending> pending;
  uint64_t next_tag = 1;
  std::unordered_set<std::string> sitemaps_seen;
  uint64_t requeued_seeds = 0;  // by Open

  // Summary, shared with the parse threads.
  mutable std::mutex summary_mu;
  CrawlSummary summary;
  // (elapsed s, pages) at the last progress reports: the recent rate's window.
  mutable std::deque<std::pair<double, uint64_t>> rate_samples;
  std::chrono::steady_clock::time_point start;
  std::unique_ptr<ParsePool> pool;  // declared last: its threads stop first

  // Everything but the frontier: options checked, keywords read, the fetcher made, and
  // the seeds canonicalised into *seeds.
  static Result<std::unique_ptr<Impl>> Make(const CrawlerOptions& options, UrlProfile profile,
                                            std::vector<std::string>* seeds);

  Status Dispatch(Request request);
  Status StartPage(Request request);
  Status StartRobots(const std::string& origin, const std::string& host);
  void StartSitemap(const std::string& url, int depth);
  Status OnPage(Request request, FetchResult result, int64_t started_ms,
                std::vector<CrawlReport>& reports);
  Status OnRobots(const Pending& p, FetchResult result);
  // The pages of an origin whose robots.txt fetch says nothing there can be fetched (a
  // refused address, a protocol error): each fails as the robots.txt did, or is held
  // (HoldRefused).
  Status FailOrigin(const std::string& origin, const FetchResult& result,
                    std::vector<Request>& pages);
  Status OnSitemap(const Pending& p, const FetchResult& result);
  Status ParseBatch(std::vector<ParsePool::Job>& jobs);
  // Run's parts: one round of its loop (hands out parked and new requests, waits for
  // transfers, reports what ended; *finished when nothing is left), and its end.
  Status Unpark();
  Status Round(bool* finished);
  Status Collect(std::vector<FetchResult>& done);
  // Appends an exchange to the WARC files (with options.warc_dir, once its answer came whole).
  Status Archive(const FetchResult& result);
  Status Close(bool stopped, Status failure);
  // Whether `request`, refused by the address guard (`detail`), is held rather than
  // failed: only with the crawler's own Scheduler, and only for a host whose `before`
  // robots.txt entry shows that it answered once. Holds the host in the Scheduler.
  Result<bool> HoldRefused(Request& request, const RobotsEntry* before, const std::string& detail);
  // Nothing is left to do this run but pages of refused hosts (the run ends, unfinished).
  bool OnlyRefusedLeft(const SchedulerStats& stats) const;
  // The links of `reports` that a robots.txt already known refuses, each in its page's
  // report (CrawlReport::refused), counted once a run.
  void RefuseKnownDisallowed(std::vector<CrawlReport>& reports);
  Status SaveRobots(const std::string& host);
  void LoadRobots(const std::string& host);
  void CountError(FailureKind kind) {
    std::lock_guard lock(summary_mu);
    ++summary.errors[std::string(FailureKindName(kind))];
    ++summary.progress.errors;
  }
  CrawlProgress Progress() const;
  // Links longer than max_url_bytes are dropped before they reach the PageDB (they would
  // never be fetched, and the scheduler's patterns run on every new URL).
  bool UrlTooLong(std::string_view url) const { return url.size() > options.max_url_bytes; }
  // Ends the lease of a page that was not fetched (or not recorded), and counts why.
  Status Fail(const Request& request, FailureKind kind, bool retryable, std::string reason,
              uint16_t http_status = 0, std::optional<int64_t> retry_after_ms = std::nullopt,
              const Fetched* fetched = nullptr) {
    CountError(kind);
    Log(request, kind, http_status, fetched);
    FailureReport report;
    report.url = request.url;
    report.lease = request.lease;
    report.retryable = retryable;
    report.http_status = http_status;
    report.retry_after_ms = retry_after_ms;
    report.reason = std::move(reason);
    report.kind = kind;
    return frontier->Failed(report);
  }
  // Fails a page of an origin whose robots.txt could not be fetched, retries spent.
  Status FailUnreachable(const Request& request, const std::string& origin,
                         const RobotsEntry& entry) {
    return Fail(request, FailureKind::kRobotsUnreachable, false, entry.UnreachableReason(origin));
  }
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_CRAWLER_IMPL_H_
