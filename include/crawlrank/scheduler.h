// crawlrank/scheduler.h: what a crawler fetches next.
//
// A Scheduler runs over a PageDb opened for writing, in the same LMDB environment. It
// hands out the best uncrawled pages that their hosts allow now (Next), takes back what
// the crawler reports (Crawled, Failed), and keeps every host polite. Its options are in
// scheduler_options.h, what goes in and out in schedule_types.h; docs/scheduler.md says
// how it works, what each choice costs, and what it guarantees.
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
// - Durability: as the PageDb's. A Crawled report commits the page, its links, the pages
//   they name and the end of its lease in one transaction. A page handed out is never
//   lost: until acknowledged it is in flight, and an expired lease (lease_ms) or a restart
//   puts it back in the queue; it is never handed out twice while its lease is valid.
// - Thread safety: every method may be called from any thread of the process that opened
//   the PageDb for writing. Other processes read the schedule with Inspect.
// - Time: every decision reads the options' clock; nothing here sleeps.
// - One Scheduler per PageDb (FailedPrecondition for a second); the PageDb outlives it.
#ifndef CRAWLRANK_SCHEDULER_H_
#define CRAWLRANK_SCHEDULER_H_

#include <cstddef>
#include <span>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/frontier.h"
#include "crawlrank/page_db.h"
#include "crawlrank/schedule_types.h"
#include "crawlrank/scheduler_options.h"
#include "crawlrank/score_mode.h"
#include "crawlrank/status.h"

namespace crawlrank {

class Scheduler final : public Frontier {
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
  // Where each of `pages` (read from `snapshot` of `db`) stands in the schedule, in their
  // order. One pass over the `schedule` table, which holds only the pages leased, retrying,
  // failed, due again or queued with a priority: for a person or an occasional look-up.
  static Result<std::vector<PageState>> StatesOf(const PageDb& db, const Snapshot& snapshot,
                                                 std::span<const PageRecord> pages);
  // The ids of the pages of `db` removed (Remove), read from `snapshot`, in id order. One
  // pass over the `schedule` table.
  static Result<std::vector<uint32_t>> RemovedPages(const PageDb& db, const Snapshot& snapshot);
  // The same for the ghosts of a node of a cluster (SchedulerOptions::elsewhere).
  static Result<std::vector<uint32_t>> GhostPages(const PageDb& db, const Snapshot& snapshot);
  // The pages of `db` failed for good that `filter` matches, in id order, read from a
  // snapshot (the DB may be open read-only, beside a running crawl). InvalidArgument for a
  // bad regex or URL in the filter.
  static Result<std::vector<FailedPage>> FailedPages(const PageDb& db,
                                                     const FailureFilter& filter = {});
  // The same, from `snapshot` of `db` (to agree with other reads of it).
  static Result<std::vector<FailedPage>> FailedPages(const PageDb& db, const Snapshot& snapshot,
                                                     const FailureFilter& filter = {});
  ~Scheduler() override;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Adds pages to crawl at depth 0 (those already known keep their state). A URL that
  // cannot be canonicalised fails the whole call, naming it.
  Status AddSeeds(const std::vector<std::string>& urls) override;
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

  // Writes `batch` (PageDb::Write) in one transaction, with `extras` for the pages it
  // creates and does not crawl: the payload and priority each is queued with, as AddSeeds
  // gives seeds theirs (a page that exists keeps what it has; of two extras naming one new
  // page the first wins). A URL of `extras` that cannot be canonicalised fails the call
  // before anything is written, naming it. `dates` say when pages the batch records as
  // crawled are due again (RefetchDate; a crawled page of the batch without one has no
  // date), checked the same way. `shares` are what other nodes of a cluster passed to pages
  // of the batch (ReceivedShare): a URL the batch does not hold is ignored; a share that
  // is not finite or below 0 fails the call before anything is written.
  Status Write(const WriteBatch& batch, std::span<const QueuedExtra> extras,
               std::span<const RefetchDate> dates = {},
               std::span<const ReceivedShare> shares = {});
  // A node of a cluster: the shares its pages passed to ghosts since the last call
  // (PassedShare), each ghost once with their sum, for the caller to send on. Not kept
  // across a restart: a share not taken before the process ends is lost.
  std::vector<PassedShare> TakePassedShares();

