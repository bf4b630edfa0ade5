// The best-first scheduler (crawlrank/scheduler.h): the page state machine's transactions.
// What each part owns lives beside this file: the hosts and politeness (host_table.h),
// the pages' states (schedule_state.h), scores (score_policy.h), revisits
// (revisit_estimator.h), re-ranks (reranker.h), filters (url_filter.h); the tables go
// through page_db/schedule_table.h. The calls that steer hosts, re-queue and remove pages
// are in scheduler_steer.cc; the state both files share is scheduler_impl.h's.
//
// Locks: the PageDB's writer lock (RunWrite) is taken first, then `mu`, which guards the
// schedule's state; GetStats takes only `mu`. The scheduler joins every write transaction
// of its PageDB as its WriteHook: changes a transaction makes to the state are staged and
// applied once it commits (new pages, reports, failures: Committed) or, for Next, made at
// once and undone if it aborts (RolledBack).
#include "crawlrank/scheduler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "page_db/page_db_impl.h"
#include "page_db/schedule_table.h"
#include "page_db/write_txn.h"
#include "schedule/failed_pages.h"
#include "schedule/reranker.h"
#include "schedule/schedule_state.h"
#include "schedule/scheduler_impl.h"

namespace crawlrank {

// ---- the hook

Status Scheduler::Impl::BeforeCommit(WriteTxn& write) {
  std::lock_guard lock(mu);
  CRAWLRANK_RETURN_IF_ERROR(StageCreated(write));
  CRAWLRANK_RETURN_IF_ERROR(StageFetched(write));
  CRAWLRANK_RETURN_IF_ERROR(StageReceived(write));
  if (state.policy().link_keyed()) {
    for (const auto& [id, old] : write.raised_scores()) staged.raised.push_back(id);
  }
  if (reranker.has_value() && reranker->keeps_graph()) {
    staged.relinked.assign(write.relinked().begin(), write.relinked().end());
  }
  if (options.progress_interval_ms > 0) {
    const int64_t now = clock.NowMs();
    const int64_t last = write.last_progress_ms();
    if (force_progress || last < 0 || now - last >= options.progress_interval_ms || now < last) {
      const SchedulerStats stats = state.Stats(now);
      write.RecordProgress(now, stats.queued, stats.in_flight);
    }
  }
  return WriteStaged(write);
}

Status Scheduler::Impl::StageCreated(WriteTxn& write) {
  // A page this transaction both created and fetched is placed as queued, then taken out
  // as fetched below (so that it passes on its score as any fetched page does); one
  // restored as crawled (page_db_load) is placed as crawled.
  std::vector<bool> fetched_new(write.created().size());
  for (size_t i = 0; i < write.fetched_count(); ++i) {
    const uint32_t id = write.fetched(i).id;
    if (id >= write.first_new_id()) fetched_new[id - write.first_new_id()] = true;
  }
  for (const PageRecord& record : write.created()) {
    // A ghost (a node of a cluster): a page another node owns, kept for the links to it.
    if (options.elsewhere && !record.crawled() && options.elsewhere(record.url)) {
      ScheduleEntry ghost;
      ghost.state = EntryState::kElsewhere;
      CRAWLRANK_RETURN_IF_ERROR(tables.PutEntry(write, record.id, ghost));
      write.CountGhostPage(record.url);
      NewPage page{record.id, kNoHost, record.depth, record.fingerprint, record.link_score,
                   UrlFilter::Verdict::kAllowed, false, CrawlHistory(), 0};
      page.elsewhere = true;
      staged.created.push_back(page);
      continue;
    }
    // The call's extra for a page it created and did not crawl at once.
    const QueuedExtra* extra = nullptr;
    if (!staged.extras.empty() && !record.crawled()) {
      const auto it = staged.extras.find(record.fingerprint);
      if (it != staged.extras.end() && it->second.url == record.url) extra = it->second.extra;
    }
    if (extra != nullptr) CRAWLRANK_RETURN_IF_ERROR(WriteExtra(write, record.id, *extra));
    staged.created.push_back(
        {record.id, state.hosts().NumberOfUrl(record.url), record.depth, record.fingerprint,
         record.link_score, state.filter().Judge(record.url),
         record.crawled() && !fetched_new[record.id - write.first_new_id()],
         state.revisits().HistoryOf(record), extra != nullptr ? extra->priority : 0});
  }
  return Status::Ok();
}

Status Scheduler::Impl::StageFetched(WriteTxn& write) {
  for (size_t i = 0; i < write.fetched_count(); ++i) {
    const WriteTxn::Fetched fetched = write.fetched(i);
    const uint32_t id = fetched.id;
    // A late report of a page removed since: its record takes the fetch, its state stays.
    if (id < state.pages() && state.state(id) == kRemoved) continue;
    // A late report of a page failed for good since: it is crawled now.
    if (id < state.pages() && state.state(id) == kFailed && fetched.record != nullptr) {
      write.CountFailedPage(fetched.record->url, -1);
    }
    staged.fetched.push_back(id);
    int64_t date = 0;
    if (!staged.dates.empty() && fetched.record != nullptr) {
      const auto it = staged.dates.find(fetched.record->fingerprint);
      if (it != staged.dates.end() && it->second.url == fetched.record->url) date = it->second.at_ms;
    }
    staged.dated.push_back(date);
    if (options.revisits) {
      staged.revisit_history.push_back(
          fetched.record != nullptr ? state.revisits().HistoryOf(*fetched.record) : CrawlHistory());
    }
    if (state.policy().Pushes()) {
      // A page passes its score on at its first crawl only, as the replay on open does
      // (score_policy.h): a revisit's report, of a page out on a revisit lease, does not.
      const bool first = fetched.record == nullptr || fetched.record->n_crawls <= 1;
      if (first) {
        staged.targets.insert(staged.targets.end(), fetched.targets.begin(), fetched.targets.end());
      }
      staged.ends.push_back(static_cast<uint32_t>(staged.targets.size()));
      staged.contents.push_back(fetched.record != nullptr ? fetched.record->content_score : 0.f);
    }
    // A crawled page's state is implied by its record: no entry (an expired lease may have
    // left one behind, so delete without asking) unless its fetcher dated its next fetch,
    // and its payload was delivered.
    if (date > 0) {
      ScheduleEntry due;
      due.state = EntryState::kDue;
      due.time_ms = date;
      CRAWLRANK_RETURN_IF_ERROR(tables.PutEntry(write, id, due));
    } else {
      CRAWLRANK_RETURN_IF_ERROR(tables.EraseEntry(write, id));
    }
    CRAWLRANK_RETURN_IF_ERROR(tables.ErasePayload(write, id));
  }
  return Status::Ok();
}

Status Scheduler::Impl::StageReceived(WriteTxn& write) {
  for (const auto& [fingerprint, share] : staged.received_by_fingerprint) {
    const FingerprintIndex::Entry* page = store.index.Find(fingerprint);
    if (page == nullptr) continue;  // not in the batch: nothing to add it to
    CRAWLRANK_RETURN_IF_ERROR(write.AddReceivedShare(page->id, share));
    staged.received.emplace_back(page->id, share);
  }
  return Status::Ok();
}

Status Scheduler::Impl::WriteStaged(WriteTxn& write) const {
  for (const auto& change : staged.failures) {
    CRAWLRANK_RETURN_IF_ERROR(tables.PutEntry(write, change.id, change.entry));
  }
  for (const auto& [number, entry] : staged.host_changes) {
    const std::string& key = state.hosts()[number].key;
    if (key.empty()) continue;  // URLs without a host key share no persistent state
    CRAWLRANK_RETURN_IF_ERROR(tables.PutHost(write, key, entry));
  }
  return Status::Ok();
}

void Scheduler::Impl::Committed() {
  std::lock_guard lock(mu);
  const int64_t now = clock.NowMs();
  if (reranker.has_value()) {
    reranker->Relinked(staged.relinked);
    reranker->Grew(store.writer.counters);
  }
  state.Grow(static_cast<uint32_t>(store.writer.counters.pages));
  for (const NewPage& page : staged.created) state.Place(page, now);
  for (size_t i = 0; i < staged.fetched.size(); ++i) {
    const uint32_t id = staged.fetched[i];
    // StageFetched staged the out-links of first crawls only (a replay can match them).
    if (state.policy().Pushes()) {
      const uint32_t begin = i == 0 ? 0 : staged.ends[i - 1];
      const auto targets = std::span(staged.targets).subspan(begin, staged.ends[i] - begin);
      PassToGhosts(id, targets, staged.contents[i]);
      state.policy().PushFrom(id, targets, [&](uint32_t target) { state.Rekey(target, now); },
                              staged.contents[i]);
    }
    state.MarkCrawled(id, now);
    // The estimate learns from every crawl; the fetcher's date, when it gave one, wins.
    RevisitEstimator& revisits = state.revisits();
    const int64_t estimate = !staged.revisit_history.empty()
                                 ? revisits.NextRevisit(id, staged.revisit_history[i], false)
                                 : -1;
    if (staged.dated[i] > 0) {
      revisits.Schedule(id, staged.dated[i], true);
    } else if (estimate >= 0) {
      revisits.Schedule(id, estimate);
    } else {
      revisits.Cancel(id);
    }
  }
  for (const auto& [id, share] : staged.received) {
    state.policy().Receive(id, share);
    state.Rekey(id, now);
  }
  for (uint32_t id : staged.revisit_failed) state.RevisitFailed(id, now + options.retry_ms, now);
  if (reranker.has_value()) reranker->NotifyIfDue(now);
  for (uint32_t id : staged.raised) {
    state.policy().set_key(id, state.policy().LinkRaised(id, store.link_scores[id]));
    state.Rekey(id, now);
  }
  for (const auto& change : staged.failures) state.ApplyFailure(change.id, change.entry, now);
  for (uint32_t id : staged.requeued) state.Unfail(id, now);
  for (uint32_t id : staged.removed) state.Remove(id, now);
  for (const auto& [number, entry] : staged.host_changes) state.hosts().Apply(number, entry, now);
  if (staged.next_lease != 0) state.RaiseNextLease(staged.next_lease);
  staged.Clear();
}

void Scheduler::Impl::PassToGhosts(uint32_t source, std::span<const uint32_t> targets,
                                   float content_score) {
  if (!options.elsewhere || targets.empty()) return;
  const float share = state.policy().ShareOut(source, targets.size(), content_score);
  if (!(share > 0)) return;
  for (uint32_t t : targets) {
    if (state.state(t) == kElsewhere) passed[t] += share;
  }
}

void Scheduler::Impl::RolledBack() {
  std::lock_guard lock(mu);
  // Undo Next's picks, newest first.
  for (auto it = staged.picks.rbegin(); it != staged.picks.rend(); ++it) {
    state.Undo(*it, clock.NowMs());
  }
  staged.Clear();
}

// ---- open and inspect

Scheduler::Scheduler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Scheduler::~Scheduler() = default;

Result<std::unique_ptr<Scheduler>> Scheduler::Open(PageDb& db, const SchedulerOptions& options) {
  if (db.read_only()) {
    return FailedPreconditionError("schedule " + PageDbName(db.path()) +
                                   ": opened read-only; a Scheduler needs the writer");
  }
  CRAWLRANK_RETURN_IF_ERROR(ValidateSchedulerOptions(options));
  CRAWLRANK_ASSIGN_OR_RETURN(UrlFilter filter, UrlFilter::Compile(options));
  CRAWLRANK_ASSIGN_OR_RETURN(RevisitEstimator revisits, RevisitEstimator::Make(options));
  auto impl = std::make_unique<Impl>(db, options, std::move(filter), std::move(revisits));
  Impl& s = *impl;
  // Loads and joins with the writer's lock held, so that no page is written between the
  // snapshot read here and the hook's first transaction. The dead writer's leases, returned
  // in memory by Load, are returned in the table too.
  ScheduleState::Returned returned;
  CRAWLRANK_RETURN_IF_ERROR(AttachWriteHook(
      db, &s, [&] { return s.Load(&returned); },
      [&](WriteTxn& write) -> Status {
        for (const auto& [id, entry] : returned.leases) {
          CRAWLRANK_RETURN_IF_ERROR(s.tables.PutEntry(write, id, entry));
        }
        // A revisit the dead writer had out is due now (Load filed it so in memory).
        ScheduleEntry due;
        due.state = EntryState::kDue;
        due.time_ms = s.clock.NowMs();
        for (uint32_t id : returned.revisits) {
          CRAWLRANK_RETURN_IF_ERROR(s.tables.PutEntry(write, id, due));
        }
        return Status::Ok();
      }));
  if (s.reranker.has_value() && options.background_rerank) s.reranker->Start();
  return std::unique_ptr<Scheduler>(new Scheduler(std::move(impl)));
}

// ---- seeds and reports

namespace {

// Canonicalises and hashes pages before the writer's lock, as PageDb::AddBatch does.
PreparedBatch Prepare(const std::vector<const CrawledPage*>& pages, bool links_only,
                      UrlProfile profile) {
  std::vector<std::pair<const CrawledPage*, bool>> ops;
  ops.reserve(pages.size());
  for (const CrawledPage* page : pages) ops.emplace_back(page, links_only);
  return PreparedBatch(ops, profile);
}

}  // namespace

Status Scheduler::AddSeeds(const std::vector<std::string>& urls) {
  std::vector<CrawledPage> pages(urls.size());
  for (size_t i = 0; i < urls.size(); ++i) pages[i].url = urls[i];
  return impl_->Seed(pages, {});
}

Status Scheduler::AddSeeds(const std::vector<QueuedExtra>& seeds) {
  std::vector<CrawledPage> pages(seeds.size());
  for (size_t i = 0; i < seeds.size(); ++i) pages[i].url = seeds[i].url;
  return impl_->Seed(pages, seeds);
}

Status Scheduler::Impl::Seed(const std::vector<CrawledPage>& pages,
                             std::span<const QueuedExtra> extras) {
  std::vector<const CrawledPage*> pointers;
  pointers.reserve(pages.size());
  for (const CrawledPage& page : pages) pointers.push_back(&page);
  const PreparedBatch prepared = Prepare(pointers, true, db.url_profile());
  for (size_t i = 0; i < prepared.size(); ++i) {
    if (!prepared.at(i).status.ok()) {
      return prepared.at(i).status.WithContext("add seed \"" + pages[i].url + "\"");
    }
  }
  return RunWrite(store, nullptr, [&](WriteTxn& write) -> Status {
    if (!extras.empty()) {
      std::lock_guard lock(mu);
      for (size_t i = 0; i < prepared.size(); ++i) {
        StageExtra(prepared.at(i).url, prepared.at(i).fingerprint, extras[i]);
      }
    }
    for (size_t i = 0; i < prepared.size(); ++i) {
      CRAWLRANK_RETURN_IF_ERROR(write.Discover(prepared.at(i), 1.0f).status());
    }
    return Status::Ok();
  });
}

Status Scheduler::Crawled(const CrawlReport& report) {
  return CrawledBatch({report});
}

namespace {

// An extra with its URL canonical (a bad URL fails the call before anything is written).
struct NamedExtra {
  std::string url;
  uint64_t fingerprint;
  const QueuedExtra* extra;
};

Status NameExtras(std::span<const QueuedExtra> extras, UrlProfile profile, std::string_view what,
                  std::vector<NamedExtra>* out) {
  for (const QueuedExtra& extra : extras) {
    auto url = CanonicalizeUrl(extra.url, profile);
    if (!url.ok()) return url.status().WithContext(std::string(what));
    const uint64_t fingerprint = UrlFingerprint(*url);
    out->push_back({*std::move(url), fingerprint, &extra});
  }
  return Status::Ok();
}

// A fetcher's date with its page's URL canonical; InvalidArgument naming the URL for a
// URL that cannot be canonicalised or a date before 1970.
struct NamedDate {
  std::string url;
  uint64_t fingerprint;
  int64_t at_ms;
};

Status NameDate(const std::string& url, int64_t at_ms, UrlProfile profile,
                std::vector<NamedDate>* out) {
  if (at_ms < 0 || at_ms > kMaxCrawlTimeMs) {
    return InvalidArgumentError("the refetch date of \"" + url + "\" is " +
                                (at_ms < 0 ? "before 1970" : "after the year 9999") + " (" +
                                std::to_string(at_ms) + " ms)");
  }
  if (at_ms == 0) return Status::Ok();
  auto canonical = CanonicalizeUrl(url, profile);
  if (!canonical.ok()) return canonical.status().WithContext("date the refetch of a page");
  const uint64_t fingerprint = UrlFingerprint(*canonical);
  out->push_back({*std::move(canonical), fingerprint, at_ms});
  return Status::Ok();
}

// A refused link of a report (CrawlReport::refused), its URL canonical, its lease 0 and
// not retryable. Links naming a page the batch records as fetched are left out (that page
// is crawled), and so is a link refused again.
struct NamedRefusal {
  uint64_t fingerprint;
  FailureReport report;
};

Status NameRefusals(const std::vector<CrawlReport>& reports, UrlProfile profile,
                    std::vector<NamedRefusal>* out) {
  if (std::all_of(reports.begin(), reports.end(),
                  [](const CrawlReport& r) { return r.refused.empty(); })) {
    return Status::Ok();
  }
  std::unordered_set<uint64_t> fetched;
  for (const CrawlReport& report : reports) {
    auto url = CanonicalizeUrl(report.page.url, profile);
    if (url.ok()) fetched.insert(UrlFingerprint(*url));
  }
  for (const CrawlReport& report : reports) {
    for (const FailureReport& refusal : report.refused) {
      auto url = CanonicalizeUrl(refusal.url, profile);
      if (!url.ok()) {
        return url.status().WithContext("refuse a link in the report of \"" + report.page.url +
                                        "\"");
      }
      // A page the batch fetched is crawled; one refused twice is failed (and counted) once.
      const uint64_t fingerprint = UrlFingerprint(*url);
      if (!fetched.insert(fingerprint).second) continue;
      NamedRefusal& named = out->emplace_back(NamedRefusal{fingerprint, refusal});
      named.report.url = *std::move(url);
      named.report.lease = 0;
      named.report.retryable = false;
    }
  }
  return Status::Ok();
}

}  // namespace


std::vector<PassedShare> Scheduler::TakePassedShares() {
  Impl& s = *impl_;
  std::lock_guard lock(s.mu);
  std::vector<PassedShare> out;
  out.reserve(s.passed.size());
  for (const auto& [page, share] : s.passed) out.push_back({page, share});
  s.passed.clear();
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.page < b.page; });
  return out;
}

