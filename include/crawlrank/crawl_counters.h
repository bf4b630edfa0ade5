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
//     350 KB a day of crawling);
//   - recent (format version 10): the latest kRecentFetches fetches and failures, each a
//     RecentFetch numbered from 1 in the order written, in a ring whose oldest entry the
//     next one overwrites in the same transaction: what a dashboard's live tail shows.
// Format version 10 also adds two histograms to CrawlCounters: each recorded fetch's time
// and its wire bytes, by Prometheus bucket (the buckets' bounds are below).
// Snapshot reads them (page_db.h: CrawlTotals, HostTotals, ForEachHostTotals, FetchOf,
// Progress, RecentFetches); docs/format.md has the encodings.
#ifndef CRAWLRANK_CRAWL_COUNTERS_H_
#define CRAWLRANK_CRAWL_COUNTERS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "crawlrank/failure_kind.h"

namespace crawlrank {

// A fetch's HTTP status class: kNone for no status or one of 600 and above.
enum class StatusClass : uint8_t { kNone = 0, k1xx, k2xx, k3xx, k4xx, k5xx };
inline constexpr size_t kStatusClasses = 6;
StatusClass StatusClassOf(uint16_t http_status);
// "none", "1xx", "2xx", "3xx", "4xx", "5xx".
std::string_view StatusClassName(StatusClass status_class);

// The histograms' buckets: a fetch of `fetch_ms` counts in the first bucket whose upper
// bound (inclusive, as Prometheus' `le`) is at least that; the last bucket is +Inf.
inline constexpr std::array<uint32_t, 11> kFetchMsBounds = {10,  25,   50,   100,   250,  500,
                                                            1000, 2500, 5000, 10000, 30000};
inline constexpr size_t kFetchMsBuckets = kFetchMsBounds.size() + 1;
inline constexpr std::array<uint64_t, 8> kWireBytesBounds = {
    1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
inline constexpr size_t kWireBytesBuckets = kWireBytesBounds.size() + 1;
size_t FetchMsBucket(uint64_t fetch_ms);
size_t WireBytesBucket(uint64_t wire_bytes);

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
  // Histograms (format version 10): the fetches recorded with their details (a FetchInfo
  // that is not empty: every fetch of `crawlrank crawl`, any a front end reported so) by
  // time (kFetchMsBounds) and by wire bytes (kWireBytesBounds), one count per bucket (not
  // cumulative). Fetches recorded before a DB's upgrade to version 10 are in none.
  std::array<uint64_t, kFetchMsBuckets> fetch_ms_buckets{};
  std::array<uint64_t, kWireBytesBuckets> wire_bytes_buckets{};

  uint64_t fetches_total() const;
  // The fetches the histograms count (the sum of either's buckets).
  uint64_t observed_fetches() const;
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

// One entry of the latest fetches (format version 10): a fetch recorded (any HTTP status)
// or a failure reported (each attempt, retried or final).
struct RecentFetch {
  uint64_t seq = 0;           // 1, 2, 3, ... in the order written; never reused
  int64_t time_ms = 0;        // the fetch's crawl time, or when the failure was reported
  uint32_t page = 0;          // page id (its URL and referrer are in its record)
  uint16_t http_status = 0;   // 0: no answer
  bool failed = false;        // a failure report; `kind` says which
  FailureKind kind = FailureKind::kOther;
  uint64_t wire_bytes = 0;    // FetchInfo's, for a recorded fetch
  uint64_t decoded_bytes = 0;
  uint32_t fetch_ms = 0;
  std::string content_type;   // cut at kMaxContentTypeBytes
  friend bool operator==(const RecentFetch&, const RecentFetch&) = default;
};
// How many the PageDB keeps: at about 60 bytes each, 64 KiB of the file.
inline constexpr uint64_t kRecentFetches = 1024;

}  // namespace crawlrank

#endif  // CRAWLRANK_CRAWL_COUNTERS_H_
