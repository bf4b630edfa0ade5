// crawlrank_simulate: how well each score mode guides a crawl, on a known link graph.
//
// Reads a link graph (link_graph.h), computes PageRank of the whole graph (the "truth" no
// crawler has; measures.h), then replays a crawl of it once per score mode through the real
// Scheduler over a fresh PageDb (crawl.h). Then it replays the orders of sim_orders.h
// (--replay: the oracle and the literature's baselines that are not score modes) without a
// Scheduler (runs.h). For each mode and order it prints how many pages were fetched before
// 50%, 80% and 90% of the hot pages (the top 10% of the whole graph by PageRank) were, and
// the share of the whole graph's PageRank fetched after the first 1, 5, 10 and 25% of its
// pages; the JSON also keeps that share after each 1% (the curve) (report.h).
// docs/benchmarks.md, "Crawl guidance quality" and "Crawl order on the graph suite",
// explains the choices; `--help` lists the options. This file reads the command line and
// runs the steps in order.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.h"
#include "crawlrank/score_mode.h"
#include "crawlrank/url.h"
#include "link_graph.h"
#include "measures.h"
#include "report.h"
#include "results.h"
#include "runs.h"
#include "sim_orders.h"
#include "sim_topic.h"
#include "simulation_options.h"
#include "temp_dir.h"