Status Scheduler::Write(const WriteBatch& batch, std::span<const QueuedExtra> extras,
                        std::span<const RefetchDate> dates,
                        std::span<const ReceivedShare> shares) {
  Impl& s = *impl_;
  std::unordered_map<uint64_t, float> received;
  for (const ReceivedShare& share : shares) {
    if (!std::isfinite(share.share) || share.share < 0) {
      return InvalidArgumentError("a share received by \"" + share.url + "\" is " +
                                  std::to_string(share.share) +
                                  "; a share is a finite number of at least 0");
    }
    received[UrlFingerprint(share.url)] += share.share;
  }
  std::vector<NamedExtra> named;
  CRAWLRANK_RETURN_IF_ERROR(NameExtras(extras, s.db.url_profile(), "queue an extra", &named));
  std::vector<NamedDate> named_dates;
  for (const RefetchDate& date : dates) {
    CRAWLRANK_RETURN_IF_ERROR(NameDate(date.url, date.at_ms, s.db.url_profile(), &named_dates));
  }
  return PageDbInternals::Write(s.db, batch, [&] {
    std::lock_guard lock(s.mu);
    for (const NamedExtra& n : named) s.StageExtra(n.url, n.fingerprint, *n.extra);
    for (const NamedDate& d : named_dates) s.StageDate(d.url, d.fingerprint, d.at_ms);
    s.staged.received_by_fingerprint = received;
  });
}

