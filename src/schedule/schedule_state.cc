#include "schedule/schedule_state.h"

#include <algorithm>

namespace crawlrank {

Status ValidateSchedulerOptions(const SchedulerOptions& options) {
  if (options.per_host == 0 || options.delay_ms < 0 || options.lease_ms <= 0 ||
      options.retry_ms < 0 || options.hold_ms < 0 || options.max_hold_ms < options.hold_ms ||
      options.progress_interval_ms < 0 || !(options.rerank_growth >= 0) || !(options.rerank_graph_growth >= 0)) {
    return InvalidArgumentError(
        "scheduler options: per_host must be at least 1, lease_ms above 0, "
        "delay_ms, retry_ms, hold_ms, progress_interval_ms, rerank_growth and "
        "rerank_graph_growth not negative, "
        "max_hold_ms at least hold_ms");
  }
  return Status::Ok();
}

ScheduleState::ScheduleState(const SchedulerOptions& options, UrlFilter filter,
                             RevisitEstimator revisits)
    : max_depth_(options.max_depth),
      max_pages_(options.max_pages),
      filter_(std::move(filter)),
      hosts_(options),
      policy_(options.score, options.rank.damping),
      revisits_(std::move(revisits)) {}

void ScheduleState::Grow(uint32_t pages) {
  if (slot_.size() >= pages) return;
  slot_.resize(pages, kUnknown);
  host_of_.resize(pages, kNoHost);
  policy_.Grow(pages);
  revisits_.Grow(pages);
}

int32_t ScheduleState::PriorityOf(uint32_t id) const {
  if (priorities_.empty()) return 0;  // no caller gave any: no look-up
  const auto it = priorities_.find(id);
  return it == priorities_.end() ? 0 : it->second;
}

uint32_t ScheduleState::FailuresOf(uint32_t id) const {
  const auto it = failures_.find(id);
  return it == failures_.end() ? 0 : it->second;
}

// ---- joining the schedule

void ScheduleState::Place(const NewPage& page, int64_t now) {
  if (page.elsewhere) {  // no host here, no scope, no seed: its owner schedules it
    slot_[page.id] = kElsewhere;
    ghost_ids_.push_back(page.id);
    return;
  }
  if (page.verdict != UrlFilter::Verdict::kOutOfScope) {
    if (page.host >= host_in_scope_.size()) host_in_scope_.resize(page.host + 1);
    if (!host_in_scope_[page.host]) {
      host_in_scope_[page.host] = true;
      ++hosts_in_scope_;
    }
  }
  if (page.crawled) {
    if (page.depth == 0) policy_.AddSeed(page.id);  // a page fetched before any link to it
    host_of_[page.id] = page.host;
    slot_[page.id] = kCrawled;
    ++crawled_;
    ++hosts_[page.host].done;
    if (page.verdict == UrlFilter::Verdict::kAllowed) {
      revisits_.Schedule(page.id, revisits_.NextRevisit(page.id, page.history, true));
    } else {
      unrevisited_.insert(page.id);
    }
    return;
  }
  if (page.priority != 0) priorities_[page.id] = page.priority;
  Enqueue(page.id, page.host, page.depth, page.fingerprint, page.link_score, page.verdict, now);
}

void ScheduleState::Enqueue(uint32_t id, uint32_t host, uint32_t depth, uint64_t fingerprint,
                            float link_score, UrlFilter::Verdict verdict, int64_t now) {
  host_of_[id] = host;
  // A seed filtered out still counts among the blend's seeds, as the replay on open counts
  // every page at depth 0.
  if (depth == 0) policy_.AddSeed(id);
  if (verdict == UrlFilter::Verdict::kOutOfScope) {
    slot_[id] = kOutOfScope;
    ++out_of_scope_;
    return;
  }
  if (verdict != UrlFilter::Verdict::kAllowed || (max_depth_ != 0 && depth > max_depth_)) {
    slot_[id] = kFiltered;
    ++filtered_;
    return;
  }
  policy_.set_key(id, policy_.KeyOf(id, depth, fingerprint, link_score));
  Requeue(id, now);
}

void ScheduleState::Requeue(uint32_t id, int64_t now) {
  Host& h = hosts_[host_of_[id]];
  h.queue.Push(id, policy_.key(id), PriorityOf(id), slot_);
  ++queued_;
  if (slot_[id] == 0) hosts_.Reschedule(host_of_[id], now);
}

void ScheduleState::SetPriority(uint32_t id, int32_t priority, int64_t now) {
  if (priority == 0) {
    priorities_.erase(id);
  } else {
    priorities_[id] = priority;
  }
  const uint32_t pos = slot_[id];
  if (pos >= kFirstState) return;
  hosts_[host_of_[id]].queue.SetPriority(pos, priority, slot_);
  hosts_.Reschedule(host_of_[id], now);
}

// ---- keys

void ScheduleState::Rekey(uint32_t id, int64_t now) {
  const uint32_t pos = slot_[id];
  if (pos >= kFirstState) return;
  Host& h = hosts_[host_of_[id]];
  h.queue.Update(pos, policy_.key(id), slot_);
  if (pos == 0 || slot_[id] == 0) hosts_.Reschedule(host_of_[id], now);
}

void ScheduleState::ApplyRanks(std::span<const double> scores, size_t first, size_t end,
                               int64_t now) {
  ++apply_calls_;
  std::vector<uint32_t> touched;  // each host once
  for (size_t id = first; id < end && id < slot_.size(); ++id) {
    policy_.set_key(static_cast<uint32_t>(id), policy_.RankKey(static_cast<uint32_t>(id), scores[id]));
    const uint32_t pos = slot_[id];
    if (pos >= kFirstState) continue;
    const uint32_t host = host_of_[id];
    hosts_[host].queue.Update(pos, policy_.key(static_cast<uint32_t>(id)), slot_);
    if (host >= host_touched_in_.size()) host_touched_in_.resize(host + 1, 0);
    if (host_touched_in_[host] != apply_calls_) {
      host_touched_in_[host] = apply_calls_;
      touched.push_back(host);
    }
  }
  std::sort(touched.begin(), touched.end());  // the hosts in the order they always went
  // Only a ready host's entry carries its best score; a waiting host's entry (by time)
  // stays valid as it is.
  for (uint32_t h : touched) {
    if (std::max(hosts_[h].ready_at_ms, hosts_[h].hold_until_ms) <= now) hosts_.Reschedule(h, now);
  }
  Compact(now);
  policy_.MarkRanked(end);  // pushes stop at ranked pages
}

// ---- leases

ScheduleState::Pick ScheduleState::HandOut(uint32_t id, uint32_t number, float key, bool revisit,
                                           Lease lease, int64_t now) {
  Host& h = hosts_[number];
  const Pick pick{id, number, key, revisit, hosts_.Mark(number)};
  if (revisit) {
    slot_[id] = kLeased;
    revisit_leases_.insert(id);
  } else {
    h.queue.RemoveAt(slot_[id], kLeased, slot_);
    --queued_;
  }
  leases_[id] = lease;
  lease_expiry_.push({lease.expiry_ms, id, lease.id});
  hosts_.StartFlight(number, now);
  hosts_.Reschedule(number, now);
  return pick;
}

void ScheduleState::Undo(const Pick& pick, int64_t now) {
  leases_.erase(pick.id);
  hosts_.Undo(pick.host, pick.flight, now);
  if (pick.revisit) {
    revisit_leases_.erase(pick.id);
    slot_[pick.id] = kCrawled;
    revisits_.Refile(pick.id);
  } else {
    slot_[pick.id] = kUnknown;
    hosts_[pick.host].queue.Push(pick.id, pick.key, PriorityOf(pick.id), slot_);
    ++queued_;
  }
  hosts_.Reschedule(pick.host, now);
}

void ScheduleState::TakeLease(uint32_t id, Lease lease, int64_t now) {
  const uint32_t pos = slot_[id];
  if (pos < kFirstState) {
    hosts_[host_of_[id]].queue.RemoveAt(pos, kLeased, slot_);
    --queued_;
  } else if (pos == kCrawled) {
    slot_[id] = kLeased;
    revisit_leases_.insert(id);
  } else {
    return;
  }
  leases_[id] = lease;
  lease_expiry_.push({lease.expiry_ms, id, lease.id});
  hosts_.CountFlight(host_of_[id]);
  next_lease_ = std::max(next_lease_, lease.id + 1);
  hosts_.Reschedule(host_of_[id], now);
}

// ---- reports

void ScheduleState::MarkCrawled(uint32_t id, int64_t now) {
  const uint32_t state = slot_[id];
  // A recrawl not handed out by Next, or a late report of a page removed since (or of a
  // ghost: its record takes the fetch, its owner's schedule the rest).
  if (state == kCrawled || state == kRemoved || state == kElsewhere) return;
  const uint32_t host = host_of_[id];
  if (state == kLeased && revisit_leases_.erase(id) != 0) {  // a revisit came back
    leases_.erase(id);
    hosts_.EndFlight(host, now);
    hosts_[host].holds_in_a_row = 0;
    slot_[id] = kCrawled;
    hosts_.Reschedule(host, now);
    return;
  }
  if (state < kFirstState) {
    Host& h = hosts_[host];
    const bool top = state == 0;
    h.queue.RemoveAt(state, kCrawled, slot_);
    --queued_;
    if (top) hosts_.Reschedule(host, now);
  } else if (state == kLeased) {
    leases_.erase(id);
    hosts_.EndFlight(host, now);
    hosts_[host].holds_in_a_row = 0;
  } else if (state == kRetrying) {
    --retrying_;
  } else if (state == kFailed) {
    --failed_;
    --hosts_[host].done;
  } else if (state == kFiltered) {
    --filtered_;
  } else if (state == kOutOfScope) {
    --out_of_scope_;
  }
  failures_.erase(id);
  if (!priorities_.empty()) priorities_.erase(id);
  policy_.Fetched(id);
  slot_[id] = kCrawled;
  ++crawled_;
  if (host != kNoHost) {
    ++hosts_[host].done;
    hosts_.Reschedule(host, now);
  }
}

std::vector<uint32_t> ScheduleState::QueuedAt(uint32_t number) const {
  std::vector<uint32_t> ids;
  for (const PageHeap::Entry& e : hosts_[number].queue.entries()) ids.push_back(e.id);
  return ids;
}

void ScheduleState::Unfail(uint32_t id, int64_t now) {
  if (slot_[id] != kFailed) return;
  --failed_;
  --hosts_[host_of_[id]].done;
  slot_[id] = kUnknown;
  Requeue(id, now);
}

void ScheduleState::ApplyFailure(uint32_t id, const ScheduleEntry& entry, int64_t now) {
  const uint32_t state = slot_[id];
  const uint32_t host = host_of_[id];
  if (state == kLeased) {
    leases_.erase(id);
    hosts_.EndFlight(host, now);
  } else if (state < kFirstState) {
    hosts_[host].queue.RemoveAt(state, kUnknown, slot_);
    --queued_;
  } else if (state == kRetrying) {
    --retrying_;
  } else if (state == kFailed || state == kCrawled || state == kRemoved || state == kElsewhere) {
    return;  // a late report about a page already settled (or scheduled elsewhere)
  } else if (state == kFiltered || state == kOutOfScope) {
    // Never handed out again: a retry would fetch it. Failed for good, it is listed so.
    if (entry.state != EntryState::kFailed) return;
    --(state == kFiltered ? filtered_ : out_of_scope_);
  }
  if (entry.state == EntryState::kFailed) {
    slot_[id] = kFailed;
    failures_.erase(id);
    if (!priorities_.empty()) priorities_.erase(id);
    ++failed_;
    ++hosts_[host].done;
  } else {
    slot_[id] = kRetrying;
    failures_[id] = entry.failures;
    ++retrying_;
    retry_due_.push({entry.time_ms, id, 0});
  }
  hosts_.Reschedule(host, now);
}

bool ScheduleState::Remove(uint32_t id, int64_t now) {
  const uint32_t state = slot_[id];
  const uint32_t host = host_of_[id];
  if (state == kRemoved || state == kUnknown || state == kElsewhere) return false;
  revisits_.Cancel(id);  // never due again: it keeps no crawl open
  bool active = true;
  if (state < kFirstState) {
    hosts_[host].queue.RemoveAt(state, kRemoved, slot_);
    --queued_;
  } else if (state == kLeased) {
    leases_.erase(id);  // its entry in lease_expiry_ goes stale
    hosts_.EndFlight(host, now);
    if (revisit_leases_.erase(id) != 0) {  // a crawled page out for a revisit
      active = false;
      --crawled_;
      --hosts_[host].done;
    }
  } else if (state == kRetrying) {
    --retrying_;  // its entry in retry_due_ goes stale
  } else {
    active = false;
    if (state == kCrawled || state == kFailed) {
      --(state == kCrawled ? crawled_ : failed_);
      --hosts_[host].done;
    } else {
      --(state == kFiltered ? filtered_ : out_of_scope_);
    }
  }
  failures_.erase(id);
  if (!priorities_.empty()) priorities_.erase(id);
  slot_[id] = kRemoved;
  ++removed_;
  if (host != kNoHost) hosts_.Reschedule(host, now);
  return active;
}

void ScheduleState::RevisitFailed(uint32_t id, int64_t due_ms, int64_t now) {
  if (slot_[id] != kLeased || revisit_leases_.erase(id) == 0) return;
  leases_.erase(id);
  hosts_.EndFlight(host_of_[id], now);
  slot_[id] = kCrawled;
  revisits_.Schedule(id, due_ms, true);
  hosts_.Reschedule(host_of_[id], now);
}

// ---- time

void ScheduleState::PromoteDue(int64_t now) {
  while (!lease_expiry_.empty() && lease_expiry_.top().time <= now) {
    const Timed t = lease_expiry_.top();
    lease_expiry_.pop();
    auto it = leases_.find(t.who);
    if (it == leases_.end() || it->second.id != t.ticket) continue;
    leases_.erase(it);
    hosts_.EndFlight(host_of_[t.who], now);
    if (revisit_leases_.erase(t.who) != 0) {
      slot_[t.who] = kCrawled;
      revisits_.Schedule(t.who, now, true);
    } else {
      slot_[t.who] = kUnknown;
      Requeue(t.who, now);
    }
    hosts_.Reschedule(host_of_[t.who], now);
  }
  while (!retry_due_.empty() && retry_due_.top().time <= now) {
    const Timed t = retry_due_.top();
    retry_due_.pop();
    if (slot_[t.who] != kRetrying) continue;
    --retrying_;
    slot_[t.who] = kUnknown;
    Requeue(t.who, now);
  }
  hosts_.PromoteWaiting(now);
}

// The host and lease queues drop stale entries lazily; when they hold four times more than
// can be valid, they are rebuilt from what is (O(hosts + leases)), so that a long crawl or
// a re-key of millions of pages keeps them small.
void ScheduleState::Compact(int64_t now) {
  const size_t bound = 4 * (hosts_.size() + leases_.size()) + 4096;
  hosts_.Compact(bound, now);
  if (lease_expiry_.size() > bound) {
    std::vector<Timed> live;
    live.reserve(leases_.size());
    for (const auto& [id, lease] : leases_) live.push_back({lease.expiry_ms, id, lease.id});
    lease_expiry_ = TimeQueue(std::greater<Timed>(), std::move(live));
  }
}

SchedulerStats ScheduleState::Stats(int64_t now) const {
  SchedulerStats stats;
  stats.queued = queued_;
  stats.in_flight = leases_.size();
  stats.retrying = retrying_;
  stats.crawled = crawled_;
  stats.failed = failed_;
  stats.filtered = filtered_;
  stats.out_of_scope = out_of_scope_;
  stats.removed = removed_;
  stats.ghosts = ghost_ids_.size();
  stats.hosts = hosts_in_scope_;
  stats.ranked_pages = policy_.ranked_pages();
  int64_t next = hosts_.NextReady(now, &stats.ready);
  const auto consider = [&](int64_t t) { next = next < 0 ? t : std::min(next, t); };
  // The time queues may hold stale entries (settled early): their top is a lower bound.
  if (retrying_ > 0) consider(std::max(now, retry_due_.top().time));
  if (!leases_.empty()) consider(std::max(now, lease_expiry_.top().time));
  if (const int64_t revisit = revisits_.Earliest(); revisit >= 0) {
    stats.next_revisit_ms = revisit;
    consider(std::max(now, revisit));
  }
  const bool limit = max_pages_ != 0 && Done() >= max_pages_;
  stats.limit_reached = limit;
  stats.finished = limit || (stats.in_flight == 0 && stats.retrying == 0 && next < 0);
  stats.next_ready_ms = stats.finished ? -1 : next;
  return stats;
}

// ---- loading

Result<std::optional<int64_t>> ScheduleState::Load(const PageDb& db, const Snapshot& snapshot,
                                                   int64_t now, Returned* returned) {
  Grow(static_cast<uint32_t>(snapshot.counters().pages));
  CRAWLRANK_ASSIGN_OR_RETURN(std::optional<int64_t> ranked_at, policy_.InitialKeys(db, snapshot));
  const ScheduleTables tables(db);
  // The ghosts first (a node of a cluster), so that their hosts never join this one's:
  // a pass over the schedule's entries, only when the counters say there are any.
  std::vector<bool> ghost;
  CRAWLRANK_ASSIGN_OR_RETURN(const CrawlCounters totals, snapshot.CrawlTotals());
  if (tables.Present() && totals.ghost_pages > 0) {
    CRAWLRANK_RETURN_IF_ERROR(
        tables.ForEachEntry(snapshot, [&](uint32_t id, ScheduleEntry& entry) -> Status {
          if (entry.state != EntryState::kElsewhere) return Status::Ok();
          if (id >= ghost.size()) ghost.resize(std::max<size_t>(id + 1, slot_.size()));
          ghost[id] = true;
          return Status::Ok();
        }));
  }
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    const bool elsewhere = page.id < ghost.size() && ghost[page.id] && !page.crawled();
    Place({page.id, elsewhere ? kNoHost : hosts_.NumberOfUrl(page.url), page.depth,
           page.fingerprint, page.link_score, filter_.Judge(page.url), page.crawled(),
           revisits_.HistoryOf(page), 0, elsewhere},
          now);
    return Status::Ok();
  }));
  if (!tables.Present()) return ranked_at;  // format version 2, read-only
  // The scheduler's own tables, read in the snapshot's transaction: host state, then the
  // pages whose state their records do not imply.
  CRAWLRANK_RETURN_IF_ERROR(LoadHosts(tables, snapshot, now));
  CRAWLRANK_RETURN_IF_ERROR(
      tables.ForEachEntry(snapshot, [&](uint32_t id, ScheduleEntry& entry) -> Status {
        const bool crawled = id < slot_.size() && slot_[id] == kCrawled;
        if (id >= slot_.size() ||
            (crawled && entry.state != EntryState::kLeased &&
             entry.state != EntryState::kRemoved && entry.state != EntryState::kDue) ||
            (!crawled && entry.state == EntryState::kDue)) {
          return DataLossError("PageDB \"" + db.path() + "\": schedule entry of page " +
                               std::to_string(id) + ", which is " +
                               (id >= slot_.size() ? "not in the DB"
                                : crawled          ? "crawled"
                                                   : "not crawled, due again"));
        }
        return LoadEntry(id, entry, now, returned);
      }));
  return ranked_at;
}