namespace crawlrank::bench {
namespace {

// The command line, with its defaults.
struct CommandLine {
  std::string graph_path;
  std::string seeds_option;
  std::string modes_option = "all";
  std::string replay_option = "oracle,larger-sites-first,rankmass,pagerank-every-100";
  std::string link_score = "inverse-degree";
  std::string tmp = std::filesystem::temp_directory_path().string();
  uint32_t hosts = 1000;
  size_t repeats = 1;
  bool json = false;
  std::string json_file;
  std::string name;
  SimulationOptions options;
  std::string orders_dir;
  std::string scores_path, relevant_path;
};

// The graph and what runs on it: the graph, --seeds, --modes, --replay and --hosts.
void AddGraphOptions(CLI::App& app, CommandLine& line) {
  app.add_option("graph", line.graph_path,
                 "link graph: `src dst` lines of URLs or of integer ids, '#' comment lines; "
                 "'-' reads standard input")
      ->required();
  app.add_option("--seeds", line.seeds_option,
                 "comma-separated seed URLs (or ids); default: the first link's source");
  std::string modes;  // every mode's name, from the one list (score_mode.h)
  for (const ScoreMode mode : AllScoreModes()) {
    modes += (modes.empty() ? "" : ", ") + std::string(ScoreModeName(mode));
  }
  app.add_option("--modes", line.modes_option,
                 "comma-separated score modes (" + modes + ") or 'all'")
      ->capture_default_str();
  app.add_option("--replay", line.replay_option,
                 "comma-separated orders replayed without the Scheduler (benchmarks/simulate/"
                 "sim_orders.h): oracle, larger-sites-first, rankmass, pagerank-every-N; "
                 "topic-oracle (with --relevant); "
                 "the experiments pagerank-hosts-every-N and blend[n|g]-W-every-N[-grow-G]; "
                 "'none' for none")
      ->capture_default_str();
  app.add_option("--hosts", line.hosts, "id input: page <id> is http://h<id % hosts>.sim/<id>")
      ->capture_default_str()
      ->check(CLI::Range(1u, UINT32_MAX));
}

// How the crawl goes: --batch to --hot-template-links.
void AddCrawlOptions(CLI::App& app, CommandLine& line) {
  SimulationOptions& options = line.options;
  app.add_option("--batch", options.batch,
                 "pages asked of Next at a time; 0: a thousandth of the graph (1 to 1000)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{0}, size_t{1} << 20));
  app.add_option("--step-ms", options.step_ms, "simulated milliseconds a batch takes")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{86'400'000}));
  app.add_option("--max-pages", options.max_pages, "stop after this many pages (0: no limit)")
      ->capture_default_str();
  app.add_flag("--polite", options.polite,
               "keep the Scheduler's politeness defaults (1 s between requests to a host, one "
               "in flight); the clock jumps to the next ready host when none is");
  app.add_option("--link-score", line.link_score,
                 "score of each link: inverse-degree (1/out-degree of the linking page) or "
                 "constant (0.5)")
      ->capture_default_str()
      ->check(CLI::IsMember({"inverse-degree", "constant"}));
  app.add_option("--rerank-growth", options.rerank_growth, "SchedulerOptions::rerank_growth")
      ->capture_default_str();
  app.add_option("--rerank-min-new-pages", options.rerank_min_new_pages,
                 "SchedulerOptions::rerank_min_new_pages")
      ->capture_default_str();
  app.add_option("--rerank-graph-growth", options.rerank_graph_growth,
                 "SchedulerOptions::rerank_graph_growth")
      ->capture_default_str();
  app.add_option("--rerank-min-graph-growth", options.rerank_min_graph_growth,
                 "SchedulerOptions::rerank_min_graph_growth")
      ->capture_default_str();
  app.add_flag("--background-rerank", options.background_rerank,
               "re-rank in the Scheduler's background thread, as a crawl does (the counts vary "
               "between runs: with --repeats, each crawl's is printed and the last reported)");
  app.add_option("--pace-us", options.pace_us,
                 "wall-clock microseconds each batch waits, standing for its fetches (with "
                 "--background-rerank: how far the ranks can lag)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  app.add_option("--rank-threads", options.rank_threads, "threads of each re-rank (0: all cores)")
      ->capture_default_str();
  app.add_flag("--template-links", options.template_links,
               "the rank modes' re-ranks drop template links (RankOptions::template_links)");
  app.add_option("--uniform-teleport", options.uniform_teleport,
                 "ppr and trustrank: this share of the teleport to every page alike "
                 "(RankOptions::uniform_teleport)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_flag("--hot-template-links", options.hot_template_links,
               "pick the hot pages by PageRank without template links");
  app.add_option("--shards", options.shards,
                 "crawl as a cluster of this many nodes, each with its own PageDB and "
                 "Scheduler over the hosts it owns, read by the fetchers in turn")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  app.add_option("--global-every", options.global_every,
                 "with --shards: the nodes' global rank (crawlrank_rank_mpi's, in-process) "
                 "every this many pages fetched (0: never)")
      ->capture_default_str();
}

// The repeats, where the PageDbs go, the output, and a topic's files.
void AddOutputOptions(CLI::App& app, CommandLine& line) {
  app.add_option("--repeats", line.repeats, "crawls per mode; seconds are their median")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{100}));
  app.add_option("--tmp", line.tmp, "where the PageDbs go (one at a time, removed after)")
      ->capture_default_str();
  app.add_option("--name", line.name, "the graph's name in the output (default: its path)");
  app.add_flag("--json", line.json, "print JSON instead of the table");
  app.add_option("--json-file", line.json_file, "also write the JSON to this file");
  app.add_option("--orders-dir", line.orders_dir,
                 "write each mode's fetch order to DIR/MODE.txt, one URL a line (for analysis)");
  app.add_option("--scores", line.scores_path,
                 "a topic's page and link scores (benchmarks/doc_suite.py --keywords; "
                 "benchmarks/simulate/sim_topic.h): the fetches report them, and link scores "
                 "replace --link-score");
  app.add_option("--relevant", line.relevant_path,
                 "URL prefixes of the pages relevant to a topic, one a line: reports the "
                 "harvest rate at every 5% of the crawl");
}

// The score modes of --modes, comma-separated ("all": every one).
Result<std::vector<ScoreMode>> ParseModes(const std::string& list) {
  if (list == "all") return AllScoreModes();
  std::vector<ScoreMode> modes;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t end = std::min(list.size(), list.find(',', pos));
    CRAWLRANK_ASSIGN_OR_RETURN(const ScoreMode mode,
                               ParseScoreMode(std::string_view(list).substr(pos, end - pos)));
    modes.push_back(mode);
    pos = end + 1;
  }
  return modes;
}

// The orders of --replay, comma-separated ("none": none).
Result<std::vector<ReplayOrder>> ParseReplays(const std::string& replay_option) {
  std::vector<ReplayOrder> replays;
  for (size_t pos = 0; replay_option != "none" && pos <= replay_option.size();) {
    const size_t end = std::min(replay_option.size(), replay_option.find(',', pos));
    CRAWLRANK_ASSIGN_OR_RETURN(
        ReplayOrder replay,
        ParseReplayOrder(std::string_view(replay_option).substr(pos, end - pos)));
    replays.push_back(std::move(replay));
    pos = end + 1;
  }
  return replays;
}

// A topic's files (--scores, --relevant), read when given.
struct Topic {
  std::optional<TopicScores> scores;
  std::optional<std::vector<bool>> relevant;
};

