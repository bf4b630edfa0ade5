// crawlrank/scheduler.h: what a crawler fetches next.
//
// A Scheduler runs over a PageDb opened for writing, in the same LMDB environment. It
// hands out the best uncrawled pages that their hosts allow now (Next), takes back what
// the crawler reports (Crawled, Failed), and keeps every host polite.
//
//   auto db = PageDb::Open("crawl.db", {});
//   auto scheduler = Scheduler::Open(**db, {});          // polite: 1 s, 1 in flight per host
//   (*scheduler)->AddSeeds({"https://example.com/"});
//   for (;;) {
//     auto batch = (*scheduler)->Next(16);
//     if (batch->empty()) { if ((*scheduler)->GetStats().finished) break; sleep; continue; }
//     for (const Request& r : *batch) {
//       fetch r.url ...;
//       (*scheduler)->Crawled({.page = {.url = r.url, .links = ...}, .lease = r.lease});
//       // or (*scheduler)->Failed({.url = r.url, .lease = r.lease, .reason = "timeout"});
//     }
//   }
//
// What it keeps, and where
// ------------------------
// The schedule is derived from the pages: a page the PageDB has and has not crawled is
// queued, unless the `schedule` table says otherwise (leased, waiting to retry, failed,
// due for a revisit). So a page reaches the schedule in the same transaction that first
// names it, whoever writes it (Crawled, or PageDb::Add on the same PageDb), and costs
// the schedule nothing on disk until something happens to it. Leases, retries and the
// per-host state (holds after 429/503, crawl delays set by the caller) are written in
// LMDB in the transaction that changes them; a Crawled report commits the page, its
// links, the new pages they name and the end of its lease in one transaction.
//
// In memory, each host keeps a heap of its queued pages by (priority, score), and the
// hosts that may send a request now sit in a heap by their best page: Next(n) costs
// O(n log hosts) and never scans the schedule. RAM: 12 bytes per page of the DB (host,
// heap position, score; 24 more with revisits on) plus 12 per queued page (score, id,
// priority), about 40 per page queued with a priority other than 0, and about 100 bytes
// per host plus its key.
//
// Payloads and priorities
// -----------------------
// A crawler can keep bytes of its own with a page it queues (a QueuedExtra: Scrapy's
// serialised request) and a priority that goes before the score. Both are given with the
// call that first names the page (AddSeeds, or the links of a Crawled report), apply only
// if that call creates the page (the first request wins, as Scrapy's dupefilter has it),
// and come back with the page in its Request. The payload lives in the `payloads` table
// from the transaction that creates the page to the one that records it crawled or failed
// for good; so a revisit of a crawled page has none, and priority 0.
//
// Durability and crashes
// ----------------------
// As the PageDb's (Durability): a call that returned is durable within sync_interval by
// default. A page handed out is never lost: until Crawled or Failed acknowledge it, it is
// in flight, and an expired lease (lease_ms) puts it back in the queue. Opening a
// Scheduler returns the previous writer's leases at once: only one process writes a
// PageDB at a time, so that writer is gone and nobody will acknowledge them. A page is
// never handed out twice while its lease is valid.
//
// Thread safety
// -------------
// All methods may be called from any number of threads of the one process that opened
// the PageDb for writing; they serialise on the PageDb's writer lock (Next and Crawled
// are both short transactions). Other processes (page_db_schedule, page_db_stats) read
// the `schedule` and `hosts` tables through their own snapshots.
//
// Time
// ----
// Every decision reads the `clock` of the options (default: the system clock). Tests and
// the crawl simulator pass a ManualClock and move it themselves; nothing here sleeps.
//
// Caveats
// -------
// - One Scheduler per PageDb (FailedPrecondition for a second), and the PageDb must
//   outlive it.
// - A report for a lease that expired is still recorded (the page was fetched), and
//   ends whatever lease the page has now; the holder of the newer lease is then told
//   nothing, and its own report later counts as a recrawl.
#ifndef CRAWLRANK_SCHEDULER_H_
#define CRAWLRANK_SCHEDULER_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/clock.h"
#include "crawlrank/page_db.h"
#include "crawlrank/page_types.h"
#include "crawlrank/rank.h"
#include "crawlrank/status.h"
#include "crawlrank/url.h"

