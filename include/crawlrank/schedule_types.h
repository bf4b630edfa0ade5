// crawlrank/schedule_types.h: what goes in and out of a scheduler: the requests it hands
// out, the reports a crawler gives back, and what it tells of its state.
#ifndef CRAWLRANK_SCHEDULE_TYPES_H_
#define CRAWLRANK_SCHEDULE_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "crawlrank/failure_kind.h"
#include "crawlrank/page_types.h"

namespace crawlrank {

// What a crawler keeps with a page it queues, given back with the page by Next: e.g.
// Scrapy's serialised request (callback, meta), and its priority. It applies only to a
// page that the call carrying it creates (see AddSeeds and CrawlReport::extras).
struct QueuedExtra {
  std::string url;       // canonicalised with the DB's profile
  std::string payload;   // opaque bytes; kept until the page is crawled or failed for good
  int32_t priority = 0;  // the queue orders by (priority, score): a higher priority goes first
};

// A node of a cluster (SchedulerOptions::elsewhere): the score a push mode (opic,
// indegree, the mass of blend and topical) passed along links from this node's pages to
// `page`, a ghost, since Scheduler::TakePassedShares last asked; its owner adds it
// (Scheduler::Write's `shares`).
struct PassedShare {
  uint32_t page = 0;
  float share = 0;
};
// A share another node passed to the page of canonical `url`, this node's (Scheduler::
// Write): stored (format version 9) and added to the page's cash, in-degree or mass.
struct ReceivedShare {
  std::string url;
  float share = 0;
};

// A page handed out by Next.
struct Request {
  std::string url;
  uint64_t fingerprint = 0;
  uint32_t depth = 0;
  float score = 0;
  uint64_t lease = 0;    // give it back in Crawled / Failed
  std::string host;      // the politeness key
  bool revisit = false;  // a crawled page due again (SchedulerOptions::revisits)
  std::string payload;   // QueuedExtra::payload of the page; empty when it had none
  int32_t priority = 0;  // QueuedExtra::priority of the page; 0 when it had none
  // What the last crawl of the page found, for a conditional revisit (If-Modified-Since)
  // and its 304: when it was (Unix ms) and the content hash it recorded; 0 when never.
  int64_t last_crawl_ms = 0;
  uint64_t content_hash = 0;
  // The page whose link first found this one (PageRecord::discovered_from), by URL: what
  // the crawl log names as the referrer. Empty for a seed, or when the frontier does not
  // say (SchedulerOptions::name_referrers off, a URLFrontier server other than crawlrank's).
  std::string referrer;
};

// A page that could not be fetched (Frontier::Failed), or a link that will not be.
struct FailureReport {
  std::string url;
  uint64_t lease = 0;
  // False: the page is failed for good at once (e.g. a URL the crawler cannot fetch).
  bool retryable = true;
  // The HTTP status when there was an answer (429, 5xx), 0 for a network error.
  uint16_t http_status = 0;
  // A 429 or 503 holds the whole host: for Retry-After when the server sent it (in
  // milliseconds from now), or for the growing hold of SchedulerOptions.
  std::optional<int64_t> retry_after_ms;
  std::string reason;  // the detail, kept with a page that failed for good
  // Why (failure_kind.h); kOther is filed as InferFailureKind(http_status, reason) says.
  FailureKind kind = FailureKind::kOther;
};

// A fetched page: what the PageDB records (PageDb::Add), and the lease it ends.
// Outcomes: a 2xx, 3xx or 4xx other than 429 is a crawled page with its status (a 404 has
// no links; a redirect is a page whose one link is its target). A 429, a 5xx or a network
// error is a failure: report it with Failed.
struct CrawlReport {
  CrawledPage page;
  uint64_t lease = 0;  // 0: the page was not handed out by Next (or the lease is lost)
  // Payloads and priorities of the pages this report's links create. An extra applies
  // only to a page that the call creates (in CrawledBatch, any report's links), and the
  // first extra naming a page wins; one naming a page that already exists, or one the
  // call does not create, is ignored. An extra whose URL cannot be canonicalised fails
  // the whole call (InvalidArgument naming the URL) before anything is written.
  std::vector<QueuedExtra> extras;
  // When to fetch the page again, as its fetcher decided (Unix ms; URLFrontier's
  // refetchable_from_date): it is handed out as a revisit (Request::revisit) once that
  // time comes, whether SchedulerOptions::revisits is on or off, and the date is kept
  // (docs/format.md, state 5) so that a restart keeps it. 0: no date; the crawl's revisit
  // options decide (off by default: never again), and a date an earlier report gave goes.
  int64_t refetch_at_ms = 0;
  // Links of the page the crawler will not fetch, each with why (a robots.txt it already
  // knows refuses them): recorded as Failed reports with lease 0 would be, failed for good
  // (retryable is taken as false; a page already crawled or failed stays as it is, and a
  // link refused twice in one call is failed once). The Scheduler writes them in the
  // page's transaction, so that none is ever handed out; a remote frontier sends them
  // just before the page. Their urls are among the page's links; their leases are ignored.
  std::vector<FailureReport> refused;
};

// A date for a page that a Scheduler::Write records as crawled (CrawlReport::refetch_at_ms
// says what it means); a date for a URL the write does not record as crawled is ignored.
struct RefetchDate {
  std::string url;
  int64_t at_ms = 0;
};

// A page failed for good, as the PageDB keeps it (Scheduler::FailedPages).
struct FailedPage {
  std::string url;
  uint32_t id = 0;
  FailureKind kind = FailureKind::kOther;
  std::string detail;        // FailureReport::reason
  uint16_t http_status = 0;  // of the last attempt; 0: no answer
  uint32_t attempts = 0;     // failures reported, the last included
  int64_t failed_ms = 0;     // when, Unix ms; 0 when a version 3 DB kept it
};

// Which failed pages a listing or a re-queue takes: those matching every field given.
struct FailureFilter {
  std::optional<FailureKind> kind;
  std::string host;       // the URL's host (HostKey), e.g. "example.com"; empty: any
  std::string url_regex;  // RE2 (crawlrank/url_pattern.h), searched in the canonical URL; empty: any
  std::vector<std::string> urls;  // canonicalised with the DB's profile; empty: any
};

// Which pages Scheduler::Remove takes: those matching every field given.
struct RemoveFilter {
  std::string host;  // a politeness key (HostKey), e.g. "example.com"; empty: any
  // Pages created before this time (Unix ms; CreationMark in page_db.h); 0: any.
  int64_t created_before_ms = 0;
};

// What Scheduler::Remove removed: every page, and of them those still to be done
// (queued, handed out or waiting for a retry).
struct RemoveCounts {
  uint64_t removed = 0;
  uint64_t active = 0;
};

struct SchedulerStats {
  uint64_t queued = 0;     // waiting for their turn (including those not ready yet)
  uint64_t ready = 0;      // queued pages whose host would take a request now
  uint64_t in_flight = 0;  // leased
  uint64_t retrying = 0;   // waiting for a retry
  uint64_t crawled = 0;
  uint64_t failed = 0;    // failed for good
  uint64_t filtered = 0;  // never scheduled: deeper than max_depth, or refused by a pattern
  uint64_t out_of_scope = 0;  // never scheduled: on a host outside the scope
  uint64_t removed = 0;       // never handed out again (Scheduler::Remove)
  uint64_t ghosts = 0;  // a node of a cluster: pages another node owns (SchedulerOptions::elsewhere)
  uint64_t reranks = 0;   // re-ranks done since Open
  // Milliseconds those re-ranks took, ranking and re-keying (wall time: with one rank
  // thread and background_rerank off, as crawlrank_simulate runs them, the CPU time).
  uint64_t rerank_ms = 0;
  // Of them, those that read every link of the DB: all without a kept graph
  // (SchedulerOptions::keep_rank_graph); with one, the first and any after a change it
  // could not account for.
  uint64_t rank_full_reads = 0;
  uint64_t ranked_pages = 0;  // pages the current ranks cover (rank modes)
  std::string rerank_error;   // why the last background re-rank failed; empty: it did not
  // A node of a cluster (global_rank.h): re-rank batches keyed from a global run newer than
  // the one before (one per run), and the pages the global rank in use covers.
  uint64_t global_rekeys = 0;
  uint64_t global_ranked_pages = 0;
  uint64_t hosts = 0;  // hosts with a page in the scope
  // When the next request may be handed out (never later; now when one is ready), if no
  // report comes in meanwhile: a host's delay ending, a retry or a lease coming due. -1
  // when the crawl is finished.
  int64_t next_ready_ms = -1;
  // Nothing is queued, retrying or in flight, or max_pages is reached: the crawl is over.
  // Never with revisits on and a page crawled: next_revisit_ms says when one is due.
  bool finished = false;
  int64_t next_revisit_ms = -1;  // revisits on: the earliest due (never later); -1: none
  // max_pages is reached (so finished), whatever is still queued: raise it to go on.
  bool limit_reached = false;
};

// Calls fn(name, &SchedulerStats::field) for every field, in declaration order: the one
// list of names that conversions of the stats to other forms (the Python bindings'
// attributes and dict) walk, so that a field added above reaches them all.
template <typename Fn>
constexpr void ForEachStatsField(Fn&& fn) {
  fn("queued", &SchedulerStats::queued);
  fn("ready", &SchedulerStats::ready);
  fn("in_flight", &SchedulerStats::in_flight);
  fn("retrying", &SchedulerStats::retrying);
  fn("crawled", &SchedulerStats::crawled);
  fn("failed", &SchedulerStats::failed);
  fn("filtered", &SchedulerStats::filtered);
  fn("out_of_scope", &SchedulerStats::out_of_scope);
  fn("removed", &SchedulerStats::removed);
  fn("ghosts", &SchedulerStats::ghosts);
  fn("reranks", &SchedulerStats::reranks);
  fn("rerank_ms", &SchedulerStats::rerank_ms);
  fn("rank_full_reads", &SchedulerStats::rank_full_reads);
  fn("ranked_pages", &SchedulerStats::ranked_pages);
  fn("rerank_error", &SchedulerStats::rerank_error);
  fn("global_rekeys", &SchedulerStats::global_rekeys);
  fn("global_ranked_pages", &SchedulerStats::global_ranked_pages);
  fn("hosts", &SchedulerStats::hosts);
  fn("next_ready_ms", &SchedulerStats::next_ready_ms);
  fn("finished", &SchedulerStats::finished);
  fn("next_revisit_ms", &SchedulerStats::next_revisit_ms);
  fn("limit_reached", &SchedulerStats::limit_reached);
}

// The schedule as a reader sees it (page_db_schedule): what Scheduler::Inspect returns.
// Where one page stands in the schedule (Scheduler::StateOf).
struct PageState {
  enum class Kind {
    kQueued,    // waiting its turn (never fetched, or due again)
    kLeased,    // handed out; time_ms: the lease's expiry
    kRetrying,  // failed, to be tried again; time_ms: when
    kFailed,    // failed for good
    kCrawled,   // fetched
    kRemoved,   // never handed out again (Scheduler::Remove), whatever it was
    kElsewhere,  // a ghost: another node of a cluster owns it (SchedulerOptions::elsewhere)
  };
  Kind kind = Kind::kQueued;
  // Unix ms: for kLeased the lease's expiry, for kRetrying the retry; for kCrawled when it
  // is due again at a set time (its fetcher's date, CrawlReport::refetch_at_ms, or a
  // failed revisit's retry), 0 for none (the revisit options' estimate is not kept).
  int64_t time_ms = 0;
  int32_t priority = 0;  // QueuedExtra::priority, while queued, leased or retrying
};

struct ScheduleView {
  int64_t now_ms = 0;  // the options' clock when it was read
  struct Page {
    std::string url;
    float score = 0;
    std::string host;
    int32_t priority = 0;  // QueuedExtra::priority
  };
  // The best queued pages, best first by (priority, score), whatever their host's state.
  std::vector<Page> next;
  struct InFlight {
    std::string url;
    uint64_t lease = 0;
    int64_t expiry_ms = 0;
    std::string host;
  };
  std::vector<InFlight> in_flight;  // by lease
  struct HostState {
    std::string key;
    // When the host may take a request, as far as the DB tells: a hold ends then. (The
    // delay since the writer's last hand-out lives only in the writer's memory.)
    int64_t ready_ms = 0;
    int64_t hold_until_ms = 0;
    uint32_t in_flight = 0;
    uint64_t queued = 0;
    uint64_t done = 0;  // crawled or failed for good
    int64_t delay_ms = 0;
  };
  // Hosts with pages queued or in flight, a hold or a crawl delay; most queued first.
  std::vector<HostState> hosts;
  SchedulerStats stats;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SCHEDULE_TYPES_H_