// Reads the topic's files of `line` into `topic`, and points `options` at what they hold.
void ReadTopic(const CommandLine& line, const LinkGraph& graph, Topic& topic,
               SimulationOptions& options) {
  if (!line.scores_path.empty()) {
    const NodeLookup node_of = [&](std::string_view url) -> std::optional<uint32_t> {
      Result<std::string> canonical = CanonicalizeUrl(std::string(url));
      if (!canonical.ok()) return std::nullopt;
      const auto it = graph.node_of_fingerprint.find(UrlFingerprint(*canonical));
      if (it == graph.node_of_fingerprint.end() || graph.urls[it->second] != *canonical) return std::nullopt;
      return it->second;
    };
    topic.scores = Check(ReadTopicScores(line.scores_path, graph.pages(), node_of));
    options.topic_scores = &*topic.scores;
  }
  if (!line.relevant_path.empty()) {
    topic.relevant = Check(ReadRelevant(line.relevant_path, graph.urls));
    options.relevant = &*topic.relevant;
  }
}

// Writes each run's fetch order to DIR/MODE.txt, one URL a line.
void WriteOrders(const std::string& orders_dir, const LinkGraph& graph,
                 const std::vector<ModeRun>& runs) {
  std::filesystem::create_directories(orders_dir);
  for (const ModeRun& run : runs) {
    if (!run.skipped.empty()) continue;
    const std::string path = orders_dir + "/" + run.Name() + ".txt";
    std::ofstream file(path);
    for (uint32_t node : run.outcome.order) file << graph.urls[node] << '\n';
    if (!file.flush()) Die(IoError("write \"" + path + "\": " + std::strerror(errno)));
  }
}

// Prints the table or the JSON, and writes the JSON to --json-file.
void WriteOutput(const CommandLine& line, const Report& report) {
  const std::string json_text = report.Json();
  if (!line.json_file.empty()) {
    std::ofstream file(line.json_file);
    file << json_text;
    if (!file.flush()) Die(IoError("write \"" + line.json_file + "\": " + std::strerror(errno)));
  }
  if (line.json) {
    std::fputs(json_text.c_str(), stdout);
  } else {
    report.PrintText();
  }
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Replays a crawl of a link graph through crawlrank's Scheduler, once per score mode, and "
      "reports how soon each mode fetches the graph's hot pages (the top 10% by PageRank).",
      "crawlrank_simulate");
  CommandLine line;
  AddGraphOptions(app, line);
  AddCrawlOptions(app, line);
  AddOutputOptions(app, line);
  CLI11_PARSE(app, argc, argv);
  SimulationOptions& options = line.options;
  options.link_score =
      line.link_score == "constant" ? LinkScoreRule::kConstant : LinkScoreRule::kInverseDegree;

  const std::vector<ScoreMode> modes = Check(ParseModes(line.modes_option));
  const std::vector<ReplayOrder> replays = Check(ParseReplays(line.replay_option));
  std::ios::sync_with_stdio(false);
  const LinkGraph graph = Check(ReadLinkGraph(line.graph_path, line.hosts));
  const std::vector<uint32_t> seeds = Check(ParseSeeds(graph, line.seeds_option));
  Topic topic;
  ReadTopic(line, graph, topic, options);
  const std::vector<bool> reach = Reachable(graph, seeds);
  const auto reachable = static_cast<uint64_t>(std::count(reach.begin(), reach.end(), true));
  if (options.batch == 0) options.batch = std::clamp<size_t>(graph.pages() / 1000, 1, 1000);
  const Truth truth = Check(ComputeTruth(graph, options.hot_template_links));
  uint32_t hot_reachable = 0;
  for (uint32_t node = 0; node < graph.pages(); ++node)
    hot_reachable += truth.hot[node] && reach[node];
  const TempDir dir = Check(TempDir::Create(line.tmp));

  const std::vector<ModeRun> runs =
      RunAll({graph, seeds, truth, reachable, options, line.repeats}, modes, replays, dir.path());
  const Report report{line.name.empty() ? line.graph_path : line.name,
                      graph,
                      truth,
                      seeds,
                      reachable,
                      hot_reachable,
                      options,
                      line.repeats,
                      runs};
  if (!line.orders_dir.empty()) WriteOrders(line.orders_dir, graph, runs);
  WriteOutput(line, report);
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  return crawlrank::bench::Main(argc, argv);
}