Status Scheduler::CrawledBatch(const std::vector<CrawlReport>& reports) {
  Impl& s = *impl_;
  // The extras' URLs, canonical, in report order.
  std::vector<NamedExtra> extras;
  for (const CrawlReport& report : reports) {
    CRAWLRANK_RETURN_IF_ERROR(NameExtras(
        report.extras, s.db.url_profile(),
        "queue an extra in the report of \"" + report.page.url + "\"", &extras));
  }
  std::vector<NamedDate> dates;
  for (const CrawlReport& report : reports) {
    CRAWLRANK_RETURN_IF_ERROR(
        NameDate(report.page.url, report.refetch_at_ms, s.db.url_profile(), &dates));
  }
  std::vector<const CrawledPage*> pages;
  pages.reserve(reports.size());
  for (const CrawlReport& report : reports) pages.push_back(&report.page);
  std::vector<NamedRefusal> refused;
  CRAWLRANK_RETURN_IF_ERROR(NameRefusals(reports, s.db.url_profile(), &refused));
  const PreparedBatch prepared = Prepare(pages, false, s.db.url_profile());
  return RunWrite(s.store, nullptr, [&](WriteTxn& write) -> Status {
    if (!extras.empty() || !dates.empty()) {
      std::lock_guard lock(s.mu);
      for (const NamedExtra& named : extras) {
        s.StageExtra(named.url, named.fingerprint, *named.extra);
      }
      for (const NamedDate& d : dates) s.StageDate(d.url, d.fingerprint, d.at_ms);
    }
    for (size_t i = 0; i < prepared.size(); ++i)
      CRAWLRANK_RETURN_IF_ERROR(write.Apply(prepared.at(i)));
    // The refused links, now that every page of the batch exists.
    for (const NamedRefusal& named : refused) {
      const FingerprintIndex::Entry* found = s.store.index.Find(named.fingerprint);
      if (found != nullptr) CRAWLRANK_RETURN_IF_ERROR(s.Fail(write, found->id, named.report));
    }
    return Status::Ok();
  });
}

