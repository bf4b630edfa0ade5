// Stored ranks as columns for the tools: `--by pagerank`, `--rank hubs`, ...
#ifndef CRAWLRANK_TOOLS_RANK_COLUMN_H_
#define CRAWLRANK_TOOLS_RANK_COLUMN_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank::tools {

// A column is an algorithm name (pagerank, ppr, trustrank, hits, topic-hits, wpr,
// indegree: its scores, the authorities for HITS) or hubs / topic-hubs (HITS hubs).
bool IsRankColumn(std::string_view name);
std::string RankColumnHelp();

// The columns' values by page id, from the ranks stored with the DB at `db_path`; each
// rank file is read once, however many of its columns are named (hits and hubs).
Result<std::vector<std::vector<double>>> LoadRankColumns(const std::string& db_path,
                                                         std::span<const std::string> names);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_RANK_COLUMN_H_
