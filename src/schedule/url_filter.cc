#include "schedule/url_filter.h"

#include <algorithm>

#include "base/ascii.h"
#include "crawlrank/url.h"

namespace crawlrank {

std::string NormalizeScopeHost(std::string_view host) {
  if (!host.empty() && host.front() != '[') {
    if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
      host = host.substr(0, colon);
    }
  }
  while (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string out(host);
  AsciiStrToLower(out);
  return out;
}

Result<UrlFilter> UrlFilter::Compile(const SchedulerOptions& options) {
  UrlFilter filter;
  filter.scope_ = options.scope;
  if (options.scope != CrawlScope::kAny) {
    for (const std::string& host : options.scope_hosts) {
      std::string key = NormalizeScopeHost(host);
      if (!key.empty()) filter.scope_hosts_.insert(std::move(key));
    }
    if (filter.scope_hosts_.empty()) {
      return InvalidArgumentError(
          "scheduler options: a scope (same host, same domain) "
          "without hosts");
    }
  }
  filter.schemes_ = options.allowed_schemes;
  for (const auto* list : {&options.allow, &options.deny}) {
    auto& compiled = list == &options.allow ? filter.allow_ : filter.deny_;
    for (const std::string& pattern : *list) {
      Result<UrlPattern> compiled_pattern = UrlPattern::Compile(pattern);
      if (!compiled_pattern.ok()) {
        const char* which = list == &options.allow ? "allow" : "deny";
        return InvalidArgumentError(std::string(which) + " " +
                                    compiled_pattern.status().message());
      }
      compiled.push_back(std::move(*compiled_pattern));
    }
  }
  return filter;
}

bool UrlFilter::InScope(std::string_view url) const {
  Result<std::string> host = HostKey(url, HostKeyMode::kHost);
  if (!host.ok()) return false;
  std::string name = NormalizeScopeHost(*host);
  if (scope_hosts_.contains(name)) return true;
  if (scope_ != CrawlScope::kSameDomain) return false;
  // A name under a scope host: try each parent, "a.b.c" -> "b.c" -> "c".
  for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
    if (scope_hosts_.contains(name.substr(dot + 1))) return true;
  }
  return false;
}

UrlFilter::Verdict UrlFilter::Judge(std::string_view url) const {
  if (scope_ != CrawlScope::kAny && !InScope(url)) return Verdict::kOutOfScope;
  if (!schemes_.empty()) {
    const std::string_view scheme = url.substr(0, url.find(':'));
    if (std::find(schemes_.begin(), schemes_.end(), scheme) == schemes_.end()) {
      return Verdict::kFiltered;
    }
  }
  const auto matches = [&](const UrlPattern& pattern) { return pattern.Search(url); };
  if (std::any_of(deny_.begin(), deny_.end(), matches)) return Verdict::kFiltered;
  if (!allow_.empty() && std::none_of(allow_.begin(), allow_.end(), matches)) {
    return Verdict::kFiltered;
  }
  return Verdict::kAllowed;
}

}  // namespace crawlrank
