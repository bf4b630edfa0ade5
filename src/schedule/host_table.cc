#include "schedule/host_table.h"

#include <algorithm>

#include "crawlrank/url.h"

namespace crawlrank {

HostTable::HostTable(const SchedulerOptions& options)
    : options_{options.host_key, options.delay_ms, options.per_host,
               options.busy_delay_ms, options.max_pages_per_host} {}

uint32_t HostTable::NumberOfUrl(std::string_view url) {
  Result<std::string> key = HostKey(url, options_.host_key);
  return Number(key.ok() ? *std::move(key) : std::string());
}

uint32_t HostTable::Number(std::string key) {
  const auto [it, inserted] = numbers_.try_emplace(key, static_cast<uint32_t>(hosts_.size()));
  if (inserted) hosts_.emplace_back().key = std::move(key);
  return it->second;
}

std::optional<uint32_t> HostTable::Find(std::string_view key) const {
  const auto it = numbers_.find(std::string(key));
  if (it == numbers_.end()) return std::nullopt;
  return it->second;
}

int64_t HostTable::DelayOf(const Host& h) const {
  return std::max(options_.delay_ms, h.crawl_delay_ms);
}

bool HostTable::Exhausted(const Host& h) const {
  const uint64_t limit = h.page_limit != 0 ? h.page_limit : options_.max_pages_per_host;
  return limit != 0 && h.done + h.in_flight >= limit;
}

bool HostTable::HasRoom(const Host& h) const {
  return h.in_flight < options_.per_host &&
         (h.group == kNoGroup || groups_[h.group].in_flight < options_.per_host);
}

int64_t HostTable::ReadyAt(const Host& h) const {
  const int64_t at = std::max(h.ready_at_ms, h.hold_until_ms);
  return h.group == kNoGroup ? at : std::max(at, groups_[h.group].ready_at_ms);
}

std::string HostTable::GroupName(const Host& h) const {
  return h.group == kNoGroup ? std::string() : groups_[h.group].name;
}

HostEntry HostTable::EntryOf(const Host& h) const {
  return {h.hold_until_ms, h.holds_in_a_row, h.crawl_delay_ms, h.robots, GroupName(h),
          h.page_limit};
}

void HostTable::Apply(uint32_t number, const HostEntry& entry, int64_t now) {
  Host& h = hosts_[number];
  h.hold_until_ms = entry.hold_until_ms;
  h.holds_in_a_row = entry.holds_in_a_row;
  // A longer delay also applies to the time since the last hand-out (a crawler learns a
  // host's Crawl-delay while its first request is out).
  const int64_t before = DelayOf(h);
  h.crawl_delay_ms = entry.crawl_delay_ms;
  if (h.ready_at_ms > 0 && DelayOf(h) > before) h.ready_at_ms += DelayOf(h) - before;
  h.robots = entry.robots;
  h.page_limit = entry.page_limit;
  JoinGroup(number, entry.group, now);
  Reschedule(number, now);  // JoinGroup files it only when the group changes
}

void HostTable::StartFlight(uint32_t number, int64_t now) {
  Host& h = hosts_[number];
  h.ready_at_ms = now + DelayOf(h);
  CountFlight(number);
  if (h.group == kNoGroup) return;
  Group& g = groups_[h.group];
  g.ready_at_ms = std::max(g.ready_at_ms, h.ready_at_ms);
  RescheduleGroup(h.group, number, now);
}

void HostTable::CountFlight(uint32_t number) {
  Host& h = hosts_[number];
  ++h.in_flight;
  if (h.group != kNoGroup) ++groups_[h.group].in_flight;
}

void HostTable::EndFlight(uint32_t number, int64_t now) {
  Host& h = hosts_[number];
  --h.in_flight;
  if (h.group == kNoGroup) return;
  --groups_[h.group].in_flight;
  RescheduleGroup(h.group, number, now);
}

HostTable::FlightMark HostTable::Mark(uint32_t number) const {
  const Host& h = hosts_[number];
  return {h.in_flight, h.ready_at_ms, h.group == kNoGroup ? 0 : groups_[h.group].ready_at_ms};
}

void HostTable::Undo(uint32_t number, const FlightMark& mark, int64_t now) {
  EndFlight(number, now);
  Host& h = hosts_[number];
  h.in_flight = mark.in_flight;
  h.ready_at_ms = mark.ready_at_ms;
  if (h.group != kNoGroup) groups_[h.group].ready_at_ms = mark.group_ready_at_ms;
}

void HostTable::RescheduleGroup(uint32_t group, uint32_t except, int64_t now) {
  for (uint32_t member : groups_[group].members) {
    if (member != except) Reschedule(member, now);
  }
}

void HostTable::JoinGroup(uint32_t number, const std::string& name, int64_t now) {
  Host& h = hosts_[number];
  if (h.group != kNoGroup) {
    Group& old = groups_[h.group];
    if (old.name == name) return;
    old.members.erase(std::find(old.members.begin(), old.members.end(), number));
    old.in_flight -= h.in_flight;
    const uint32_t left = h.group;
    h.group = kNoGroup;
    RescheduleGroup(left, number, now);
  }
  if (!name.empty()) {
    auto [it, inserted] = group_numbers_.try_emplace(name, static_cast<uint32_t>(groups_.size()));
    if (inserted) groups_.emplace_back().name = name;
    Group& g = groups_[it->second];
    g.members.push_back(number);
    g.in_flight += h.in_flight;
    h.group = it->second;
  }
  Reschedule(number, now);
}

void HostTable::SetMinDelay(int64_t delay_ms, int64_t now) {
  std::vector<int64_t> before(hosts_.size());
  for (size_t i = 0; i < hosts_.size(); ++i) before[i] = DelayOf(hosts_[i]);
  options_.delay_ms = delay_ms;
  for (Group& g : groups_) g.ready_at_ms = 0;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    Host& h = hosts_[i];
    if (h.ready_at_ms > 0) h.ready_at_ms += DelayOf(h) - before[i];
    if (h.group != kNoGroup) {
      groups_[h.group].ready_at_ms = std::max(groups_[h.group].ready_at_ms, h.ready_at_ms);
    }
  }
  for (uint32_t number = 0; number < hosts_.size(); ++number) Reschedule(number, now);
}

