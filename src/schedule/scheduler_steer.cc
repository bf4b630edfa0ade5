// The scheduler's steering calls (crawlrank/scheduler.h): host politeness and limits,
// re-queues of failed pages, and removals. Each is one transaction of the PageDB, staged
// and applied as scheduler.cc describes.
#include <optional>
#include <string>

#include "crawlrank/scheduler.h"
#include "page_db/creation_marks.h"
#include "schedule/failed_pages.h"
#include "schedule/scheduler_impl.h"

namespace crawlrank {

// ---- progress

Status Scheduler::RecordProgress() {
  Impl& s = *impl_;
  if (s.options.progress_interval_ms <= 0) return Status::Ok();
  {
    std::lock_guard lock(s.mu);
    s.force_progress = true;
  }
  // An empty transaction: the hook (BeforeCommit) takes the sample, on every retry.
  Status written = RunWrite(s.store, nullptr, [](WriteTxn&) { return Status::Ok(); });
  std::lock_guard lock(s.mu);
  s.force_progress = false;
  return written;
}

// ---- failed pages

Result<uint64_t> Scheduler::Requeue(const FailureFilter& filter) {
  Impl& s = *impl_;
  CRAWLRANK_ASSIGN_OR_RETURN(const FailureMatcher matcher,
                             FailureMatcher::Make(filter, s.db.url_profile()));
  {
    std::lock_guard lock(s.mu);
    if (s.state.failed() == 0) return uint64_t{0};  // the usual case: no write at all
  }
  uint64_t requeued = 0;
  CRAWLRANK_RETURN_IF_ERROR(RunWrite(s.store, nullptr, [&](WriteTxn& write) -> Status {
    // Named URLs are found through the index; otherwise every page is a candidate.
    std::vector<uint32_t> named;
    for (const std::string& url : matcher.urls()) {
      const FingerprintIndex::Entry* found = s.store.index.Find(UrlFingerprint(url));
      if (found != nullptr) named.push_back(found->id);
    }
    std::lock_guard lock(s.mu);
    s.staged.requeued.clear();
    const uint32_t end = matcher.urls().empty() ? static_cast<uint32_t>(s.state.pages()) : 0;
    const auto consider = [&](uint32_t id) -> Status {
      if (id >= s.state.pages() || s.state.state(id) != kFailed) return Status::Ok();
      CRAWLRANK_ASSIGN_OR_RETURN(std::optional<ScheduleEntry> entry, s.tables.Entry(write, id));
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, write.Record(id));
      if (!entry.has_value() || !matcher.Matches(record.url, entry->kind)) return Status::Ok();
      CRAWLRANK_RETURN_IF_ERROR(s.tables.EraseEntry(write, id));  // queued, as if new
      write.CountFailedPage(record.url, -1);
      s.staged.requeued.push_back(id);
      return Status::Ok();
    };
    for (uint32_t id : named) CRAWLRANK_RETURN_IF_ERROR(consider(id));
    for (uint32_t id = 0; id < end; ++id) CRAWLRANK_RETURN_IF_ERROR(consider(id));
    requeued = s.staged.requeued.size();
    return Status::Ok();
  }));
  return requeued;
}

Result<uint64_t> Scheduler::FailQueued(std::string_view host, std::string_view origin,
                                       const FailureReport& report) {
  Impl& s = *impl_;
  FailureReport final = report;
  final.retryable = false;
  uint64_t failed = 0;
  CRAWLRANK_RETURN_IF_ERROR(RunWrite(s.store, nullptr, [&](WriteTxn& write) -> Status {
    std::vector<uint32_t> queued;
    {
      std::lock_guard lock(s.mu);
      if (const std::optional<uint32_t> number = s.state.hosts().Find(host)) {
        queued = s.state.QueuedAt(*number);
      }
    }
    failed = 0;
    for (uint32_t id : queued) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, write.Record(id));
      const std::string_view url = record.url;
      if (!url.starts_with(origin) ||
          (url.size() > origin.size() && std::string_view("/?#").find(url[origin.size()]) ==
                                             std::string_view::npos)) {
        continue;  // another origin of the host (another port or scheme)
      }
      final.url = record.url;
      CRAWLRANK_RETURN_IF_ERROR(s.Fail(write, id, final));
      ++failed;
    }
    return Status::Ok();
  }));
  return failed;
}

// ---- hosts

Status Scheduler::Impl::ChangeHost(std::string_view key,
                                   const std::function<void(HostEntry&)>& change) {
  if (key.empty()) return InvalidArgumentError("change a host: empty host key");
  return RunWrite(store, nullptr, [&](WriteTxn&) -> Status {
    std::lock_guard lock(mu);
    const uint32_t number = state.hosts().Number(std::string(key));
    HostEntry entry = state.hosts().EntryOf(state.hosts()[number]);
    change(entry);
    staged.host_changes.emplace_back(number, std::move(entry));
    return Status::Ok();
  });
}

