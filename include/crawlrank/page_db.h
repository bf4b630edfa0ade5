// crawlrank/page_db.h: the page database, a crawl's link graph and per-page metadata on LMDB.
//
// A PageDb is one directory. It maps each canonical URL (by its 64-bit fingerprint, see
// url.h) to a page record and a dense page id (0, 1, 2, ... in discovery order), and each
// crawled page id to the set of page ids it links to. The on-disk format is versioned and
// written down in docs/format.md.
//
// Concurrency: one writer process at a time (a second writer gets FailedPrecondition);
// any number of read-only opens in other processes, which see consistent snapshots while
// the writer continues. Open a DB once per process (LMDB's rule: closing a second open
// of the same environment drops the first one's locks); its threads share that PageDb,
// which is thread-safe: writes are serialised, reads (NewSnapshot) run concurrently. A
// forked child opens its own.
//
// Caveats, as LMDB's own (see lmdb.h):
//   - A Snapshot pins the pages it can see: keep snapshots short-lived or the file grows.
//   - The map grows by itself when full; growing needs every Snapshot of this process
//     closed, so a writer thread must not hold one while it writes.
//   - Durability is an explicit choice (PageDbOptions::durability). With any setting, a
//     crash of the process loses nothing a call reported as done; the setting decides
//     what an operating-system crash or power loss can take.
//   - A damaged file: LMDB has no checksums and trusts the pages it maps. Open reads the
//     main tree, the header and a sample of paths through every table itself (pread)
//     before LMDB reads any page, and refuses a file cut short; a writer's open also runs
//     Check(kQuick) and refuses a DB that fails it. Check(kFull) reads every page without
//     LMDB. Damage elsewhere is reported as DataLoss when a read decodes it, but a damaged
//     B-tree page that no check has visited can make liblmdb fault (SIGSEGV or SIGBUS) when
//     a read reaches it: this library cannot catch that inside your process; a program can
//     install crawlrank/fault_guard.h's guard, as every crawlrank tool does. A change
//     inside a value that still decodes (a link target, a score) is not detected: the
//     format has no checksums. docs/format.md, "Damage", lists what is detected.
//   - A full disk is ResourceExhausted ("no space left on device") at open or commit;
//     nothing of the failed transaction is written and everything committed before stays.
//
// The options of an open are in page_db_options.h, a write's batch in write_batch.h
// (both included here, as LevelDB splits options.h, write_batch.h and db.h).
#ifndef CRAWLRANK_PAGE_DB_H_
#define CRAWLRANK_PAGE_DB_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/crawl_counters.h"
#include "crawlrank/edge_chunk.h"
#include "crawlrank/page_db_options.h"
#include "crawlrank/page_types.h"
#include "crawlrank/status.h"
#include "crawlrank/url.h"
#include "crawlrank/write_batch.h"

namespace crawlrank {

// The newest on-disk format this library reads and writes. Version 3 added the
// scheduler's tables, version 4 the kind and time of each failure, version 5 the crawl's
// stored configuration, version 6 the pages' creation times, removed pages and per-host
// page limits, version 7 the crawl's counters, the last fetch's details and progress
// samples (crawl_counters.h), version 8 a crawled page due again at a set time (its
// fetcher's date, CrawlReport::refetch_at_ms, or a revisit's retry), version 9 a page
// another node of a cluster owns (a ghost, kept for the links to it; docs/format.md),
// version 10 the latest fetches and the histograms of fetch time and size. A DB of
// version 2 to 9 is read as it is, and written only after PageDbOptions::upgrade
// (page_db_upgrade) carries it over.
inline constexpr uint32_t kPageDbFormatVersion = 10;

class PageDb;

// A page record or link block that a salvage walk (Snapshot::ForEachPage and Edges with a
// DamageSink) went past because it does not decode.
struct DamagedEntry {
  std::string_view table;  // "pages" or "links"
  uint32_t key = 0;        // the page id; for links the block, sources 32·key .. 32·key + 31
  Status why;              // DataLoss naming the table and key
};
// Told of each damaged entry a salvage walk skips; a status that is not OK ends the walk
// with it.
using DamageSink = std::function<Status(const DamagedEntry&)>;

// Iterates the links of a Snapshot in source id order, one source page at a time.
//   for (EdgeCursor c = snapshot.Edges(); c.Valid(); c.Next()) use(c.source(), c.targets());
//   if (!c.status().ok()) ...
class EdgeCursor {
 public:
  EdgeCursor(EdgeCursor&&) noexcept;
  EdgeCursor& operator=(EdgeCursor&&) noexcept;
  ~EdgeCursor();

