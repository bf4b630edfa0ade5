// The crawler's robots.txt cache: one entry per origin, and how a host's entries are kept
// in the PageDB through the frontier (Frontier::SetHostRobots), as bytes the scheduler
// does not read.
//
// Encoding of a host's entries: version byte 2, then for each origin its length-prefixed
// text, zig-zag varint fetched and expiry times (Unix ms), varint HTTP status (0:
// unreachable), the length-prefixed RobotsRules::Serialize() bytes, then varint failures
// in a row and the length-prefixed detail of the last. Version 1 (before failures were
// counted) is read with no failures.
#ifndef CRAWLRANK_SRC_CRAWL_ROBOTS_CACHE_H_
#define CRAWLRANK_SRC_CRAWL_ROBOTS_CACHE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "crawlrank/robots.h"

namespace crawlrank {

// "scheme://authority" of an absolute URL: what one robots.txt covers (RFC 9309 §2.3).
std::string OriginOf(std::string_view url);

struct RobotsEntry {
  std::string host;  // the politeness key it is filed under (not encoded: the key is)
  int64_t fetched_ms = 0;
  int64_t expires_ms = 0;
  uint32_t status = 0;
  RobotsRules rules = RobotsRules::AllowAll();
  // Fetches in a row that found it unavailable (5xx, 429, unreachable), and why the last.
  uint32_t failures = 0;
  std::string detail;
  bool usable() const { return status < 500 && status != 429 && status != 0; }
  // Past its retries: the origin's pages fail for good until the entry expires.
  bool gave_up(uint32_t max_retries) const { return !usable() && failures > max_retries; }
  // The detail a page of `origin` fails with once the origin is given up on.
  std::string UnreachableReason(std::string_view origin) const {
    return std::string(origin) + "/robots.txt unreachable: " + detail;
  }
};

inline constexpr std::string_view kRobotsDisallowedReason = "robots.txt disallows it";

// Appends `origin`'s entry to `bytes`, the version byte first when `bytes` is empty.
void AppendRobotsState(std::string_view origin, const RobotsEntry& entry, std::string* bytes);
// Calls fn for each entry of `bytes`, in order. Stops quietly at the first damaged one (its
// origin is then fetched again, as if never stored); skips an entry whose rules do not
// decode, and reads nothing of an unknown version.
void DecodeRobotsState(std::string_view bytes,
                       const std::function<void(std::string_view origin, RobotsEntry entry)>& fn);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_ROBOTS_CACHE_H_
