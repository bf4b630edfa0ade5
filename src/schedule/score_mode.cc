#include "crawlrank/score_mode.h"

#include <string>
#include <utility>

#include "crawlrank/rank.h"
#include "schedule/score_policy.h"

namespace crawlrank {

namespace {

// The names of the modes not named as their algorithm (rank.h): the online ones, and the
// blend of a rank with RankMass.
constexpr std::pair<ScoreMode, std::string_view> kOwnNames[] = {
    {ScoreMode::kLinkScore, "link-score"}, {ScoreMode::kBreadthFirst, "breadth-first"},
    {ScoreMode::kRandom, "random"},        {ScoreMode::kOpic, "opic"},
    {ScoreMode::kInDegree, "indegree"},    {ScoreMode::kBlend, "blend"},
    {ScoreMode::kTopical, "topical"},
};

}  // namespace

std::string_view ScoreModeName(ScoreMode mode) {
  for (const auto& [own, name] : kOwnNames) {
    if (own == mode) return name;
  }
  if (const auto algorithm = RankAlgorithmOf(mode)) return RankAlgorithmName(*algorithm);
  return "unknown";
}

std::vector<ScoreMode> AllScoreModes() {
  std::vector<ScoreMode> modes;
  for (int m = 1; m <= static_cast<int>(ScoreMode::kTopical); ++m) {
    modes.push_back(static_cast<ScoreMode>(m));
  }
  return modes;
}

Result<ScoreMode> ParseScoreMode(std::string_view name) {
  std::string names;
  for (ScoreMode mode : AllScoreModes()) {
    if (name == ScoreModeName(mode)) return mode;
    names += names.empty() ? "" : ", ";
    names += ScoreModeName(mode);
  }
  return InvalidArgumentError("score mode \"" + std::string(name) + "\": expected one of " + names);
}

}  // namespace crawlrank
