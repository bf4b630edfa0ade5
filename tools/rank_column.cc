#include "rank_column.h"

#include "crawlrank/rank_store.h"

namespace crawlrank::tools {
namespace {

// The algorithm a column comes from, and whether it is the hub vector.
Result<std::pair<RankAlgorithm, bool>> ParseColumn(std::string_view name) {
  if (name == "hubs") return std::pair{RankAlgorithm::kHits, true};
  if (name == "topic-hubs") return std::pair{RankAlgorithm::kTopicHits, true};
  CRAWLRANK_ASSIGN_OR_RETURN(RankAlgorithm algorithm, ParseRankAlgorithm(name));
  return std::pair{algorithm, false};
}

}  // namespace

bool IsRankColumn(std::string_view name) { return ParseColumn(name).ok(); }

std::string RankColumnHelp() {
  return "a rank: pagerank, ppr, trustrank, hits (authorities), hubs, topic-hits, topic-hubs, "
         "wpr or indegree";
}

Result<std::vector<double>> LoadRankColumn(const std::string& db_path, std::string_view name) {
  CRAWLRANK_ASSIGN_OR_RETURN(auto column, ParseColumn(name));
  CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored, LoadRank(db_path, column.first));
  return column.second ? std::move(stored.rank.hubs) : std::move(stored.rank.scores);
}

}  // namespace crawlrank::tools