Status Scheduler::Failed(const FailureReport& report) {
  Impl& s = *impl_;
  CRAWLRANK_ASSIGN_OR_RETURN(std::string url, CanonicalizeUrl(report.url, s.db.url_profile()));
  const uint64_t fingerprint = UrlFingerprint(url);
  return RunWrite(s.store, nullptr, [&](WriteTxn& write) -> Status {
    const FingerprintIndex::Entry* found = s.store.index.Find(fingerprint);
    if (found == nullptr) {
      return NotFoundError("report failure of \"" + url + "\": not in " + PageDbName(s.store.path));
    }
    return s.Fail(write, found->id, report);
  });
}

Status Scheduler::Impl::Fail(WriteTxn& write, uint32_t id, const FailureReport& report) {
  std::lock_guard lock(mu);
  const int64_t now = clock.NowMs();
  // A page this very write created (a link CrawledBatch refuses) is not in the state yet:
  // Committed places it, then applies its failure.
  const bool placed = id < state.pages();
  if (placed && (state.state(id) == kCrawled || state.state(id) == kFailed ||
                 state.state(id) == kRemoved)) {
    return Status::Ok();  // a late report about a page already settled
  }
  const FailureKind kind = report.kind != FailureKind::kOther
                               ? report.kind
                               : InferFailureKind(report.http_status, report.reason);
  CRAWLRANK_ASSIGN_OR_RETURN(const PageRecord record, write.Record(id));
  write.CountFailure(id, record.url, kind, report.http_status, now);
  if (state.IsRevisitLease(id)) {
    // A revisit that failed: the page keeps what its last crawl found, and is due again
    // after retry_ms, kept so (its lease entry becomes a date) for a restart.
    ScheduleEntry due;
    due.state = EntryState::kDue;
    due.time_ms = now + options.retry_ms;
    CRAWLRANK_RETURN_IF_ERROR(tables.PutEntry(write, id, due));
    staged.revisit_failed.push_back(id);
    return Status::Ok();
  }
  ScheduleEntry entry;
  entry.failures = state.FailuresOf(id) + 1;
  entry.priority = state.PriorityOf(id);  // kept while it may retry
  if (report.retryable && entry.failures <= options.max_retries) {
    entry.state = EntryState::kRetrying;
    const int shift = static_cast<int>(std::min<uint32_t>(entry.failures - 1, 30));
    entry.time_ms = now + options.retry_ms * (int64_t{1} << shift);
  } else {
    entry.state = EntryState::kFailed;
    entry.http_status = report.http_status;
    entry.reason = report.reason.empty() ? "failed" : report.reason;
    entry.kind = kind;
    entry.failed_ms = now;
    write.CountFailedPage(record.url, 1);
    // Failed for good: its payload will never be handed out.
    CRAWLRANK_RETURN_IF_ERROR(tables.ErasePayload(write, id));
  }
  staged.failures.push_back({id, entry});
  if (placed && (report.http_status == 429 || report.http_status == 503)) {
    const uint32_t number = state.host_of(id);
    const Host& h = state.hosts()[number];
    HostEntry held = state.hosts().EntryOf(h);
    held.holds_in_a_row = h.holds_in_a_row + 1;
    int64_t hold = options.hold_ms;
    if (report.retry_after_ms) {
      hold = std::clamp<int64_t>(*report.retry_after_ms, 0, options.max_hold_ms);
    } else {
      for (uint32_t i = 0; i < h.holds_in_a_row && hold < options.max_hold_ms; ++i) hold *= 2;
      hold = std::min(hold, options.max_hold_ms);
    }
    held.hold_until_ms = now + hold;
    staged.host_changes.emplace_back(number, std::move(held));
  }
  return Status::Ok();
}

