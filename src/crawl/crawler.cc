#include "crawlrank/crawler.h"

#include <xxhash.h>

#include "crawl/crawler_impl.h"
#include "crawlrank/version.h"

namespace crawlrank {
namespace {

// What the PageDB keeps of a page's fetch (its title comes from the parse).
FetchInfo FetchInfoOf(const FetchResult& result) {
  return {.content_type = result.content_type,
          .wire_bytes = result.wire_bytes,
          .decoded_bytes = result.body.size(),
          .fetch_ms = result.fetch_ms,
          .title = {}};  // the parse fills it
}

}  // namespace

Status Crawler::Impl::Dispatch(Request request) {
  if (request.url.size() > options.max_url_bytes) {
    return Fail(request, FailureKind::kBadUrl, false,
                "URL over " + std::to_string(options.max_url_bytes) + " bytes");
  }
  if (refused_hosts.contains(request.host)) {  // a lease taken before the hold
    std::lock_guard lock(summary_mu);
    ++summary.held_pages;
    held.push_back(std::move(request));
    return Status::Ok();
  }
  const std::string origin = OriginOf(request.url);
  LoadRobots(request.host);
  switch (robots->Judge(origin, request.url, clock.NowMs())) {
    case RobotsTable::Verdict::kAsk: {
      const std::string host = request.host;
      if (robots->Wait(origin, std::move(request))) return StartRobots(origin, host);
      return Status::Ok();
    }
    case RobotsTable::Verdict::kGaveUp:
      return FailUnreachable(request, origin, *robots->Find(origin));
    case RobotsTable::Verdict::kUnavailable: {  // disallow all until it is asked again
      {
        std::lock_guard lock(summary_mu);
        ++summary.robots_unavailable;
      }
      robots->Park(origin, std::move(request));
      return Status::Ok();
    }
    case RobotsTable::Verdict::kDisallowed: {
      // (A frontier other than the Scheduler may leave the fingerprint 0.)
      const uint64_t fingerprint =
          request.fingerprint != 0 ? request.fingerprint : UrlFingerprint(request.url);
      if (robots->FirstRefusal(fingerprint)) {
        std::lock_guard lock(summary_mu);
        ++summary.robots_disallowed;
      }
      Log(request, FailureKind::kRobotsDisallowed, 0, nullptr);
      FailureReport report;
      report.url = request.url;
      report.lease = request.lease;
      report.retryable = false;
      report.reason = kRobotsDisallowedReason;
      report.kind = FailureKind::kRobotsDisallowed;
      return frontier->Failed(report);
    }
    case RobotsTable::Verdict::kAllowed: break;
  }
  return StartPage(std::move(request));
}

Status Crawler::Impl::StartPage(Request request) {
  FetchJob job;
  job.url = request.url;
  job.tag = next_tag++;
  if (request.revisit && request.last_crawl_ms > 0) {
    job.if_modified_since_ms = request.last_crawl_ms;
  }
  Status started = fetcher->Start(std::move(job));
  if (!started.ok()) {
    return Fail(request, FailureKind::kBadUrl, false, started.message());
  }
  pending.emplace(next_tag - 1, Pending{Kind::kPage, std::move(request), {}, 0, clock.NowMs()});
  return Status::Ok();
}

void Crawler::Impl::Log(const Request& request, std::optional<FailureKind> failure,
                        uint16_t http_status, const Fetched* fetched) {
  if (!fetch_log) return;
  FetchLogEntry entry;
  entry.time_ms = clock.NowMs();
  entry.url = request.url;
  entry.http_status = http_status;
  if (fetched != nullptr) {
    entry.bytes = fetched->result.body.size();
    entry.content_type = fetched->result.content_type;
    entry.duration_ms = std::max<int64_t>(0, entry.time_ms - fetched->started_ms);
  }
  entry.referrer = request.referrer;
  if (failure.has_value()) entry.failure = FailureKindName(*failure);
  fetch_log(entry);
}

Status Crawler::Impl::OnPage(Request request, FetchResult result, int64_t started_ms,
                             std::vector<CrawlReport>& reports) {
  const Fetched fetched{result, started_ms};
  if (result.error == FetchError::kPrivateAddress) {
    CRAWLRANK_ASSIGN_OR_RETURN(
        const bool kept,
        HoldRefused(request, robots->Find(OriginOf(request.url)), result.message));
    if (kept) return Status::Ok();
  }
  if (result.error != FetchError::kNone) {
    return Fail(request, FailureKindOf(result.error), FetchErrorRetryable(result.error),
                result.message, 0, std::nullopt, &fetched);
  }
  const long status = result.status;
  if (status == 429 || status >= 500 || status < 100) {
    const FailureKind kind = status < 100   ? FailureKind::kProtocol
                             : status < 500 ? FailureKind::kHttp4xx
                                            : FailureKind::kHttp5xx;
    return Fail(request, kind, true, "HTTP " + std::to_string(status),
                static_cast<uint16_t>(std::clamp(status, 0L, 999L)), result.retry_after_ms,
                &fetched);
  }
  if (status < 300 || status >= 400) redirects.End(request.fingerprint);
  const int64_t now = clock.NowMs();
  {
    std::lock_guard lock(summary_mu);
    summary.progress.bytes += result.body.size();
  }
  if (status >= 200 && status < 300 && IsHtmlResponse(result.content_type, result.body)) {
    Log(request, std::nullopt, static_cast<uint16_t>(status), &fetched);
    pool->Push(ParsePool::Job{std::move(request), std::move(result), now});
    return Status::Ok();
  }
  CrawlReport report;
  report.lease = request.lease;
  report.page.url = request.url;
  report.page.crawl_time_ms = now;
  report.page.http_status = static_cast<uint16_t>(status);
  report.page.fetch = FetchInfoOf(result);
  if (status >= 300 && status < 400 && status != 304 && !result.location.empty()) {
    Result<std::string> target = ResolveUrl(request.url, result.location, profile);
    if (target.ok() && !UrlTooLong(*target)) {
      if (!redirects.Follow(request.fingerprint, UrlFingerprint(*target))) {
        return Fail(request, FailureKind::kRedirectLimit, false,
                    "more than " + std::to_string(RedirectChains::kMaxChain) +
                        " redirects in a row; the next is " + *target,
                    static_cast<uint16_t>(status), std::nullopt, &fetched);
      }
      report.page.links.push_back({std::move(*target), 0.f});
    }
  } else if (status == 304) {
    report.page.content_hash = request.content_hash;  // unchanged since the last crawl
  } else if (status >= 200 && status < 300) {
    report.page.content_hash = XXH3_64bits(result.body.data(), result.body.size());
  }
  {
    std::lock_guard lock(summary_mu);
    ++summary.progress.pages;
    ++summary.statuses[static_cast<int>(status)];
  }
  Log(request, std::nullopt, static_cast<uint16_t>(status), &fetched);
  reports.push_back(std::move(report));
  return Status::Ok();
}

Status Crawler::Impl::ParseBatch(std::vector<ParsePool::Job>& jobs) {
  std::vector<CrawlReport> reports;
  reports.reserve(jobs.size());
  uint64_t tree_parsed = 0;
  for (ParsePool::Job& job : jobs) {
    // Stopping: the rest of the batch is dropped unreported (leases come back on reopen).
    if (stop.load(std::memory_order_acquire)) break;
    CrawlReport report;
    report.lease = job.request.lease;
    report.page.url = job.request.url;
    report.page.crawl_time_ms = job.crawl_time_ms;
    report.page.http_status = static_cast<uint16_t>(job.result.status);
    report.page.fetch = FetchInfoOf(job.result);
    Result<HtmlPage> page =
        ExtractHtml(job.result.body, job.request.url, job.result.content_type, extract);
    if (page.ok()) {
      tree_parsed += page->tree_parsed ? 1 : 0;
      report.page.fetch.title = std::move(page->title);
      report.page.content_hash = page->content_hash;
      report.page.content_score = page->content_score;
      report.page.links.reserve(page->links.size() + 1);
      for (ExtractedLink& link : page->links) {
        if (!UrlTooLong(link.url)) report.page.links.push_back({std::move(link.url), link.score});
      }
      if (!page->canonical.empty() && page->canonical != job.request.url &&
          !UrlTooLong(page->canonical)) {
        report.page.links.push_back({page->canonical, 0.f});
      }
    } else {
      report.page.content_hash = XXH3_64bits(job.result.body.data(), job.result.body.size());
    }
    reports.push_back(std::move(report));
  }
  if (reports.empty()) return Status::Ok();
  RefuseKnownDisallowed(reports);
  CRAWLRANK_RETURN_IF_ERROR(frontier->CrawledBatch(reports));
  {
    std::lock_guard lock(summary_mu);
    summary.tree_parsed_pages += tree_parsed;
    for (size_t i = 0; i < reports.size(); ++i) {
      ++summary.progress.pages;
      ++summary.progress.html_pages;
      ++summary.statuses[static_cast<int>(jobs[i].result.status)];
    }
  }
  fetcher->Wakeup();  // the network thread may be waiting for these hosts to be free
  return Status::Ok();
}

// Links that a robots.txt already known disallows are failed with their page's report,
// before their host's queue could hand them out: a page never fetched must not take a
// politeness slot of its host. Links to an origin given up on fail so too. Neither kind
// counts as an error of the run: the frontier may have failed such a page already
// (FailQueued, an earlier run).
void Crawler::Impl::RefuseKnownDisallowed(std::vector<CrawlReport>& reports) {
  for (CrawlReport& report : reports) {
    for (const Link& link : report.page.links) {
      std::optional<FailureReport> refusal = robots->Refusal(link.url);
      if (!refusal.has_value() || !robots->FirstRefusal(UrlFingerprint(link.url))) continue;
      if (refusal->kind == FailureKind::kRobotsDisallowed) {
        std::lock_guard lock(summary_mu);
        ++summary.robots_disallowed;
      }
      refusal->url = link.url;
      report.refused.push_back(std::move(*refusal));
    }
  }
}

Result<bool> Crawler::Impl::HoldRefused(Request& request, const RobotsEntry* before,
                                       const std::string& detail) {
  if (!refused_hosts.contains(request.host)) {
    // Held only where a hold is kept (the crawler's own Scheduler) and the host answered
    // before: a host never reached fails as the guard says, so that a crawl seeded on a
    // private address ends (crawlrank crawl then names --allow-private).
    if (owned == nullptr || before == nullptr || before->status == 0) return false;
    CRAWLRANK_RETURN_IF_ERROR(owned->HoldHost(request.host, clock.NowMs() + kRefusedHoldMs));
    refused_hosts.emplace(request.host, detail);
  }
  {
    std::lock_guard lock(summary_mu);
    summary.refused_hosts.emplace(request.host, detail);  // once a host: emplace keeps it
    ++summary.held_pages;
  }
  held.push_back(std::move(request));
  return true;
}

bool Crawler::Impl::OnlyRefusedLeft(const SchedulerStats& stats) const {
  if (refused_hosts.empty() || owned == nullptr || pool->backlog() != 0 || robots->waiting() != 0 ||
      robots->next_due().has_value() || stats.retrying != 0 || stats.in_flight > held.size()) {
    return false;
  }
  uint64_t queued = 0;
  for (const auto& entry : refused_hosts) queued += owned->QueuedOfHost(entry.first);
  return queued == stats.queued;
}

CrawlProgress Crawler::Impl::Progress() const {
  CrawlProgress p;
  {
    std::lock_guard lock(summary_mu);
    p = summary.progress;
  }
  p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const SchedulerStats stats = frontier->GetStats();
  p.queued = stats.queued;
  p.hosts = stats.hosts;
  p.in_flight = fetcher->running();
  p.waiting_origins = robots->retrying_origins();
  // The rate over the samples of about the last kRecentWindowS seconds.
  rate_samples.emplace_back(p.elapsed_s, p.pages);
  while (rate_samples.size() > 2 && rate_samples[1].first <= p.elapsed_s - kRecentWindowS) {
    rate_samples.pop_front();
  }
  const auto& [since_s, since_pages] = rate_samples.front();
  if (p.elapsed_s - since_s > 0.5) {
    p.recent_pages_per_s = static_cast<double>(p.pages - since_pages) / (p.elapsed_s - since_s);
  } else if (p.elapsed_s > 0) {
    p.recent_pages_per_s = static_cast<double>(p.pages) / p.elapsed_s;
  }
  return p;
}

Result<std::unique_ptr<Crawler::Impl>> Crawler::Impl::Make(const CrawlerOptions& options,
                                                          UrlProfile profile,
                                                          std::vector<std::string>* seeds) {
  CRAWLRANK_RETURN_IF_ERROR(CheckCrawlerOptions(options));
  auto impl = std::make_unique<Impl>();
  Impl& c = *impl;
  c.options = options;
  c.profile = profile;
  RobotsPolicy robots{.agent = options.robots_agent,
                      .ttl_ms = options.robots_ttl_ms,
                      .retry_ms = options.schedule.retry_ms,
                      .max_retries = options.schedule.max_retries};
  if (robots.agent.empty()) {
    robots.agent = options.user_agent.substr(0, options.user_agent.find_first_of("/ "));
  }
  c.robots.emplace(std::move(robots));
  if (!options.keywords_file.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(KeywordScorer scorer, KeywordScorer::FromFile(options.keywords_file));
    c.keywords.emplace(std::move(scorer));
  }
  c.extract.profile = c.profile;
  c.extract.follow_nofollow = options.follow_nofollow;
  c.extract.parser = options.html_parser;
  c.extract.keywords = c.keywords ? &*c.keywords : nullptr;
  CRAWLRANK_ASSIGN_OR_RETURN(*seeds, CanonicalSeeds(options, c.profile));
  CRAWLRANK_ASSIGN_OR_RETURN(c.fetcher, Fetcher::Create(FetcherOptionsFor(options)));
  if (!options.warc_dir.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(c.warc, WarcWriter::Open({.dir = options.warc_dir,
                                                         .max_file_bytes = options.warc_max_file_bytes,
                                                         .software = "crawlrank/" CRAWLRANK_VERSION_STRING}));
  }
  return impl;
}

Result<std::unique_ptr<Crawler>> Crawler::Open(PageDb& db, const CrawlerOptions& options) {
  CRAWLRANK_ASSIGN_OR_RETURN(PageDbInfo info, db.Info());
  std::vector<std::string> seeds;
  CRAWLRANK_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl,
                             Impl::Make(options, info.url_profile, &seeds));
  CrawlerOptions run = options;
  CRAWLRANK_ASSIGN_OR_RETURN(run.schedule.scope_hosts, ScopeHosts(options, seeds, db));
  CRAWLRANK_ASSIGN_OR_RETURN(StoredConfig config, CrawlerConfig(run));
  CRAWLRANK_ASSIGN_OR_RETURN(impl->owned, Scheduler::Open(db, SchedulerOptionsFor(run)));
  CRAWLRANK_RETURN_IF_ERROR(db.WriteConfig(config));
  impl->frontier = impl->owned.get();
  if (!seeds.empty()) {
    CRAWLRANK_RETURN_IF_ERROR(impl->frontier->AddSeeds(seeds));
    // A seed named again is a request to fetch it: one that failed for good goes back.
    FailureFilter filter;
    filter.urls = seeds;
    CRAWLRANK_ASSIGN_OR_RETURN(impl->requeued_seeds, impl->owned->Requeue(filter));
  }
  return std::unique_ptr<Crawler>(new Crawler(std::move(impl)));
}

