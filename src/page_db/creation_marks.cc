#include "page_db/creation_marks.h"

#include <algorithm>
#include <string>

#include "base/coding.h"
#include "page_db/lmdb_env.h"

namespace crawlrank {

using lmdb::Val;
using lmdb::View;

bool CreationMarkDue(const WriterState& writer, int64_t now_ms) {
  return writer.last_created_mark_ms < 0 || writer.last_created_mark_ms / 1000 != now_ms / 1000;
}

std::string CreationMarkValue(int64_t ms) {
  std::string value;
  coding::PutVarint64(value, coding::ZigZag(ms));
  return value;
}

Status PutCreationMark(PageDbImpl& db, MDB_txn* txn, uint32_t first_id, int64_t ms) {
  char key[4];
  coding::EncodeBigEndian32(first_id, key);
  const std::string value = CreationMarkValue(ms);
  MDB_val k{sizeof key, key}, v = Val(value);
  if (const int rc = mdb_put(txn, db.created, &k, &v, 0); rc != 0) {
    return lmdb::Error(rc, "write the creation mark of page " + std::to_string(first_id) + " to",
                       db.path);
  }
  db.writer.last_created_mark_ms = ms;
  return Status::Ok();
}

Status LoadLastCreationMark(PageDbImpl& db, MDB_txn* txn) {
  db.writer.last_created_mark_ms = -1;
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn, db.created, db.path));
  MDB_val k, v;
  const int rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_LAST);
  if (rc == MDB_NOTFOUND) return Status::Ok();
  if (rc != 0) return lmdb::Error(rc, "read the last creation mark of", db.path);
  CreationMark mark;
  CRAWLRANK_RETURN_IF_ERROR(DecodeCreationMark(db, View(k), View(v), &mark));
  db.writer.last_created_mark_ms = mark.ms;
  return Status::Ok();
}

Status DecodeCreationMark(const PageDbImpl& db, std::string_view key, std::string_view value,
                          CreationMark* mark) {
  if (key.size() != 4) return DataLossError("created table of " + db.Where() + ": a key is damaged");
  mark->first_id = coding::DecodeBigEndian32(key.data());
  uint64_t zigzag = 0;
  if (!coding::GetVarint64(value, &zigzag) || !value.empty() ||
      (mark->ms = coding::UnZigZag(zigzag)) < 0 || mark->ms > kMaxCrawlTimeMs) {
    return DataLossError("created table of " + db.Where() + ": the mark of page " +
                         std::to_string(mark->first_id) + " is damaged");
  }
  return Status::Ok();
}

Status CheckCreationMarks(const PageDbImpl& db, MDB_txn* txn, uint64_t pages) {
  if (!db.has_created) return Status::Ok();
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn, db.created, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    CreationMark mark;
    CRAWLRANK_RETURN_IF_ERROR(DecodeCreationMark(db, View(k), View(v), &mark));
    if (mark.first_id >= pages) {
      return DataLossError("created table of " + db.Where() + ": a mark of page " +
                           std::to_string(mark.first_id) + ", beyond the last id");
    }
  }
  return Status::Ok();
}

Result<std::vector<CreationMark>> Snapshot::CreationMarks() const {
  return ReadCreationMarks(*impl_->db, impl_->txn.get());
}

Result<std::vector<CreationMark>> ReadCreationMarks(const PageDbImpl& db, MDB_txn* txn) {
  std::vector<CreationMark> marks;
  if (!db.has_created) return marks;
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn, db.created, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    CRAWLRANK_RETURN_IF_ERROR(DecodeCreationMark(db, View(k), View(v), &marks.emplace_back()));
  }
  return marks;
}

int64_t CreatedMs(std::span<const CreationMark> marks, uint32_t id) {
  const auto after = std::upper_bound(
      marks.begin(), marks.end(), id,
      [](uint32_t page, const CreationMark& mark) { return page < mark.first_id; });
  return after == marks.begin() ? 0 : std::prev(after)->ms;
}

}  // namespace crawlrank
