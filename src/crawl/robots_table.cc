#include "crawl/robots_table.h"

#include <algorithm>

namespace crawlrank {

void RobotsTable::Load(const std::string& host, std::string_view bytes) {
  DecodeRobotsState(bytes, [&](std::string_view origin, RobotsEntry entry) {
    entry.host = host;
    if (entry.gave_up(policy_.max_retries)) {
      entry.expires_ms = 0;
      entry.failures = policy_.max_retries;
    }
    std::unique_lock lock(mu_);
    entries_[std::string(origin)] = std::move(entry);
  });
}

std::string RobotsTable::Saved(std::string_view host) const {
  // By origin, so that the same entries always give the same bytes.
  std::vector<const std::pair<const std::string, RobotsEntry>*> filed;
  for (const auto& item : entries_) {
    if (item.second.host == host) filed.push_back(&item);
  }
  std::sort(filed.begin(), filed.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string bytes;
  for (const auto* item : filed) AppendRobotsState(item->first, item->second, &bytes);
  return bytes;
}

const RobotsEntry* RobotsTable::Find(std::string_view origin) const {
  const auto it = entries_.find(std::string(origin));
  return it == entries_.end() ? nullptr : &it->second;
}

RobotsTable::Verdict RobotsTable::Judge(std::string_view origin, std::string_view url,
                                        int64_t now) const {
  const RobotsEntry* entry = Find(origin);
  if (entry == nullptr || entry->expires_ms <= now) return Verdict::kAsk;
  if (entry->gave_up(policy_.max_retries)) return Verdict::kGaveUp;
  if (!entry->usable()) return Verdict::kUnavailable;
  if (!entry->rules.Allowed(RobotsPath(url))) return Verdict::kDisallowed;
  return Verdict::kAllowed;
}

bool RobotsTable::Wait(const std::string& origin, Request page) {
  std::vector<Request>& queue = waiting_[origin];
  queue.push_back(std::move(page));
  ++waiting_count_;
  return queue.size() == 1;
}

std::vector<Request> RobotsTable::TakeWaiting(const std::string& origin) {
  const auto it = waiting_.find(origin);
  if (it == waiting_.end()) return {};
  std::vector<Request> pages = std::move(it->second);
  waiting_.erase(it);
  waiting_count_ -= pages.size();
  return pages;
}

void RobotsTable::Park(std::string_view origin, Request page) {
  const RobotsEntry* entry = Find(origin);
  parked_.emplace(entry != nullptr ? entry->expires_ms : 0, std::move(page));
}

std::vector<Request> RobotsTable::TakeDue(int64_t now) {
  std::vector<Request> due;
  auto it = parked_.begin();
  for (; it != parked_.end() && it->first <= now; ++it) due.push_back(std::move(it->second));
  parked_.erase(parked_.begin(), it);
  return due;
}

std::optional<int64_t> RobotsTable::next_due() const {
  if (parked_.empty()) return std::nullopt;
  return parked_.begin()->first;
}

void RobotsTable::DropPages() {
  waiting_.clear();
  waiting_count_ = 0;
  parked_.clear();
}

const RobotsEntry& RobotsTable::Record(const std::string& origin, const std::string& host,
                                       const FetchResult& result, int64_t now) {
  RobotsEntry entry;
  entry.host = host;
  entry.fetched_ms = now;
  if (result.error == FetchError::kTooManyRedirects) {
    entry.status = 404;  // §2.3.1.2: past five redirects, robots.txt is "unavailable"
  } else if (result.error != FetchError::kNone) {
    entry.status = 0;  // unreachable (§2.3.1.4)
  } else {
    entry.status = static_cast<uint32_t>(std::clamp(result.status, 0L, 999L));
  }
  if (entry.status >= 200 && entry.status < 300) {
    entry.rules = RobotsRules::Parse(result.body, policy_.agent);
    entry.expires_ms = now + policy_.ttl_ms;
  } else if ((entry.status >= 400 && entry.status < 500 && entry.status != 429) ||
             (entry.status >= 300 && entry.status < 400)) {
    // §2.3.1.3 "unavailable", and §2.3.1.2: a crawler that gave up following redirects.
    entry.rules = RobotsRules::AllowAll();
    entry.expires_ms = now + policy_.ttl_ms;
  } else {  // 5xx, 429 or unreachable: disallow all, and ask again after a back-off
    entry.rules = RobotsRules::DisallowAll();
    entry.detail =
        result.error != FetchError::kNone ? result.message : "HTTP " + std::to_string(entry.status);
    BackOff(origin, &entry);
  }
  if (entry.usable()) retrying_.erase(origin);
  std::unique_lock lock(mu_);
  RobotsEntry& filed = entries_[origin];
  filed = std::move(entry);
  return filed;
}

void RobotsTable::BackOff(const std::string& origin, RobotsEntry* entry) {
  const RobotsEntry* previous = Find(origin);
  entry->failures = (previous != nullptr ? previous->failures : 0) + 1;
  if (entry->gave_up(policy_.max_retries)) {  // its pages fail until it is asked again
    entry->expires_ms = entry->fetched_ms + policy_.ttl_ms;
    retrying_.erase(origin);
    return;
  }
  const int shift = static_cast<int>(std::min<uint32_t>(entry->failures - 1, 20));
  entry->expires_ms = entry->fetched_ms + std::min(policy_.retry_ms << shift, policy_.ttl_ms);
  retrying_.insert(origin);
}

std::optional<FailureReport> RobotsTable::Refusal(std::string_view url) const {
  const std::string origin = OriginOf(url);
  std::shared_lock lock(mu_);
  const auto it = entries_.find(origin);
  if (it == entries_.end()) return std::nullopt;
  const RobotsEntry& entry = it->second;
  FailureReport refusal;
  refusal.retryable = false;
  if (entry.gave_up(policy_.max_retries)) {
    refusal.kind = FailureKind::kRobotsUnreachable;
    refusal.reason = entry.UnreachableReason(origin);
  } else if (entry.usable() && !entry.rules.Allowed(RobotsPath(url))) {
    refusal.kind = FailureKind::kRobotsDisallowed;
    refusal.reason = kRobotsDisallowedReason;
  } else {
    return std::nullopt;
  }
  return refusal;
}

bool RobotsTable::FirstRefusal(uint64_t fingerprint) {
  std::lock_guard lock(refused_mu_);
  return refused_.insert(fingerprint).second;
}

}  // namespace crawlrank
