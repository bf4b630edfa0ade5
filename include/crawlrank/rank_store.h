// crawlrank/rank_store.h: rank vectors kept with a PageDB, one file per algorithm.
//
// A rank is stored in `DB/ranks/<algorithm>.rank` (docs/format.md, "Rank files"): the
// algorithm, its options, iterations, residual and the size of the graph it came from
// (pages, links, crawled pages: how fresh it is), then one or two vectors of doubles by page
// id, with checksums. Files are replaced atomically
// (written aside, synced, renamed), so readers (the tools, during a crawl) always see a
// whole file, and saving needs no writer lock on the DB. Saves of one rank may run at once,
// in threads or processes: each writes its own temp file, and the last rename wins.
#ifndef CRAWLRANK_RANK_STORE_H_
#define CRAWLRANK_RANK_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crawlrank/page_types.h"
#include "crawlrank/rank.h"
#include "crawlrank/status.h"

namespace crawlrank {

// The newest rank file format this library writes: version 3 is a global rank's file
// (StoredRank::global set: version 2's header and a block naming the run); a rank of one
// PageDB is written as version 2. It reads versions 1 to 3 (version 1 did not record the
// graph's counters: StoredRank::graph is then unknown).
inline constexpr uint32_t kRankFileFormatVersion = 3;

// One shard's part of a global rank (global_rank.h): a rank of the graph of every node
// of a cluster, computed by them together (crawlrank_rank_mpi), which this node's file
// holds for its own pages and ghosts.
struct GlobalRun {
  uint64_t run_id = 0;  // the job's: the same in every shard's file of one run
  uint32_t shard = 0;   // this PageDB's index in the cluster's sorted list of nodes
  uint32_t shards = 0;  // the number of nodes (shards) ranked together
  // The whole graph ranked, summed over the shards: pages counts each page once (a ghost
  // at its owner), crawled_pages the crawled ones, edges every link.
  PageDbCounters total;
};

// A rank as stored with a DB: the result and where it came from.
struct StoredRank {
  RankResult rank;
  bool cross_host_only = false;  // computed over links between different hosts only
  int64_t created_ms = 0;        // Unix time in ms when it was computed
  // The DB's counters in the snapshot ranked: pages (= rank.report.pages), every stored link
  // (rank.report.links counts the links ranked: fewer with cross_host_only) and crawled
  // pages. Compared with PageDb::Info's counters, they say whether the graph has changed
  // since. nullopt: unknown (a file of format version 1; saved as unknown when unset).
  std::optional<PageDbCounters> graph;
  // A global rank's run (saved as format version 3); nullopt for a rank of one PageDB.
  std::optional<GlobalRun> global;
};

// The name of the display rank's file, `ranks/display.rank`: PageRank without template
// links (db_rank.h, RankForDisplay), computed by each front end at the end of a crawl for
// the lists a person reads (the crawl's summary, page_db_top, the dashboard, PageDb.top).
// The scheduler's re-ranks never write it, so it changes only when a crawl ends.
inline constexpr std::string_view kDisplayRankName = "display";

// The rank a list for a person shows by default: kDisplayRankName where the DB has a
// display rank stored, else "pagerank" (a DB loaded, or ranked by hand).
std::string ShownRankName(const std::string& db_path);

// `db_path`/ranks/<RankAlgorithmName(algorithm)>.rank
std::string RankFilePath(const std::string& db_path, RankAlgorithm algorithm);
// `db_path`/ranks/<name>.rank; a name may hold a folder ("global/pagerank": the global
// ranks' files, global_rank.h).
std::string RankFilePath(const std::string& db_path, std::string_view name);

// Writes `stored` as the rank of its algorithm, replacing any earlier one atomically.
Status SaveRank(const std::string& db_path, const StoredRank& stored);
// The same under `name` instead of the algorithm's name (the display rank).
Status SaveRank(const std::string& db_path, const StoredRank& stored, std::string_view name);

// The two halves of SaveRank, for a save that several processes commit together (a global
// rank: each writes its file aside, all meet, then each renames): SaveRankAside writes and
// syncs the file under a temporary name beside its place and returns that name;
// CommitRank renames it into place and syncs the directory. A temp file whose process
// died is removed by the next save in that directory.
Result<std::string> SaveRankAside(const std::string& db_path, const StoredRank& stored,
                                  std::string_view name);
Status CommitRank(const std::string& temp, const std::string& db_path, std::string_view name);
// Reads the stored rank of `algorithm`. NotFound when none was computed; DataLoss naming
// the file when it is damaged; FailedPrecondition for a format version other than 1 and
// kRankFileFormatVersion (a newer crawlrank's file).
Result<StoredRank> LoadRank(const std::string& db_path, RankAlgorithm algorithm);
// Reads the rank stored under `name`, which holds `algorithm`'s (DataLoss otherwise).
Result<StoredRank> LoadRank(const std::string& db_path, std::string_view name,
                            RankAlgorithm algorithm);

}  // namespace crawlrank

#endif  // CRAWLRANK_RANK_STORE_H_
