// Private pieces of crawlrank/robots.h: the line parser (syntax only: it emits one event per
// `key: value` line and decides nothing) and the matcher's building blocks (normalisation,
// wildcard matching). RobotsRules::Parse is the policy on top: which group applies.
#ifndef CRAWLRANK_SRC_CRAWL_ROBOTS_INTERNAL_H_
#define CRAWLRANK_SRC_CRAWL_ROBOTS_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace crawlrank::robots_internal {

enum class RobotsKey : uint8_t {
  kUserAgent,
  kAllow,
  kDisallow,
  kSitemap,
  kCrawlDelay,
  kUnknown,
};

// One `key: value` line of a robots.txt.
struct RobotsLine {
  RobotsKey key = RobotsKey::kUnknown;
  std::string_view name;   // the key as written, trimmed ("Dissallow", "user agent")
  std::string_view value;  // trimmed; comment removed; may be empty
  int line_number = 0;     // 1-based, counting every line ending
  bool colon_missing = false;
};

// Receives the parser's events, in file order.
class RobotsHandler {
 public:
  virtual ~RobotsHandler() = default;
  virtual void OnLine(const RobotsLine& line) = 0;
};

// Splits `body` (its first kRobotsMaxBytes, whole lines only, BOM skipped) into lines and
// calls `handler` for each one that reads as `key: value` (or `key value` for a known key).
// Blank lines, comment lines and lines that are neither are skipped without an event.
void ParseRobotsTxt(std::string_view body, RobotsHandler& handler);

// Returns the directive a key names, accepting the spellings listed in robots.h.
RobotsKey ClassifyRobotsKey(std::string_view name);

// Returns the leading run of letters, '_' and '-' of a user-agent value or product token.
std::string_view RobotsProductToken(std::string_view value);

// Returns an Allow/Disallow value in matching form: a leading '/' added when missing, then
// NormalizeRobotsPath's escaping. "" for an empty value (no rule).
std::string NormalizeRobotsPattern(std::string_view value);

// Returns `path` with escapes normalised as robots.h describes ('*' and '$' are bytes like
// any other here) and a leading '/' added when missing ("" gives "/").
std::string NormalizeRobotsPath(std::string_view path);

// Returns true when NormalizeRobotsPath(path) == path (and so no copy is needed).
bool IsNormalRobotsPath(std::string_view path);

// Returns true when the normalised `pattern` matches the normalised `path`: '*' matches
// any run of bytes, a final '$' anchors at the end, and otherwise a prefix of the path must
// equal the pattern. Greedy leftmost matching of the pieces between stars, which is exact
// for this pattern language; O(|pattern| × |path|) at worst, no allocation.
bool RobotsPatternMatches(std::string_view pattern, std::string_view path);

// Parses a Crawl-delay value (robots.h) into milliseconds; nullopt when it is not one.
std::optional<int64_t> ParseCrawlDelayMs(std::string_view value);

// The cap of a Crawl-delay: 1e9 seconds.
inline constexpr int64_t kMaxCrawlDelayMs = int64_t{1'000'000'000} * 1000;

}  // namespace crawlrank::robots_internal

#endif  // CRAWLRANK_SRC_CRAWL_ROBOTS_INTERNAL_H_
