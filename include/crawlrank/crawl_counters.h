// crawlrank/crawl_counters.h: what a PageDB counts about a crawl as it goes (format
// version 7), so that a reader shows any figure without a pass over the pages.
//
// Three tables, all written inside the writer's own transactions, so that every figure
// agrees with the pages of the same snapshot:
//   - counters: CrawlCounters for the whole crawl and for each host (HostKey with
//     HostKeyMode::kHost: the host name without port, the scheduler's default politeness
//     key, whatever the crawl's own);
//   - fetches: the last fetch's FetchInfo of each page whose crawler reported one
//     (page_types.h), one entry a page, no history;
//   - progress: a ProgressSample every SchedulerOptions::progress_interval_ms (10 s by
//     default) while a Scheduler writes, so a finished DB keeps its whole history (about
//     350 KB a day of crawling).
// Snapshot reads them (page_db.h: CrawlTotals, HostTotals, ForEachHostTotals, FetchOf,
// Progress); docs/format.md has the encodings.
#ifndef CRAWLRANK_CRAWL_COUNTERS_H_
#define CRAWLRANK_CRAWL_COUNTERS_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "crawlrank/failure_kind.h"

namespace crawlrank {

// A fetch's HTTP status class: kNone for no status or one of 600 and above.
enum class StatusClass : uint8_t { kNone = 0, k1xx, k2xx, k3xx, k4xx, k5xx };
inline constexpr size_t kStatusClasses = 6;
StatusClass StatusClassOf(uint16_t http_status);
// "none", "1xx", "2xx", "3xx", "4xx", "5xx".
std::string_view StatusClassName(StatusClass status_class);

// Counts of a crawl or of one host. The page counts are the state now; the rest only grow
// (a Prometheus counter can read them).
struct CrawlCounters {
  // Pages known (crawled or only linked to). A node of a cluster leaves out the pages it
  // keeps only for the links to them, which another node owns: ghost_pages counts those.
  uint64_t pages = 0;
  uint64_t crawled_pages = 0;  // pages crawled at least once
  uint64_t failed_pages = 0;   // pages failed for good now (a re-queue or removal lowers it)
  // Fetches recorded (every crawl of a page, recrawls too), by status class.
  std::array<uint64_t, kStatusClasses> fetches{};
  // Failures reported (each attempt, retried or final), by kind (failure_kind.h).
  std::array<uint64_t, kMaxFailureKind + 1> failures{};
  uint64_t wire_bytes = 0;     // FetchInfo::wire_bytes summed
  uint64_t decoded_bytes = 0;  // FetchInfo::decoded_bytes summed
  uint64_t fetch_ms = 0;       // FetchInfo::fetch_ms summed
  // Ghosts (format version 9): pages another node of a cluster owns, kept here for the
  // links to them, never crawled here (scheduler_options.h, SchedulerOptions::elsewhere).
  uint64_t ghost_pages = 0;

  uint64_t fetches_total() const;
  uint64_t failures_total() const;
  uint64_t fetches_of(StatusClass c) const { return fetches[static_cast<size_t>(c)]; }
  uint64_t failures_of(FailureKind k) const { return failures[static_cast<size_t>(k)]; }
  friend bool operator==(const CrawlCounters&, const CrawlCounters&) = default;
};

// One sample of a crawl's progress: the crawl's counters at `time_ms` and the schedule's
// queue. Rates are differences between samples.
struct ProgressSample {
  int64_t time_ms = 0;          // Unix ms, the scheduler's clock
  uint64_t crawled_pages = 0;   // CrawlCounters::crawled_pages
  uint64_t fetches = 0;         // CrawlCounters::fetches_total()
  uint64_t failures = 0;        // CrawlCounters::failures_total()
  uint64_t wire_bytes = 0;      // CrawlCounters::wire_bytes
  uint64_t queued = 0;          // SchedulerStats::queued
  uint64_t in_flight = 0;       // SchedulerStats::in_flight
  friend bool operator==(const ProgressSample&, const ProgressSample&) = default;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_CRAWL_COUNTERS_H_
