#include "crawlrank/crawl_end.h"

#include <chrono>

#include "crawlrank/db_rank.h"
#include "schedule/reranker.h"
#include "schedule/score_policy.h"

namespace crawlrank {

Result<CrawlEndRanks> RankCrawlEnd(const PageDb& db, const SchedulerOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CrawlEndRanks ranks;
  if (const std::optional<RankAlgorithm> algorithm = RankAlgorithmOf(options.score)) {
    Result<StoredRank> rank = RankPageDb(db, *algorithm, ModeRankOptions(options));
    if (!rank.ok()) return rank.status().WithContext("rank the crawl's score mode at its end");
    ranks.mode_rank = *std::move(rank);
  }
  DbRankOptions display;
  display.rank.template_links = options.rank.template_links;
  Result<StoredRank> rank = RankForDisplay(db, display);
  if (!rank.ok()) return rank.status().WithContext("compute the display rank at the crawl's end");
  ranks.display = *std::move(rank);
  ranks.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return ranks;
}

}  // namespace crawlrank
