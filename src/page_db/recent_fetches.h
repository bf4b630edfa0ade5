// The `recent` table (format version 10; docs/format.md): the latest kRecentFetches
// fetches recorded and failures reported (crawl_counters.h, RecentFetch), written in the
// writer's own transactions, so that a dashboard shows a live tail of the crawl without a
// log file. A ring of kRecentFetches slots, each overwritten in place (no deletes: a page
// a transaction empties and frees is never written, and the file could end before its
// last page):
//   key32 slot ((seq - 1) mod kRecentFetches) -> varint seq (1, 2, 3, ... in the order
//   written), u8 flags (1: a failure), varint kind (a failure's FailureKind, else 0),
//   varint Unix ms, varint page id, varint HTTP status, varint wire bytes, varint decoded
//   bytes, varint ms, varint length + content type
// A transaction that writes more than kRecentFetches entries keeps its last
// kRecentFetches; the numbers of the others are spent all the same.
#ifndef CRAWLRANK_SRC_PAGE_DB_RECENT_FETCHES_H_
#define CRAWLRANK_SRC_PAGE_DB_RECENT_FETCHES_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "crawlrank/crawl_counters.h"
#include "crawlrank/status.h"
#include "page_db/page_db_impl.h"

namespace crawlrank {

class WriteTxn;

// The value; its key is RecentSlot(entry.seq).
void EncodeRecentFetch(const RecentFetch& entry, std::string* out);
uint32_t RecentSlot(uint64_t seq);
// False when the key or the value does not decode, or the key is not the slot of the
// entry's number.
bool DecodeRecentFetch(std::string_view key, std::string_view value, RecentFetch* entry);

// The writer's open: the next number to give (db.writer.next_recent_seq), after the
// highest one stored (a read of every slot).
Status LoadRecentSeq(PageDbImpl& db, MDB_txn* txn);
// Writes `entries` (their seq is set here) in the writer's transaction, each over the
// oldest.
Status WriteRecentFetches(WriteTxn& write, std::span<RecentFetch> entries);
// Check: every entry decodes and names one of the DB's `pages` ids; at most
// kRecentFetches are kept.
Status CheckRecentFetches(const PageDbImpl& db, MDB_txn* txn, uint64_t pages);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_RECENT_FETCHES_H_
