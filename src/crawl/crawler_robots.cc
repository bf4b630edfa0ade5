// The crawler's robots.txt and sitemaps: fetched per origin before its pages, kept per host
// in the frontier (HostRobots), retried with back-off when unreachable.
#include <algorithm>

#include "crawl/crawler_impl.h"

namespace crawlrank {

void Crawler::Impl::LoadRobots(const std::string& host) {
  if (robots->FirstSight(host)) robots->Load(host, frontier->HostRobots(host));
}

Status Crawler::Impl::SaveRobots(const std::string& host) {
  return frontier->SetHostRobots(host, robots->Saved(host));
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
  const RobotsEntry* known =
      result.error == FetchError::kPrivateAddress ? robots->Find(origin) : nullptr;
  for (Request& r : pages) {
    CRAWLRANK_ASSIGN_OR_RETURN(const bool kept, HoldRefused(r, known, result.message));
    if (!kept) {
      CRAWLRANK_RETURN_IF_ERROR(Fail(r, FailureKindOf(result.error), false, result.message));
    }
  }
  return Status::Ok();
}

Status Crawler::Impl::OnRobots(const Pending& p, FetchResult result) {
  {
    std::lock_guard lock(summary_mu);
    ++summary.robots_fetched;
  }
  std::vector<Request> pages = robots->TakeWaiting(p.origin);
  if (!RobotsTable::Files(result)) return FailOrigin(p.origin, result, pages);
  const RobotsEntry& entry = robots->Record(p.origin, p.request.host, result, clock.NowMs());
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
  const bool gave_up = robots->GaveUp(entry);
  FailureReport unreachable;
  unreachable.kind = FailureKind::kRobotsUnreachable;
  unreachable.reason = entry.UnreachableReason(p.origin);
  if (gave_up) {
    std::lock_guard lock(summary_mu);
    summary.unreachable_origins[p.origin] = entry.detail;
  }
  const std::string host = entry.host;
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
