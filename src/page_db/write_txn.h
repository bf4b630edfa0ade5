// The PageDB's write transaction, split by job, and the hook through which another
// component (the scheduler) commits its own tables in the same LMDB transaction as the
// pages they belong to.
//
//   RunWrite(db, report, body)      takes the writer's lock, begins a transaction, runs
//                                   body(write), then Commit(); grows the map and runs
//                                   body again from the start when the map fills.
//   WriteTxn                        one transaction: the jobs below, and the hook.
//     PageCache                     records read and changed, written back in id order
//     LinkBuffer                    link blocks changed, written back in key order
//     WriterState (saved whole)     counters and positions; restored whole on rollback
//     MirrorUndo                    undoes the index and link scores of an aborted write
//   WriteHook                       joins every write transaction of a PageDb
#ifndef CRAWLRANK_SRC_PAGE_DB_WRITE_TXN_H_
#define CRAWLRANK_SRC_PAGE_DB_WRITE_TXN_H_

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crawlrank/page_db.h"
#include "page_db/crawl_counters.h"
#include "page_db/link_block.h"
#include "page_db/page_db_impl.h"

namespace crawlrank {

// The URLs of a batch of pages canonicalised and hashed before the write lock is taken:
// that work needs no shared state, so it runs beside other threads' transactions, and the
// transaction only resolves fingerprints to ids. (Splitting one batch over two threads
// was measured slower on a 2-core machine: the commit's kernel work needs the other core.)
struct PreparedLink {
  std::string_view url;  // canonical
  uint64_t fingerprint;
  uint32_t check;  // UrlCheck(url)
  const Link* link;
};

struct PreparedPage {
  const CrawledPage* page = nullptr;
  bool links_only = false;
  Status status;  // not OK: the page's own URL or a field is rejected (ValidateCrawledPage)
  std::string url;
  uint64_t fingerprint = 0;
  uint32_t check = 0;
  std::span<const PreparedLink> links;
  std::vector<AddReport::Rejected> rejected;  // links that could not be canonicalised (rare)
};

class PreparedBatch {
 public:
  // (page, links_only) pairs; the pages must outlive the batch.
  PreparedBatch(std::span<const std::pair<const CrawledPage*, bool>> pages, UrlProfile profile);
  size_t size() const { return pages_.size(); }
  const PreparedPage& at(size_t i) const { return pages_[i]; }
  // The status of the first page that cannot be written; OK when every page can. A batch
  // with one writes nothing (WriteTxn::Apply returns it too, and the transaction aborts).
  Status FirstError() const;

 private:
  std::vector<PreparedPage> pages_;
  std::vector<PreparedLink> links_;
  std::deque<std::string> converted_;  // a deque: growing it moves no string
};

class WriteTxn;

// A component that joins every write transaction of one PageDb (at most one per PageDb,
// attached with AttachWriteHook). Called with the writer's lock held, so a hook sees the
// transactions one at a time and in commit order.
class WriteHook {
 public:
  virtual ~WriteHook() = default;
  // Inside the transaction, after the pages' changes and before the counters and the
  // commit: write the hook's own tables through write.txn(). Keep in-memory changes
  // staged until Committed. An error aborts the whole transaction.
  virtual Status BeforeCommit(WriteTxn& write) = 0;
  // The transaction committed: make what BeforeCommit staged current.
  virtual void Committed() = 0;
  // The transaction was aborted (BeforeCommit may not have run): drop what was staged.
  virtual void RolledBack() = 0;
};

// Attaches `hook` to `db`'s writes. FailedPrecondition when the DB is read-only or another
// hook is attached. With the writer's lock held from before `load` to the attachment, so
// that no write falls between what the component read and its first transaction: `load`
// (when given) reads what the component needs (its Snapshot), then `join` (when given) runs
// in a write transaction of its own, which the hook does not see. An error of either
// leaves the hook detached.
Status AttachWriteHook(PageDb& db, WriteHook* hook, const std::function<Status()>& load = {},
                       const std::function<Status(WriteTxn&)>& join = {});
// Detaches `hook` when it is the one attached; waits for a transaction in progress.
void DetachWriteHook(PageDb& db, const WriteHook* hook);
// A snapshot of `db` opened with the writer's lock held, after `between` ran under the
// same lock: no write commits between the two (a hook's Committed included).
Result<Snapshot> NewSnapshotBetweenWrites(PageDb& db, const std::function<void()>& between);

// The records one transaction reads and changes. A pointer returned by Touch or Create
// stays valid until the next Create.
// The record of page `id` as stored in `pages` in `txn`.
Result<PageRecord> ReadStoredRecord(const PageDbImpl& db, MDB_txn* txn, uint32_t id);

class PageCache {
 public:
  explicit PageCache(uint32_t first_new_id) : first_new_id_(first_new_id) {}
  uint32_t first_new_id() const { return first_new_id_; }
  // The record of page `id`, read from `pages` the first time.
  Result<PageRecord*> Touch(const PageDbImpl& db, MDB_txn* txn, uint32_t id);
  // A new page's record; ids are handed out in order from first_new_id().
  PageRecord& Create() { return created_.emplace_back(); }
  std::span<const PageRecord> created() const { return created_; }
  // The record of a page touched by this transaction; nullptr when it touched none.
  const PageRecord* Find(uint32_t id) const;
  // Writes every touched record: changed ones in place, new ones appended.
  Status Write(WriteTxn& write) const;

