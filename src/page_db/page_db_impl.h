// Private state of a PageDb, shared by page_db.cc (open, write, read) and
// page_db_check.cc (Check, Info).
#ifndef CRAWLRANK_SRC_PAGE_DB_IMPL_H_
#define CRAWLRANK_SRC_PAGE_DB_IMPL_H_

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <xxhash.h>

#include "base/coding.h"
#include "base/unique_fd.h"
#include "crawlrank/clock.h"
#include "crawlrank/crawl_counters.h"
#include "crawlrank/page_db.h"
#include "page_db/fingerprint_index.h"
#include "page_db/lmdb_env.h"
#include "page_db/lmdb_verify.h"

namespace crawlrank {

// Keys of the `meta` table (docs/format.md).
inline constexpr std::string_view kMetaMagic = "magic";
inline constexpr std::string_view kMetaFormatVersion = "format_version";
inline constexpr std::string_view kMetaUrlProfile = "url_profile";
inline constexpr std::string_view kMetaHash = "hash";
inline constexpr std::string_view kMetaCreated = "created_ms";
inline constexpr std::string_view kMetaPages = "pages";
inline constexpr std::string_view kMetaCrawledPages = "crawled_pages";
inline constexpr std::string_view kMetaEdges = "edges";
inline constexpr std::string_view kMetaIndexedPages = "indexed_pages";
inline constexpr std::string_view kMagicValue = "crawlrank-pagedb";
inline constexpr std::string_view kHashValue = "xxh3-64 seed 0";
// `PageDB "path"`: how every message names a PageDB.
inline std::string PageDbName(std::string_view path) {
  return "PageDB \"" + std::string(path) + "\"";
}

// LMDB's named-table limit for a PageDB environment: its eight tables, with room to grow.
inline constexpr unsigned kMaxTables = 16;  // 14 in use (version 10)

// LMDB keys: big-endian, so byte order is numeric order (docs/format.md).
struct Key32 {
  explicit Key32(uint32_t v) { coding::EncodeBigEndian32(v, bytes); }
  MDB_val val() { return MDB_val{4, bytes}; }
  char bytes[4];
};
struct Key64 {
  explicit Key64(uint64_t v) { coding::EncodeBigEndian64(v, bytes); }
  MDB_val val() { return MDB_val{8, bytes}; }
  char bytes[8];
};

inline std::string Fixed64Value(uint64_t v) {
  std::string s;
  coding::PutFixed64(s, v);
  return s;
}

// How many items counted by the file's header to reserve room for up front. The header,
// and the entry counts LMDB keeps, are only as good as the file: beyond 2^20, a vector
// grows as the items are read, so that a damaged count cannot make an allocation fail.
inline uint64_t ReserveBound(uint64_t counted) {
  return std::min<uint64_t>(counted, uint64_t{1} << 20);
}

// How many new pages the writer lets wait before it files them in `fingerprints`, when
// `indexed` pages are filed there: the option's batch, or a quarter of the filed pages when
// that is more. A sorted pass visits nearly every leaf of the table, so a fixed batch would
// make filing cost grow with the DB (quadratic in all); a batch growing with the table
// keeps it a constant per page, and readers' scans of the unfiled pages a fraction of one
// pass over the pages.
inline uint64_t FingerprintFilingThreshold(const PageDbOptions& options, uint64_t indexed) {
  return std::max<uint64_t>({1, options.fingerprint_batch, indexed / 4});
}

class WriteHook;

// The one way into the private state of a PageDb and its snapshots (page_db.h keeps
// PageDb::Impl and Snapshot::Impl private): for the src/ components that share the DB's
// transactions (the writer, the scheduler's tables) and for white-box tests that must plant
// what cannot happen naturally (a 64-bit fingerprint collision).
class PageDbInternals {
 public:
  using Impl = PageDb::Impl;
  static Impl& Of(PageDb& db);
  static const Impl& Of(const PageDb& db);
  // The LMDB read transaction of a snapshot, for src/ components reading their own tables
  // consistently with the pages.
  static MDB_txn* TxnOf(const Snapshot& snapshot);
  // PageDb::Write of `batch`, calling `each_run` first in every run of the transaction
  // (a full map runs it again): for a component that joins the write (the scheduler's
  // WriteHook) and must stage its part of it afresh each time.
  static Status Write(PageDb& db, const WriteBatch& batch, const std::function<void()>& each_run,
                      AddReport* report = nullptr);
};

// How src/ names a PageDb's private state.
using PageDbImpl = PageDbInternals::Impl;

// The writer's scalar state. A write transaction saves it whole and a rollback restores
// it whole, so a field added here needs no rollback code.
struct WriterState {
  PageDbCounters counters;
  int64_t max_links_block = -1;  // highest key in `links`, to append in order
  uint64_t indexed_pages = 0;    // pages [0, indexed_pages) are filed in `fingerprints`
  int64_t last_created_mark_ms = -1;  // time of the last `created` mark (-1: none)
  CrawlCounters crawl;                // the whole crawl's, as meta "crawl_counters" has them
  int64_t last_progress_ms = -1;      // time of the last `progress` sample (-1: none)
  // Pages [0, host_pages_counted) are counted in their hosts' `counters` (meta
  // "host_pages_counted"); the newer ones wait in PageDb::Impl::pending_host_pages.
  uint64_t host_pages_counted = 0;
  int64_t last_host_flush_ms = 0;
  uint64_t next_recent_seq = 1;  // the next entry's number in `recent` (recent_fetches.h)
};

// Hashes a std::string or a std::string_view alike (look-ups by view, no copy).
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return XXH3_64bits(s.data(), s.size()); }
};

