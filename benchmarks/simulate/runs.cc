// The runs of a simulation (runs.h): each score mode's crawls and each replayed order's.
#include "runs.h"

#include <array>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "bench_util.h"
#include "crawl.h"
#include "reference_order.h"
#include "sim_topic.h"

namespace crawlrank::bench {
namespace {

// The crawls of `mode` into `run`, or why it was skipped.
void RunScoreMode(const RunSetup& setup, const Simulator& simulator,
                  const std::filesystem::path& dir, ScoreMode mode, ModeRun& run) {
  const LinkGraph& graph = setup.graph;
  const std::vector<uint32_t>& seeds = setup.seeds;
  const SimulationOptions& options = setup.options;
  const size_t repeats = setup.repeats;
  run.mode = mode;
  const std::string_view name = ScoreModeName(mode);
  // A library that declares a mode it does not implement yet names it "unknown".
  if (Result<ScoreMode> known = ParseScoreMode(name); !known.ok() || *known != mode) {
    run.unimplemented = true;
    run.skipped = "score mode " + std::to_string(static_cast<int>(mode)) +
                  ": this build of crawlrank does not implement it";
    std::fprintf(stderr, "crawlrank_simulate: %s\n", run.skipped.c_str());
    return;
  }
  for (size_t r = 0; r < repeats; ++r) {
    const std::filesystem::path db = dir / (std::string(name) + "-" + std::to_string(r));
    const Simulator::Attempt attempt = Check(simulator.Crawl(mode, db));
    std::filesystem::remove_all(db);
    if (!attempt.refused.ok()) {
      run.skipped = std::string(name) + ": " + attempt.refused.ToString();
      std::fprintf(stderr, "crawlrank_simulate: skipping %s\n", run.skipped.c_str());
      return;
    }
    const CrawlOutcome& outcome = attempt.outcome;
    std::fprintf(stderr, "crawlrank_simulate: %s, crawl %zu of %zu: %llu pages in %.2f s\n",
                 std::string(name).c_str(), r + 1, repeats,
                 static_cast<unsigned long long>(outcome.fetched), outcome.seconds);
    if (options.background_rerank) {
      const auto& hot80 = outcome.pages_to_hot[kRatioTarget];
      std::fprintf(stderr, "crawlrank_simulate: %s, crawl %zu: %s pages to 80%% hot, %llu re-ranks "
                   "in the background\n", std::string(name).c_str(), r + 1,
                   hot80 ? std::to_string(*hot80).c_str() : "-",
                   static_cast<unsigned long long>(outcome.reranks));
    } else if (r > 0 && !outcome.SameCounts(run.outcome)) {
      Die(InternalError("simulate " + std::string(name) + ": crawl " + std::to_string(r + 1) +
                        " fetched pages in another order than crawl 1 (the simulation "
                        "should be deterministic)"));
    }
    run.outcome = outcome;
    run.seconds.push_back(outcome.seconds);
    // The independent replay knows one Scheduler's order, not a cluster's.
    if (r == 0 && !options.background_rerank && options.shards <= 1 && options.global_every == 0) {
      CheckOrder(graph, seeds, options, run);
    }
    if (outcome.global_runs > 0) {
      std::fprintf(stderr, "crawlrank_simulate: %s: %llu global ranks over %u nodes, %.2f s\n",
                   std::string(name).c_str(), static_cast<unsigned long long>(outcome.global_runs),
                   options.shards, outcome.global_seconds);
    }
  }
}

// The replays of `replay` into `run` (the topic oracle by `relevance`, the others by the
// true PageRank), or why it was skipped.
void RunReplay(const RunSetup& setup, const OrderGraph& order_graph,
               std::span<const double> relevance, const ReplayOrder& replay, ModeRun& run) {
  const LinkGraph& graph = setup.graph;
  const std::vector<uint32_t>& seeds = setup.seeds;
  const Truth& truth = setup.truth;
  const uint64_t reachable = setup.reachable;
  const SimulationOptions& options = setup.options;
  const size_t repeats = setup.repeats;
  run.replay = replay;
  const bool topic_oracle = replay.kind == ReplayOrder::Kind::kTopicOracle;
  if (topic_oracle && options.relevant == nullptr) {
    run.skipped = "topic-oracle: needs --relevant";
    std::fprintf(stderr, "crawlrank_simulate: skipping %s\n", run.skipped.c_str());
    return;
  }
  for (size_t r = 0; r < repeats; ++r) {
    const bench::Clock::time_point start = bench::Clock::now();
    CrawlOutcome outcome;
    const std::array<uint64_t, kShareAt.size()> checkpoints = SharePages(graph.pages());
    ReplayResult replayed = Check(Replay(order_graph, seeds, replay, options.batch,
                                         options.max_pages,
                                         topic_oracle ? std::span<const double>(relevance)
                                                      : std::span<const double>(truth.rank),
                                         checkpoints,
                                         options.polite));
    outcome.order = std::move(replayed.order);
    outcome.seconds = Seconds(start);
    Measure(outcome.order, truth, graph.pages(), outcome);
    if (options.relevant != nullptr) {
      outcome.harvest = HarvestCurve(outcome.order, *options.relevant, reachable, kCurvePoints);
    }
    for (size_t k = 0; k < replayed.held.size(); ++k) outcome.tau_at[k] = TauOf(replayed.held[k], truth);
    std::fprintf(stderr, "crawlrank_simulate: %s (replayed), run %zu of %zu: %llu pages in %.2f s\n",
                 replay.Name().c_str(), r + 1, repeats,
                 static_cast<unsigned long long>(outcome.fetched), outcome.seconds);
    if (r > 0 && !outcome.SameCounts(run.outcome)) {
      Die(InternalError("replay " + replay.Name() + " gave another order in run " + std::to_string(r + 1)));
    }
    if (outcome.fetched != reachable && options.max_pages == 0) {
      run.outcome.anomalies.push_back("fetched " + std::to_string(outcome.fetched) + " of " +
                                      std::to_string(reachable) + " reachable pages");
    }
    outcome.anomalies = run.outcome.anomalies;
    run.outcome = std::move(outcome);
    run.seconds.push_back(run.outcome.seconds);
  }
}

}  // namespace

std::vector<ModeRun> RunAll(const RunSetup& setup, const std::vector<ScoreMode>& modes,
                            const std::vector<ReplayOrder>& replays,
                            const std::filesystem::path& dir) {
  const LinkGraph& graph = setup.graph;
  const Simulator simulator(graph, setup.truth, setup.seeds, setup.reachable, setup.options);
  std::vector<ModeRun> runs;
  for (const ScoreMode mode : modes) RunScoreMode(setup, simulator, dir, mode, runs.emplace_back());
  const OrderGraph order_graph{graph.offsets, graph.targets, graph.host};
  std::vector<double> relevance;  // the topic oracle's priorities
  if (const std::vector<bool>* relevant = setup.options.relevant; relevant != nullptr) {
    relevance.assign(relevant->begin(), relevant->end());
  }
  for (const ReplayOrder& replay : replays) {
    RunReplay(setup, order_graph, relevance, replay, runs.emplace_back());
  }
  SetRatios(runs);
  return runs;
}

}  // namespace crawlrank::bench
