// Pages failed for good: which ones a FailureFilter takes (listings and re-queues), and
// the listing itself (Scheduler::FailedPages, in failed_pages.cc).
#ifndef CRAWLRANK_SRC_SCHEDULE_FAILED_PAGES_H_
#define CRAWLRANK_SRC_SCHEDULE_FAILED_PAGES_H_

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "crawlrank/failure_kind.h"
#include "crawlrank/schedule_types.h"
#include "crawlrank/status.h"
#include "crawlrank/url.h"
#include "crawlrank/url_pattern.h"

namespace crawlrank {

class FailureMatcher {
 public:
  // InvalidArgument naming the regex or URL that does not compile or canonicalise.
  static Result<FailureMatcher> Make(const FailureFilter& filter, UrlProfile profile);
  // Whether a page of canonical `url` failed with `kind` is taken.
  bool Matches(std::string_view url, FailureKind kind) const;
  // The filter's URLs, canonical; empty when it names none.
  const std::unordered_set<std::string>& urls() const { return urls_; }

 private:
  std::optional<FailureKind> kind_;
  std::string host_;
  std::optional<UrlPattern> regex_;
  std::unordered_set<std::string> urls_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_FAILED_PAGES_H_
