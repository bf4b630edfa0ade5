#include "crawlrank/score_mode.h"

#include <string>
#include <utility>

#include "crawlrank/rank.h"
#include "schedule/score_policy.h"

namespace crawlrank {

namespace {

// The online modes' names; the rank modes are named as their algorithm (rank.h).
constexpr std::pair<ScoreMode, std::string_view> kOnlineNames[] = {
    {ScoreMode::kLinkScore, "link-score"}, {ScoreMode::kBreadthFirst, "breadth-first"},
    {ScoreMode::kRandom, "random"},        {ScoreMode::kOpic, "opic"},
    {ScoreMode::kInDegree, "indegree"},
};

}  // namespace

std::string_view ScoreModeName(ScoreMode mode) {
  if (const auto algorithm = RankAlgorithmOf(mode)) return RankAlgorithmName(*algorithm);
  for (const auto& [online, name] : kOnlineNames) {
    if (online == mode) return name;
  }
  return "unknown";
}

std::vector<ScoreMode> AllScoreModes() {
  std::vector<ScoreMode> modes;
  for (int m = 1; m <= static_cast<int>(ScoreMode::kWeightedPageRank); ++m) {
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
