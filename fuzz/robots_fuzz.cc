// Fuzzes robots.txt parsing and matching, and the cache form's decoder (robots.h).
//
// Input: text. It is parsed as a robots.txt for the product token "crawlrank" and for "*"
// only (an empty token), and each of its lines (its first 64) is also a path to match and,
// through RobotsPath, a URL. The same bytes are also given to Deserialize.
//
// Properties:
//   - "/robots.txt" is always allowed;
//   - Serialize → Deserialize gives back an equal object;
//   - for every rule pattern and path, the greedy matcher agrees with a plain dynamic
//     programme over (pattern position, path position), an independent algorithm;
//   - Deserialize of arbitrary bytes fails with InvalidArgument or DataLoss, or gives rules
//     whose own Serialize is no longer than the input and round-trips.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawl/robots_internal.h"
#include "crawlrank/robots.h"
#include "fuzz_check.h"

namespace crawlrank {
namespace {

// Reference matcher: reach[j] says whether the pattern read so far can end at path[j].
// O(|pattern| × |path|) time, O(|path|) memory.
bool DpMatches(std::string_view pattern, std::string_view path) {
  const bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  std::vector<char> reach(path.size() + 1, 0);
  reach[0] = 1;
  for (const char c : pattern) {
    std::vector<char> next(path.size() + 1, 0);
    if (c == '*') {
      char any = 0;
      for (size_t j = 0; j <= path.size(); ++j) next[j] = any = static_cast<char>(any | reach[j]);
    } else {
      for (size_t j = 0; j < path.size(); ++j) next[j + 1] = reach[j] && path[j] == c;
    }
    reach.swap(next);
  }
  if (anchored) return reach[path.size()];
  for (const char r : reach) {
    if (r) return true;
  }
  return false;
}

std::vector<std::string_view> Lines(std::string_view text, size_t max) {
  std::vector<std::string_view> lines;
  while (!text.empty() && lines.size() < max) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

// Takes each line (after any colon) as a pattern and each line as a path, normalised as
// Parse and Allowed normalise them, and compares the two matchers.
void CheckMatcher(const std::vector<std::string_view>& lines) {
  for (const std::string_view a : lines) {
    const size_t colon = a.find(':');
    const std::string pattern = robots_internal::NormalizeRobotsPattern(
        colon == std::string_view::npos ? a : a.substr(colon + 1));
    if (pattern.empty() || pattern.size() > 512) continue;
    for (const std::string_view b : lines) {
      const std::string path = robots_internal::NormalizeRobotsPath(b);
      if (path.size() > 2048) continue;
      FUZZ_CHECK(robots_internal::IsNormalRobotsPath(path));
      FUZZ_CHECK(robots_internal::RobotsPatternMatches(pattern, path) == DpMatches(pattern, path));
    }
  }
}

void CheckRules(const RobotsRules& rules, const std::vector<std::string_view>& lines) {
  FUZZ_CHECK(rules.Allowed("/robots.txt"));
  for (const std::string_view line : lines) {
    (void)rules.Allowed(line);
    (void)rules.Allowed(RobotsPath(line));
  }
  const Result<RobotsRules> back = RobotsRules::Deserialize(rules.Serialize());
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(*back == rules);
}

}  // namespace
}  // namespace crawlrank

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using crawlrank::RobotsRules;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string_view> lines = crawlrank::Lines(text, 64);
  for (const std::string_view token : {std::string_view("crawlrank"), std::string_view()}) {
    crawlrank::CheckRules(RobotsRules::Parse(text, token), lines);
  }
  crawlrank::CheckMatcher(crawlrank::Lines(text, 16));

  const crawlrank::Result<RobotsRules> decoded = RobotsRules::Deserialize(text);
  if (!decoded.ok()) {
    const crawlrank::StatusCode code = decoded.status().code();
    FUZZ_CHECK(code == crawlrank::StatusCode::kInvalidArgument ||
               code == crawlrank::StatusCode::kDataLoss);
  } else {
    const std::string again = decoded->Serialize();
    FUZZ_CHECK(again.size() <= size);
    const crawlrank::Result<RobotsRules> back = RobotsRules::Deserialize(again);
    FUZZ_CHECK(back.ok());
    FUZZ_CHECK(*back == *decoded);
  }
  return 0;
}