struct PageDb::Impl {
  std::string path;
  PageDbOptions options;
  UrlProfile profile = UrlProfile::kRfc3986;
  int64_t created_ms = 0;
  UniqueFd writer_lock;  // flock'ed by the one writer process
  lmdb::Env env;
  MDB_dbi meta = 0, pages = 0, fingerprints = 0, links = 0;
  // The scheduler's tables (format version 3). has_schedule is false for a version 2 DB
  // opened read-only: its schedule is the one derived from the pages alone.
  MDB_dbi schedule = 0, hosts = 0, payloads = 0;
  bool has_schedule = false;
  // The stored configuration (format version 5); has_config is false for an older DB
  // opened read-only, whose configuration reads as empty.
  MDB_dbi config = 0;
  bool has_config = false;
  // When pages were created (format version 6); has_created is false for an older DB
  // opened read-only, whose pages have no creation time.
  MDB_dbi created = 0;
  bool has_created = false;
  // The crawl's counters, fetch details and progress samples (format version 7,
  // crawl_counters.h); has_counters is false for an older DB opened read-only.
  MDB_dbi counters = 0, fetches = 0, progress = 0;
  bool has_counters = false;
  // The shares other nodes of a cluster passed to its pages (format version 9,
  // received_shares.h); has_shares is false for an older DB opened read-only.
  MDB_dbi shares = 0;
  bool has_shares = false;
  // The latest fetches (format version 10, recent_fetches.h); has_recent is false for an
  // older DB opened read-only.
  MDB_dbi recent = 0;
  bool has_recent = false;
  // Pages created and not yet counted in their hosts' `counters` entries, by host key:
  // written at most once a second (a transaction creates pages on thousands of hosts), and
  // at close; a writer's open counts those a crash left out (crawl_counters.h).
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> pending_host_pages;
  uint32_t format_version = kPageDbFormatVersion;

  // Every live transaction of this process holds this shared; resizing the map (which
  // remaps it) holds it exclusively.
  mutable std::shared_timed_mutex map_mutex;

  // Writer state, guarded by write_mutex. The index and link scores mirror the committed
  // `pages` table so that a link target resolves without an LMDB read.
  std::mutex write_mutex;
  // Guards `index` for readers of this process (Snapshot look-ups): shared by them,
  // exclusive for a write transaction from its first change to its commit or rollback.
  mutable std::shared_mutex index_mutex;
  FingerprintIndex index;
  std::vector<float> link_scores;  // by page id
  WriterState writer;
  // The (fingerprint, id) of pages [writer.indexed_pages, pages), until the next batch
  // is filed in `fingerprints`.
  std::vector<std::pair<uint64_t, uint32_t>> unindexed;
  // Joins every write transaction (the scheduler); see write_txn.h.
  WriteHook* write_hook = nullptr;

