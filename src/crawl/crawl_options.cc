#include "crawl/crawl_options.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "crawlrank/url.h"
#include "schedule/url_filter.h"

namespace crawlrank {

Result<std::vector<std::string>> CanonicalSeeds(const CrawlerOptions& options, UrlProfile profile) {
  std::vector<std::string> seeds;
  for (const std::string& seed : options.seeds) {
    Result<std::string> canonical = CanonicalizeUrl(seed, profile);
    if (!canonical.ok()) {
      return InvalidArgumentError("crawl: seed \"" + seed + "\": " + canonical.status().message());
    }
    seeds.push_back(std::move(*canonical));
  }
  return seeds;
}

Status CheckCrawlerOptions(const CrawlerOptions& options) {
  if (options.concurrency == 0) return InvalidArgumentError("crawl: concurrency must be above 0");
  if (options.schedule.per_host == 0) {
    return InvalidArgumentError("crawl: per-host must be above 0");
  }
  if (options.schedule.delay_ms < 0) return InvalidArgumentError("crawl: negative delay");
  if (options.schedule.host_key != HostKeyMode::kHost) {
    return InvalidArgumentError(
        "crawl: the politeness key must be the host (schedule.host_key): the crawler keeps "
        "robots.txt and its back-off by host");
  }
  if (options.max_body_bytes == 0) return InvalidArgumentError("crawl: max body of 0 bytes");
  if (options.robots_ttl_ms <= 0) {
    return InvalidArgumentError("crawl: robots.txt expiry time must be above 0");
  }
  if (options.timeout_ms <= 0 || options.connect_timeout_ms <= 0 || options.low_speed_ms < 0 ||
      options.schedule.retry_ms < 0 || options.max_time_ms < 0 || options.max_url_bytes == 0) {
    return InvalidArgumentError("crawl: timeouts must be above 0, and other times 0 or more");
  }
  if (!options.warc_dir.empty() && options.warc_max_file_bytes == 0) {
    return InvalidArgumentError("crawl: WARC files of at most 0 bytes");
  }
  return Status::Ok();
}

SchedulerOptions SchedulerOptionsFor(const CrawlerOptions& options) {
  SchedulerOptions so = options.schedule;
  so.max_revisit_ms = std::max(so.max_revisit_ms, so.min_revisit_ms);
  so.name_referrers = true;  // the crawl log's
  // A lease outlives a fetch, and a page parked until its robots.txt is asked again (the
  // longest back-off, retry_ms << (max_retries - 1), capped at robots_ttl_ms).
  const int shift = static_cast<int>(std::min<uint32_t>(so.max_retries, 21)) - 1;
  const int64_t park = shift < 0 ? 0 : std::min(so.retry_ms << shift, options.robots_ttl_ms);
  so.lease_ms = std::max<int64_t>({600'000, 4 * options.timeout_ms, 2 * park + options.timeout_ms});
  return so;
}

Result<std::vector<std::string>> ScopeHosts(const CrawlerOptions& options,
                                            const std::vector<std::string>& seeds,
                                            const PageDb& db) {
  const SchedulerOptions& schedule = options.schedule;
  if (schedule.scope == CrawlScope::kAny) return std::vector<std::string>();
  // The hosts (or registered domains) of the seeds: of this run, then those stored, or
  // with none stored (a scope given for the first time), the depth-0 pages of the DB.
  const HostKeyMode mode =
      schedule.scope == CrawlScope::kSameHost ? HostKeyMode::kHost : HostKeyMode::kRegisteredDomain;
  std::set<std::string> keys;
  const auto add = [&](std::string_view url) {
    if (Result<std::string> key = HostKey(url, mode); key.ok()) {
      keys.insert(NormalizeScopeHost(*key));
    }
  };
  for (const std::string& seed : seeds) add(seed);
  for (const std::string& host : schedule.scope_hosts) keys.insert(NormalizeScopeHost(host));
  if (schedule.scope_hosts.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& record) {
      if (record.depth == 0) add(record.url);
      return Status::Ok();
    }));
  }
  keys.erase(std::string());
  if (keys.empty()) return InvalidArgumentError("crawl: --same-host/--same-domain without seeds");
  return std::vector<std::string>(keys.begin(), keys.end());
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
  fo.keep_wire = !options.warc_dir.empty();
  return fo;
}

}  // namespace crawlrank

namespace crawlrank {

namespace {
constexpr std::string_view kUserAgentKey = "user_agent";
constexpr std::string_view kMaxCrawlDelayKey = "max_crawl_delay_ms";
constexpr std::string_view kAllowPrivateKey = "allow_private";
}  // namespace

Result<StoredConfig> CrawlerConfig(const CrawlerOptions& options) {
  CRAWLRANK_ASSIGN_OR_RETURN(StoredConfig config, SchedulerConfig(SchedulerOptionsFor(options)));
  config.emplace(kUserAgentKey, options.user_agent);
  config.emplace(kMaxCrawlDelayKey, std::to_string(options.max_crawl_delay_ms));
  config.emplace(kAllowPrivateKey, options.allow_private ? "1" : "0");
  return config;
}

Status ApplyCrawlerConfig(const StoredConfig& config, CrawlerOptions* options) {
  // Every scheduler key but host_key: the crawler keeps robots.txt by host, so its
  // politeness key is the host whatever a frontier served from the DB stored.
  const HostKeyMode host_key = options->schedule.host_key;
  CRAWLRANK_RETURN_IF_ERROR(ApplySchedulerConfig(config, &options->schedule));
  options->schedule.host_key = host_key;
  CrawlerOptions& o = *options;
  if (const auto it = config.find(std::string(kUserAgentKey)); it != config.end()) {
    o.user_agent = it->second;
  }
  if (const auto it = config.find(std::string(kMaxCrawlDelayKey)); it != config.end()) {
    int64_t ms = -1;
    const char* end = it->second.data() + it->second.size();
    const auto [ptr, ec] = std::from_chars(it->second.data(), end, ms);
    if (ec != std::errc() || ptr != end || ms < 0) {
      return InvalidArgumentError("configuration key max_crawl_delay_ms = \"" + it->second +
                                  "\": not an integer of 0 or more");
    }
    o.max_crawl_delay_ms = ms;
  }
  if (const auto it = config.find(std::string(kAllowPrivateKey)); it != config.end()) {
    if (it->second != "0" && it->second != "1") {
      return InvalidArgumentError("configuration key allow_private = \"" + it->second +
                                  "\": not 0 or 1");
    }
    o.allow_private = it->second == "1";
  }
  return Status::Ok();
}

}  // namespace crawlrank
