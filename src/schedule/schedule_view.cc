// Scheduler::Inspect: the schedule as a reader sees it, loaded from a snapshot without the
// writer (page_db_schedule, beside a running crawl). It loads the same state machine as
// the writer, keeping the leases it finds in flight, and never writes.
#include <algorithm>
#include <unordered_map>

#include "crawlrank/scheduler.h"
#include "page_db/schedule_table.h"
#include "schedule/schedule_state.h"

namespace crawlrank {

namespace {

// The best `next` queued pages of `state`, best first.
std::vector<PageHeap::Entry> BestQueued(const ScheduleState& state, size_t next) {
  std::vector<PageHeap::Entry> queued;
  for (uint32_t id = 0; id < state.pages(); ++id) {
    if (state.state(id) < kFirstState) {
      queued.push_back({state.policy().key(id), id, state.PriorityOf(id)});
    }
  }
  const size_t shown = std::min(next, queued.size());
  std::partial_sort(queued.begin(), queued.begin() + static_cast<std::ptrdiff_t>(shown),
                    queued.end(), PageHeap::Before);
  queued.resize(shown);
  return queued;
}

// Hosts with pages queued or in flight, a hold or a crawl delay; most queued first.
std::vector<ScheduleView::HostState> BusiestHosts(const HostTable& hosts, int64_t now,
                                                  size_t max_hosts) {
  std::vector<ScheduleView::HostState> shown;
  for (const Host& h : hosts.all()) {
    if (h.queue.empty() && h.in_flight == 0 && h.hold_until_ms <= now && h.crawl_delay_ms == 0) {
      continue;
    }
    shown.push_back({h.key, std::max(now, h.hold_until_ms), h.hold_until_ms, h.in_flight,
                     h.queue.size(), h.done, hosts.DelayOf(h)});
  }
  std::sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) {
    return a.queued != b.queued ? a.queued > b.queued : a.key < b.key;
  });
  if (shown.size() > max_hosts) shown.resize(max_hosts);
  return shown;
}

}  // namespace

Result<ScheduleView> Scheduler::Inspect(const PageDb& db, const SchedulerOptions& options,
                                        size_t next, size_t max_hosts) {
  CRAWLRANK_RETURN_IF_ERROR(ValidateSchedulerOptions(options));
  CRAWLRANK_ASSIGN_OR_RETURN(UrlFilter filter, UrlFilter::Compile(options));
  CRAWLRANK_ASSIGN_OR_RETURN(RevisitEstimator revisits, RevisitEstimator::Make(options));
  ScheduleState state(options, std::move(filter), std::move(revisits));
  SystemClock system_clock;
  const Clock& clock = options.clock != nullptr ? *options.clock : system_clock;
  const int64_t now = clock.NowMs();
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  CRAWLRANK_RETURN_IF_ERROR(state.Load(db, snapshot, now, nullptr).status());

  ScheduleView view;
  view.now_ms = now;
  const auto url_of = [&](uint32_t id) -> Result<std::string> {
    CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, snapshot.FindId(id));
    return record.url;
  };
  const HostTable& hosts = state.hosts();
  for (const PageHeap::Entry& entry : BestQueued(state, next)) {
    CRAWLRANK_ASSIGN_OR_RETURN(std::string url, url_of(entry.id));
    view.next.push_back(
        {std::move(url), entry.key, hosts[state.host_of(entry.id)].key, entry.priority});
  }
  for (const auto& [id, lease] : state.leases()) {
    CRAWLRANK_ASSIGN_OR_RETURN(std::string url, url_of(id));
    view.in_flight.push_back(
        {std::move(url), lease.id, lease.expiry_ms, hosts[state.host_of(id)].key});
  }
  std::sort(view.in_flight.begin(), view.in_flight.end(),
            [](const auto& a, const auto& b) { return a.lease < b.lease; });
  view.hosts = BusiestHosts(hosts, now, max_hosts);
  view.stats = state.Stats(now);
  return view;
}

namespace {

// The ids of the pages whose schedule entry is in `state`, in id order.
Result<std::vector<uint32_t>> PagesInState(const PageDb& db, const Snapshot& snapshot,
                                           EntryState state) {
  std::vector<uint32_t> ids;
  const ScheduleTables tables(db);
  if (!tables.Present()) return ids;
  CRAWLRANK_RETURN_IF_ERROR(
      tables.ForEachEntry(snapshot, [&](uint32_t id, ScheduleEntry& entry) -> Status {
        if (entry.state == state) ids.push_back(id);
        return Status::Ok();
      }));
  return ids;
}

}  // namespace

Result<std::vector<uint32_t>> Scheduler::RemovedPages(const PageDb& db,
                                                       const Snapshot& snapshot) {
  return PagesInState(db, snapshot, EntryState::kRemoved);
}

Result<std::vector<uint32_t>> Scheduler::GhostPages(const PageDb& db, const Snapshot& snapshot) {
  return PagesInState(db, snapshot, EntryState::kElsewhere);
}

Result<std::vector<PageState>> Scheduler::StatesOf(const PageDb& db, const Snapshot& snapshot,
                                                   std::span<const PageRecord> pages) {
  // The state each page's record implies, unless the schedule table says otherwise.
  std::vector<PageState> out;
  std::unordered_map<uint32_t, size_t> index;
  for (const PageRecord& page : pages) {
    index.emplace(page.id, out.size());
    out.push_back({page.crawled() ? PageState::Kind::kCrawled : PageState::Kind::kQueued});
  }
  const ScheduleTables tables(db);
  if (!tables.Present() || pages.empty()) return out;
  CRAWLRANK_RETURN_IF_ERROR(
      tables.ForEachEntry(snapshot, [&](uint32_t id, ScheduleEntry& entry) -> Status {
        const auto it = index.find(id);
        if (it == index.end()) return Status::Ok();
        PageState& state = out[it->second];
        switch (entry.state) {
          case EntryState::kQueued: state = {PageState::Kind::kQueued, 0, entry.priority}; break;
          case EntryState::kLeased:
            state = {PageState::Kind::kLeased, entry.time_ms, entry.priority};
            break;
          case EntryState::kRetrying:
            state = {PageState::Kind::kRetrying, entry.time_ms, entry.priority};
            break;
          case EntryState::kFailed: state = {PageState::Kind::kFailed, 0, 0}; break;
          case EntryState::kRemoved: state = {PageState::Kind::kRemoved, 0, 0}; break;
          case EntryState::kDue: state = {PageState::Kind::kCrawled, entry.time_ms, 0}; break;
          case EntryState::kElsewhere: state = {PageState::Kind::kElsewhere, 0, 0}; break;
        }
        return Status::Ok();
      }));
  return out;
}

}  // namespace crawlrank
