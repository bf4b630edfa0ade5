#include "page_db/schedule_table.h"

#include <utility>
#include <vector>

#include "base/coding.h"
#include "page_db/page_db_impl.h"
#include "page_db/page_record.h"
#include "page_db/write_txn.h"

namespace crawlrank {

namespace {

// A zig-zag varint: a time (Unix ms), a delay or a priority.
void PutSigned(std::string& out, int64_t v) {
  coding::PutVarint64(out, coding::ZigZag(v));
}

bool GetSigned(std::string_view& in, int64_t* v) {
  uint64_t u;
  if (!coding::GetVarint64(in, &u)) return false;
  *v = coding::UnZigZag(u);
  return true;
}

bool GetBytes(std::string_view& in, std::string* out) {
  uint64_t n;
  if (!coding::GetVarint64(in, &n) || n > in.size()) return false;
  out->assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

}  // namespace

void EncodeScheduleEntry(const ScheduleEntry& entry, std::string* out) {
  out->push_back(static_cast<char>(entry.state));
  coding::PutVarint32(*out, entry.failures);
  switch (entry.state) {
    case EntryState::kQueued: break;
    case EntryState::kLeased:
      coding::PutVarint64(*out, entry.lease);
      PutSigned(*out, entry.time_ms);
      break;
    case EntryState::kRetrying: PutSigned(*out, entry.time_ms); break;
    case EntryState::kDue:
      PutSigned(*out, entry.time_ms);
      return;  // a crawled page: no tier
    case EntryState::kFailed:
      coding::PutVarint32(*out, entry.http_status);
      coding::PutVarint64(*out, entry.reason.size());
      out->append(entry.reason);
      out->push_back(static_cast<char>(entry.kind));
      PutSigned(*out, entry.failed_ms);
      return;  // failed for good: never queued again, no tier
    case EntryState::kRemoved:
      PutSigned(*out, entry.time_ms);
      return;  // never handed out again, no tier
    case EntryState::kElsewhere: return;  // never handed out here, for good
  }
  if (entry.priority != 0) PutSigned(*out, entry.priority);
}

Status DecodeScheduleEntry(uint32_t id, std::string_view in, ScheduleEntry* entry,
                           uint32_t version) {
  const auto damaged = [&] {
    return DataLossError("schedule entry of page " + std::to_string(id) + " is damaged");
  };
  // Version 6 added kRemoved, version 8 kDue, version 9 kElsewhere.
  const uint8_t last_state = version >= 9 ? 6 : version >= 8 ? 5 : version >= 6 ? 4 : 3;
  if (in.empty() || static_cast<uint8_t>(in[0]) > last_state) return damaged();
  entry->state = static_cast<EntryState>(in[0]);
  in.remove_prefix(1);
  if (!coding::GetVarint32(in, &entry->failures)) return damaged();
  bool ok = true;
  switch (entry->state) {
    case EntryState::kQueued: break;
    case EntryState::kLeased:
      ok = coding::GetVarint64(in, &entry->lease) && GetSigned(in, &entry->time_ms);
      break;
    case EntryState::kRetrying: ok = GetSigned(in, &entry->time_ms); break;
    case EntryState::kFailed: {
      uint32_t status = 0;
      ok = coding::GetVarint32(in, &status) && status <= 0xFFFF && GetBytes(in, &entry->reason);
      entry->http_status = static_cast<uint16_t>(status);
      entry->failed_ms = 0;
      if (ok && version < 4) {  // no kind stored: the one an upgrade would give it
        entry->kind = InferFailureKind(entry->http_status, entry->reason);
      } else if (ok) {
        ok = !in.empty() && static_cast<uint8_t>(in[0]) <= kMaxFailureKind;
        if (ok) entry->kind = static_cast<FailureKind>(in[0]);
        ok = ok && (in.remove_prefix(1), GetSigned(in, &entry->failed_ms));
      }
      break;
    }
    case EntryState::kRemoved:
    case EntryState::kDue: ok = GetSigned(in, &entry->time_ms); break;
    case EntryState::kElsewhere: ok = entry->failures == 0; break;
  }
  entry->priority = 0;
  if (ok && !in.empty() && entry->state != EntryState::kFailed &&
      entry->state != EntryState::kRemoved && entry->state != EntryState::kDue &&
      entry->state != EntryState::kElsewhere) {
    int64_t priority = 0;
    ok = GetSigned(in, &priority) && priority >= INT32_MIN && priority <= INT32_MAX;
    entry->priority = static_cast<int32_t>(priority);
  }
  if (!ok || !in.empty()) return damaged();
  return Status::Ok();
}

Status UpgradeScheduleEntries(MDB_txn* txn, MDB_dbi schedule, const std::string& path) {
  // The failed entries, re-encoded; written after the walk, which they would disturb.
  std::vector<std::pair<uint32_t, std::string>> rewritten;
  {
    CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn, schedule, path));
    MDB_val k, v;
    for (;;) {
      CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
      if (!more) break;
      if (k.mv_size != 4) return DataLossError(PageDbName(path) + ": schedule key of wrong size");
      const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
      ScheduleEntry entry;
      CRAWLRANK_RETURN_IF_ERROR(DecodeScheduleEntry(id, lmdb::View(v), &entry, 3)
                                    .WithContext("upgrade " + PageDbName(path)));
      if (entry.state != EntryState::kFailed) continue;
      rewritten.emplace_back(id, std::string());
      EncodeScheduleEntry(entry, &rewritten.back().second);
    }
  }
  for (const auto& [id, value] : rewritten) {
    Key32 key(id);
    MDB_val k = key.val(), v = lmdb::Val(value);
    if (const int rc = mdb_put(txn, schedule, &k, &v, 0); rc != 0) {
      return lmdb::Error(rc, "upgrade the schedule entry of page " + std::to_string(id) + " of",
                         path);
    }
  }
  return Status::Ok();
}