  bool Valid() const { return valid_; }
  // REQUIRES: Valid().
  void Next();
  uint32_t source() const { return source_; }
  // Targets in increasing id order; valid until Next().
  std::span<const uint32_t> targets() const { return targets_; }
  // Not OK when iteration stopped on damaged data.
  const Status& status() const { return status_; }

 private:
  friend class Snapshot;
  struct Impl;
  explicit EdgeCursor(std::unique_ptr<Impl> impl);
  void Load(int cursor_op);  // reads the next block of links
  std::unique_ptr<Impl> impl_;
  bool valid_ = false;
  uint32_t source_ = 0;
  std::span<const uint32_t> targets_;
  Status status_;
};

// The configuration a crawl keeps with its PageDB (format version 5), so that a resumed
// crawl, and every reading tool, applies the options it was started with: key -> value.
// The PageDB stores it and checks only its form: a key is 1 to 64 bytes of [a-z0-9_], a
// value at most kMaxConfigValueBytes, with no NUL byte. What the keys mean, which front
// end writes each, and how a typed option overrides a stored one, is crawl_config.h's
// business (docs/crawler.md, "Stored configuration").
using StoredConfig = std::map<std::string, std::string>;
inline constexpr size_t kMaxConfigValueBytes = size_t{16} << 20;

// When pages were created (format version 6), at one-second resolution. Ids are given in
// creation order, so a few marks date every page: the writer notes the first page id of
// each second in which it creates pages. Page `id` was created at or after the `ms` of the
// last mark whose `first_id` is at most `id` (CreatedMs), within the same second.
struct CreationMark {
  uint32_t first_id = 0;
  int64_t ms = 0;  // Unix ms
};
// The creation time of page `id` by `marks` (in first_id order); 0 when none dates it (a
// DB older than version 6 opened read-only).
int64_t CreatedMs(std::span<const CreationMark> marks, uint32_t id);

// A consistent read-only view of a PageDb at one moment (an LMDB read transaction).
// Move-only; keep it short-lived (see the caveats at the top of this file).
class Snapshot {
 public:
  Snapshot(Snapshot&&) noexcept;
  Snapshot& operator=(Snapshot&&) noexcept;
  ~Snapshot();

  const PageDbCounters& counters() const { return counters_; }

  // Look-ups. NotFound when the page is not in the DB.
  Result<PageRecord> Find(uint64_t fingerprint) const;
  Result<PageRecord> FindId(uint32_t id) const;
  // Canonicalises `url` with the DB's profile first.
  Result<PageRecord> FindUrl(std::string_view url) const;
  // Returns the out-links (page ids) of page `id`; empty when it has none.
  Result<std::vector<uint32_t>> Links(uint32_t id) const;

  // Calls `fn` for every page in id order; stops at the first non-OK status and returns it.
  Status ForEachPage(const std::function<Status(const PageRecord&)>& fn) const;

  // Streams every link, grouped by source, in source id order.
  EdgeCursor Edges() const;

  // Salvage forms of the two walks above (page_db_dump --skip-damaged): a page record, or
  // a block of links, that does not decode is handed to `damaged` and skipped, and the
  // walk goes on. Damage that names no page or block (a key of the wrong size, ids out of
  // order), an LMDB error, or a status from `fn` or `damaged` that is not OK still ends it.
  // A skipped record's page is missing from the walk: its links, and links to it, are
  // still streamed by Edges.
  Status ForEachPage(const std::function<Status(const PageRecord&)>& fn,
                     const DamageSink& damaged) const;
  EdgeCursor Edges(const DamageSink& damaged) const;
  // The same links in chunks of whole link blocks (about 64 Ki targets each), decoded
  // straight into the chunk: the fast path of SnapshotEdgeSource (edge_source.h) and the
  // rank kernels. DataLoss when a block is damaged or names a page outside the snapshot.
  Status ScanEdges(const EdgeChunkSink& sink) const;

