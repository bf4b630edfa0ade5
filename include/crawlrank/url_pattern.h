// crawlrank/url_pattern.h: the regular expressions users give crawlrank, compiled once and
// searched in URLs in time linear in the URL's length.
//
// Every pattern a person writes goes through UrlPattern: the scheduler's allow and deny
// lists (SchedulerOptions::allow, deny), its revisit rules
// (RevisitRule::pattern), the failed-page filter (FailureFilter::url_regex) and
// page_db_find's argument. Patterns are RE2 syntax (https://github.com/google/re2/wiki/Syntax),
// which is close to ECMAScript and POSIX extended syntax for what URL patterns use:
//   - literals, ".", character classes ("[a-z]", "\d", "\w", "[^/]"), "^" and "$";
//   - repetition "*", "+", "?", "{n}", "{n,m}" and their lazy forms;
//   - groups "(...)", "(?:...)", alternation "|"; flags such as "(?i)" for case-insensitive.
// What RE2 leaves out, because it cannot be matched in linear time, is refused when the
// pattern compiles, never at match time: look-ahead and look-behind ("(?=", "(?!", "(?<=",
// "(?<!") and backreferences ("\1"). The price of the guarantee is nothing a URL pattern
// needs; the gain is that no pattern, however written, makes a crawl stall: "(a+)+b" on a
// 26-character path took 3.5 s with std::regex and takes microseconds here.
//
// Matching is a search: a pattern matches a URL when it matches any part of it (anchor with
// "^" and "$" for the whole URL). The URL is the canonical form the PageDB stores.
//
// Limits: a pattern of more than kMaxPatternBytes, or one whose compiled program would need
// more than RE2's default memory (about 8 MiB: "a{1000}{1000}" is refused), is refused.
//
// Thread safety: a compiled UrlPattern is immutable; Search may be called from any number of
// threads. Copies share the compiled program.
#ifndef CRAWLRANK_URL_PATTERN_H_
#define CRAWLRANK_URL_PATTERN_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "crawlrank/status.h"

namespace crawlrank {

class UrlPattern {
 public:
  static constexpr size_t kMaxPatternBytes = 4096;

  // Compiles `pattern`. InvalidArgument naming the pattern and what RE2 objects to, e.g.
  //   URL pattern "a(?=b)": invalid perl operator: (?= (crawlrank's patterns are RE2 ...)
  // for a pattern longer than kMaxPatternBytes or one RE2 rejects. The empty pattern
  // matches every URL.
  static Result<UrlPattern> Compile(std::string_view pattern);

  // Whether the pattern matches some part of `url`.
  bool Search(std::string_view url) const;

  // The pattern as given.
  const std::string& pattern() const;

 private:
  struct Program;
  explicit UrlPattern(std::shared_ptr<const Program> program) : program_(std::move(program)) {}

  std::shared_ptr<const Program> program_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_URL_PATTERN_H_