namespace crawlrank {

// How queued pages are ordered; the highest score goes first, ties by page id (the order
// pages were discovered in). A page's priority (QueuedExtra) goes before its score.
// docs/scheduler.md compares them on simulated crawls.
enum class ScoreMode : uint8_t {
  // Online, no global computation:
  kLinkScore = 1,     // the best link score any in-link gave the page (Aduana's default)
  kBreadthFirst = 2,  // lowest depth first: the baseline of the crawl-ordering literature
  kRandom = 3,        // a fixed pseudo-random order (by fingerprint): the other baseline
  kOpic = 4,          // OPIC (Abiteboul et al. 2003): cash a crawled page passes on equally
                      // to its out-links; a page's score is the cash it has received
  // From the ranking engine (rank.h), recomputed as the graph grows (rerank_* options);
  // pages discovered since the last rank get an estimate (docs/scheduler.md):
  kInDegree = 5,          // links to the page from the pages known
  kPageRank = 6,          // partial PageRank of the known graph (Cho et al. 1998)
  kPersonalized = 7,      // personalized PageRank, teleport by content and link scores
  kTrustRank = 8,         // personalized PageRank from the seeds (depth 0)
  kHits = 9,              // HITS authority
  kTopicHits = 10,        // HITS with hubs weighing authorities by content/link scores
  kWeightedPageRank = 11  // weighted PageRank (Xing & Ghorbani)
};
// "link-score", "breadth-first", "random", "opic", "indegree", "pagerank", "ppr",
// "trustrank", "hits", "topic-hits", "wpr".
std::string_view ScoreModeName(ScoreMode mode);
// InvalidArgument naming the accepted names.
Result<ScoreMode> ParseScoreMode(std::string_view name);
// Every mode, in enum order.
std::vector<ScoreMode> AllScoreModes();

struct RevisitRule {
  std::string pattern;
  int64_t interval_ms = 0;  // above 0: revisit at this interval
  double multiplier = 0;    // else: scale the estimated interval by this (above 0)
};

struct SchedulerOptions {
  // Default: partial PageRank, which reached the hot pages soonest of all the modes on
  // every graph measured (docs/benchmarks.md, "Crawl guidance quality").
  ScoreMode score = ScoreMode::kPageRank;

  // --- Politeness, per host key (docs/scheduler.md has the table of front-end defaults).
  // What one politeness budget covers: the host name, or its registered domain.
  HostKeyMode host_key = HostKeyMode::kHost;
  // Minimum time between two requests to one host, from one hand-out to the next. 0 turns
  // the delay off (a crawl of one's own test server). A crawl delay set with
  // SetCrawlDelay (robots.txt) raises it for that host.
  int64_t min_delay_ms = 1000;
  // Requests to one host in flight at once.
  uint32_t max_in_flight_per_host = 1;
  // A shorter delay a host gets when no host is ready at min_delay_ms, so that a crawl
  // left with few hosts goes faster (never below a crawl delay). -1: none. Aduana's
  // per-domain rates map onto the pair: SOFT_CRAWL_LIMIT r (default 0.25 requests/s) is
  // min_delay_ms = 1000 / r, HARD_CRAWL_LIMIT R (default 100) is busy_delay_ms = 1000 / R.
  int64_t busy_delay_ms = -1;
  // How long a 429 or 503 without Retry-After holds its host: this, doubled for every
  // further such answer in a row (up to max_hold_ms); a success resets it. A Retry-After
  // longer than max_hold_ms is cut to it.
  int64_t hold_ms = 60'000;
  int64_t max_hold_ms = 3'600'000;

  // --- Leases and retries.
  // A page handed out and not acknowledged within this time goes back to the queue.
  int64_t lease_ms = 600'000;
  // A retryable failure retries after retry_ms, doubled for each further failure of the
  // page, until it has failed max_retries + 1 times; then the page is failed for good.
  int64_t retry_ms = 60'000;
  uint32_t max_retries = 3;

