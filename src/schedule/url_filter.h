// Which URLs a schedule may hand out: SchedulerOptions' schemes and URL patterns, applied
// when a page joins the schedule (a page filtered out stays in the PageDB with its links).
#ifndef CRAWLRANK_SRC_SCHEDULE_URL_FILTER_H_
#define CRAWLRANK_SRC_SCHEDULE_URL_FILTER_H_

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"

namespace crawlrank {

class UrlFilter {
 public:
  // Compiles allow_patterns and deny_patterns (ECMAScript); InvalidArgument naming a
  // pattern that does not compile.
  static Result<UrlFilter> Compile(const SchedulerOptions& options);

  // True when the canonical `url` has an allowed scheme (any, when the list is empty),
  // matches no deny pattern, and matches an allow pattern when there are any.
  bool Allowed(std::string_view url) const;

 private:
  std::vector<std::string> schemes_;
  std::vector<std::regex> allow_, deny_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_URL_FILTER_H_