Status Scheduler::SetCrawlDelay(std::string_view host, int64_t delay_ms) {
  if (delay_ms < 0) {
    return InvalidArgumentError("crawl delay of \"" + std::string(host) + "\": negative");
  }
  return impl_->ChangeHost(host, [&](HostEntry& entry) { entry.crawl_delay_ms = delay_ms; });
}

Status Scheduler::HoldHost(std::string_view host, int64_t until_ms) {
  if (until_ms < 0) {
    return InvalidArgumentError("hold of \"" + std::string(host) + "\": negative time");
  }
  return impl_->ChangeHost(host, [&](HostEntry& entry) {
    entry.hold_until_ms = until_ms;
    if (until_ms == 0) entry.holds_in_a_row = 0;
  });
}

uint64_t Scheduler::QueuedOfHost(std::string_view host) const {
  std::lock_guard lock(impl_->mu);
  const HostTable& hosts = impl_->state.hosts();
  const std::optional<uint32_t> number = hosts.Find(host);
  return number.has_value() ? hosts[*number].queue.size() : 0;
}

Status Scheduler::SetDefaultDelay(int64_t delay_ms) {
  if (delay_ms < 0) {
    return InvalidArgumentError("default delay: negative (" + std::to_string(delay_ms) + " ms)");
  }
  std::lock_guard lock(impl_->mu);
  impl_->state.hosts().SetMinDelay(delay_ms, impl_->clock.NowMs());
  return Status::Ok();
}

Status Scheduler::SetHostGroup(std::string_view host, std::string_view group) {
  return impl_->ChangeHost(host, [&](HostEntry& entry) { entry.group.assign(group); });
}

std::string Scheduler::HostRobots(std::string_view host) const {
  std::lock_guard lock(impl_->mu);
  const std::optional<uint32_t> number = impl_->state.hosts().Find(host);
  return number.has_value() ? impl_->state.hosts()[*number].robots : std::string();
}

Status Scheduler::SetHostRobots(std::string_view host, std::string_view bytes) {
  return impl_->ChangeHost(host, [&](HostEntry& entry) { entry.robots.assign(bytes); });
}

Status Scheduler::SetHostLimit(std::string_view host, uint64_t max_pages) {
  return impl_->ChangeHost(host, [&](HostEntry& entry) { entry.page_limit = max_pages; });
}

// ---- removals

Result<RemoveCounts> Scheduler::Remove(const RemoveFilter& filter) {
  Impl& s = *impl_;
  if (filter.created_before_ms < 0) {
    return InvalidArgumentError("remove pages created before " +
                                std::to_string(filter.created_before_ms) + " ms: negative");
  }
  RemoveCounts counts;
  CRAWLRANK_RETURN_IF_ERROR(RunWrite(s.store, nullptr, [&](WriteTxn& write) -> Status {
    counts = {};
    std::vector<CreationMark> marks;
    if (filter.created_before_ms != 0) {
      CRAWLRANK_ASSIGN_OR_RETURN(marks, ReadCreationMarks(s.store, write.txn()));
    }
    std::lock_guard lock(s.mu);
    s.staged.removed.clear();
    std::optional<uint32_t> number;
    if (!filter.host.empty()) {
      number = s.state.hosts().Find(filter.host);
      if (!number.has_value()) return Status::Ok();  // a host without pages
    }
    const int64_t now = s.clock.NowMs();
    for (uint32_t id = 0; id < s.state.pages(); ++id) {
      const uint32_t at = s.state.state(id);
      if (at == kRemoved || at == kUnknown || (number && s.state.host_of(id) != *number)) continue;
      if (filter.created_before_ms != 0 && CreatedMs(marks, id) >= filter.created_before_ms) {
        continue;
      }
      ScheduleEntry entry;
      entry.state = EntryState::kRemoved;
      entry.failures = s.state.FailuresOf(id);
      entry.time_ms = now;
      CRAWLRANK_RETURN_IF_ERROR(s.tables.PutEntry(write, id, entry));
      CRAWLRANK_RETURN_IF_ERROR(s.tables.ErasePayload(write, id));
      if (at == kFailed) {
        CRAWLRANK_ASSIGN_OR_RETURN(const PageRecord record, write.Record(id));
        write.CountFailedPage(record.url, -1);
      }
      s.staged.removed.push_back(id);
      // Still to be done: queued, retrying, or handed out other than for a revisit.
      if (at < kFirstState || at == kRetrying || (at == kLeased && !s.state.IsRevisitLease(id))) {
        ++counts.active;
      }
    }
    counts.removed = s.staged.removed.size();
    return Status::Ok();
  }));
  return counts;
}

}  // namespace crawlrank