// ---- hand-outs

Status Scheduler::Impl::LeaseOut(WriteTxn& write, uint32_t id, uint32_t number, float key,
                                 bool revisit, int64_t now, int64_t lease_ms,
                                 std::vector<Request>* out) {
  const Lease lease{staged.next_lease++, now + lease_ms};
  staged.picks.push_back(state.HandOut(id, number, key, revisit, lease, now));
  ScheduleEntry entry;
  entry.state = EntryState::kLeased;
  entry.failures = state.FailuresOf(id);
  entry.lease = lease.id;
  entry.time_ms = lease.expiry_ms;
  entry.priority = state.PriorityOf(id);  // a returned lease re-queues at its tier
  CRAWLRANK_RETURN_IF_ERROR(tables.PutEntry(write, id, entry));
  // The page's URL, depth and last crawl, from its record; its payload, if the call that
  // created it gave one.
  CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, write.Record(id));
  CRAWLRANK_ASSIGN_OR_RETURN(std::string payload, tables.Payload(write, id));
  // The referrer: the page that linked here first, by URL (one look-up in the index).
  std::string referrer;
  if (options.name_referrers && record.discovered_from != 0) {
    if (const FingerprintIndex::Entry* from = store.index.Find(record.discovered_from)) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord linking, write.Record(from->id));
      referrer = std::move(linking.url);
    }
  }
  out->push_back({std::move(record.url), record.fingerprint, record.depth, key, lease.id,
                  state.hosts()[number].key, revisit, std::move(payload), entry.priority,
                  record.last_crawl_ms, record.content_hash, std::move(referrer)});
  return Status::Ok();
}

