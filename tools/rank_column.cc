#include "rank_column.h"

#include <algorithm>
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

bool IsRankColumn(std::string_view name) {
  return ParseColumn(name).ok();
}

std::string RankColumnHelp() {
  std::string help = "a rank:";
  for (std::string_view name : RankAlgorithmNames()) help += " " + std::string(name);
  return help + " (HITS: the authorities), hubs or topic-hubs (HITS hubs)";
}

Result<std::vector<std::vector<double>>> LoadRankColumns(const std::string& db_path,
                                                         std::span<const std::string> names) {
  // Each rank file is read once; a vector is moved out for the last column that names it,
  // copied only for an earlier one (a column named twice).
  std::vector<std::pair<RankAlgorithm, bool>> parsed;
  for (const std::string& name : names) {
    CRAWLRANK_ASSIGN_OR_RETURN(auto column, ParseColumn(name));
    parsed.push_back(column);
  }
  std::map<RankAlgorithm, StoredRank> loaded;
  std::vector<std::vector<double>> columns;
  for (auto column = parsed.begin(); column != parsed.end(); ++column) {
    auto it = loaded.find(column->first);
    if (it == loaded.end()) {
      CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored, LoadRank(db_path, column->first));
      it = loaded.emplace(column->first, std::move(stored)).first;
    }
    std::vector<double>& vector = column->second ? it->second.rank.hubs : it->second.rank.scores;
    const bool named_again = std::find(column + 1, parsed.end(), *column) != parsed.end();
    columns.push_back(named_again ? vector : std::move(vector));
  }
  return columns;
}

}  // namespace crawlrank::tools
