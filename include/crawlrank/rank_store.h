// crawlrank/rank_store.h: rank vectors kept with a PageDB, one file per algorithm.
//
// A rank is stored in `DB/ranks/<algorithm>.rank` (docs/format.md, "Rank files"): the
// algorithm, its options, iterations, residual and the graph size it came from, then one
// or two vectors of doubles by page id, with checksums. Files are replaced atomically
// (written aside, synced, renamed), so readers (the tools, during a crawl) always see a
// whole file, and saving needs no writer lock on the DB. Saves of one rank may run at once,
// in threads or processes: each writes its own temp file, and the last rename wins.
#ifndef CRAWLRANK_RANK_STORE_H_
#define CRAWLRANK_RANK_STORE_H_

#include <cstdint>
#include <string>

#include "crawlrank/rank.h"
#include "crawlrank/status.h"

namespace crawlrank {

// The newest rank file format this library reads and writes.
inline constexpr uint32_t kRankFileFormatVersion = 1;

// A rank as stored with a DB: the result and where it came from.
struct StoredRank {
  RankResult rank;
  bool cross_host_only = false;  // computed over links between different hosts only
  int64_t created_ms = 0;        // Unix time in ms when it was computed
};

// `db_path`/ranks/<RankAlgorithmName(algorithm)>.rank
std::string RankFilePath(const std::string& db_path, RankAlgorithm algorithm);

// Writes `stored` as the rank of its algorithm, replacing any earlier one atomically.
Status SaveRank(const std::string& db_path, const StoredRank& stored);

// Reads the stored rank of `algorithm`. NotFound when none was computed; DataLoss naming
// the file when it is damaged; FailedPrecondition for any format version but
// kRankFileFormatVersion.
Result<StoredRank> LoadRank(const std::string& db_path, RankAlgorithm algorithm);

}  // namespace crawlrank

#endif  // CRAWLRANK_RANK_STORE_H_
