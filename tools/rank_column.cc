#include "rank_column.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>

#include "crawlrank/global_rank.h"
#include "crawlrank/rank_store.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// Where a column comes from: the rank file's name, the algorithm it holds, and whether the
// column is its hub vector.
constexpr std::string_view kGlobalPrefix = "global-";

struct Column {
  std::string file;
  RankAlgorithm algorithm;
  bool hubs;
  friend bool operator==(const Column&, const Column&) = default;
};

Result<Column> ParseColumn(std::string_view name) {
  // A cluster's global ranks (global_rank.h, crawlrank_rank_mpi): "global-pagerank", ...
  if (name.starts_with(kGlobalPrefix) && name.substr(kGlobalPrefix.size()) != kDisplayRankName) {
    CRAWLRANK_ASSIGN_OR_RETURN(Column column, ParseColumn(name.substr(kGlobalPrefix.size())));
    if (column.algorithm == RankAlgorithm::kInDegree) {
      return InvalidArgumentError("in-degree has no global rank");
    }
    column.file = GlobalRankName(column.algorithm);
    return column;
  }
  if (name == kDisplayRankName) {
    return Column{std::string(kDisplayRankName), RankAlgorithm::kPageRank, false};
  }
  if (name == "hubs") return Column{"hits", RankAlgorithm::kHits, true};
  if (name == "topic-hubs") return Column{"topic-hits", RankAlgorithm::kTopicHits, true};
  CRAWLRANK_ASSIGN_OR_RETURN(RankAlgorithm algorithm, ParseRankAlgorithm(name));
  return Column{std::string(RankAlgorithmName(algorithm)), algorithm, false};
}

}  // namespace

bool IsRankColumn(std::string_view name) {
  return ParseColumn(name).ok();
}

std::string RankColumnHelp() {
  std::string help = "a rank: display (PageRank without template links, computed when a "
                     "crawl ends),";
  for (std::string_view name : RankAlgorithmNames()) help += " " + std::string(name);
  return help + " (HITS: the authorities), hubs or topic-hubs (HITS hubs); global-NAME: a "
                "cluster's global rank NAME (crawlrank_rank_mpi, docs/cluster.md)";
}

Result<std::vector<std::vector<double>>> LoadRankColumns(const std::string& db_path,
                                                         std::span<const std::string> names,
                                                         std::vector<StoredRank>* sources) {
  // Each rank file is read once; a vector is moved out for the last column that names it,
  // copied only for an earlier one (a column named twice).
  std::vector<Column> parsed;
  for (const std::string& name : names) {
    CRAWLRANK_ASSIGN_OR_RETURN(Column column, ParseColumn(name));
    parsed.push_back(std::move(column));
  }
  std::map<std::string, StoredRank> loaded;
  std::vector<std::vector<double>> columns;
  for (auto column = parsed.begin(); column != parsed.end(); ++column) {
    auto it = loaded.find(column->file);
    if (it == loaded.end()) {
      CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored,
                                 LoadRank(db_path, column->file, column->algorithm));
      it = loaded.emplace(column->file, std::move(stored)).first;
    }
    std::vector<double>& vector = column->hubs ? it->second.rank.hubs : it->second.rank.scores;
    const bool named_again = std::find(column + 1, parsed.end(), *column) != parsed.end();
    columns.push_back(named_again ? vector : std::move(vector));
    if (sources != nullptr) {
      sources->push_back(it->second);
      sources->back().rank.scores.clear();
      sources->back().rank.hubs.clear();
    }
  }
  return columns;
}

namespace {

// The counters a rank recorded; links and crawled pages unknown (nullopt) in a version 1
// file, whose links ranked are every link only when the rank dropped none (not cross-host,
// no template links dropped).
struct Recorded {
  uint64_t pages;
  std::optional<uint64_t> links, crawled;
};

Recorded RecordedOf(const StoredRank& stored) {
  if (stored.graph.has_value()) {
    return {stored.graph->pages, stored.graph->edges, stored.graph->crawled_pages};
  }
  Recorded r{stored.rank.report.pages, std::nullopt, std::nullopt};
  if (!stored.cross_host_only && !stored.rank.options.template_links.drop) {
    r.links = stored.rank.report.links;
  }
  return r;
}

std::string Count(uint64_t n, std::string_view what) {
  return std::to_string(n) + " " + std::string(what);
}

}  // namespace

std::string FreshnessLine(const StoredRank& stored, const PageDbCounters& now) {
  const Recorded r = RecordedOf(stored);
  std::string line = "ranked " + IsoTime(stored.created_ms) + " over " + Count(r.pages, "pages");
  line += r.links.has_value() ? ", " + Count(*r.links, "links") : ", links unknown";
  line += r.crawled.has_value() ? ", " + Count(*r.crawled, "crawled") : ", crawled count unknown";
  if (!stored.graph.has_value()) line += " (rank file version 1)";
  if (const auto& g = stored.global; g.has_value()) {
    char run[17];
    std::snprintf(run, sizeof run, "%016llx", static_cast<unsigned long long>(g->run_id));
    line += " (node " + std::to_string(g->shard) + " of a global rank over " +
            std::to_string(g->shards) + " nodes, run " + run + ": " +
            Count(g->total.pages, "pages") + ", " + Count(g->total.edges, "links") + " in all)";
  }
  return line + "; the graph now has " + Count(now.pages, "pages") + ", " +
         Count(now.edges, "links") + ", " + Count(now.crawled_pages, "crawled");
}

std::string GraphChange(const StoredRank& stored, const PageDbCounters& now) {
  const Recorded r = RecordedOf(stored);
  std::string change;
  const auto add = [&](std::optional<uint64_t> then, uint64_t later, std::string_view what) {
    if (!then.has_value() || *then == later) return;
    if (!change.empty()) change += ", ";
    const uint64_t n = later > *then ? later - *then : *then - later;
    change += std::to_string(n) + (later > *then ? " more " : " fewer ");
    // "1 more page", "2 more pages"; "crawled" stays as it is.
    change += n == 1 && what.ends_with('s') ? what.substr(0, what.size() - 1) : what;
  };
  add(r.pages, now.pages, "pages");
  add(r.links, now.edges, "links");
  add(r.crawled, now.crawled_pages, "crawled");
  return change;
}

nlohmann::json FreshnessJson(const StoredRank& stored, const PageDbCounters& now) {
  const Recorded r = RecordedOf(stored);
  nlohmann::json j;
  j["created"] = IsoTime(stored.created_ms);
  j["created_ms"] = stored.created_ms;
  j["pages"] = r.pages;
  j["links"] = r.links.has_value() ? nlohmann::json(*r.links) : nlohmann::json(nullptr);
  j["crawled"] = r.crawled.has_value() ? nlohmann::json(*r.crawled) : nlohmann::json(nullptr);
  j["now"] = {{"pages", now.pages}, {"links", now.edges}, {"crawled", now.crawled_pages}};
  j["changed"] = !GraphChange(stored, now).empty();
  return j;
}

}  // namespace crawlrank::tools
