// Value encodings of the scheduler's tables (docs/format.md, format version 9).
//
// `schedule`: key32 page id -> the page's state, only for a page whose state is not the
// one its record implies (uncrawled: queued; crawled: done):
//   u8 state (0 queued after failures or with a priority, 1 leased, 2 waiting to retry,
//   3 failed for good, 4 removed, 5 crawled and due again at a time, 6 elsewhere: a page
//   another node of a cluster owns, kept for the links to it and never queued here),
//   varint failures (0 for 6, which has nothing more),
//   then for 1: varint lease id, zig-zag varint expiry (Unix ms); for 2 and 5: zig-zag
//   varint due time; for 3: varint HTTP status,
//   varint length + reason, then (version 4) u8 failure kind and zig-zag varint time of
//   the failure (Unix ms); for 4 (version 6): zig-zag varint time of the removal; state 5
//   (version 8) only for a crawled page due again at a set time: its fetcher's date
//   (CrawlReport::refetch_at_ms), a failed revisit's retry, or a revisit lease a dead
//   writer left. States
//   0, 1 and 2 may end with a zig-zag varint priority (the caller's tier,
//   QueuedExtra::priority): absent is 0, and a writer omits it when 0.
// `payloads`: key32 page id -> the caller's opaque bytes (QueuedExtra::payload), not
//   encoded here: written with the page, deleted with its crawl or its final failure.
// `hosts`: host key (bytes) -> u8 version (2; 1 before format version 6), zig-zag varint
//   hold until (Unix ms), varint holds in a row, zig-zag varint crawl delay (ms, 0: none),
//   varint length + robots.txt state (opaque to the scheduler; the crawler's), varint
//   length + politeness group (empty: none), then (version 2) varint page limit (0: none).
#ifndef CRAWLRANK_SRC_PAGE_DB_SCHEDULE_TABLE_H_
#define CRAWLRANK_SRC_PAGE_DB_SCHEDULE_TABLE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "crawlrank/failure_kind.h"
#include "crawlrank/page_db.h"
#include "crawlrank/status.h"
#include "page_db/lmdb_env.h"

namespace crawlrank {

enum class EntryState : uint8_t {
  kQueued = 0,
  kLeased = 1,
  kRetrying = 2,
  kFailed = 3,
  kRemoved = 4,  // format version 6
  kDue = 5,      // format version 8: a crawled page due again at time_ms
  kElsewhere = 6,  // format version 9: a ghost, owned by another node of a cluster
};

struct ScheduleEntry {
  EntryState state = EntryState::kQueued;
  uint32_t failures = 0;
  uint64_t lease = 0;        // kLeased
  int64_t time_ms = 0;       // kLeased: expiry; kRetrying, kDue: due; kRemoved: when
  uint16_t http_status = 0;  // kFailed
  std::string reason;        // kFailed: the detail text
  FailureKind kind = FailureKind::kOther;  // kFailed
  int64_t failed_ms = 0;     // kFailed: when (Unix ms); 0 for a failure a version 3 DB kept
  int32_t priority = 0;      // kQueued, kLeased, kRetrying: the page's tier
};

// Appends `entry`'s value to `out` in the newest format (a kFailed entry's priority is not
// kept).
void EncodeScheduleEntry(const ScheduleEntry& entry, std::string* out);
// Decodes a value written by format version `version` (3 or 4: a version 3 kFailed entry
// has no kind or time, and gets InferFailureKind's). DataLoss naming the page id when the
// value does not decode (a priority outside int32, a kind past kMaxFailureKind included).
// A value without the trailing priority decodes with priority 0.
Status DecodeScheduleEntry(uint32_t id, std::string_view value, ScheduleEntry* entry,
                           uint32_t version = kPageDbFormatVersion);

struct HostEntry {
  int64_t hold_until_ms = 0;
  uint32_t holds_in_a_row = 0;
  int64_t crawl_delay_ms = 0;
  std::string robots;
  std::string group;  // politeness group; empty: none
  uint64_t page_limit = 0;  // SetHostLimit: pages to crawl at most; 0: the options' limit
};

// Carries the `schedule` table of a version 3 DB over to version 4 inside the writer's
// transaction `txn` (page_db_upgrade): every failed-for-good entry gets its inferred kind
// and time 0; the other entries are the same in both versions. DataLoss naming the page
// for an entry that does not decode.
Status UpgradeScheduleEntries(MDB_txn* txn, MDB_dbi schedule, const std::string& path);

void EncodeHostEntry(const HostEntry& entry, std::string* out);
Status DecodeHostEntry(std::string_view host, std::string_view value, HostEntry* entry);

class WriteTxn;

// Every read and write of the scheduler's tables (`schedule`, `payloads`, `hosts`), in the
// PageDB's own transactions: writes inside a WriteTxn (the scheduler's hook, or a join), so
// that they commit with the pages they belong to; reads in a Snapshot, consistent with its
// pages. Nothing above the page_db floor touches LMDB: the scheduler goes through here.
// Errors name the PageDB and what was being done.
class ScheduleTables {
 public:
  explicit ScheduleTables(const PageDb& db);

  // ---- in a write transaction of this PageDb
  // Sets the `schedule` entry of page `id`.
  Status PutEntry(WriteTxn& write, uint32_t id, const ScheduleEntry& entry) const;
  // Deletes it; a page without one is fine (its state is the one its record implies).
  Status EraseEntry(WriteTxn& write, uint32_t id) const;
  Status PutPayload(WriteTxn& write, uint32_t id, std::string_view payload) const;
  Status ErasePayload(WriteTxn& write, uint32_t id) const;
  // The payload of page `id`; empty when it has none.
  Result<std::string> Payload(WriteTxn& write, uint32_t id) const;
  // The entry of page `id`; none when its state is the one its record implies.
  Result<std::optional<ScheduleEntry>> Entry(WriteTxn& write, uint32_t id) const;
  // Sets the entry of host `key` (not empty).
  Status PutHost(WriteTxn& write, std::string_view key, const HostEntry& entry) const;

  // ---- in a snapshot of this PageDb
  // False for a DB of format version 2 opened read-only: it has no scheduler tables, and
  // its schedule is the one its pages imply.
  bool Present() const;
  // Every host entry, in key order; DataLoss naming the host for a damaged one.
  Status ForEachHost(const Snapshot& snapshot,
                     const std::function<Status(std::string_view key, HostEntry& entry)>& fn) const;
  // Every schedule entry, in page id order; DataLoss naming the page for a damaged one.
  Status ForEachEntry(const Snapshot& snapshot,
                      const std::function<Status(uint32_t id, ScheduleEntry& entry)>& fn) const;
  // Every payload, in page id order.
  Status ForEachPayload(const Snapshot& snapshot,
                        const std::function<Status(uint32_t id, std::string_view payload)>& fn) const;

 private:
  const PageDb& db_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_SCHEDULE_TABLE_H_