Result<std::unique_ptr<Crawler>> Crawler::Open(Frontier& frontier, const CrawlerOptions& options,
                                               UrlProfile profile) {
  if (options.schedule.scope != CrawlScope::kAny) {
    return InvalidArgumentError(
        "crawl: a scope (same host, same domain) is the frontier's to apply; give it there");
  }
  std::vector<std::string> seeds;
  CRAWLRANK_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl, Impl::Make(options, profile, &seeds));
  impl->frontier = &frontier;
  if (!seeds.empty()) CRAWLRANK_RETURN_IF_ERROR(frontier.AddSeeds(seeds));
  return std::unique_ptr<Crawler>(new Crawler(std::move(impl)));
}

Crawler::Crawler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Crawler::~Crawler() = default;

Scheduler& Crawler::scheduler() { return *impl_->owned; }

Frontier& Crawler::frontier() { return *impl_->frontier; }

void Crawler::Stop() {
  impl_->stop.store(true, std::memory_order_release);
  impl_->fetcher->Wakeup();
}

Status Crawler::Impl::Unpark() {
  Status failure;
  for (Request& r : robots->TakeDue(clock.NowMs())) {
    if (Status s = Dispatch(std::move(r)); !s.ok()) failure = s;
  }
  return failure;
}

Status Crawler::Impl::Round(bool* finished) {
  CRAWLRANK_RETURN_IF_ERROR(pool->error());
  // Pages parked for their robots.txt go back when it is due.
  CRAWLRANK_RETURN_IF_ERROR(Unpark());
  const size_t busy = fetcher->running() + robots->waiting() + pool->backlog();
  size_t handed = 0;
  if (busy < options.concurrency) {
    CRAWLRANK_ASSIGN_OR_RETURN(std::vector<Request> batch,
                               frontier->Next(options.concurrency - busy));
    handed = batch.size();
    Status failure;
    for (Request& r : batch) {
      if (Status s = Dispatch(std::move(r)); !s.ok()) failure = s;
    }
    CRAWLRANK_RETURN_IF_ERROR(failure);
  }
  int wait_ms = 100;
  if (handed == 0 && fetcher->running() == 0) {
    const SchedulerStats stats = frontier->GetStats();
    if (stats.finished && pool->backlog() == 0 && robots->waiting() == 0) {
      *finished = true;
      return Status::Ok();
    }
    if (OnlyRefusedLeft(stats)) {
      only_refused_left = true;
      *finished = true;
      return Status::Ok();
    }
    if (stats.next_ready_ms >= 0) {
      wait_ms = static_cast<int>(std::clamp<int64_t>(stats.next_ready_ms - clock.NowMs(), 1, 100));
    }
  }
  // Otherwise a transfer that ends, or a parse thread's report (Wakeup), ends the wait; a
  // host whose delay runs out waits for the next round, at most 100 ms late.
  if (const std::optional<int64_t> due = robots->next_due()) {
    wait_ms = static_cast<int>(std::clamp<int64_t>(*due - clock.NowMs(), 1, wait_ms));
  }
  std::vector<FetchResult> done;
  CRAWLRANK_RETURN_IF_ERROR(fetcher->Poll(wait_ms, &done));
  return Collect(done);
}