 private:
  uint32_t first_new_id_;
  std::vector<PageRecord> created_;                   // page first_new_id_ + i
  std::unordered_map<uint32_t, PageRecord> changed_;  // older pages
};

// The link blocks one transaction changes. Lists it replaces are kept decoded; the others
// are copied from the stored value as they are.
class LinkBuffer {
 public:
  // Replaces the out-links of `source` by `sorted_targets` (strictly increasing), or with
  // `merge` adds them to those it has; returns how many it had before and has after.
  struct Counts {
    uint64_t before = 0;
    uint64_t after = 0;
    std::span<const uint32_t> list;  // the links after, valid until the next Put
  };
  Result<Counts> Put(const PageDbImpl& db, MDB_txn* txn, uint32_t source,
                     std::span<const uint32_t> sorted_targets, bool merge = false);
  // Writes the changed blocks in key order, moving the writer's max_links_block.
  Status Write(WriteTxn& write) const;

 private:
  struct Block {
    std::string stored;      // the block's value when first touched; empty: none
    LinkBlockLayout layout;  // views into `stored` (a map node: it never moves)
    std::array<bool, kLinkBlockSources> replaced{};
    std::array<std::vector<uint32_t>, kLinkBlockSources> lists;  // where replaced
  };
  Result<Block*> Load(const PageDbImpl& db, MDB_txn* txn, uint32_t block, int64_t max_block);
  std::map<uint32_t, Block> blocks_;
};

// One write transaction. Index and link-score changes reach the writer's in-memory
// mirror as they happen (later pages of the batch must resolve earlier ones), and are
// undone if the transaction aborts: the scalar state is saved whole, so a field added to
// WriterState is restored without a line here.
class WriteTxn {
 public:
  WriteTxn(PageDbImpl& db, lmdb::Txn txn, AddReport* report);

  MDB_txn* txn() const { return txn_.get(); }
  PageDbImpl& db() const { return db_; }
  bool map_full() const { return map_full_; }
  // Status of an LMDB call on this DB, noting a full map (RunWrite grows it and retries).
  Status Check(int rc, std::string_view op);

  // Records a fetched page (or, with links_only, just its out-links). Its out-links
  // replace those it had, or with `merge_links` are added to them. A page it creates gets
  // `depth` and `link_score` (WriteBatch::AddDiscovered; else 0: a seed).
  Status Apply(const PreparedPage& page, bool merge_links = false, uint32_t depth = 0,
               float link_score = 0.f);
  // Makes sure the page of a prepared URL exists (a seed: depth 0), raising its link
  // score to at least `link_score`; its links and crawl data stay as they are.
  Result<uint32_t> Discover(const PreparedPage& page, float link_score);
  Status Restore(const PageRecord& record);
  Status RestoreLinks(uint32_t source, std::vector<uint32_t> targets);

  // What this transaction did so far, for the hook:
  // pages it created (ids first_new_id() and up), in id order;
  std::span<const PageRecord> created() const { return pages_.created(); }
  uint32_t first_new_id() const { return pages_.first_new_id(); }
  // pages it recorded as fetched (Apply without links_only), in call order, with the
  // out-links each has now;
  struct Fetched {
    uint32_t id;
    std::span<const uint32_t> targets;
    const PageRecord* record;  // valid until the next Apply
  };
  size_t fetched_count() const { return fetched_ids_.size(); }
  Fetched fetched(size_t i) const;
  // The record of page `id` as this transaction sees it (its own changes included), read
  // without marking it changed: nothing is written back for it.
  Result<PageRecord> Record(uint32_t id) const;
  // pages whose out-links it wrote (replaced or merged, by any call), in call order,
  // repeats possible;
  std::span<const uint32_t> relinked() const { return relinked_; }
  // older pages whose link score it raised (their new score is db().link_scores[id]).
  std::span<const std::pair<uint32_t, float>> raised_scores() const { return undo_.old_scores; }

