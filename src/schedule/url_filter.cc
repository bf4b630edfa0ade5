#include "schedule/url_filter.h"

#include <algorithm>

namespace crawlrank {

Result<UrlFilter> UrlFilter::Compile(const SchedulerOptions& options) {
  UrlFilter filter;
  filter.schemes_ = options.allowed_schemes;
  for (const auto* list : {&options.allow_patterns, &options.deny_patterns}) {
    auto& compiled = list == &options.allow_patterns ? filter.allow_ : filter.deny_;
    for (const std::string& pattern : *list) {
      try {
        compiled.emplace_back(pattern, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        return InvalidArgumentError("URL pattern \"" + pattern + "\": " + e.what());
      }
    }
  }
  return filter;
}

bool UrlFilter::Allowed(std::string_view url) const {
  if (!schemes_.empty()) {
    const std::string_view scheme = url.substr(0, url.find(':'));
    if (std::find(schemes_.begin(), schemes_.end(), scheme) == schemes_.end()) return false;
  }
  const auto matches = [&](const std::regex& re) {
    return std::regex_search(url.begin(), url.end(), re);
  };
  if (std::any_of(deny_.begin(), deny_.end(), matches)) return false;
  return allow_.empty() || std::any_of(allow_.begin(), allow_.end(), matches);
}

}  // namespace crawlrank
