// The `created` table (format version 6): key32 first page id -> zig-zag varint Unix ms,
// one mark per second in which the writer created pages (crawlrank/page_db.h,
// CreationMark; docs/format.md).
#ifndef CRAWLRANK_SRC_PAGE_DB_CREATION_MARKS_H_
#define CRAWLRANK_SRC_PAGE_DB_CREATION_MARKS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/status.h"
#include "page_db/page_db_impl.h"

namespace crawlrank {

// A transaction that created pages at `now_ms` writes a mark for the first of them unless
// the writer's last mark is of the same second (WriteTxn::Commit; it then sets
// writer.last_created_mark_ms, which a rollback restores with the writer state).
bool CreationMarkDue(const WriterState& writer, int64_t now_ms);
std::string CreationMarkValue(int64_t ms);

// Writes the mark of page `first_id` at `ms` (an upgrade's one mark).
Status PutCreationMark(PageDbImpl& db, MDB_txn* txn, uint32_t first_id, int64_t ms);

// Reads the last mark's time into writer.last_created_mark_ms (a writer's open).
Status LoadLastCreationMark(PageDbImpl& db, MDB_txn* txn);

// Decodes one entry; DataLoss naming the PageDB and the entry when it does not decode.
Status DecodeCreationMark(const PageDbImpl& db, std::string_view key, std::string_view value,
                          CreationMark* mark);

// Every mark, in first_id order (empty for a DB older than version 6), read in `txn`.
Result<std::vector<CreationMark>> ReadCreationMarks(const PageDbImpl& db, MDB_txn* txn);

// Check: every mark decodes and names one of the DB's `pages` ids. Times are not compared
// with each other: a wall clock may go back.
Status CheckCreationMarks(const PageDbImpl& db, MDB_txn* txn, uint64_t pages);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_CREATION_MARKS_H_
