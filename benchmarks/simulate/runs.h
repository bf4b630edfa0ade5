// The runs of a simulation: the graph crawled in each score mode through the Scheduler
// (crawl.h) and each order of sim_orders.h replayed, --repeats times, the counts checked
// to come out the same every time.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_RUNS_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_RUNS_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "crawlrank/score_mode.h"
#include "link_graph.h"
#include "measures.h"
#include "results.h"
#include "sim_orders.h"
#include "simulation_options.h"

namespace crawlrank::bench {

// What every run of a simulation starts from.
struct RunSetup {
  const LinkGraph& graph;
  const std::vector<uint32_t>& seeds;
  const Truth& truth;
  uint64_t reachable;
  const SimulationOptions& options;
  size_t repeats;
};

// A run for each of `modes` (its PageDbs in `dir`, one at a time), then one for each of
// `replays`, with their ratios to the best baselines. Prints each crawl's progress to
// standard error; stops the program on an error, or when a repeat's counts differ.
std::vector<ModeRun> RunAll(const RunSetup& setup, const std::vector<ScoreMode>& modes,
                            const std::vector<ReplayOrder>& replays,
                            const std::filesystem::path& dir);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_RUNS_H_