Status Scheduler::Impl::Pick(WriteTxn& write, std::string_view only_host, size_t n,
                             int64_t lease_ms, std::vector<Request>* out) {
  out->clear();
  std::lock_guard lock(mu);
  const int64_t now = clock.NowMs();
  state.PromoteDue(now);
  staged.next_lease = state.next_lease();
  HostTable& hosts = state.hosts();
  if (!only_host.empty()) {
    const std::optional<uint32_t> number = hosts.Find(only_host);
    if (number.has_value()) {
      CRAWLRANK_RETURN_IF_ERROR(PickOfHost(write, *number, n, now, lease_ms, out));
    }
    state.Compact(now);
    return Status::Ok();
  }
  // New pages, best first, from the hosts ready now (`busy`: at the hard rate).
  const auto take = [&](bool busy) -> Status {
    while (out->size() < n && !AtMaxPages()) {
      const std::optional<uint32_t> number = hosts.PopReady(busy);
      if (!number.has_value()) break;
      const PageHeap::Entry& top = hosts[*number].queue.top();
      CRAWLRANK_RETURN_IF_ERROR(
          LeaseOut(write, top.id, *number, top.key, false, now, lease_ms, out));
    }
    return Status::Ok();
  };
  // Revisits due now, earliest first, from hosts ready now. Those whose host is not ready
  // are put back; at most 4 per request asked for are looked at.
  RevisitEstimator& revisits = state.revisits();
  const auto take_revisits = [&](size_t limit) -> Status {
    std::vector<Timed> deferred;
    for (size_t looked = 0; out->size() < limit && revisits.DueBy(now) && looked < 4 * n + 16;
         ++looked) {
      const Timed t = revisits.Pop();
      if (state.state(t.who) != kCrawled || !revisits.Current(t)) continue;  // stale
      const uint32_t number = state.host_of(t.who);
      if (!hosts.Ready(hosts[number], now)) {
        deferred.push_back(t);
        continue;
      }
      CRAWLRANK_RETURN_IF_ERROR(LeaseOut(write, t.who, number, 0, true, now, lease_ms, out));
    }
    for (const Timed& t : deferred) revisits.Push(t);
    return Status::Ok();
  };
  // Revisits due (the options', or dates): a share of the request first, then any room left.
  {
    const auto share =
        static_cast<size_t>(std::ceil(options.revisit_share * static_cast<double>(n)));
    CRAWLRANK_RETURN_IF_ERROR(take_revisits(std::min(n, share)));
  }
  CRAWLRANK_RETURN_IF_ERROR(take(false));
  CRAWLRANK_RETURN_IF_ERROR(take_revisits(n));
  if (out->size() < n && hosts.Busy()) {  // nothing is ready at the soft rate: the hard rate
    hosts.PromoteBusy(now);
    CRAWLRANK_RETURN_IF_ERROR(take(true));
  }
  state.Compact(now);
  return Status::Ok();
}

