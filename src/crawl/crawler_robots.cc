// The crawler's robots.txt and sitemaps: fetched per origin before its pages, kept per host
// in the frontier (HostRobots), retried with back-off when unreachable.
#include <algorithm>

#include "crawl/crawler_impl.h"

namespace crawlrank {

void Crawler::Impl::LoadRobots(const std::string& host) {
  if (!robots_loaded_hosts.insert(host).second) return;
  DecodeRobotsState(frontier->HostRobots(host), [&](std::string_view origin, RobotsEntry entry) {
    entry.host = host;
    if (entry.gave_up(options.schedule.max_retries)) {
      // Given up on by an earlier run: asked once more (its pages may have been re-queued
      // after a fix), and given up on again at the first failure.
      entry.expires_ms = 0;
      entry.failures = options.schedule.max_retries;
    }
    std::unique_lock lock(robots_mu);
    robots[std::string(origin)] = std::move(entry);
  });
}

Status Crawler::Impl::SaveRobots(const std::string& host) {
  std::string bytes;
  for (const auto& [origin, e] : robots) {
    if (e.host == host) AppendRobotsState(origin, e, &bytes);
  }
  return frontier->SetHostRobots(host, bytes);
}


Status Crawler::Impl::StartRobots(const std::string& origin, const std::string& host) {
  FetchJob job;
  job.url = origin + "/robots.txt";
  job.tag = next_tag++;
  job.max_redirects = options.max_redirects_robots;
  job.max_body_bytes = kRobotsMaxBytes;
  job.truncate_body = true;
  Pending p{Kind::kRobots, {}, origin, 0};
  p.request.host = host;
  if (Status s = fetcher->Start(std::move(job)); !s.ok()) {
    FetchResult failed;
    failed.error = FetchError::kProtocol;
    failed.message = s.message();
    return OnRobots(p, std::move(failed));
  }
  pending.emplace(next_tag - 1, std::move(p));
  return Status::Ok();
}

void Crawler::Impl::StartSitemap(const std::string& url, int depth) {
  if (sitemaps_seen.size() >= kMaxSitemaps || UrlTooLong(url) ||
      !sitemaps_seen.insert(url).second) {
    return;
  }
  FetchJob job;
  job.url = url;
  job.tag = next_tag++;
  job.max_redirects = 5;
  if (fetcher->Start(std::move(job)).ok()) {
    pending.emplace(next_tag - 1, Pending{Kind::kSitemap, {}, {}, depth});
  }
}

Status Crawler::Impl::FailOrigin(const std::string& origin, const FetchResult& result,
                                 std::vector<Request>& pages) {
  // Nothing is cached (another page of the host may name another origin). A host that
  // answered before (its expired entry says so) is held instead (HoldRefused).
  const auto before = robots.find(origin);
  const RobotsEntry* known =
      result.error == FetchError::kPrivateAddress && before != robots.end() ? &before->second
                                                                            : nullptr;
  for (Request& r : pages) {
    CRAWLRANK_ASSIGN_OR_RETURN(const bool kept, HoldRefused(r, known, result.message));
    if (!kept) {
      CRAWLRANK_RETURN_IF_ERROR(Fail(r, FailureKindOf(result.error), false, result.message));
    }
  }
  return Status::Ok();
}

Status Crawler::Impl::OnRobots(const Pending& p, FetchResult result) {
  const int64_t now = clock.NowMs();
  RobotsEntry entry;
  entry.host = p.request.host;
  entry.fetched_ms = now;
  {
    std::lock_guard lock(summary_mu);
    ++summary.robots_fetched;
  }
  std::vector<Request> pages = std::move(waiting[p.origin]);
  waiting.erase(p.origin);
  waiting_count -= pages.size();
  if (result.error == FetchError::kPrivateAddress || result.error == FetchError::kProtocol) {
    return FailOrigin(p.origin, result, pages);
  }
  if (result.error == FetchError::kTooManyRedirects) {
    entry.status = 404;  // §2.3.1.2: past five redirects, robots.txt is "unavailable"
  } else if (result.error != FetchError::kNone) {
    entry.status = 0;  // unreachable: disallow all for a while (RFC 9309 §2.3.1.4)
  } else {
    entry.status = static_cast<uint32_t>(result.status);
  }
  if (entry.status >= 200 && entry.status < 300) {
    entry.rules = RobotsRules::Parse(result.body, robots_agent);
    entry.expires_ms = now + options.robots_ttl_ms;
  } else if (entry.status >= 400 && entry.status < 500 && entry.status != 429) {
    entry.rules = RobotsRules::AllowAll();  // §2.3.1.3: "unavailable"
    entry.expires_ms = now + options.robots_ttl_ms;
  } else if (entry.status >= 300 && entry.status < 400) {  // §2.3.1.2: gave up following
    entry.rules = RobotsRules::AllowAll();
    entry.expires_ms = now + options.robots_ttl_ms;
  } else {  // 5xx, 429 or unreachable: disallow all, and ask again after a back-off
    entry.rules = RobotsRules::DisallowAll();
    BackOff(p.origin, result, &entry);
  }
  if (entry.usable()) retrying_origins.erase(p.origin);
  if (entry.usable()) {  // its Crawl-delay, or none (a delay dropped from the file goes)
    int64_t applied = entry.rules.crawl_delay_ms().value_or(0);
    if (applied > options.max_crawl_delay_ms) {
      std::lock_guard lock(summary_mu);
      summary.capped_crawl_delays[entry.host] = applied;
      applied = options.max_crawl_delay_ms;
    }
    CRAWLRANK_RETURN_IF_ERROR(frontier->SetCrawlDelay(entry.host, applied));
  }
  if (options.sitemaps && entry.usable()) {
    size_t n = 0;
    for (const std::string& url : entry.rules.sitemaps()) {
      if (++n > kMaxSitemapsPerRobots) break;
      StartSitemap(url, 0);
    }
    StartSitemap(p.origin + "/sitemap.xml", 0);
  }
  const std::string host = entry.host;
  const bool gave_up = entry.gave_up(options.schedule.max_retries);
  FailureReport unreachable;
  unreachable.kind = FailureKind::kRobotsUnreachable;
  unreachable.reason = entry.UnreachableReason(p.origin);
  {
    std::unique_lock lock(robots_mu);
    robots[p.origin] = std::move(entry);
  }
  CRAWLRANK_RETURN_IF_ERROR(SaveRobots(host));
  for (Request& r : pages) CRAWLRANK_RETURN_IF_ERROR(Dispatch(std::move(r)));
  if (gave_up) {  // the origin's queued pages too, at once rather than one per delay
    CRAWLRANK_ASSIGN_OR_RETURN(const uint64_t failed,
                               frontier->FailQueued(host, p.origin, unreachable));
    std::lock_guard lock(summary_mu);
    summary.errors[std::string(FailureKindName(unreachable.kind))] += failed;
    summary.progress.errors += failed;
  }
  return Status::Ok();
}

void Crawler::Impl::BackOff(const std::string& origin, const FetchResult& result,
                            RobotsEntry* entry) {
  const int64_t now = entry->fetched_ms;
  const auto previous = robots.find(origin);  // this thread is its only writer
  entry->failures = (previous != robots.end() ? previous->second.failures : 0) + 1;
  entry->detail = result.error != FetchError::kNone
                      ? result.message
                      : "HTTP " + std::to_string(entry->status);
  if (entry->gave_up(options.schedule.max_retries)) {  // its pages fail until it is asked again
    entry->expires_ms = now + options.robots_ttl_ms;
    retrying_origins.erase(origin);
    std::lock_guard lock(summary_mu);
    summary.unreachable_origins[origin] = entry->detail;
    return;
  }
  const int shift = static_cast<int>(std::min<uint32_t>(entry->failures - 1, 20));
  entry->expires_ms = now + std::min(options.schedule.retry_ms << shift, options.robots_ttl_ms);
  retrying_origins.insert(origin);
}

Status Crawler::Impl::OnSitemap(const Pending& p, const FetchResult& result) {
  if (result.error != FetchError::kNone || result.status < 200 || result.status >= 300) {
    return Status::Ok();  // a missing sitemap is no error
  }
  SitemapUrls urls = ParseSitemap(result.body);
  for (const std::string& nested : urls.sitemaps) {
    if (p.depth < 2) StartSitemap(nested, p.depth + 1);
  }
  // sitemaps.org: a sitemap lists URLs of its own host only (which also keeps a sitemap
  // from widening --same-host on the next run, where seeds make the scope).
  const Result<std::string> own_host = HostKey(result.final_url.empty() ? result.url : result.final_url);
  std::vector<std::string> seeds;
  for (std::string& url : urls.pages) {
    if (UrlTooLong(url)) continue;
    Result<std::string> canonical = CanonicalizeUrl(url, profile);
    if (!canonical.ok()) continue;
    Result<std::string> host = HostKey(*canonical);
    if (own_host.ok() && host.ok() && *host == *own_host) seeds.push_back(std::move(*canonical));
  }
  {
    std::lock_guard lock(summary_mu);
    summary.sitemap_urls += seeds.size();
  }
  if (seeds.empty()) return Status::Ok();
  return frontier->AddSeeds(seeds);
}

}  // namespace crawlrank
