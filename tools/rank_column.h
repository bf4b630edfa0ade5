// Stored ranks as columns for the tools: `--by pagerank`, `--rank hubs`, ...
#ifndef CRAWLRANK_TOOLS_RANK_COLUMN_H_
#define CRAWLRANK_TOOLS_RANK_COLUMN_H_

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/page_types.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/status.h"

namespace crawlrank::tools {

// A column is an algorithm name (pagerank, ppr, trustrank, hits, topic-hits, wpr,
// indegree: its scores, the authorities for HITS) or hubs / topic-hubs (HITS hubs).
bool IsRankColumn(std::string_view name);
std::string RankColumnHelp();

// The columns' values by page id, from the ranks stored with the DB at `db_path`; each
// rank file is read once, however many of its columns are named (hits and hubs). With
// `sources`, also the rank each column came from, without its vectors.
Result<std::vector<std::vector<double>>> LoadRankColumns(
    const std::string& db_path, std::span<const std::string> names,
    std::vector<StoredRank>* sources = nullptr);

// How fresh a stored rank is: the graph it was computed over against the DB's counters
// now (PageDb::Info: no pass over the pages).
// "ranked 2026-11-25T19:42:24Z over P pages, L links, C crawled; the graph now has P' pages,
// L' links, C' crawled". L is every link the DB held (not only those ranked, for a
// cross-host rank); a rank file of version 1 did not record C (nor, for a cross-host rank,
// L): the line says so.
std::string FreshnessLine(const StoredRank& stored, const PageDbCounters& now);
// What changed since, as "N more pages, M more links, K more crawled" (negative counts as
// "N fewer"); empty when nothing that the rank recorded differs.
std::string GraphChange(const StoredRank& stored, const PageDbCounters& now);
// The same as JSON: {"created", "created_ms", "pages", "links", "crawled" (null when
// unknown), "now": {"pages", "links", "crawled"}, "changed"}.
nlohmann::json FreshnessJson(const StoredRank& stored, const PageDbCounters& now);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_RANK_COLUMN_H_