Status Scheduler::Impl::PickOfHost(WriteTxn& write, uint32_t number, size_t n, int64_t now,
                                   int64_t lease_ms, std::vector<Request>* out) {
  HostTable& hosts = state.hosts();
  while (out->size() < n && !AtMaxPages()) {
    const Host& h = hosts[number];
    if (h.queue.empty() || hosts.Exhausted(h) || !hosts.Ready(h, now)) break;
    // The host's entry in the ready heap goes stale with the hand-out (a new ticket).
    const PageHeap::Entry& top = h.queue.top();
    CRAWLRANK_RETURN_IF_ERROR(LeaseOut(write, top.id, number, top.key, false, now, lease_ms, out));
  }
  return Status::Ok();
}

Result<std::vector<Request>> Scheduler::Next(size_t n) {
  return Next(n, impl_->options.lease_ms);
}

Result<std::vector<Request>> Scheduler::Next(size_t n, int64_t lease_ms) {
  return impl_->HandOut({}, n, lease_ms);
}

Result<std::vector<Request>> Scheduler::NextOfHost(std::string_view host, size_t n,
                                                    int64_t lease_ms) {
  if (host.empty()) return InvalidArgumentError("next requests of a host: empty host key");
  return impl_->HandOut(host, n, lease_ms);
}