  // --- Filters, applied when a page joins the schedule (a filtered page stays in the
  // PageDB with its links; it is never handed out).
  // URL schemes to fetch; empty: any.
  std::vector<std::string> allowed_schemes = {"http", "https"};
  // ECMAScript regular expressions searched in the canonical URL: a page matching a deny
  // pattern is filtered; with allow patterns, so is one matching none of them.
  std::vector<std::string> allow_patterns, deny_patterns;

  // --- Revisits (off by default: a crawl then ends when nothing is queued or leased).
  // Crawled pages come back at the rate their content was seen to change (see
  // docs/scheduler.md for the estimator), within [min_revisit_ms, max_revisit_ms].
  bool revisits = false;
  int64_t min_revisit_ms = 3'600'000;          // an hour; also the wait after the first crawl
  int64_t max_revisit_ms = 30 * 86'400'000LL;  // thirty days
  // The share of each Next that goes to due revisits first (new pages fill the rest, and
  // revisits fill what new pages leave).
  double revisit_share = 0.2;
  // The first rule whose pattern (ECMAScript regex) is found in the URL sets the interval
  // (interval_ms) or scales the estimated one (multiplier), as Aduana's FREQ_SPEC did.
  std::vector<RevisitRule> revisit_rules;

  // --- Limits (0: none).
  // Pages deeper than this (seeds are depth 0) are not scheduled.
  uint32_t max_depth = 0;
  // Pages handed out in all (crawled, in flight or failed), and per host.
  uint64_t max_pages = 0;
  uint64_t max_pages_per_host = 0;

  // --- Re-ranking (the modes from the ranking engine).
  // Recompute the ranks when the DB has this share more pages than at the last rank...
  double rerank_growth = 0.01;
  // ...and at least this many more; or, with pages added, after this interval (0: never).
  uint64_t rerank_min_new_pages = 100;
  int64_t rerank_interval_ms = 0;
  // Re-rank in a background thread (Next keeps answering; the schedule is re-keyed in
  // batches of rerank_batch pages, each holding the scheduler's lock briefly). False:
  // re-rank inside the Next call that finds it due (deterministic: the crawl simulator).
  bool background_rerank = true;
  uint32_t rerank_batch = 16384;
  // Keep the ranking graph in memory between re-ranks (db_rank.h, LiveDbRank): a re-rank
  // then reads only the out-links of the pages written since the last one and starts from
  // its scores, instead of reading every link again. Costs 8 bytes a link and about 40 a
  // page for as long as the scheduler is open; a graph over rank.memory_budget is re-read
  // every time, as with false. PageRank, ppr and trustrank; the other rank modes re-read.
  bool keep_rank_graph = true;
  // Damping, tolerance, threads and memory budget of each re-rank.
  RankOptions rank;

  // The clock every decision reads; must outlive the Scheduler. nullptr: the system clock.
  const Clock* clock = nullptr;
};

// What a crawler keeps with a page it queues, given back with the page by Next: e.g.
// Scrapy's serialised request (callback, meta), and its priority. It applies only to a
// page that the call carrying it creates (see AddSeeds and CrawlReport::extras).
struct QueuedExtra {
  std::string url;       // canonicalised with the DB's profile
  std::string payload;   // opaque bytes; kept until the page is crawled or failed for good
  int32_t priority = 0;  // the queue orders by (priority, score): a higher priority goes first
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
};

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
  std::string reason;  // kept with a page that failed for good
};

struct SchedulerStats {
  uint64_t queued = 0;     // waiting for their turn (including those not ready yet)
  uint64_t ready = 0;      // queued pages whose host would take a request now
  uint64_t in_flight = 0;  // leased
  uint64_t retrying = 0;   // waiting for a retry
  uint64_t crawled = 0;
  uint64_t failed = 0;        // failed for good
  uint64_t filtered = 0;      // never scheduled: deeper than max_depth
  uint64_t reranks = 0;       // re-ranks done since Open
  // Of them, those that read every link of the DB: all without a kept graph
  // (SchedulerOptions::keep_rank_graph); with one, the first and any after a change it
  // could not account for.
  uint64_t rank_full_reads = 0;
  uint64_t ranked_pages = 0;  // pages the current ranks cover (rank modes)
  std::string rerank_error;   // why the last background re-rank failed; empty: it did not
  uint64_t hosts = 0;
  // When the next request may be handed out (never later; now when one is ready), if no
  // report comes in meanwhile: a host's delay ending, a retry or a lease coming due. -1
  // when the crawl is finished.
  int64_t next_ready_ms = -1;
  // Nothing is queued, retrying or in flight, or max_pages is reached: the crawl is over.
  // Never with revisits on and a page crawled: next_revisit_ms says when one is due.
  bool finished = false;
  int64_t next_revisit_ms = -1;  // revisits on: the earliest due (never later); -1: none
};

