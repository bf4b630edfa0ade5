// What crawlrank_simulate prints about a simulation: the graph, the truth, the crawl's
// settings and every run, as a table (report_text.cc) or as JSON (report_json.cc).
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_REPORT_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "link_graph.h"
#include "measures.h"
#include "results.h"
#include "simulation_options.h"

namespace crawlrank::bench {

struct Report {
  std::string name;  // of the graph
  const LinkGraph& graph;
  const Truth& truth;
  const std::vector<uint32_t>& seeds;
  uint64_t reachable;
  uint32_t hot_reachable;
  const SimulationOptions& options;
  size_t repeats;
  const std::vector<ModeRun>& runs;

  // The table on standard output: a row a run, then the legend, the topic's harvest rates,
  // the best baselines and the notes.
  void PrintText() const;
  // The JSON document of --json and --json-file.
  std::string Json() const;

  double HotReachableShare() const { return static_cast<double>(hot_reachable) / truth.hot_pages; }

 private:
  // PrintText's parts, in order: the graph, its seeds and hot pages, and the crawl's
  // settings; the table; the legend, the harvest rates and the best baselines; what was
  // amiss, skipped or checked.
  void PrintHeader() const;
  void PrintTable() const;
  void PrintSummary() const;
  void PrintNotes() const;
  // The topic's table: the harvest rate at every 5% of the crawl, and the area.
  void PrintHarvest() const;
  // Json's parts: the fields of "graph" and of "crawl", and one entry of "modes" after
  // its opening brace.
  std::string JsonGraph() const;
  std::string JsonCrawl() const;
  std::string JsonMode(const ModeRun& run) const;
};

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_REPORT_H_