  // The crawl's counters (crawl_counters.h), for what the page writes do not see: a
  // failure of the page at canonical `url` reported (each attempt), and a page failed for
  // good (+1) or no longer (-1: re-queued, removed).
  // The failure also goes to the latest fetches (recent_fetches.h), at `time_ms`.
  void CountFailure(uint32_t id, std::string_view url, FailureKind kind, uint16_t http_status,
                    int64_t time_ms) {
    counter_deltas_.Add(CounterHostView(url), counter_field::kFailures + static_cast<size_t>(kind), 1);
    RecentFetch& failure = recent_.emplace_back();
    failure.time_ms = time_ms;
    failure.page = id;
    failure.http_status = http_status;
    failure.failed = true;
    failure.kind = kind;
  }
  void CountFailedPage(std::string_view url, int64_t delta) {
    counter_deltas_.Add(CounterHostView(url), counter_field::kFailedPages, delta);
  }
  // Counts a page this transaction created as a ghost (another node of a cluster owns it).
  void CountGhostPage(std::string_view url) {
    counter_deltas_.Add(CounterHostView(url), counter_field::kGhostPages, 1);
  }
  // Appends a progress sample at `time_ms` with the schedule's queue as the caller sees it
  // at commit; the crawl's counters are filled in then.
  void RecordProgress(int64_t time_ms, uint64_t queued, uint64_t in_flight) {
    progress_ = ProgressSample{.time_ms = time_ms, .queued = queued, .in_flight = in_flight};
  }
  // The time of the last progress sample committed (-1: none).
  int64_t last_progress_ms() const { return db_.writer.last_progress_ms; }
  // Writes every page created so far to its host's counters in this transaction (a
  // writer's close), not a second later.
  void ForceHostFlush() { force_host_flush_ = true; }
  // The fetch details of page `id`, when `info` has any (crawl_counters.cc; a reshard
  // copies them).
  Status PutFetchInfo(uint32_t id, const FetchInfo& info);
  // Adds `share` to what page `id` received from other nodes of a cluster
  // (received_shares.h).
  Status AddReceivedShare(uint32_t id, float share);

  // Writes the touched records, new ids and counters, runs the hook, and commits.
  Status Commit();
  // Undoes the in-memory changes of an aborted transaction.
  void Rollback();

 private:
  // The mirror's changes that saving WriterState does not cover: the pages created (the
  // tail of `unindexed`) and link scores raised.
  struct MirrorUndo {
    size_t unindexed_size = 0;
    std::vector<std::pair<uint32_t, float>> old_scores;  // (id, score before this txn)
  };

  // Returns the id of canonical `url`, creating the page when new. A fingerprint shared
  // with a different URL is AlreadyExists.
  Result<uint32_t> Resolve(std::string_view url, uint64_t fingerprint, uint32_t check,
                           uint32_t depth, uint64_t discovered_from, float link_score);
  // Returns the source's out-links after (merged ones included), valid until the next call.
  Result<std::span<const uint32_t>> PutLinks(uint32_t source, std::vector<uint32_t>& targets,
                                             bool merge = false);
  // Writes the pages not yet in `fingerprints` there once they are a batch.
  Status FileFingerprints();
  // Writes counter_deltas_ and progress_ (crawl_counters.cc).
  Status WriteCounters();
  // Adds the pages this transaction created to db_.pending_host_pages, and moves them all
  // to counter_deltas_ when a flush is due (kHostPagesFlushMs, or force_host_flush_);
  // Uncount undoes both for a rollback.
  void CountCreatedPages();
  void UncountCreatedPages();

  PageDbImpl& db_;
  lmdb::Txn txn_;
  AddReport* report_;
  const WriterState saved_;
  MirrorUndo undo_;
  PageCache pages_;
  LinkBuffer links_;
  bool filed_all_ = false;         // Commit filed every unindexed page in `fingerprints`
  std::vector<uint32_t> targets_;  // scratch space of Apply
  // Fetched pages: ids, their targets concatenated, and where each one's targets end.
  std::vector<uint32_t> fetched_ids_, fetched_targets_, fetched_ends_;
  std::vector<uint32_t> relinked_;
  CounterDeltas counter_deltas_;
  std::vector<RecentFetch> recent_;  // the fetches and failures of this transaction
  std::optional<ProgressSample> progress_;
  bool counted_created_ = false;
  std::vector<std::pair<std::string, int64_t>> flushed_;  // pending pages this txn writes
  bool host_flush_ = false;
  bool force_host_flush_ = false;
  bool map_full_ = false;
};

// Grows the writer's map until at most half of it is used. A component about to hold a
// snapshot for long (a re-rank) calls it first: the map can only grow once every
// snapshot of the process is closed, so a write that filled it meanwhile would wait.
Status ReserveMapHeadroom(PageDbImpl& db);

// Runs `body` in a write transaction and commits it; on a full map, grows it and runs
// `body` again from the start. FailedPrecondition on a read-only DB.
Status RunWrite(PageDbImpl& db, AddReport* report, const std::function<Status(WriteTxn&)>& body);
// The same with the writer's lock already held by the caller (the read-only check too).
Status RunWriteLocked(PageDbImpl& db, AddReport* report,
                      const std::function<Status(WriteTxn&)>& body);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_WRITE_TXN_H_