  // The crawl's stored configuration (StoredConfig below); empty for a DB older than
  // format version 5. DataLoss naming the key when an entry is damaged.
  Result<StoredConfig> Config() const;

  // The pages' creation marks (CreationMark above), in first_id order: one per second in
  // which the writer created pages, a few KiB a day. Empty for a DB older than format
  // version 6. DataLoss naming the mark when one is damaged.
  Result<std::vector<CreationMark>> CreationMarks() const;

  // The crawl's counters (crawl_counters.h, format version 7), each read in time
  // independent of the number of pages. All zero for an older DB.
  //   CrawlTotals: the whole crawl's.
  //   HostTotals: one host's (HostKey with HostKeyMode::kHost, e.g. "example.com", any
  //     port; empty: the URLs without a host); zeros for a host it never saw.
  //   ForEachHostTotals: every host's, in host key order (one read per host).
  // On a node of a cluster, `pages` leaves out the ghosts (ghost_pages counts them), and
  // ForEachHostTotals skips a host this node holds only ghosts of.
  // DataLoss naming the host when an entry is damaged.
  Result<CrawlCounters> CrawlTotals() const;
  Result<CrawlCounters> HostTotals(std::string_view host) const;
  Status ForEachHostTotals(
      const std::function<Status(std::string_view host, const CrawlCounters&)>& fn) const;
  // A node of a cluster: the score other nodes' pages passed to each of this node's pages
  // along their links (push score modes; format version 9), summed, in page id order.
  // Nothing for an older DB or a node that received none.
  Status ForEachReceivedShare(const std::function<Status(uint32_t id, float share)>& fn) const;
  // The last fetch's details of page `id` (FetchInfo, page_types.h). NotFound when no
  // fetch of it reported any, or the DB is older than version 7.
  Result<FetchInfo> FetchOf(uint32_t id) const;
  // The progress samples from `since_ms` on (Unix ms), in time order: the latest `max`
  // of them, read from the newest back (so the last few cost a few reads, however long
  // the crawl).
  // The latest fetches and failures (crawl_counters.h, RecentFetch; format version 10),
  // newest first: at most `max` of those numbered above `after_seq` (0: from the oldest
  // kept). A live tail asks for those after the last it showed; a few cost a few reads.
  // Empty for a DB older than version 10.
  Result<std::vector<RecentFetch>> RecentFetches(uint64_t after_seq = 0,
                                                 size_t max = kRecentFetches) const;
  Result<std::vector<ProgressSample>> Progress(int64_t since_ms = 0,
                                               size_t max = SIZE_MAX) const;

 private:
  friend class PageDb;
  friend class PageDbInternals;  // src/: components reading their tables in a snapshot
  struct Impl;
  explicit Snapshot(std::unique_ptr<Impl> impl, PageDbCounters counters);
  std::unique_ptr<Impl> impl_;
  PageDbCounters counters_;
};

// Facts about a DB: the header and the counters.
struct PageDbInfo {
  std::string path;
  uint32_t format_version = 0;
  UrlProfile url_profile = UrlProfile::kRfc3986;
  std::string hash;  // e.g. "xxh3-64 seed 0"
  int64_t created_ms = 0;
  PageDbCounters counters;
  uint64_t map_size = 0;     // current LMDB map size in bytes
  uint64_t file_bytes = 0;   // size of data.mdb
  uint64_t links_bytes = 0;  // bytes of LMDB pages holding the links table
  uint64_t pages_bytes = 0;  // bytes of LMDB pages holding the pages and fingerprints tables
};

class PageDb {
 public:
  // Opens (or creates, per options) the PageDb in directory `path`.
  // Errors: NotFound (no DB and !create_if_missing), AlreadyExists (error_if_exists),
  // FailedPrecondition (not a PageDB, unknown format version, writer lock held elsewhere,
  // no permission to read data.mdb or write lock.mdb: the message names the file),
  // ResourceExhausted (no space left on device), IoError, DataLoss (damaged or cut-short
  // file; for a writer, a failed quick check).
  static Result<std::unique_ptr<PageDb>> Open(const std::string& path,
                                              const PageDbOptions& options = {});