bool HostTable::Busy() const {
  return options_.busy_delay_ms >= 0 && options_.busy_delay_ms < options_.delay_ms;
}

int64_t HostTable::BusyDelayOf(const Host& h) const {
  return std::max(options_.busy_delay_ms, h.crawl_delay_ms);
}

void HostTable::Reschedule(uint32_t number, int64_t now) {
  Host& h = hosts_[number];
  ++h.ticket;
  if (h.queue.empty() || !HasRoom(h) || Exhausted(h)) return;
  const int64_t at = ReadyAt(h);
  const ReadyHost entry = ReadyHost::Of(h.queue.top(), number, h.ticket);
  if (at <= now) {
    ready_.push(entry);
    return;
  }
  waiting_.push({at, number, h.ticket});
  if (!Busy()) return;
  // The shorter delay that applies when no host is ready at the normal one.
  int64_t busy_at = std::max(h.ready_at_ms - DelayOf(h) + BusyDelayOf(h), h.hold_until_ms);
  if (h.group != kNoGroup) {
    busy_at = std::max(busy_at, groups_[h.group].ready_at_ms - DelayOf(h) + BusyDelayOf(h));
  }
  if (busy_at <= now) {
    busy_ready_.push(entry);
  } else {
    busy_waiting_.push({busy_at, number, h.ticket});
  }
}

void HostTable::PromoteWaiting(int64_t now) {
  while (!waiting_.empty() && waiting_.top().time <= now) {
    const Timed t = waiting_.top();
    waiting_.pop();
    if (hosts_[t.who].ticket != t.ticket) continue;
    Reschedule(t.who, now);
  }
}

void HostTable::PromoteBusy(int64_t now) {
  while (!busy_waiting_.empty() && busy_waiting_.top().time <= now) {
    const Timed t = busy_waiting_.top();
    busy_waiting_.pop();
    const Host& h = hosts_[t.who];
    if (h.ticket != t.ticket) continue;
    busy_ready_.push(ReadyHost::Of(h.queue.top(), t.who, h.ticket));
  }
}

std::optional<uint32_t> HostTable::PopReady(bool busy) {
  std::priority_queue<ReadyHost>& heap = busy ? busy_ready_ : ready_;
  while (!heap.empty()) {
    const ReadyHost top = heap.top();
    heap.pop();
    if (hosts_[top.host].ticket == top.ticket) return top.host;  // else stale: it changed
  }
  return std::nullopt;
}

void HostTable::Compact(size_t bound, int64_t now) {
  if (ready_.size() + waiting_.size() + busy_ready_.size() + busy_waiting_.size() <= bound) return;
  ready_ = {};
  waiting_ = {};
  busy_ready_ = {};
  busy_waiting_ = {};
  for (uint32_t h = 0; h < hosts_.size(); ++h) Reschedule(h, now);
}

int64_t HostTable::NextReady(int64_t now, uint64_t* ready) const {
  int64_t next = -1;
  for (const Host& h : hosts_) {
    if (h.queue.empty() || Exhausted(h) || !HasRoom(h)) continue;
    const int64_t at = ReadyAt(h);
    if (at <= now) *ready += h.queue.size();
    const int64_t when = std::max(at, now);
    next = next < 0 ? when : std::min(next, when);
  }
  return next;
}

}  // namespace crawlrank
