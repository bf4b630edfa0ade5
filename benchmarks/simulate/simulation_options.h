// How crawlrank_simulate crawls: the batch, the clock's step, the link scores, the
// Scheduler's re-rank and politeness settings, and a topic's scores (SimulationOptions).
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_SIMULATION_OPTIONS_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_SIMULATION_OPTIONS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "crawlrank/clock.h"
#include "crawlrank/scheduler.h"
#include "sim_topic.h"

namespace crawlrank::bench {

// The score of a link, without a topic: 1/out-degree of the linking page, or 0.5.
enum class LinkScoreRule : uint8_t { kInverseDegree, kConstant };

// The command line's settings of the crawls (and of the replays, which take the batch, the
// page limit, politeness and the topic from them).
struct SimulationOptions {
  size_t batch = 0;  // 0: a thousandth of the graph's pages, at least 1 and at most 1000
  int64_t step_ms = 1000;
  uint64_t max_pages = 0;  // 0: none
  bool polite = false;
  LinkScoreRule link_score = LinkScoreRule::kInverseDegree;
  double rerank_growth = SchedulerOptions().rerank_growth;
  uint64_t rerank_min_new_pages = SchedulerOptions().rerank_min_new_pages;
  double rerank_graph_growth = SchedulerOptions().rerank_graph_growth;
  uint64_t rerank_min_graph_growth = SchedulerOptions().rerank_min_graph_growth;
  unsigned rank_threads = 1;
  // Re-rank in the Scheduler's background thread, as a real crawl does, instead of inside
  // Next; each batch then also waits pace_us of wall time (the fetches it stands for), so
  // that the ranks lag the crawl as they would. The counts then vary from run to run.
  bool background_rerank = false;
  int64_t pace_us = 0;
  bool template_links = false;      // the crawl's re-ranks drop template links
  bool hot_template_links = false;  // so does the PageRank that picks the hot pages
  double uniform_teleport = 0;      // RankOptions::uniform_teleport of the crawl's ranks
  // A cluster of this many nodes (Simulator::CrawlSharded), and its global ranks every
  // this many pages fetched (0: none; the nodes' own re-ranks alone).
  uint32_t shards = 1;
  uint64_t global_every = 0;
  // A topic (sim_topic.h): the scores the fetches report, and the pages relevant to it.
  const TopicScores* topic_scores = nullptr;
  const std::vector<bool>* relevant = nullptr;

  // The score of the link from `src` (with `out_degree` links) to `dst`: the topic's, or
  // by the rule.
  float LinkScoreOf(uint32_t src, uint32_t dst, size_t out_degree) const {
    return topic_scores != nullptr ? topic_scores->Link(src, dst) : LinkScore(out_degree);
  }
  // The score of each link of a page with `out_degree` links.
  float LinkScore(size_t out_degree) const {
    if (link_score == LinkScoreRule::kConstant) return 0.5f;
    return 1.0f / static_cast<float>(std::max<size_t>(1, out_degree));
  }

  // The Scheduler's options for a crawl in `mode` on `clock`.
  SchedulerOptions ForMode(ScoreMode mode, const crawlrank::Clock* clock) const {
    SchedulerOptions options;
    options.score = mode;
    options.clock = clock;
    options.background_rerank = background_rerank;  // false: inside Next, deterministic
    options.rerank_growth = rerank_growth;
    options.rerank_min_new_pages = rerank_min_new_pages;
    options.rerank_graph_growth = rerank_graph_growth;
    options.rerank_min_graph_growth = rerank_min_graph_growth;
    options.rank.threads = rank_threads;
    options.rank.template_links.drop = template_links;
    options.rank.uniform_teleport = uniform_teleport;
    if (!polite) {
      // A simulation has no servers to spare: every page may go out as soon as it is the
      // best, whatever its host.
      options.delay_ms = 0;
      options.per_host = UINT32_MAX;
    }
    return options;
  }
};

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_SIMULATION_OPTIONS_H_