  PageDb(const PageDb&) = delete;
  PageDb& operator=(const PageDb&) = delete;
  // Stops the background sync and syncs once more (unless Durability::kNone).
  ~PageDb();

  const std::string& path() const;
  UrlProfile url_profile() const;
  bool read_only() const;

  // Records one fetched page and its out-links in one transaction. A link that cannot be
  // canonicalised, or whose fingerprint collides with another URL's, is skipped and listed
  // in `report` when given. The page's own URL failing is an error (InvalidArgument, or
  // AlreadyExists for a fingerprint collision) and nothing is written; so is a field out
  // of the bounds ValidateCrawledPage checks (InvalidArgument naming field, value and URL).
  Status Add(const CrawledPage& page, AddReport* report = nullptr);
  // Records many pages in one transaction: much faster than one Add each (a transaction
  // rewrites the B-tree pages it touches; see docs/benchmarks.md). URLs are canonicalised
  // and hashed before the write lock is taken, so threads adding batches overlap that work.
  // One page that Add would refuse fails the whole batch before anything is written.
  Status AddBatch(std::span<const CrawledPage> pages, AddReport* report = nullptr);
  // Applies a WriteBatch atomically; a page or record out of bounds (ValidateCrawledPage,
  // ValidatePageRecord) fails it whole.
  Status Write(const WriteBatch& batch, AddReport* report = nullptr);

  // Forces everything committed so far to stable storage.
  Status Sync();

  // The stored configuration, in its own snapshot (Snapshot::Config).
  Result<StoredConfig> ReadConfig() const;
  // Replaces the stored configuration with `config`, in one transaction (an empty one
  // clears it). InvalidArgument naming the key for an entry of the wrong form;
  // FailedPrecondition when opened read-only.
  Status WriteConfig(const StoredConfig& config);

  // Writes a compacted copy of the DB as it is now into `dir` (created; it must not exist
  // or be empty): every table rewritten in key order into full B-tree pages, with no free
  // pages. Updates in place leave pages about two-thirds full; the copy packs them.
  // Works on a read-only open, beside a running writer. The snapshot it copies is checked
  // first: every B-tree page read without LMDB, and with `check_data` every invariant of
  // Check(kFull) too; DataLoss, and nothing created, when it fails.
  Status CompactTo(const std::string& dir, bool check_data = true) const;

  // Opens a consistent read view.
  Result<Snapshot> NewSnapshot() const;

  // Convenience look-ups, each in its own snapshot.
  Result<PageRecord> Find(uint64_t fingerprint) const;
  Result<PageRecord> FindUrl(std::string_view url) const;
  Result<PageRecord> FindId(uint32_t id) const;

  // The header, counters and sizes.
  Result<PageDbInfo> Info() const;

  // Checks the DB. Either level returns DataLoss naming the first broken page or key, and
  // reads the file itself (pread) before LMDB does, so damage is reported, not faulted on.
  //   kQuick: the header against LMDB's counts and the file's size, both meta pages, and
  //           the B-tree pages on the first, the last and 16 random root-to-leaf paths of
  //           each table, plus the first and last 64 page records and link blocks: a few
  //           hundred page reads, milliseconds whatever the size.
  //   kFull:  every B-tree page of every table and of LMDB's free list (each page reached
  //           exactly once, key order, per-table counts), then every invariant of the
  //           stored data: ids dense, no two pages with one fingerprint, the fingerprint
  //           table filing each page under its own URL's hash, links decodable and
  //           pointing at existing ids, counters equal to what is stored.
  //           O(file size + pages + links).
  enum class CheckLevel : uint8_t { kQuick, kFull };
  Status Check(CheckLevel level = CheckLevel::kFull) const;

 private:
  // The private state; src/ reaches it through PageDbInternals (src/page_db/page_db_impl.h),
  // the components that share the DB's transactions and white-box tests alike.
  friend class PageDbInternals;
  struct Impl;
  explicit PageDb(std::unique_ptr<Impl> impl);
  // A snapshot whose B-tree pages (a sample, or all for kFull) were checked without LMDB.
  Result<Snapshot> NewCheckedSnapshot(CheckLevel level) const;
  // The data half of Check(kFull), on `snapshot`.
  Status CheckStoredData(const Snapshot& snapshot) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_PAGE_DB_H_
