// Re-ranking for the score modes of the ranking engine: when the graph has grown enough
// (SchedulerOptions::rerank_*), rank a snapshot of the PageDB and re-key the schedule in
// batches, from a background thread of its own or inside the Next that finds it due.
// With keep_rank_graph, the ranking graph stays in memory between re-ranks (LiveDbRank)
// and a re-rank reads only the out-links of the pages written since the last one, which
// the scheduler's write hook reports (Relinked).
//
// Global ranks (global_rank.h): a node of a cluster whose PageDB holds a global rank of the
// mode's algorithm (ranks/global/ALGO.rank, written by crawlrank_rank_mpi) keys the pages
// that rank covers by it, and the pages added since by its own re-ranks: a re-rank is due
// when a newer global run lands (its file is looked at at most once a second), and every
// re-rank combines the two (docs/scheduler.md, "Global ranks").
//
// Locks: the scheduler's mutex (given) guards what the scheduler and this share: the
// counters, the pages relinked, whether a graph is kept; `rank_mu_` makes re-ranks one at
// a time and guards the kept graph. A re-rank takes the writer's lock only to open its
// snapshot, and the scheduler's mutex only per batch of re-keyed pages.
#ifndef CRAWLRANK_SRC_SCHEDULE_RERANKER_H_
#define CRAWLRANK_SRC_SCHEDULE_RERANKER_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "crawlrank/clock.h"
#include "crawlrank/db_rank.h"
#include "crawlrank/page_db.h"
#include "crawlrank/schedule_types.h"
#include "crawlrank/scheduler_options.h"

namespace crawlrank {

// The schedule a Reranker re-keys. Every call is made with the scheduler's mutex held.
class RerankTarget {
 public:
  virtual ~RerankTarget() = default;
  // Pages the schedule knows, and those whose key comes from the ranks (ids below).
  virtual uint64_t KnownPages() const = 0;
  virtual uint64_t RankedPages() const = 0;
  // Re-keys pages [first, end) by their scores.
  virtual void Rekey(std::span<const double> scores, size_t first, size_t end, int64_t now) = 0;
};

// How a score mode's rank is computed, by the re-ranks and at a crawl's end (crawl_end.h):
// options.rank, starting from the stored rank of the same algorithm.
DbRankOptions ModeRankOptions(const SchedulerOptions& options);

class Reranker {
 public:
  // `options.score` must be a rank mode. `db`, `clock`, `mu` and `target` outlive it.
  Reranker(PageDb& db, const SchedulerOptions& options, RankAlgorithm algorithm, const Clock& clock,
           std::mutex& mu, RerankTarget& target);
  ~Reranker();  // stops the thread
  Reranker(const Reranker&) = delete;
  Reranker& operator=(const Reranker&) = delete;

  // Starts the background thread (SchedulerOptions::background_rerank).
  void Start();
  // Stops it, waiting for a re-rank in progress to end.
  void Stop();

  // ---- REQUIRES: the scheduler's mutex held
  // The ranks are due for a recomputation.
  bool Due(int64_t now) const;
  // The stored ranks used at open were computed at `created_ms`, over `graph` (unknown: the
  // graph as Grew last saw it).
  void Loaded(int64_t created_ms, const std::optional<PageDbCounters>& graph) {
    last_rank_ms_ = created_ms;
    ranked_graph_ = graph.value_or(graph_);
  }
  // The DB's counters now: at open, and after each committed transaction.
  void Grew(const PageDbCounters& counters) { graph_ = counters; }
  // A graph is kept: the pages a transaction relinked are worth reporting.
  bool keeps_graph() const { return live_.has_value(); }
  // Pages whose out-links a committed transaction wrote.
  void Relinked(std::span<const uint32_t> pages);
  // Wakes the background thread when a re-rank is due.
  void NotifyIfDue(int64_t now);
  // Fills reranks, rank_full_reads, rerank_error.
  void AddStats(SchedulerStats* stats) const;

  // ---- without the scheduler's mutex
  // Ranks a snapshot now and re-keys the schedule, with the newest global rank over the
  // pages it covers; waits for a re-rank in progress.
  Status RankAndRekey();

  // The keys of a re-rank from the node's own `local` scores (by page id) and a `global`
  // rank's (by page id, a prefix of the pages): the global scores where they reach, scaled
  // so that their mean over those pages is the local scores' mean over all (1 / pages for
  // PageRank), the local scores past them.
  static std::vector<double> CombineRanks(std::vector<double> local,
                                          std::span<const double> global);

 private:
  // The identity of a file as stat(2) gives it: changed by every rename over it.
  struct FileStamp {
    uint64_t inode = 0, size = 0;
    int64_t mtime_ns = 0;
    friend bool operator==(const FileStamp&, const FileStamp&) = default;
  };
  // REQUIRES: the scheduler's mutex held. The global rank's file differs from the one in
  // use (looked at no more than once a second).
  bool GlobalChanged(int64_t now) const;
  // REQUIRES: rank_mu_ held. Loads the global rank when its file changed; an unreadable
  // file is an error, a missing one leaves none in use.
  Status LoadGlobal();
  // REQUIRES: rank_mu_ held. RankAndRekey's rank of the node's own graph and re-key.
  Status RankLocalAndRekey();

  void Loop(std::stop_token stop);
  DbRankOptions RankOptions() const { return ModeRankOptions(options_); }
  // REQUIRES: the scheduler's mutex held. The graph has grown past rerank_graph_growth.
  bool GraphGrown() const;
  void CountFullReads(uint32_t reads);
  void Apply(const StoredRank& stored, std::span<const double> scores);

  PageDb& db_;
  const SchedulerOptions& options_;
  const RankAlgorithm algorithm_;
  const Clock& clock_;
  std::mutex& mu_;
  RerankTarget& target_;

  // Under mu_:
  int64_t last_rank_ms_ = 0;
  // The DB's counters now, and in the snapshot of the last rank (none: all 0).
  PageDbCounters graph_, ranked_graph_;
  uint64_t reranks_ = 0;
  uint64_t rerank_us_ = 0;  // the re-ranks' time, summed
  uint64_t full_reads_ = 0;
  std::string error_;  // of the last background re-rank that failed
  // The pages whose out-links were written since the snapshot of the last re-rank;
  // swapped out with the writer's lock held, as the next snapshot is taken.
  std::vector<uint32_t> relinked_;
  // The ranking graph kept between re-ranks; used and changed under rank_mu_, and its
  // presence changed under mu_ too.
  std::optional<LiveDbRank> live_;
  // The global rank in use and its file's stamp, under rank_mu_ (the stamp under mu_ too).
  std::vector<double> global_scores_;
  std::optional<FileStamp> global_stamp_;
  // Under mu_: when the file was last looked at, what it was then, and the counts.
  mutable int64_t global_checked_ms_ = INT64_MIN;
  mutable std::optional<FileStamp> global_seen_;
  std::optional<FileStamp> global_applied_;  // the file of the last re-key that used one
  uint64_t global_rekeys_ = 0;
  uint64_t global_pages_ = 0;

  std::mutex rank_mu_;                // one re-rank at a time
  std::condition_variable_any wake_;  // with mu_: wakes the background thread
  std::jthread thread_;               // last: stopped first
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_RERANKER_H_
