// Comparing the runs (results.h): the best baselines, the oracle, and the ratios to the best.
#include "results.h"

namespace crawlrank::bench {
namespace {

// The baseline whose `measure` (none where it has none) is best: the lowest, or the
// highest with `highest`.
template <typename Measure>
const ModeRun* BestBaselineBy(const std::vector<ModeRun>& runs, Measure measure, bool highest) {
  const ModeRun* best = nullptr;
  for (const ModeRun& run : runs) {
    if (!run.skipped.empty() || !run.IsBaseline() || !measure(run)) continue;
    if (best == nullptr || (highest ? *measure(run) > *measure(*best) : *measure(run) < *measure(*best))) {
      best = &run;
    }
  }
  return best;
}

}  // namespace

const ModeRun* BestBaseline(const std::vector<ModeRun>& runs) {
  return BestBaselineBy(runs, [](const ModeRun& r) { return r.outcome.pages_to_hot[kRatioTarget]; },
                        false);
}

const ModeRun* BestBaselineByRank(const std::vector<ModeRun>& runs) {
  return BestBaselineBy(runs, [](const ModeRun& r) { return r.outcome.rank_share_at[kShareAt10]; },
                        true);
}

const ModeRun* Oracle(const std::vector<ModeRun>& runs) {
  for (const ModeRun& run : runs) {
    if (run.IsOracle() && run.skipped.empty()) return &run;
  }
  return nullptr;
}

void SetRatios(std::vector<ModeRun>& runs) {
  if (const ModeRun* best = BestBaseline(runs); best != nullptr) {
    const double base = static_cast<double>(*best->outcome.pages_to_hot[kRatioTarget]);
    for (ModeRun& run : runs) {
      if (run.skipped.empty() && run.outcome.pages_to_hot[kRatioTarget]) {
        run.ratio = *run.outcome.pages_to_hot[kRatioTarget] / base;
      }
    }
  }
  if (const ModeRun* best = BestBaselineByRank(runs); best != nullptr) {
    const double base = *best->outcome.rank_share_at[kShareAt10];
    for (ModeRun& run : runs) {
      if (run.skipped.empty() && run.outcome.rank_share_at[kShareAt10] && base > 0) {
        run.pr_ratio = *run.outcome.rank_share_at[kShareAt10] / base;
      }
    }
  }
}

}  // namespace crawlrank::bench