Status Crawler::Impl::Collect(std::vector<FetchResult>& done) {
  std::vector<CrawlReport> reports;
  Status failure;
  for (FetchResult& result : done) {
    auto it = pending.find(result.tag);
    if (it == pending.end()) continue;
    if (Status s = Archive(result); !s.ok()) {
      // Not archived (a full disk): not recorded either, so that a page the PageDB has as
      // fetched is always in the WARC files. Its lease comes back at the next open, and the
      // run stops with the error.
      if (failure.ok()) failure = s;
      pending.erase(it);
      continue;
    }
    Pending p = std::move(it->second);
    pending.erase(it);
    Status s;
    switch (p.kind) {
      case Kind::kPage:
        s = OnPage(std::move(p.request), std::move(result), p.started_ms, reports);
        break;
      case Kind::kRobots: s = OnRobots(p, std::move(result)); break;
      case Kind::kSitemap: s = OnSitemap(p, result); break;
    }
    if (!s.ok() && failure.ok()) failure = s;
  }
  if (!reports.empty() && failure.ok()) {
    RefuseKnownDisallowed(reports);
    failure = frontier->CrawledBatch(reports);
  }
  return failure;
}

Result<CrawlSummary> Crawler::Run(const ProgressFn& progress, const FetchLogFn& log) {
  Impl& c = *impl_;
  c.fetch_log = log;
  c.start = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(c.summary_mu);
    c.summary = CrawlSummary();
    c.summary.requeued_seeds = std::exchange(c.requeued_seeds, 0);
  }
  c.rate_samples.clear();
  c.refused_hosts.clear();
  c.held.clear();
  c.only_refused_left = false;
  uint32_t threads = c.options.parse_threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  c.pool = std::make_unique<ParsePool>(
      threads, [&c](std::vector<ParsePool::Job>& jobs) { return c.ParseBatch(jobs); });
  if (const uint64_t max_pages = c.options.schedule.max_pages; max_pages > 0) {
    const SchedulerStats stats = c.frontier->GetStats();
    const uint64_t done = stats.crawled + stats.failed;
    std::lock_guard lock(c.summary_mu);
    c.summary.progress.max_pages = max_pages > done ? max_pages - done : 0;
  }
  auto last_progress = std::chrono::steady_clock::now();
  Status failure;
  bool finished = false;
  const auto deadline = c.options.max_time_ms > 0
                            ? c.start + std::chrono::milliseconds(c.options.max_time_ms)
                            : std::chrono::steady_clock::time_point::max();
  bool timed_out = false;
  while (!c.stop.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      timed_out = true;
      break;
    }
    failure = c.Round(&finished);
    if (!failure.ok() || finished) break;
    const auto now = std::chrono::steady_clock::now();
    if (progress && now - last_progress >= std::chrono::milliseconds(c.options.report_interval_ms)) {
      last_progress = now;
      progress(c.Progress());
    }
  }
  const bool stopped = c.stop.load(std::memory_order_acquire) || timed_out;
  CRAWLRANK_RETURN_IF_ERROR(c.Close(stopped, failure));
  CrawlSummary summary;
  {
    std::lock_guard lock(c.summary_mu);
    summary = c.summary;
  }
  const uint64_t max_pages = summary.progress.max_pages;
  summary.progress = c.Progress();
  summary.progress.max_pages = max_pages;
  summary.stopped = stopped;
  summary.only_refused_left = c.only_refused_left;
  summary.finished = finished && !c.only_refused_left;
  summary.limit_reached = c.frontier->GetStats().limit_reached;
  return summary;
}

