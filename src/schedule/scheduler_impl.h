// The scheduler's private state (crawlrank/scheduler.h), shared by its two files:
// scheduler.cc (the write hook, seeds, reports and hand-outs) and scheduler_steer.cc (host
// politeness and limits, re-queues and removals). Locks and staging as scheduler.cc says.
#ifndef CRAWLRANK_SRC_SCHEDULE_SCHEDULER_IMPL_H_
#define CRAWLRANK_SRC_SCHEDULE_SCHEDULER_IMPL_H_

#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crawlrank/scheduler.h"
#include "page_db/page_db_impl.h"
#include "page_db/schedule_table.h"
#include "page_db/write_txn.h"
#include "schedule/reranker.h"
#include "schedule/schedule_state.h"

namespace crawlrank {

struct Scheduler::Impl final : WriteHook, RerankTarget {
  PageDb& db;
  PageDbImpl& store;
  const ScheduleTables tables;
  const SchedulerOptions options;
  SystemClock system_clock;
  const Clock& clock;

  mutable std::mutex mu;
  ScheduleState state;
  bool force_progress = false;  // RecordProgress: the next commit takes a sample

  // What the current transaction will change once it commits.
  struct Staged {
    std::vector<NewPage> created;
    // The extras of the pages the call may create (CrawlReport::extras, AddSeeds), by
    // fingerprint, the first for each page; set by the call's body, which RunWrite may run
    // again, so each run sets them afresh. The call owns the strings.
    struct Extra {
      std::string_view url;  // canonical
      const QueuedExtra* extra;
    };
    std::unordered_map<uint64_t, Extra> extras;
    // The fetchers' dates of the pages the call records as crawled (CrawlReport::
    // refetch_at_ms), by fingerprint, set as the extras are; and each fetched page's date
    // (by fetched index; 0: none).
    struct Date {
      std::string_view url;  // canonical
      int64_t at_ms;
    };
    std::unordered_map<uint64_t, Date> dates;
    std::vector<int64_t> dated;
    std::vector<uint32_t> fetched, raised;
    // The out-links of each fetched page (push modes): fetched[i]'s are
    // targets[ends[i-1] .. ends[i]).
    std::vector<uint32_t> targets, ends;
    std::vector<float> contents;  // fetched[i]'s content score (push modes)
    struct FailureChange {
      uint32_t id;
      ScheduleEntry entry;
    };
    std::vector<FailureChange> failures;
    std::vector<std::pair<uint32_t, HostEntry>> host_changes;
    std::vector<ScheduleState::Pick> picks;  // Next: made at once, undone on rollback
    // Fetched pages' crawl counters (by fetched index), and revisit leases that failed.
    std::vector<CrawlHistory> revisit_history;
    std::vector<uint32_t> revisit_failed;
    std::vector<uint32_t> relinked;  // pages whose out-links the transaction wrote
    std::vector<uint32_t> requeued;  // failed pages back in the queue (Requeue)
    std::vector<uint32_t> removed;   // pages removed for good (Remove)
    // Shares other nodes passed (Write's `shares`), by fingerprint as the call set them,
    // and those applied to pages of the DB, for Committed.
    std::unordered_map<uint64_t, float> received_by_fingerprint;
    std::vector<std::pair<uint32_t, float>> received;
    uint64_t next_lease = 0;
    void Clear() { *this = Staged(); }
  } staged;

  // Rank modes. Last: its thread stops before the rest goes.
  std::optional<Reranker> reranker;

  Impl(PageDb& db, const SchedulerOptions& options, UrlFilter filter, RevisitEstimator revisits)
      : db(db),
        store(PageDbInternals::Of(db)),
        tables(db),
        options(options),
        clock(options.clock != nullptr ? *options.clock : system_clock),
        state(options, std::move(filter), std::move(revisits)) {
    if (const auto algorithm = RankAlgorithmOf(options.score)) {
      reranker.emplace(db, this->options, *algorithm, clock, mu, *this);
    }
  }

  ~Impl() override {
    if (reranker.has_value()) reranker->Stop();
    DetachWriteHook(db, this);
  }

  // ---- RerankTarget (mu held)
  // Ghosts (a node of a cluster) are ranked with the rest, but their number triggers no
  // re-rank: only this node's own pages count.
  uint64_t KnownPages() const override { return state.pages() - state.GhostsBelow(state.pages()); }
  uint64_t RankedPages() const override {
    const uint64_t ranked = state.policy().ranked_pages();
    return ranked - state.GhostsBelow(ranked);
  }
  void Rekey(std::span<const double> scores, size_t first, size_t end, int64_t now) override {
    state.ApplyRanks(scores, first, end, now);
  }

