// crawlrank/robots.h: robots.txt rules for one crawler, per RFC 9309 (Robots Exclusion
// Protocol), as the built-in crawler obeys them.
//
// RobotsRules::Parse reads a site's robots.txt and keeps only what applies to one product
// token (the crawler's name, e.g. "crawlrank"): the rules of its group, its Crawl-delay and
// the file's Sitemap lines. Allowed() then answers for each URL path of that site. The
// crawler fetches /robots.txt once per host, parses it, and caches the result, compactly
// serialised (Serialize/Deserialize), beside the host's other state.
//
// What the fetch outcome means (RFC 9309 §2.3.1): a 2xx body is parsed; 4xx ("unavailable")
// is AllowAll(); 5xx or a network failure ("unreachable") is DisallowAll() until a later
// fetch succeeds; redirects are followed (at least five hops) by the fetcher, not here.
//
// Matching (RFC 9309 §2.2.2-§2.2.3):
//   - The group: the user-agent lines whose product token equals `product_token`, compared
//     case-insensitively, all merged into one group; else the "*" group(s), merged; else
//     no rules at all. The product token of a user-agent line is its leading run of
//     letters, '_' and '-' ("CrawlRank/2.0 (+https://x)" names "CrawlRank"); no prefix or
//     substring matching: "crawl" does not name "crawlrank".
//   - The rule whose pattern has the most octets (after the normalisation below, '*' and a
//     final '$' included) and matches the path wins; of an allow and a disallow rule of
//     the same length, allow wins; no matching rule: allowed. "/robots.txt" is always
//     allowed.
//   - A pattern matches a prefix of the path, octet by octet, case-sensitively; '*' matches
//     any run of octets (empty included); a '$' at the end of a pattern anchors it at the
//     end of the path (a '$' elsewhere is a literal '$').
//   - Percent-encoding, the same on both sides before comparing: "%XX" of an unreserved
//     character (RFC 3986: A-Z a-z 0-9 - . _ ~) is decoded ("%7Ea" is "~a"); any other
//     "%XX" stays encoded with upper-case hex ("%2f" is "%2F", never "/"); octets outside
//     printable ASCII (UTF-8 text, controls, space) and the characters " < > \ ^ ` { | }
//     are percent-encoded; a '%' not followed by two hex digits is "%25". Reserved
//     characters (: / ? # [ ] @ ! $ & ' ( ) * + , ; =) are compared as written: raw "!"
//     and "%21" differ, as RFC 3986 §2.2 says they may.
//
// Lenient rules for bad input (each one tested in tests/robots_test.cc):
//   - Only the first kRobotsMaxBytes of the body are read, and of those only whole lines:
//     a line cut by the limit is dropped (a cut "Allow: /abc" must not become "Allow: /a").
//   - A UTF-8 byte order mark at the start is skipped. Lines end at LF, CR or CRLF.
//   - '#' starts a comment anywhere on a line; space and tab around keys and values are
//     ignored; keys are case-insensitive.
//   - A missing colon is accepted when a known key is followed by a space or tab
//     ("Disallow /x"). Accepted spellings: "user-agent", "useragent", "user agent";
//     "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"; "allow";
//     "sitemap", "sitemaps", "site-map"; "crawl-delay", "crawl delay", "crawldelay".
//     Other keys and lines that are not `key: value` are ignored.
//   - Allow/Disallow/Crawl-delay lines before the first user-agent line are ignored.
//   - An empty Allow or Disallow value is no rule ("Disallow:" allows everything), but it
//     ends the group's list of user-agent lines like any rule.
//   - A pattern that does not start with '/' gets one ("*.gif" is "/*.gif", "x" is "/x").
//   - A user-agent line starts a new group only after an Allow or Disallow line. Sitemap,
//     Crawl-delay and unknown lines do not end a group (RFC 9309 §2.2.4: other records
//     MUST NOT terminate a group).
//   - A user-agent value whose product token is empty ("/1.0", "*bot") names no crawler;
//     "*" is the global group only alone ("*" or "* anything").
//
// Crawl-delay and Sitemap are not part of RFC 9309 (§2.2.4 lets crawlers read them):
//   - Crawl-delay: seconds, a non-negative decimal with an optional fraction ("10", "0.5",
//     ".25"); milliseconds past the third decimal are dropped; values over 1e9 s are capped
//     there; anything else ("-1", "1e3", "soon") is ignored. Of several values in the chosen
//     group, the largest (the politest) counts.
//   - Sitemap lines count wherever they are, in any group or none, in file order.
//
// Thread safety: RobotsRules is a value: copyable and movable; concurrent const calls on
// one object are safe. Every free function here is thread-safe.
#ifndef CRAWLRANK_ROBOTS_H_
#define CRAWLRANK_ROBOTS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank {

