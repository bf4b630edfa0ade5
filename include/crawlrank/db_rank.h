// crawlrank/db_rank.h: ranking the link graph of a PageDB and storing the result with it.
//
// RankPageDb reads one snapshot of the DB, derives the per-page inputs an algorithm needs
// from the page records, runs ComputeRank (rank.h) over the snapshot's links and, unless
// told not to, saves the result in the DB directory (rank_store.h). It opens no write
// transaction, so it works on a read-only open beside a running crawl.
#ifndef CRAWLRANK_DB_RANK_H_
#define CRAWLRANK_DB_RANK_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "crawlrank/live_rank.h"
#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct DbRankOptions {
  // With rank.template_links.drop, each page's host is HostKey(url) (kHost) of its record.
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

// The display rank (rank_store.h, kDisplayRankName): PageRank over every link of the DB but
// its template links (rank.h, TemplateLinkOptions: the index, license and copyright links a
// host puts on most of its pages, which otherwise rank its boilerplate first), with
// `options`' other fields; saved as ranks/display.rank unless options.save is false.
// PageRank still flows to pages not crawled: a list for a person shows the crawled ones.
Result<StoredRank> RankForDisplay(const PageDb& db, DbRankOptions options = {});

// A PageDB's rank kept current between the ranks of a growing crawl, with its link graph
// held in memory (live_rank.h: 8 bytes a link and about 40 a page, for as long as this
// object lives). The first Rank reads every link of its snapshot; a later one reads only
// the out-links of the pages the caller says were written since, and starts from the last
// scores. The scheduler keeps one, and learns those pages from the DB's writes.
//
// PageRank, ppr and trustrank over all links (Supports(): neither cross_host_only nor
// rank.template_links.drop); the rest go to RankPageDb.
// Not thread-safe: one thread at a time.
class LiveDbRank {
 public:
  static bool Supports(RankAlgorithm algorithm, const DbRankOptions& options);
  // `options` as for RankPageDb; warm_start applies to each Rank that reads every link
  // (the others start from the last scores).
  LiveDbRank(RankAlgorithm algorithm, DbRankOptions options);
  LiveDbRank(LiveDbRank&&) noexcept;
  LiveDbRank& operator=(LiveDbRank&&) noexcept;
  ~LiveDbRank();

  // Ranks `snapshot` of `db`. `relinked`: every page whose out-links were written between
  // the last Rank's snapshot and this one (any order, repeats allowed; ignored by the first
  // Rank). If the links then counted differ from the snapshot's count (a write that was not
  // reported), every link is read again: full_reads() counts the reads of every link. A
  // write not reported that keeps the count goes unseen until the next full read.
  // InvalidArgument when the algorithm or options are not supported; ResourceExhausted when
  // the graph outgrows options.rank.memory_budget; errors as RankPageDb. After an error
  // the next Rank reads every link again.
  Result<StoredRank> Rank(const PageDb& db, const Snapshot& snapshot,
                          std::span<const uint32_t> relinked);

  uint32_t full_reads() const { return full_reads_; }
  // Bytes held (LiveRank::Bytes); 0 before the first Rank.
  uint64_t Bytes() const;

 private:
  Result<StoredRank> RankKept(const PageDb& db, const Snapshot& snapshot,
                              std::span<const uint32_t> relinked);
  RankAlgorithm algorithm_;
  DbRankOptions options_;
  std::unique_ptr<LiveRank> live_;
  uint32_t full_reads_ = 0;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_DB_RANK_H_
