// The JSON of crawlrank_simulate (Report::Json, report.h): the graph, the crawl's settings,
// the best baselines and each run's measures, one object a run.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "bench_util.h"
#include "report.h"

namespace crawlrank::bench {
namespace {

// `s` as a JSON string, quoted and escaped.
std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// `value` as JSON: null when none, a number (doubles to 6 significant digits) otherwise.
template <typename T>
std::string JsonOptional(const std::optional<T>& value) {
  if (!value) return "null";
  if constexpr (std::is_floating_point_v<T>) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", *value);
    return buffer;
  } else {
    return std::to_string(*value);
  }
}

}  // namespace

std::string Report::Json() const {
  const ModeRun* best = BestBaseline(runs);
  std::string j = "{\n  \"graph\": {";
  j += JsonGraph();
  j += "},\n  \"crawl\": {";
  j += JsonCrawl();
  const ModeRun* best_rank = BestBaselineByRank(runs);
  j += "},\n  \"best_baseline\": " + (best ? JsonString(best->Name()) : std::string("null"));
  j += ",\n  \"best_baseline_by_pr10\": " +
       (best_rank ? JsonString(best_rank->Name()) : std::string("null"));
  j += ",\n  \"modes\": [";
  for (size_t i = 0; i < runs.size(); ++i) {
    j += i ? ",\n    {" : "\n    {";
    j += JsonMode(runs[i]);
  }
  j += "\n  ]\n}\n";
  return j;
}

std::string Report::JsonGraph() const {
  std::string j;
  j += "\"name\": " + JsonString(name);
  j += ", \"path\": " + JsonString(graph.path);
  j += ", \"input\": " + JsonString(graph.ids ? "ids" : "urls");
  j += ", \"pages\": " + std::to_string(graph.pages());
  j += ", \"links\": " + std::to_string(graph.links());
  j += ", \"sources\": " + std::to_string(graph.sources);
  j += ", \"seeds\": [";
  for (size_t i = 0; i < seeds.size(); ++i) {
    j += (i ? ", " : "") + JsonString(graph.urls[seeds[i]]);
  }
  j += "], \"reachable\": " + std::to_string(reachable);
  j += ", \"hot_pages\": " + std::to_string(truth.hot_pages);
  j += ", \"hot_reachable_share\": " + JsonOptional(std::optional(HotReachableShare()));
  j += ", \"pagerank_iterations\": " + std::to_string(truth.report.iterations);
  j += ", \"pagerank_converged\": " + std::string(truth.report.converged ? "true" : "false");
  return j;
}

std::string Report::JsonCrawl() const {
  const SchedulerOptions scheduler = options.ForMode(ScoreMode::kLinkScore, nullptr);
  std::string j;
  j += "\"batch\": " + std::to_string(options.batch);
  j += ", \"step_ms\": " + std::to_string(options.step_ms);
  j += ", \"link_score\": " +
       JsonString(options.link_score == LinkScoreRule::kConstant ? "constant" : "inverse-degree");
  j += ", \"polite\": " + std::string(options.polite ? "true" : "false");
  j += ", \"template_links\": " + std::string(options.template_links ? "true" : "false");
  j += ", \"hot_template_links\": " + std::string(options.hot_template_links ? "true" : "false");
  j += ", \"delay_ms\": " + std::to_string(scheduler.delay_ms);
  j += ", \"per_host\": " + std::to_string(scheduler.per_host);
  j += ", \"max_pages\": " + std::to_string(options.max_pages);
  j += ", \"repeats\": " + std::to_string(repeats);
  return j;
}

std::string Report::JsonMode(const ModeRun& run) const {
  const CrawlOutcome& o = run.outcome;
  std::string j;
  j += "\"mode\": " + JsonString(run.Name());
  j += ", \"replayed\": " + std::string(run.replay ? "true" : "false");
  if (!run.skipped.empty()) {
    return j + ", \"skipped\": " + JsonString(run.skipped) + "}";
  }
  j += ", \"fetched\": " + std::to_string(o.fetched);
  j += ", \"hot_fetched\": " + std::to_string(o.hot_fetched);
  j += ", \"pages_to_hot\": {";
  for (size_t t = 0; t < kHotTargets.size(); ++t) {
    j += (t ? ", \"" : "\"") + std::to_string(std::lround(kHotTargets[t] * 100)) +
         "\": " + JsonOptional(o.pages_to_hot[t]);
  }
  j += "}, \"pagerank_share_at\": {";
  for (size_t k = 0; k < kShareAt.size(); ++k) {
    j += (k ? ", \"" : "\"") + std::to_string(std::lround(kShareAt[k] * 100)) +
         "\": " + JsonOptional(o.rank_share_at[k]);
  }
  j += "}, \"kendall_tau_b_at\": {";
  for (size_t k = 0; k < kShareAt.size(); ++k) {
    j += (k ? ", \"" : "\"") + std::to_string(std::lround(kShareAt[k] * 100)) +
         "\": " + JsonOptional(o.tau_at[k]);
  }
  j += "}, \"pagerank_share_at_10pct\": " + JsonOptional(o.rank_share_at[kShareAt10]);
  j += ", \"pagerank_curve\": [";
  for (size_t c = 0; c < o.curve.size(); ++c) {
    j += (c ? ", " : "") + JsonOptional(std::optional(o.curve[c]));
  }
  j += "]";
  j += ", \"pagerank_share_at_end\": " + JsonOptional(std::optional(o.rank_share_end));
  if (options.relevant != nullptr) {
    j += ", \"harvest_curve\": [";
    for (size_t c = 0; c < o.harvest.size(); ++c) {
      j += (c ? ", " : "") + JsonOptional(std::optional(o.harvest[c]));
    }
    j += "], \"harvest_auc\": " + JsonOptional(HarvestArea(o.harvest));
  }
  j += ", \"ratio_80_to_best_baseline\": " + JsonOptional(run.ratio);
  j += ", \"ratio_pr10_to_best_baseline\": " + JsonOptional(run.pr_ratio);
  j += ", \"reranks\": " + std::to_string(o.reranks);
  j += ", \"rerank_seconds\": " + JsonOptional(std::optional(o.rerank_ms / 1000.0));
  j += ", \"batches\": " + std::to_string(o.batches);
  j += ", \"simulated_ms\": " + std::to_string(o.simulated_ms);
  j += ", \"refetched\": " + std::to_string(o.refetched);
  j += ", \"anomalies\": [";
  for (size_t a = 0; a < o.anomalies.size(); ++a) {
    j += (a ? ", " : "") + JsonString(o.anomalies[a]);
  }
  j += "]";
  j += ", \"seconds\": [";
  for (size_t r = 0; r < run.seconds.size(); ++r) {
    j += (r ? ", " : "") + JsonOptional(std::optional(run.seconds[r]));
  }
  j += "], \"seconds_median\": " + JsonOptional(std::optional(Median(run.seconds))) + "}";
  return j;
}

}  // namespace crawlrank::bench
