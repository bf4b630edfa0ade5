// Stored ranks as columns for the tools: `--by pagerank`, `--rank hubs`, ...
#ifndef CRAWLRANK_TOOLS_RANK_COLUMN_H_
#define CRAWLRANK_TOOLS_RANK_COLUMN_H_

#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank::tools {

// A column is an algorithm name (pagerank, ppr, trustrank, hits, topic-hits, wpr,
// indegree: its scores, the authorities for HITS) or hubs / topic-hubs (HITS hubs).
bool IsRankColumn(std::string_view name);
std::string RankColumnHelp();

// The column's values by page id, from the rank stored with the DB at `db_path`.
Result<std::vector<double>> LoadRankColumn(const std::string& db_path, std::string_view name);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_RANK_COLUMN_H_