void EncodeHostEntry(const HostEntry& entry, std::string* out) {
  out->push_back(2);
  PutSigned(*out, entry.hold_until_ms);
  coding::PutVarint32(*out, entry.holds_in_a_row);
  PutSigned(*out, entry.crawl_delay_ms);
  coding::PutVarint64(*out, entry.robots.size());
  out->append(entry.robots);
  coding::PutVarint64(*out, entry.group.size());
  out->append(entry.group);
  coding::PutVarint64(*out, entry.page_limit);
}

Status DecodeHostEntry(std::string_view host, std::string_view in, HostEntry* entry) {
  // Version 1 (format versions 3 to 5) ends after the group; version 2 adds the limit.
  const uint8_t version = in.empty() ? 0 : static_cast<uint8_t>(in[0]);
  entry->page_limit = 0;
  const bool ok = (version == 1 || version == 2) && (in.remove_prefix(1), true) &&
                  GetSigned(in, &entry->hold_until_ms) &&
                  coding::GetVarint32(in, &entry->holds_in_a_row) &&
                  GetSigned(in, &entry->crawl_delay_ms) && GetBytes(in, &entry->robots) &&
                  GetBytes(in, &entry->group) &&
                  (version == 1 || coding::GetVarint64(in, &entry->page_limit)) && in.empty();
  if (!ok) return DataLossError("hosts entry of \"" + std::string(host) + "\" is damaged");
  return Status::Ok();
}

ScheduleTables::ScheduleTables(const PageDb& db) : db_(db) {}

namespace {

const PageDbImpl& Of(const PageDb& db) {
  return PageDbInternals::Of(db);
}

}  // namespace

Status ScheduleTables::PutEntry(WriteTxn& write, uint32_t id, const ScheduleEntry& entry) const {
  std::string value;
  EncodeScheduleEntry(entry, &value);
  Key32 key(id);
  MDB_val k = key.val(), v = lmdb::Val(value);
  return write.Check(mdb_put(write.txn(), Of(db_).schedule, &k, &v, 0),
                     "write a schedule entry to");
}

namespace {

// Deletes key32 `id` of `table`; absent is fine.
Status Erase(WriteTxn& write, MDB_dbi table, uint32_t id, std::string_view op) {
  Key32 key(id);
  MDB_val k = key.val();
  const int rc = mdb_del(write.txn(), table, &k, nullptr);
  return rc == MDB_NOTFOUND ? Status::Ok() : write.Check(rc, op);
}

}  // namespace

Status ScheduleTables::EraseEntry(WriteTxn& write, uint32_t id) const {
  return Erase(write, Of(db_).schedule, id, "end the schedule entry in");
}

