// What crawlrank_simulate reports for each score mode and replayed order (ModeRun), and
// how the runs compare: with the best baseline and with the oracle.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_RESULTS_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_RESULTS_H_

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "crawlrank/score_mode.h"
#include "measures.h"
#include "sim_orders.h"

namespace crawlrank::bench {

// The score modes a guided crawl is compared with (the crawl-ordering literature's
// baselines: Cho et al. 1998 for breadth-first and in-degree, Abiteboul et al. 2003 for
// OPIC); every replayed order but the oracle is a baseline too (sim_orders.h: larger sites
// first, RankMass, partial PageRank at fixed cadences). Random is no contender; the rank
// modes are what is measured.
constexpr std::array<ScoreMode, 3> kBaselines = {ScoreMode::kBreadthFirst, ScoreMode::kInDegree,
                                                 ScoreMode::kOpic};

// A score mode's crawls or a replayed order's runs: the last outcome, every repeat's time,
// and how it compares with the best baselines.
struct ModeRun {
  ScoreMode mode = ScoreMode::kLinkScore;
  std::string skipped;         // why the mode did not run; empty when it ran
  bool unimplemented = false;  // skipped: the library does not implement the mode
  std::optional<ReplayOrder> replay;  // a replayed order (sim_orders.h), not a score mode
  CrawlOutcome outcome;
  std::vector<double> seconds;  // one per repeat
  std::optional<double> ratio;  // pages to 80% hot ÷ the best baseline's
  std::optional<double> pr_ratio;  // PR@10% ÷ the best baseline's (by PR@10%)
  bool order_checked = false;   // the hand-out order was compared with ReferenceOrder

  std::string Name() const { return replay ? replay->Name() : std::string(ScoreModeName(mode)); }
  bool IsOracle() const { return replay && replay->kind == ReplayOrder::Kind::kOracle; }
  bool IsBaseline() const {
    if (replay) return replay->baseline();
    return std::find(kBaselines.begin(), kBaselines.end(), mode) != kBaselines.end();
  }
};

// The baseline that reached 80% of the hot pages with the fewest pages, if any did.
const ModeRun* BestBaseline(const std::vector<ModeRun>& runs);

// The baseline that fetched the most PageRank with 10% of the pages, if any got so far.
const ModeRun* BestBaselineByRank(const std::vector<ModeRun>& runs);

// The replayed oracle, when it ran.
const ModeRun* Oracle(const std::vector<ModeRun>& runs);

// Sets each run's ratio and pr_ratio against the best baselines.
void SetRatios(std::vector<ModeRun>& runs);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_RESULTS_H_