  // Loads the schedule from a snapshot of the DB; `returned` as ScheduleState::Load.
  Status Load(ScheduleState::Returned* returned) {
    const int64_t now = clock.NowMs();
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
    std::lock_guard lock(mu);
    CRAWLRANK_ASSIGN_OR_RETURN(std::optional<int64_t> ranked_at,
                               state.Load(db, snapshot, now, returned));
    if (reranker.has_value()) {
      reranker->Grew(snapshot.counters());
      if (ranked_at.has_value()) reranker->Loaded(*ranked_at, state.policy().loaded_graph());
    }
    return Status::Ok();
  }

  // REQUIRES: mu held.
  SchedulerStats Stats() const {
    SchedulerStats stats = state.Stats(clock.NowMs());
    if (reranker.has_value()) reranker->AddStats(&stats);
    return stats;
  }

  // Stages `extra` for the page of canonical `url` unless an earlier extra of this
  // transaction names it. REQUIRES: mu held, inside the call's RunWrite body.
  void StageExtra(std::string_view url, uint64_t fingerprint, const QueuedExtra& extra) {
    staged.extras.try_emplace(fingerprint, Staged::Extra{url, &extra});
  }
  // Stages `at_ms` as the date of the page of canonical `url` (the last one given wins).
  // REQUIRES: mu held, inside the call's RunWrite body.
  void StageDate(std::string_view url, uint64_t fingerprint, int64_t at_ms) {
    staged.dates.insert_or_assign(fingerprint, Staged::Date{url, at_ms});
  }
  // Writes the shares the call received to the pages the DB holds, staged for Committed.
  Status StageReceived(WriteTxn& write);
  // A node of a cluster: notes what `source`, fetched for the first time, passes to each
  // ghost among `targets` (before PushFrom spends its cash). REQUIRES: mu held.
  void PassToGhosts(uint32_t source, std::span<const uint32_t> targets, float content_score);

  // Shares this node's pages passed to ghosts, by ghost, until TakePassedShares (mu held).
  std::unordered_map<uint32_t, float> passed;
  // Writes the extra of page `id`, which `write` creates: its payload, and a `schedule`
  // entry (queued) that keeps a priority other than 0.
  Status WriteExtra(WriteTxn& write, uint32_t id, const QueuedExtra& extra) const {
    if (!extra.payload.empty())
      CRAWLRANK_RETURN_IF_ERROR(tables.PutPayload(write, id, extra.payload));
    if (extra.priority == 0) return Status::Ok();
    ScheduleEntry entry;
    entry.priority = extra.priority;
    return tables.PutEntry(write, id, entry);
  }

  // AddSeeds: `extras`, when not empty, holds the extra of pages[i] at i.
  Status Seed(const std::vector<CrawledPage>& pages, std::span<const QueuedExtra> extras);
  // Next and NextOfHost (`only_host` not empty): checks the lease, re-ranks when due, then
  // picks in one transaction.
  Result<std::vector<Request>> HandOut(std::string_view only_host, size_t n, int64_t lease_ms);
  // HandOut's pick, in `write`: leases for `lease_ms`.
  Status Pick(WriteTxn& write, std::string_view only_host, size_t n, int64_t lease_ms,
              std::vector<Request>* out);
  // Pick from host `number` alone, as far as its politeness lets it take requests now.
  Status PickOfHost(WriteTxn& write, uint32_t number, size_t n, int64_t now, int64_t lease_ms,
                    std::vector<Request>* out);
  // max_pages is reached by the pages done and those handed out.
  bool AtMaxPages() const {
    return options.max_pages != 0 && state.Done() + state.leases().size() >= options.max_pages;
  }
  // Hands page `id` of host `number` out under a new lease, in `write`: a queued page
  // (taken from its host's heap), or with `revisit` a crawled page due again; the lease
  // runs for `lease_ms` from `now`.
  Status LeaseOut(WriteTxn& write, uint32_t id, uint32_t number, float key, bool revisit,
                  int64_t now, int64_t lease_ms, std::vector<Request>* out);
  // Failed's body, in `write`, for page `id`.
  Status Fail(WriteTxn& write, uint32_t id, const FailureReport& report);
  // Changes the persistent state of host `key` (created when new) in one transaction.
  Status ChangeHost(std::string_view key, const std::function<void(HostEntry&)>& change);

  // ---- WriteHook: every write transaction of the PageDB
  Status BeforeCommit(WriteTxn& write) override;
  void Committed() override;
  void RolledBack() override;
  // BeforeCommit's parts.
  Status StageCreated(WriteTxn& write);
  Status StageFetched(WriteTxn& write);
  Status WriteStaged(WriteTxn& write) const;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_SCHEDULER_IMPL_H_