  // Up to n requests, best first, each from a host that may take it now, with the payload
  // and priority the page was queued with. Empty when no host is ready: GetStats() tells
  // when one will be, or that the crawl is finished.
  Result<std::vector<Request>> Next(size_t n) override;
  // The same, each request leased for `lease_ms` instead of the options' lease_ms (a
  // remote client names its own: URLFrontier's delay_requestable). InvalidArgument when
  // lease_ms is not above 0.
  Result<std::vector<Request>> Next(size_t n, int64_t lease_ms);
  // The same from one host only (a politeness key), best first, as far as its politeness
  // lets it take requests now: nothing when it has no room, is held, waits out its delay, or
  // is not known. Revisits due are not among them (Next takes those).
  Result<std::vector<Request>> NextOfHost(std::string_view host, size_t n, int64_t lease_ms);

  // Records a fetched page (its links become pages and join the queue) and ends its lease.
  Status Crawled(const CrawlReport& report);
  // Several in one transaction.
  Status CrawledBatch(const std::vector<CrawlReport>& reports) override;

  // Ends the lease of a page that could not be fetched, and retries it or fails it.
  // NotFound when the URL is not in the DB.
  Status Failed(const FailureReport& report) override;

  // Appends a progress sample now, whatever progress_interval_ms says (SchedulerOptions),
  // so that the last sample of a crawl is its end: the crawler and the Python front ends
  // call it when they stop. One transaction; nothing when progress samples are off.
  Status RecordProgress();

  // Puts the pages failed for good that `filter` matches back in the queue, as if new:
  // their retries start over, at priority 0 (a payload was dropped with the failure).
  // Returns how many. One transaction; InvalidArgument for a bad regex or URL.
  Result<uint64_t> Requeue(const FailureFilter& filter);

  // Removes the pages `filter` matches for good, whatever their state: none of them is
  // handed out again (a lease out ends, a late report of it only updates its record), and
  // a URL found again stays removed; they stay in the link graph. Persisted (format
  // version 6). One transaction and one pass over the pages (URLFrontier's DeleteQueue,
  // DeleteCrawl and PurgeURLs). InvalidArgument for a negative time.
  Result<RemoveCounts> Remove(const RemoveFilter& filter);

  // Fails the queued pages of one origin of a host for good, in one transaction (Frontier).
  Result<uint64_t> FailQueued(std::string_view host, std::string_view origin,
                              const FailureReport& report) override;

  // Sets the crawl delay of a host (robots.txt); 0 restores delay_ms. Persisted.
  Status SetCrawlDelay(std::string_view host, int64_t delay_ms) override;

  // Holds a host until `until_ms` (Unix ms): none of its pages is handed out before then,
  // as after a 429 (URLFrontier's BlockQueueUntil). 0, or a time past, ends a hold.
  // Persisted.
  Status HoldHost(std::string_view host, int64_t until_ms);
  // The pages of a host (a politeness key) queued now, whatever its politeness says; 0 for
  // a host not known. Not those in flight or waiting for a retry.
  uint64_t QueuedOfHost(std::string_view host) const;

  // Sets delay_ms from now on: the delay between two requests to a host that has no
  // longer crawl delay of its own. A host waiting out the old delay waits the new one from
  // its last hand-out. Not persisted: the caller stores it with the crawl's configuration
  // (crawl_config.h, key delay_ms), as crawlrank_serve's SetDelay does.
  Status SetDefaultDelay(int64_t delay_ms);

  // Caps the pages of a host (a politeness key) to crawl, crawled and failed for good
  // together: once they and those handed out reach `max_pages`, none of its pages is
  // handed out. It replaces max_pages_per_host for this host (higher or lower); 0 gives
  // it back (URLFrontier's SetCrawlLimit). Persisted.
  Status SetHostLimit(std::string_view host, uint64_t max_pages);

  // Puts a host (a politeness key) into a politeness group, e.g. the hosts of one server
  // IP: requests in flight to any of its hosts count against one per_host,
  // and the delay runs from the last request to any of them (each host's own crawl delay
  // and holds still apply to it). An empty group takes the host out. Persisted.
  Status SetHostGroup(std::string_view host, std::string_view group);

  // The crawler's robots.txt state of a host: bytes opaque to the scheduler, kept in the
  // host's entry of the `hosts` table (docs/format.md). Empty for a host without any.
  std::string HostRobots(std::string_view host) const override;
  // Replaces it. Persisted.
  Status SetHostRobots(std::string_view host, std::string_view bytes) override;

  SchedulerStats GetStats() const override;

  // The score each page of the DB is keyed by now, by page id (the mode's: its rank or
  // estimate, cash, depth, ...; a crawled page keeps its last). For analysis: the
  // simulator compares it with the whole graph's PageRank (benchmarks/simulate/crawl.cc).
  // Copies one float a page under the scheduler's lock.
  std::vector<float> Scores() const;

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
