// The page state machine of a schedule, in memory: every page's state (queued in its
// host's heap, leased, waiting to retry, failed, crawled, filtered), the leases and their
// expiries, the retries, and the counts, over the host table, the score policy and the
// revisit estimator. It is loaded from a snapshot of the PageDB and changed by the
// scheduler only after the transaction that made a change commits (or, for a hand-out,
// at once and undone when the transaction rolls back); it never writes the DB itself.
// Not thread-safe: the scheduler's mutex guards it.
//
//             Place ──▶ queued ◀── (lease expired, retry due: PromoteDue)
//   (filtered) ◀─┘       │ HandOut
//                        ▼
//                      leased ──ApplyFailure──▶ retrying ──▶ failed
//                        │ MarkCrawled
//                        ▼
//                      crawled ──(revisit due: HandOut)──▶ leased
//
//   Any state ──Remove──▶ removed (for good; a crawled page keeps its record)
//   Place of a ghost ──▶ elsewhere (for good: another node of a cluster owns it)
#ifndef CRAWLRANK_SRC_SCHEDULE_SCHEDULE_STATE_H_
#define CRAWLRANK_SRC_SCHEDULE_SCHEDULE_STATE_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "crawlrank/clock.h"
#include "crawlrank/page_db.h"
#include "crawlrank/schedule_types.h"
#include "crawlrank/scheduler_options.h"
#include "page_db/schedule_table.h"
#include "schedule/host_table.h"
#include "schedule/page_heap.h"
#include "schedule/revisit_estimator.h"
#include "schedule/score_policy.h"
#include "schedule/time_queue.h"
#include "schedule/url_filter.h"

namespace crawlrank {

// Page states beyond heap positions (page_heap.h).
inline constexpr uint32_t kUnknown = kFirstState;  // not loaded yet (a page id past the arrays)
inline constexpr uint32_t kCrawled = kFirstState + 1;
inline constexpr uint32_t kLeased = kFirstState + 2;
inline constexpr uint32_t kRetrying = kFirstState + 3;
inline constexpr uint32_t kFailed = kFirstState + 4;
inline constexpr uint32_t kFiltered = kFirstState + 5;    // by depth or a pattern
inline constexpr uint32_t kOutOfScope = kFirstState + 6;  // on a host outside the scope
inline constexpr uint32_t kRemoved = kFirstState + 7;     // never handed out again
inline constexpr uint32_t kElsewhere = kFirstState + 8;   // a ghost: another node owns it
inline constexpr uint32_t kNoHost = UINT32_MAX;

// InvalidArgument naming the options out of range (Open and Inspect check them first).
Status ValidateSchedulerOptions(const SchedulerOptions& options);

struct Lease {
  uint64_t id;
  int64_t expiry_ms;
};

// A page that joins the schedule (Load, or a transaction that created it).
struct NewPage {
  uint32_t id, host, depth;
  uint64_t fingerprint;
  float link_score;
  UrlFilter::Verdict verdict;  // the URL filter's
  bool crawled;          // joins as crawled (a restored page, or one loaded from the DB)
  CrawlHistory history;  // a crawled page's counters (revisits)
  int32_t priority;      // an uncrawled page's tier (QueuedExtra::priority)
  bool elsewhere = false;  // a ghost (SchedulerOptions::elsewhere): never queued
};

class ScheduleState {
 public:
  ScheduleState(const SchedulerOptions& options, UrlFilter filter, RevisitEstimator revisits);

  // What Load found that a writer must write back: leases of the previous writer (their
  // entries, now queued) and revisit leases (now due: EntryState::kDue at the open).
  struct Returned {
    std::vector<std::pair<uint32_t, ScheduleEntry>> leases;
    std::vector<uint32_t> revisits;
  };
  // Loads `snapshot` of `db`: the pages, then the scheduler's tables. A writer (`returned`
  // not null) returns the leases it finds to the queue; a reader keeps them in flight.
  // Returns the time of the stored ranks the keys came from, when they did.
  Result<std::optional<int64_t>> Load(const PageDb& db, const Snapshot& snapshot, int64_t now,
                                      Returned* returned);

  // ---- the parts
  HostTable& hosts() { return hosts_; }
  const HostTable& hosts() const { return hosts_; }
  ScorePolicy& policy() { return policy_; }
  const ScorePolicy& policy() const { return policy_; }
  RevisitEstimator& revisits() { return revisits_; }
  const UrlFilter& filter() const { return filter_; }

  // ---- pages
  // Makes room for pages [0, pages).
  void Grow(uint32_t pages);
  uint64_t pages() const { return slot_.size(); }
  uint32_t state(uint32_t id) const { return slot_[id]; }
  uint32_t host_of(uint32_t id) const { return host_of_[id]; }
  int32_t PriorityOf(uint32_t id) const;
  // Failures so far of a page that may retry.
  uint32_t FailuresOf(uint32_t id) const;
  bool IsRevisitLease(uint32_t id) const { return revisit_leases_.count(id) != 0; }
  // Crawled and failed for good.
  uint64_t Done() const { return crawled_ + failed_; }
  uint64_t failed() const { return failed_; }
  // The ghosts among pages [0, end).
  uint64_t GhostsBelow(uint64_t end) const {
    return static_cast<uint64_t>(
        std::lower_bound(ghost_ids_.begin(), ghost_ids_.end(), end) - ghost_ids_.begin());
  }
  const std::unordered_map<uint32_t, Lease>& leases() const { return leases_; }
  uint64_t next_lease() const { return next_lease_; }
  void RaiseNextLease(uint64_t at_least) { next_lease_ = std::max(next_lease_, at_least); }