  // Durability::kPeriodic: a thread fsyncs at most sync_interval after a commit.
  std::mutex sync_mutex;
  std::condition_variable_any sync_cv;
  bool dirty = false;
  std::jthread syncer;

  bool read_only() const { return options.read_only; }
  // `PageDB "path"`: how every message about this DB names it.
  std::string Where() const { return PageDbName(path); }
  // Begins a read transaction, following a map resized by the writer process.
  Result<lmdb::Txn> BeginRead(std::shared_lock<std::shared_timed_mutex>& lock) const;
  Result<PageDbCounters> ReadCounters(MDB_txn* txn) const;
  // DataLoss unless the header's page counts match the entries LMDB counts in `pages` and
  // `fingerprints`, no more pages are indexed than exist, and the file could hold them: a
  // cheap check, made before anything is sized by those counts.
  Status VerifyPageCounts(MDB_txn* txn, uint64_t pages, uint64_t indexed_pages) const;
  // Checks the B-tree structure of data.mdb (lmdb_verify.h) as a read transaction sees it,
  // reading the file itself; DataLoss with this DB's path. `begin` starts the transaction
  // (returns it, owned by the caller) and is called again when a writer in another process
  // committed twice before the meta pages were read.
  template <typename Begin>
  Status VerifyFile(Begin&& begin, lmdb::VerifyScope scope,
                    std::span<const std::string_view> whole_tables = {}) const {
    for (int attempt = 0;; ++attempt) {
      Result<MDB_txn*> txn = begin();
      if (!txn.ok()) return txn.status();
      Status status = lmdb::VerifyStructure(*txn, path + "/data.mdb", scope, whole_tables)
                          .WithContext("check " + PageDbName(path));
      if (status.code() != StatusCode::kUnavailable || attempt >= 3) return status;
    }
  }
};

struct Snapshot::Impl {
  // Destroyed in reverse order: the transaction ends before the lock is released.
  std::shared_lock<std::shared_timed_mutex> lock;
  lmdb::Txn txn;
  const PageDbImpl* db = nullptr;
  uint64_t pages = 0;          // ids [0, pages) exist in this snapshot
  uint64_t indexed_pages = 0;  // ids [0, indexed_pages) are in `fingerprints`

  // The page with this id; NotFound when the snapshot has none.
  Result<PageRecord> GetById(uint32_t id) const;
  // The page with this fingerprint; NotFound when the snapshot has none.
  Result<PageRecord> Get(uint64_t fingerprint) const;
  // Calls fn on the records of ids [first, pages) in id order; DataLoss when the ids are
  // not dense or a record is damaged, but with `damaged` set, a record that does not
  // decode goes to it instead and the walk goes on (Snapshot::ForEachPage's salvage form).
  Status ForEachRecord(uint32_t first, const std::function<Status(const PageRecord&)>& fn,
                       const DamageSink& damaged = nullptr) const;

 private:
  // Looks a fingerprint up: in the writer's index when this process writes, else in
  // `fingerprints` and then among the pages not indexed there yet.
  Result<PageRecord> LookUp(uint64_t fingerprint) const;
  // Finds a page among those not indexed yet, through `unindexed`, which the first call
  // fills from one scan of those pages.
  Result<PageRecord> FindUnindexed(uint64_t fingerprint) const;
  // (fingerprint, id) of pages [indexed_pages, pages), sorted: 16 bytes a page, filled
  // by the first FindUnindexed. (A Snapshot is used by one thread at a time, as its LMDB
  // transaction must be.)
  mutable std::vector<std::pair<uint64_t, uint32_t>> unindexed;
  mutable bool unindexed_loaded = false;
};

inline PageDbImpl& PageDbInternals::Of(PageDb& db) {
  return *db.impl_;
}

inline const PageDbImpl& PageDbInternals::Of(const PageDb& db) {
  return *db.impl_;
}

inline MDB_txn* PageDbInternals::TxnOf(const Snapshot& snapshot) {
  return snapshot.impl_->txn.get();
}

// Decodes the first and last 64 page records of `snapshot` and their link blocks: the
// data half of PageDb::Check(kQuick).
Status CheckSampledRecords(const Snapshot& snapshot);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_IMPL_H_