Status ScheduleState::LoadHosts(const ScheduleTables& tables, const Snapshot& snapshot,
                                int64_t now) {
  return tables.ForEachHost(snapshot, [&](std::string_view key, HostEntry& entry) {
    hosts_.Apply(hosts_.Number(std::string(key)), entry, now);
    return Status::Ok();
  });
}

Status ScheduleState::LoadEntry(uint32_t id, ScheduleEntry& entry, int64_t now,
                                Returned* returned) {
  if (entry.state == EntryState::kElsewhere) return Status::Ok();  // placed as a ghost
  if (entry.state == EntryState::kRemoved) {
    Remove(id, now);
    return Status::Ok();
  }
  if (entry.state == EntryState::kDue) {  // a crawled page due again at a set time
    // As for a revisit by the estimate: only while the filter allows the page.
    if (!unrevisited_.contains(id)) revisits_.Schedule(id, entry.time_ms, true);
    return Status::Ok();
  }
  if (slot_[id] == kCrawled) {  // a revisit in flight
    if (returned != nullptr) {
      // The writer that leased it is gone: due now, and so filed (its date was now or
      // before when it went out).
      returned->revisits.push_back(id);
      if (!unrevisited_.contains(id)) revisits_.Schedule(id, now, true);
    } else {
      TakeLease(id, {entry.lease, entry.time_ms}, now);
    }
    return Status::Ok();
  }
  if (entry.failures > 0) failures_[id] = entry.failures;
  // The tier of a page not failed for good (queued, leased or retrying), whatever happens
  // to it below: a lease or a retry that returns re-queues it there.
  if (entry.state != EntryState::kFailed && entry.priority != 0) {
    SetPriority(id, entry.priority, now);
  }
  if (entry.state == EntryState::kLeased) {
    if (returned != nullptr) {
      // The writer that leased it is gone (this process holds the writer lock now).
      entry.state = EntryState::kQueued;
      returned->leases.emplace_back(id, entry);
    } else {
      TakeLease(id, {entry.lease, entry.time_ms}, now);
    }
  } else if (entry.state != EntryState::kQueued) {
    ApplyFailure(id, entry, now);
  }
  return Status::Ok();
}

}  // namespace crawlrank
