#include "crawl/crawl_options.h"

#include <algorithm>
#include <set>

#include "crawlrank/url.h"

namespace crawlrank {

namespace {

// A regular expression special character escaped, for the scope patterns.
std::string RegexEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

Status CheckCrawlerOptions(const CrawlerOptions& options) {
  if (options.concurrency == 0) return InvalidArgumentError("crawl: concurrency must be above 0");
  if (options.per_host == 0) return InvalidArgumentError("crawl: per-host must be above 0");
  if (options.delay_ms < 0) return InvalidArgumentError("crawl: negative delay");
  if (options.max_body_bytes == 0) return InvalidArgumentError("crawl: max body of 0 bytes");
  if (options.robots_ttl_ms <= 0) {
    return InvalidArgumentError("crawl: robots.txt expiry time must be above 0");
  }
  if (options.timeout_ms <= 0 || options.connect_timeout_ms <= 0 || options.low_speed_ms < 0 ||
      options.retry_ms < 0 || options.max_time_ms < 0 || options.max_url_bytes == 0) {
    return InvalidArgumentError("crawl: timeouts must be above 0, and other times 0 or more");
  }
  return Status::Ok();
}

SchedulerOptions SchedulerOptionsFor(const CrawlerOptions& options) {
  SchedulerOptions so;
  so.score = options.score;
  so.rank.template_links = options.template_links;
  so.min_delay_ms = options.delay_ms;
  so.max_in_flight_per_host = options.per_host;
  so.max_depth = options.max_depth;
  so.max_pages = options.max_pages;
  so.allow_patterns = options.allow_patterns;
  so.deny_patterns = options.deny_patterns;
  so.revisits = options.revisits;
  so.min_revisit_ms = options.min_revisit_ms;
  so.max_revisit_ms = std::max(options.max_revisit_ms, options.min_revisit_ms);
  so.retry_ms = options.retry_ms;
  so.max_retries = options.max_retries;
  // A lease outlives a fetch, and a page parked until its robots.txt is asked again (the
  // longest back-off, retry_ms << (max_retries - 1), capped at robots_ttl_ms).
  const int shift = static_cast<int>(std::min<uint32_t>(options.max_retries, 21)) - 1;
  const int64_t park = shift < 0 ? 0 : std::min(options.retry_ms << shift, options.robots_ttl_ms);
  so.lease_ms = std::max<int64_t>({600'000, 4 * options.timeout_ms, 2 * park + options.timeout_ms});
  return so;
}

Result<std::string> ScopePattern(CrawlerOptions::Scope scope, const std::vector<std::string>& seeds,
                                 const PageDb& db) {
  if (scope == CrawlerOptions::Scope::kAny) return std::string();
  // The hosts (or domains) of the seeds, of this run and of the runs before (depth 0).
  const HostKeyMode mode = scope == CrawlerOptions::Scope::kSameHost
                               ? HostKeyMode::kHost
                               : HostKeyMode::kRegisteredDomain;
  std::set<std::string> keys;
  for (const std::string& seed : seeds) {
    if (Result<std::string> key = HostKey(seed, mode); key.ok()) keys.insert(*key);
  }
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& record) {
    if (record.depth == 0) {
      if (Result<std::string> key = HostKey(record.url, mode); key.ok()) keys.insert(*key);
    }
    return Status::Ok();
  }));
  if (keys.empty()) return InvalidArgumentError("crawl: --same-host/--same-domain without seeds");
  std::string alternatives;
  for (const std::string& key : keys) {
    if (!alternatives.empty()) alternatives += '|';
    alternatives += RegexEscape(key);
  }
  // Out of scope: the host is none of the keys (same-domain: nor under one of them).
  const std::string host_part = mode == HostKeyMode::kHost
                                    ? "(?:" + alternatives + ")"
                                    : "(?:[^/?#@]*\\.)?(?:" + alternatives + ")\\.?";
  return "^(?!https?://" + host_part + "(?::[0-9]+)?(?:[/?#]|$))";
}

FetcherOptions FetcherOptionsFor(const CrawlerOptions& options) {
  FetcherOptions fo;
  fo.user_agent = options.user_agent;
  fo.connect_timeout_ms = options.connect_timeout_ms;
  fo.timeout_ms = options.timeout_ms;
  fo.low_speed_bytes = options.low_speed_bytes;
  fo.low_speed_ms = options.low_speed_ms;
  fo.max_body_bytes = options.max_body_bytes;
  fo.max_header_bytes = options.max_header_bytes;
  fo.allow_private = options.allow_private;
  fo.proxy = options.proxy;
  fo.resolve = options.resolve;
  fo.dns_cache_ms = options.dns_cache_ms;
  fo.max_connections = std::max<uint32_t>(64, 2 * options.concurrency);
  return fo;
}

}  // namespace crawlrank