// The schedule as a reader sees it (page_db_schedule): what Scheduler::Inspect returns.
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

class Scheduler {
 public:
  // Loads the schedule of `db` (one pass over its pages and the scheduler's tables) and
  // joins its writes. `db` must be open for writing and outlive the Scheduler.
  // FailedPrecondition for a read-only DB or when another Scheduler uses it.
  static Result<std::unique_ptr<Scheduler>> Open(PageDb& db, const SchedulerOptions& options);
  // The schedule of `db` as `options` would order it, read from a snapshot without the
  // writer (the DB may be open read-only, beside a running crawl): the `next` best queued
  // pages, the leases in flight, and up to `max_hosts` hosts. Costs one pass over the
  // pages, like Open.
  static Result<ScheduleView> Inspect(const PageDb& db, const SchedulerOptions& options,
                                      size_t next, size_t max_hosts);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Adds pages to crawl at depth 0 (those already known keep their state). A URL that
  // cannot be canonicalised fails the whole call, naming it.
  Status AddSeeds(const std::vector<std::string>& urls);
  // The same, each seed with its payload and priority. They apply only to a seed this
  // call creates: an already known page keeps what it has (none, or its first caller's),
  // and of two seeds naming one new page the first wins.
  Status AddSeeds(const std::vector<QueuedExtra>& seeds);
  // The same for a braced list: {"https://a/", "https://b/"} would otherwise be ambiguous
  // between the two (two string literals can make either vector). GCC 12 still finds
  // designated initializers ambiguous here, AddSeeds({{.url = u, .payload = p}}): name the
  // type, AddSeeds({QueuedExtra{.url = u, .payload = p}}).
  Status AddSeeds(std::initializer_list<std::string> urls) {
    return AddSeeds(std::vector<std::string>(urls));
  }
  Status AddSeeds(std::initializer_list<QueuedExtra> seeds) {
    return AddSeeds(std::vector<QueuedExtra>(seeds));
  }

  // Up to n requests, best first, each from a host that may take it now, with the payload
  // and priority the page was queued with. Empty when no host is ready: GetStats() tells
  // when one will be, or that the crawl is finished.
  Result<std::vector<Request>> Next(size_t n);

  // Records a fetched page (its links become pages and join the queue) and ends its lease.
  Status Crawled(const CrawlReport& report);
  // Several in one transaction.
  Status CrawledBatch(const std::vector<CrawlReport>& reports);

  // Ends the lease of a page that could not be fetched, and retries it or fails it.
  // NotFound when the URL is not in the DB.
  Status Failed(const FailureReport& report);

  // Sets the crawl delay of a host (robots.txt); 0 restores min_delay_ms. Persisted.
  Status SetCrawlDelay(std::string_view host, int64_t delay_ms);

  // Puts a host (a politeness key) into a politeness group, e.g. the hosts of one server
  // IP: requests in flight to any of its hosts count against one max_in_flight_per_host,
  // and the delay runs from the last request to any of them (each host's own crawl delay
  // and holds still apply to it). An empty group takes the host out. Persisted.
  Status SetHostGroup(std::string_view host, std::string_view group);

  // The crawler's robots.txt state of a host: bytes opaque to the scheduler, kept in the
  // host's entry of the `hosts` table (docs/format.md). Empty for a host without any.
  std::string HostRobots(std::string_view host) const;
  // Replaces it. Persisted.
  Status SetHostRobots(std::string_view host, std::string_view bytes);

  SchedulerStats GetStats() const;

  // Recomputes the ranks now and re-keys the schedule (rank modes; OK and nothing to do
  // for the others). Background re-ranks call the same; this waits for one running.
  Status Rerank();

 private:
  struct Impl;
  explicit Scheduler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SCHEDULER_H_
