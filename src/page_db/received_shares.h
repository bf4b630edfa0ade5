// The `shares` table (format version 9; docs/format.md): on a node of a cluster, the score
// other nodes' pages passed along their links to each of this node's pages, summed, so
// that a restarted node keys its queue as before (score_policy.h replays its own pages'
// pushes and adds these). key32 page id -> a little-endian IEEE 754 float32, finite and
// not negative.
#ifndef CRAWLRANK_SRC_PAGE_DB_RECEIVED_SHARES_H_
#define CRAWLRANK_SRC_PAGE_DB_RECEIVED_SHARES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crawlrank/status.h"
#include "page_db/page_db_impl.h"

namespace crawlrank {

std::string EncodeReceivedShare(float share);
// nullopt when `value` is not 4 bytes of a finite float of at least 0.
std::optional<float> DecodeReceivedShare(std::string_view value);

// Check: every entry decodes and names one of the DB's `pages` ids.
Status CheckReceivedShares(const PageDbImpl& db, MDB_txn* txn, uint64_t pages);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_RECEIVED_SHARES_H_