Status ScheduleTables::PutPayload(WriteTxn& write, uint32_t id, std::string_view payload) const {
  Key32 key(id);
  MDB_val k = key.val(), v = lmdb::Val(payload);
  return write.Check(mdb_put(write.txn(), Of(db_).payloads, &k, &v, 0), "write a payload to");
}

Status ScheduleTables::ErasePayload(WriteTxn& write, uint32_t id) const {
  return Erase(write, Of(db_).payloads, id, "delete the payload in");
}

Result<std::string> ScheduleTables::Payload(WriteTxn& write, uint32_t id) const {
  Key32 key(id);
  MDB_val k = key.val(), v;
  const int rc = mdb_get(write.txn(), Of(db_).payloads, &k, &v);
  if (rc == MDB_NOTFOUND) return std::string();
  CRAWLRANK_RETURN_IF_ERROR(write.Check(rc, "read the payload of a leased page of"));
  return std::string(lmdb::View(v));
}

Result<std::optional<ScheduleEntry>> ScheduleTables::Entry(WriteTxn& write, uint32_t id) const {
  Key32 key(id);
  MDB_val k = key.val(), v;
  const int rc = mdb_get(write.txn(), Of(db_).schedule, &k, &v);
  if (rc == MDB_NOTFOUND) return std::optional<ScheduleEntry>();
  CRAWLRANK_RETURN_IF_ERROR(write.Check(rc, "read a schedule entry of"));
  ScheduleEntry entry;
  CRAWLRANK_RETURN_IF_ERROR(DecodeScheduleEntry(id, lmdb::View(v), &entry).WithContext(Of(db_).Where()));
  return std::optional<ScheduleEntry>(std::move(entry));
}

Status ScheduleTables::PutHost(WriteTxn& write, std::string_view key,
                               const HostEntry& entry) const {
  std::string value;
  EncodeHostEntry(entry, &value);
  MDB_val k = lmdb::Val(key), v = lmdb::Val(value);
  return write.Check(mdb_put(write.txn(), Of(db_).hosts, &k, &v, 0), "write a host entry to");
}

bool ScheduleTables::Present() const {
  return Of(db_).has_schedule;
}

namespace {

// Calls fn(key, value) on every row of `table` in the snapshot's transaction, in key order.
Status ForEachRow(const Snapshot& snapshot, MDB_dbi table, const std::string& path,
                  const std::function<Status(std::string_view key, std::string_view value)>& fn) {
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor,
                             lmdb::Cursor::Open(PageDbInternals::TxnOf(snapshot), table, path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) return Status::Ok();
    CRAWLRANK_RETURN_IF_ERROR(fn(lmdb::View(k), lmdb::View(v)));
  }
}

}  // namespace

Status ScheduleTables::ForEachHost(
    const Snapshot& snapshot,
    const std::function<Status(std::string_view key, HostEntry& entry)>& fn) const {
  const PageDbImpl& db = Of(db_);
  return ForEachRow(snapshot, db.hosts, db.path, [&](std::string_view k, std::string_view v) {
    HostEntry entry;
    CRAWLRANK_RETURN_IF_ERROR(DecodeHostEntry(k, v, &entry).WithContext(db.Where()));
    return fn(k, entry);
  });
}

Status ScheduleTables::ForEachEntry(
    const Snapshot& snapshot,
    const std::function<Status(uint32_t id, ScheduleEntry& entry)>& fn) const {
  const PageDbImpl& db = Of(db_);
  return ForEachRow(snapshot, db.schedule, db.path, [&](std::string_view k, std::string_view v) {
    if (k.size() != 4) return DataLossError(db.Where() + ": schedule key of wrong size");
    const uint32_t id = coding::DecodeBigEndian32(k.data());
    ScheduleEntry entry;
    CRAWLRANK_RETURN_IF_ERROR(
        DecodeScheduleEntry(id, v, &entry, db.format_version).WithContext(db.Where()));
    return fn(id, entry);
  });
}

Status ScheduleTables::ForEachPayload(
    const Snapshot& snapshot,
    const std::function<Status(uint32_t id, std::string_view payload)>& fn) const {
  const PageDbImpl& db = Of(db_);
  return ForEachRow(snapshot, db.payloads, db.path, [&](std::string_view k, std::string_view v) {
    if (k.size() != 4) return DataLossError(db.Where() + ": payloads key of wrong size");
    return fn(coding::DecodeBigEndian32(k.data()), v);
  });
}

}  // namespace crawlrank
