#include "rank_column.h"

#include <map>

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
  std::string help = "a rank:";
  for (std::string_view name : RankAlgorithmNames()) help += " " + std::string(name);
  return help + " (HITS: the authorities), hubs or topic-hubs (HITS hubs)";
}

Result<std::vector<std::vector<double>>> LoadRankColumns(const std::string& db_path,
                                                         std::span<const std::string> names) {
  std::map<RankAlgorithm, StoredRank> loaded;
  std::vector<std::vector<double>> columns;
  for (const std::string& name : names) {
    CRAWLRANK_ASSIGN_OR_RETURN(auto column, ParseColumn(name));
    auto it = loaded.find(column.first);
    if (it == loaded.end()) {
      CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored, LoadRank(db_path, column.first));
      it = loaded.emplace(column.first, std::move(stored)).first;
    }
    columns.push_back(column.second ? it->second.rank.hubs : it->second.rank.scores);
  }
  return columns;
}

}  // namespace crawlrank::tools