// RFC 9309 §2.5: a parsing limit, which MUST be at least 500 kibibytes. Bytes past it are
// ignored (see the lenient rules above for a line the limit cuts).
inline constexpr size_t kRobotsMaxBytes = 500 * 1024;

class RobotsRules {
 public:
  // Creates rules that allow everything, as AllowAll().
  RobotsRules() = default;

  // Parses a robots.txt `body` and keeps what applies to `product_token` (see the header
  // comment). Only the token's leading run of letters, '_' and '-' counts, so "crawlrank"
  // and "crawlrank/1.0" are the same; an empty token matches only the "*" group. Never
  // fails: anything unreadable is ignored.
  static RobotsRules Parse(std::string_view body, std::string_view product_token);

  // Returns rules allowing everything: robots.txt answered 4xx (RFC 9309 §2.3.1.3), or
  // has no group for the crawler.
  static RobotsRules AllowAll() { return RobotsRules(); }

  // Returns rules disallowing everything but /robots.txt: robots.txt answered 5xx or was
  // unreachable (RFC 9309 §2.3.1.4).
  static RobotsRules DisallowAll();

  // Returns whether the crawler may fetch `path`: the URL's path, plus '?' and the query
  // when there is one, as sent in the request line ("" is "/"; a path not starting with '/'
  // gets one). RobotsPath() gives it for an absolute URL. Costs one pass over the path
  // and, for each rule until the first that matches (longest first), at worst
  // O(pattern length × path length); it allocates only for a path that needs normalising.
  bool Allowed(std::string_view path) const;

  // One Allow or Disallow rule of the chosen group.
  struct Rule {
    std::string pattern;  // normalised; starts with '/'
    bool allow = false;
    friend bool operator==(const Rule& a, const Rule& b) = default;
  };
  // The rule that decides `path` (as Allowed takes it): the first that matches, in the
  // order of rules(); nullptr when none does (allowed), and for "/robots.txt".
  const Rule* Deciding(std::string_view path) const;
  // The rules kept, in the order they are tried: longest first, allow before disallow.
  const std::vector<Rule>& rules() const { return rules_; }

  // Returns the chosen group's Crawl-delay in milliseconds, or nullopt when it has none.
  std::optional<int64_t> crawl_delay_ms() const { return crawl_delay_ms_; }

  // Returns the values of all Sitemap lines of the file, in order.
  const std::vector<std::string>& sitemaps() const { return sitemaps_; }

  // Returns the number of Allow/Disallow rules kept (duplicates merged).
  size_t rule_count() const { return rules_.size(); }

  // Returns the rules in a compact binary form (versioned; docs/crawler.md) for caching.
  // Deserialize(Serialize()) gives back an equal object.
  std::string Serialize() const;

  // Reads Serialize()'s form back, checking every field (a damaged cache entry is an
  // error, never a crash). Errors: InvalidArgument when `bytes` is not a serialised
  // RobotsRules (wrong magic or version); DataLoss naming the field when it is cut short,
  // has bytes left over, or holds what Parse never produces (an unnormalised pattern,
  // rules out of order, a delay over the cap).
  static Result<RobotsRules> Deserialize(std::string_view bytes);

  friend bool operator==(const RobotsRules& a, const RobotsRules& b) = default;

 private:
  // Sorts rules_ longest first, allow before disallow, then by pattern; drops duplicates.
  void SortRules();

  std::vector<Rule> rules_;
  std::optional<int64_t> crawl_delay_ms_;
  std::vector<std::string> sitemaps_;
};

// Returns the path and query of the absolute URL `url` as Allowed() wants them: from the
// first '/' or '?' after "scheme://host[:port]" up to any '#', "/" when that is empty.
// A text without "://" is taken as a path already (its fragment cut). No other change is
// made: give it canonical URLs (url.h) so that escapes are already normalised.
std::string RobotsPath(std::string_view url);

}  // namespace crawlrank

#endif  // CRAWLRANK_ROBOTS_H_