Result<std::vector<Request>> Scheduler::Impl::HandOut(std::string_view only_host, size_t n,
                                                      int64_t lease_ms) {
  if (lease_ms <= 0) {
    return InvalidArgumentError("next requests: lease of " + std::to_string(lease_ms) +
                                " ms; it must be above 0");
  }
  if (reranker.has_value() && !options.background_rerank) {
    bool due;
    {
      std::lock_guard lock(mu);
      due = reranker->Due(clock.NowMs());
    }
    if (due) CRAWLRANK_RETURN_IF_ERROR(reranker->RankAndRekey());
  }
  std::vector<Request> out;
  CRAWLRANK_RETURN_IF_ERROR(RunWrite(store, nullptr, [&](WriteTxn& write) {
    return Pick(write, only_host, n, lease_ms, &out);
  }));
  return out;
}

SchedulerStats Scheduler::GetStats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->Stats();
}

std::vector<float> Scheduler::Scores() const {
  std::lock_guard lock(impl_->mu);
  const ScorePolicy& policy = impl_->state.policy();
  std::vector<float> scores(impl_->state.pages());
  for (uint32_t id = 0; id < scores.size(); ++id) scores[id] = policy.key(id);
  return scores;
}

Status Scheduler::Rerank() {
  if (!impl_->reranker.has_value()) return Status::Ok();
  return impl_->reranker->RankAndRekey();
}

}  // namespace crawlrank
