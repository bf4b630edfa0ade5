// crawlrank/db_rank.h: ranking the link graph of a PageDB and storing the result with it.
//
// RankPageDb reads one snapshot of the DB, derives the per-page inputs an algorithm needs
// from the page records, runs ComputeRank (rank.h) over the snapshot's links and, unless
// told not to, saves the result in the DB directory (rank_store.h). It opens no write
// transaction, so it works on a read-only open beside a running crawl.
#ifndef CRAWLRANK_DB_RANK_H_
#define CRAWLRANK_DB_RANK_H_

#include <cstdint>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct DbRankOptions {
  RankOptions rank;
  // Rank over links between different hosts only (HostKey, kHost). A page whose links all
  // stay on its host counts as dangling.
  bool cross_host_only = false;
  // Start from the stored rank of the same algorithm when there is one (pages added since
  // start from the teleport vector). Saves iterations while a crawl grows the graph.
  bool warm_start = false;
  // TrustRank: fingerprints of the trusted pages. Empty: the crawl's seeds (depth 0).
  std::vector<uint64_t> trusted;
  // Save the result as the DB's stored rank of this algorithm.
  bool save = true;
};

// The per-page inputs, from the records: personalized PageRank and topic HITS use a
// page's content score once crawled, its link score before; TrustRank marks the trusted
// pages with 1. NotFound when a trusted fingerprint is not in the DB.
Result<StoredRank> RankPageDb(const PageDb& db, RankAlgorithm algorithm,
                              const DbRankOptions& options = {});

}  // namespace crawlrank

#endif  // CRAWLRANK_DB_RANK_H_
