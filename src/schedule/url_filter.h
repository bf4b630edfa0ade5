// Which URLs a schedule may hand out: SchedulerOptions' scope, schemes and URL patterns,
// applied when a page joins the schedule (a page left out stays in the PageDB with its
// links).
#ifndef CRAWLRANK_SRC_SCHEDULE_URL_FILTER_H_
#define CRAWLRANK_SRC_SCHEDULE_URL_FILTER_H_

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"
#include "crawlrank/url_pattern.h"

namespace crawlrank {

class UrlFilter {
 public:
  enum class Verdict : uint8_t { kAllowed, kFiltered, kOutOfScope };

  // Compiles allow and deny (RE2, crawlrank/url_pattern.h) and the
  // scope's host set; InvalidArgument naming the list and a pattern that does not compile,
  // or a scope without hosts.
  static Result<UrlFilter> Compile(const SchedulerOptions& options);

  // kOutOfScope when the canonical `url`'s host is outside the scope; else kFiltered when
  // its scheme is not allowed (any, when the list is empty), it matches a deny pattern, or
  // there are allow patterns and it matches none; else kAllowed.
  Verdict Judge(std::string_view url) const;
  bool Allowed(std::string_view url) const { return Judge(url) == Verdict::kAllowed; }

 private:
  bool InScope(std::string_view url) const;

  CrawlScope scope_ = CrawlScope::kAny;
  std::unordered_set<std::string> scope_hosts_;
  std::vector<std::string> schemes_;
  std::vector<UrlPattern> allow_, deny_;
};

// A scope host as UrlFilter compares it: lower case, without a trailing dot or a port.
std::string NormalizeScopeHost(std::string_view host);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_URL_FILTER_H_