  // ---- transitions
  void Place(const NewPage& page, int64_t now);
  // The key of page `id` changed: move its heap entry.
  void Rekey(uint32_t id, int64_t now);
  // Re-keys pages [first, end) by ranks (a re-rank's batch).
  void ApplyRanks(std::span<const double> scores, size_t first, size_t end, int64_t now);
  // Hands page `id` of host `number` out under `lease`: a queued page leaves its
  // heap, or with `revisit` a crawled page is due again. Returns what Undo needs.
  struct Pick {
    uint32_t id, host;
    float key;
    bool revisit;
    HostTable::FlightMark flight;
  };
  Pick HandOut(uint32_t id, uint32_t number, float key, bool revisit, Lease lease, int64_t now);
  // Undoes a HandOut whose transaction rolled back.
  void Undo(const Pick& pick, int64_t now);
  void MarkCrawled(uint32_t id, int64_t now);
  void ApplyFailure(uint32_t id, const ScheduleEntry& entry, int64_t now);
  // The pages queued at host `number`, in no order.
  std::vector<uint32_t> QueuedAt(uint32_t number) const;
  // A page failed for good goes back to the queue, its failures and priority forgotten.
  void Unfail(uint32_t id, int64_t now);
  // Removes page `id` for good, whatever its state (DeleteQueue, PurgeURLs): it leaves its
  // heap, lease or retry, and is never handed out again. Returns whether it was still to
  // be done (queued, leased but not for a revisit, or retrying).
  bool Remove(uint32_t id, int64_t now);
  // A revisit lease that failed: the page stays crawled and is due again at `due_ms`.
  void RevisitFailed(uint32_t id, int64_t due_ms, int64_t now);
  // Expired leases back to the queue, retries come due, waiting hosts ready.
  void PromoteDue(int64_t now);
  // Rebuilds the time queues when stale entries pile up.
  void Compact(int64_t now);

  // Everything but the re-rank counters.
  SchedulerStats Stats(int64_t now) const;

 private:
  void Enqueue(uint32_t id, uint32_t host, uint32_t depth, uint64_t fingerprint, float link_score,
               UrlFilter::Verdict verdict, int64_t now);
  void Requeue(uint32_t id, int64_t now);
  void SetPriority(uint32_t id, int32_t priority, int64_t now);
  // A reader found page `id` leased under `lease`.
  void TakeLease(uint32_t id, Lease lease, int64_t now);
  Status LoadHosts(const ScheduleTables& tables, const Snapshot& snapshot, int64_t now);
  Status LoadEntry(uint32_t id, ScheduleEntry& entry, int64_t now, Returned* returned);

  // The limits the state machine applies itself (the parts keep their own options).
  uint32_t max_depth_;
  uint64_t max_pages_;
  UrlFilter filter_;
  HostTable hosts_;
  ScorePolicy policy_;
  RevisitEstimator revisits_;

  std::vector<uint32_t> host_of_;  // by page id
  std::vector<uint32_t> slot_;     // by page id: heap position or a state
  std::unordered_map<uint32_t, Lease> leases_;
  TimeQueue lease_expiry_;                           // ticket: lease id
  std::unordered_map<uint32_t, uint32_t> failures_;  // pages that failed and may retry
  // Crawled pages the filter no longer allows (out of scope, denied): never due again,
  // whatever date their entry keeps (Load).
  std::unordered_set<uint32_t> unrevisited_;
  TimeQueue retry_due_;                              // ticket: unused
  // The priorities other than 0 (QueuedExtra) of pages not yet crawled or failed for
  // good, whatever their state: a page that comes back to the queue keeps its tier.
  std::unordered_map<uint32_t, int32_t> priorities_;
  std::unordered_set<uint32_t> revisit_leases_;
  uint64_t next_lease_ = 1;
  uint64_t queued_ = 0, retrying_ = 0, crawled_ = 0, failed_ = 0, filtered_ = 0;
  uint64_t out_of_scope_ = 0, removed_ = 0;
  std::vector<uint32_t> ghost_ids_;  // in id order: pages are placed in id order
  // By host number: whether a page in the scope was placed on it (SchedulerStats::hosts
  // counts those, not the hosts only out-of-scope links named).
  std::vector<bool> host_in_scope_;
  uint64_t hosts_in_scope_ = 0;
  // ApplyRanks: the call that last touched each host (by number), so that a batch lists
  // each host once without sorting one entry per page (64 bits: the count never wraps).
  std::vector<uint64_t> host_touched_in_;
  uint64_t apply_calls_ = 0;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_SCHEDULE_STATE_H_