Status Crawler::Impl::Archive(const FetchResult& result) {
  if (!warc || !result.wire_complete) return Status::Ok();
  return warc->Write({.url = result.final_url.empty() ? result.url : result.final_url,
                      .time_ms = result.started_ms,
                      .ip = result.address,
                      .request_head = WarcHttpHead(result.request_head),
                      .response_head = WarcHttpHead(result.response_head),
                      .body = result.wire_body});
}

Status Crawler::Impl::Close(bool stopped, Status failure) {
  // Transfers in flight, pages parked (at max_pages) and pages not parsed are dropped
  // unreported (leases come back at the PageDB's next open); a batch being parsed ends.
  fetcher->AbandonAll();
  pending.clear();
  robots->DropPages();
  held.clear();
  pool->Close(/*drop=*/stopped || !failure.ok());
  if (Status s = pool->error(); failure.ok() && !s.ok()) failure = s;
  pool.reset();
  fetch_log = nullptr;  // the caller's, for this Run only
  if (owned) {  // the crawl's last progress sample: where it ended
    if (Status s = owned->RecordProgress(); failure.ok() && !s.ok()) failure = s;
    for (const auto& entry : refused_hosts) {  // the next run judges them afresh
      if (Status s = owned->HoldHost(entry.first, 0); failure.ok() && !s.ok()) failure = s;
    }
  }
  if (warc) {
    if (Status s = warc->Close(); failure.ok() && !s.ok()) failure = s;
  }
  return failure;
}

}  // namespace crawlrank
