// The best-first scheduler (crawlrank/scheduler.h).
//
// Locks: the PageDB's writer lock (RunWrite) is taken first, then `mu`, which guards
// every in-memory structure here; GetStats takes only `mu`. In-memory changes that a
// transaction makes are either staged and applied once it commits (new pages, reports,
// failures: Committed) or, for Next, made at once and undone if it aborts (RolledBack).
#include "crawlrank/scheduler.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>
#include <regex>
#include <span>
#include <stop_token>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "crawlrank/db_rank.h"
#include "crawlrank/rank_store.h"
#include "page_db/page_record.h"
#include "page_db/schedule_table.h"
#include "page_db/write_txn.h"
#include "schedule/page_heap.h"

namespace crawlrank {

using lmdb::Val;
using lmdb::View;

std::string_view ScoreModeName(ScoreMode mode) {
  switch (mode) {
    case ScoreMode::kLinkScore: return "link-score";
    case ScoreMode::kBreadthFirst: return "breadth-first";
    case ScoreMode::kRandom: return "random";
    case ScoreMode::kOpic: return "opic";
    case ScoreMode::kInDegree: return "indegree";
    case ScoreMode::kPageRank: return "pagerank";
    case ScoreMode::kPersonalized: return "ppr";
    case ScoreMode::kTrustRank: return "trustrank";
    case ScoreMode::kHits: return "hits";
    case ScoreMode::kTopicHits: return "topic-hits";
    case ScoreMode::kWeightedPageRank: return "wpr";
  }
  return "unknown";
}

std::vector<ScoreMode> AllScoreModes() {
  std::vector<ScoreMode> modes;
  for (int m = 1; m <= static_cast<int>(ScoreMode::kWeightedPageRank); ++m) {
    modes.push_back(static_cast<ScoreMode>(m));
  }
  return modes;
}

Result<ScoreMode> ParseScoreMode(std::string_view name) {
  std::string names;
  for (ScoreMode mode : AllScoreModes()) {
    if (name == ScoreModeName(mode)) return mode;
    names += names.empty() ? "" : ", ";
    names += ScoreModeName(mode);
  }
  return InvalidArgumentError("score mode \"" + std::string(name) + "\": expected one of " + names);
}

namespace {

// The ranking engine's algorithm behind a mode; nullopt for the online modes.
std::optional<RankAlgorithm> RankAlgorithmOf(ScoreMode mode) {
  switch (mode) {
    case ScoreMode::kPageRank: return RankAlgorithm::kPageRank;
    case ScoreMode::kPersonalized: return RankAlgorithm::kPersonalized;
    case ScoreMode::kTrustRank: return RankAlgorithm::kTrustRank;
    case ScoreMode::kHits: return RankAlgorithm::kHits;
    case ScoreMode::kTopicHits: return RankAlgorithm::kTopicHits;
    case ScoreMode::kWeightedPageRank: return RankAlgorithm::kWeightedPageRank;
    default: return std::nullopt;
  }
}

// Page states beyond heap positions (page_heap.h).
constexpr uint32_t kUnknown = kFirstState;  // not loaded yet (a page id past the arrays)
constexpr uint32_t kCrawled = kFirstState + 1;
constexpr uint32_t kLeased = kFirstState + 2;
constexpr uint32_t kRetrying = kFirstState + 3;
constexpr uint32_t kFailed = kFirstState + 4;
constexpr uint32_t kFiltered = kFirstState + 5;
constexpr uint32_t kNoHost = UINT32_MAX;

struct Host {
  std::string key;
  PageHeap queue;
  uint32_t in_flight = 0;
  uint64_t done = 0;           // crawled or failed for good (max_pages_per_host)
  int64_t ready_at_ms = 0;     // the politeness delay since the last hand-out
  int64_t crawl_delay_ms = 0;  // SetCrawlDelay; 0: min_delay_ms
  int64_t hold_until_ms = 0;   // 429 / 503
  uint32_t holds_in_a_row = 0;
  std::string robots;           // kept for the crawler (format version 3 reserves it)
  uint64_t ticket = 0;          // the host's entry in ready/waiting with this ticket is valid
  uint32_t group = UINT32_MAX;  // its politeness group (SetHostGroup); none: its own budget
};

// Hosts that share one politeness budget (SetHostGroup): requests in flight to any of
// them count together, and the delay runs from the last request to any of them.
struct Group {
  std::string name;
  std::vector<uint32_t> members;  // host numbers
  uint32_t in_flight = 0;
  int64_t ready_at_ms = 0;
};
constexpr uint32_t kNoGroup = UINT32_MAX;

// What a crawl tells the revisit estimator: the record's crawl counters after it.
struct CrawlHistory {
  uint32_t n_crawls = 0, n_changes = 0;
  int64_t first_crawl_ms = 0, last_crawl_ms = 0;
  int rule = -1;  // the first revisit rule matching the URL
};

struct Lease {
  uint64_t id;
  int64_t expiry_ms;
};

// A time-ordered queue of (time, page or host, ticket) with stale entries skipped by
// the caller.
struct Timed {
  int64_t time;
  uint32_t who;
  uint64_t ticket;
  bool operator>(const Timed& o) const { return time > o.time || (time == o.time && who > o.who); }
};
using TimeQueue = std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>>;

// A host by its best page, ordered as PageHeap orders pages.
struct Ready {
  int32_t priority;
  float key;
  uint32_t best;  // the host's best page id (ties)
  uint32_t host;
  uint64_t ticket;
  // Max-heap: the host whose best page PageHeap puts first.
  bool operator<(const Ready& o) const {
    return PageHeap::Before({o.key, o.best, o.priority}, {key, best, priority});
  }
  static Ready Of(const PageHeap::Entry& top, uint32_t host, uint64_t ticket) {
    return {top.priority, top.key, top.id, host, ticket};
  }
};

}  // namespace

struct Scheduler::Impl final : WriteHook {
  PageDb& db;
  PageDb::Impl& store;
  SchedulerOptions options;
  SystemClock system_clock;
  const Clock& clock;

  mutable std::mutex mu;
  std::vector<uint32_t> host_of;  // by page id
  std::vector<uint32_t> slot;     // by page id: heap position or a state
  std::vector<float> keys;        // by page id: the score it is queued by
  std::vector<Host> hosts;
  std::unordered_map<std::string, uint32_t> host_numbers;
  std::vector<Group> groups;
  std::unordered_map<std::string, uint32_t> group_numbers;
  std::priority_queue<Ready> ready;
  TimeQueue waiting;  // hosts with queued pages, by the time they may take one
  // The same at the hard rate (busy_delay_ms), used when `ready` has nothing.
  std::priority_queue<Ready> busy_ready;
  TimeQueue busy_waiting;
  std::unordered_map<uint32_t, Lease> leases;
  TimeQueue lease_expiry;                           // ticket: lease id
  std::unordered_map<uint32_t, uint32_t> failures;  // pages that failed and may retry
  TimeQueue retry_due;                              // ticket: unused
  // The priorities other than 0 (QueuedExtra) of pages not yet crawled or failed for
  // good, whatever their state: a page that comes back to the queue keeps its tier.
  std::unordered_map<uint32_t, int32_t> priorities;
  uint64_t next_lease = 1;
  uint64_t queued = 0, retrying = 0, crawled = 0, failed = 0, filtered = 0;

  // Re-ranking (rank modes). ranked_pages: ids below it have their key from the ranks.
  uint64_t ranked_pages = 0;
  int64_t last_rank_ms = 0;
  uint64_t reranks = 0;
  std::string rerank_error;               // of the last background re-rank that failed
  std::mutex rerank_mu;                   // one re-rank at a time
  // The ranking graph kept between re-ranks (SchedulerOptions::keep_rank_graph), used and
  // changed only under rerank_mu; and the pages whose out-links were written since the
  // snapshot of the last re-rank (under mu; swapped out with the writer's lock held, as
  // the next snapshot is taken).
  std::optional<LiveDbRank> live_rank;
  std::vector<uint32_t> relinked;
  uint64_t rank_full_reads = 0;
  std::condition_variable_any rerank_cv;  // with mu: wakes the background thread
  std::jthread rerank_thread;             // last member but the hook's: stopped first

  // What the current transaction will change once it commits.
  struct Staged {
    struct NewPage {
      uint32_t id, host, depth;
      uint64_t fingerprint;
      float link_score;
      bool allowed, crawled;
      CrawlHistory history;
      int32_t priority;
    };
    std::vector<NewPage> created;
    // The extras of the pages the call may create (CrawlReport::extras, AddSeeds), by
    // fingerprint, the first for each page; set by the call's body, which RunWrite may run
    // again, so each run sets them afresh. The call owns the strings.
    struct Extra {
      std::string_view url;  // canonical
      const QueuedExtra* extra;
    };
    std::unordered_map<uint64_t, Extra> extras;
    std::vector<uint32_t> fetched, raised;
    // The out-links of each fetched page (push modes): fetched[i]'s are
    // targets[ends[i-1] .. ends[i]).
    std::vector<uint32_t> targets, ends;
    struct FailureChange {
      uint32_t id;
      ScheduleEntry entry;
    };
    std::vector<FailureChange> failures;
    std::vector<std::pair<uint32_t, HostEntry>> host_changes;
    // Next: picks made at once, undone on rollback.
    struct Pick {
      uint32_t id, host;
      float key;
      uint32_t in_flight;
      int64_t ready_at_ms;
      bool revisit;
      int64_t group_ready_at_ms;
    };
    std::vector<Pick> picks;
    // Fetched pages' crawl counters (by fetched index), and revisit leases that failed.
    std::vector<CrawlHistory> revisit_history;
    std::vector<uint32_t> revisit_failed;
    std::vector<uint32_t> relinked;  // pages whose out-links the transaction wrote
    uint64_t next_lease = 0;
    void Clear() { *this = Staged(); }
  } staged;

  Impl(PageDb& db, const SchedulerOptions& options)
      : db(db),
        store(PageDbInternals::Of(db)),
        options(options),
        clock(options.clock != nullptr ? *options.clock : system_clock) {
    if (ranked() && options.keep_rank_graph &&
        LiveDbRank::Supports(*RankAlgorithmOf(options.score), RerankOptions())) {
      live_rank.emplace(*RankAlgorithmOf(options.score), RerankOptions());
    }
  }

  ~Impl() override {
    if (rerank_thread.joinable()) {
      rerank_thread.request_stop();
      rerank_thread.join();
    }
    std::lock_guard writer(store.write_mutex);
    if (store.write_hook == this) store.write_hook = nullptr;
  }

  // ---- keys and hosts

  // Modes whose scores grow as pages are fetched: a fetched page pushes score to its
  // out-links (OPIC's cash, in-degree's count, and for the rank modes the estimate of the
  // pages discovered since the last rank).
  bool Pushes() const {
    return options.score == ScoreMode::kOpic || options.score == ScoreMode::kInDegree || ranked();
  }
  bool ranked() const { return RankAlgorithmOf(options.score).has_value(); }

  float KeyOf(uint32_t id, uint32_t depth, uint64_t fingerprint, float link_score) {
    switch (options.score) {
      case ScoreMode::kLinkScore: return link_score;
      case ScoreMode::kBreadthFirst: return -static_cast<float>(depth);
      case ScoreMode::kRandom:
        return static_cast<float>((fingerprint * 0x9E3779B97F4A7C15ull) >> 40) / 16777216.f;
      default:
        // A seed (or a page fetched before anything linked to it) starts with the cash
        // of one, and goes before every ranked page.
        if (depth == 0 && keys[id] == 0) keys[id] = 1.f;
        return keys[id];
    }
  }

  // Page `source` was fetched for the first time with these out-links.
  void PushFrom(uint32_t source, std::span<const uint32_t> targets, int64_t now) {
    if (targets.empty()) return;
    float share = 0;
    switch (options.score) {
      case ScoreMode::kOpic:
        share = keys[source] / static_cast<float>(targets.size());
        keys[source] = 0;  // its cash is passed on
        break;
      case ScoreMode::kInDegree: share = 1; break;
      default: share = keys[source] / static_cast<float>(targets.size()); break;
    }
    for (uint32_t t : targets) {
      // Rank modes: only pages the last rank did not cover get an estimate.
      if (ranked() && t < ranked_pages) continue;
      keys[t] += share;
      Rekey(t, now);
    }
  }

  // The key of page `id` changed: move its heap entry.
  void Rekey(uint32_t id, int64_t now) {
    const uint32_t pos = slot[id];
    if (pos >= kFirstState) return;
    Host& h = hosts[host_of[id]];
    h.queue.Update(pos, keys[id], slot);
    if (pos == 0 || slot[id] == 0) Reschedule(host_of[id], now);
  }

  uint32_t HostNumber(std::string_view url) {
    auto key = HostKey(url, options.host_key);
    std::string name = key.ok() ? *std::move(key) : std::string();
    auto [it, inserted] = host_numbers.try_emplace(name, static_cast<uint32_t>(hosts.size()));
    if (inserted) hosts.emplace_back().key = std::move(name);
    return it->second;
  }

  int64_t DelayOf(const Host& h) const { return std::max(options.min_delay_ms, h.crawl_delay_ms); }

  bool Exhausted(const Host& h) const {
    return options.max_pages_per_host != 0 && h.done + h.in_flight >= options.max_pages_per_host;
  }

  // Room for one more request to the host, and to its group.
  bool HasRoom(const Host& h) const {
    return h.in_flight < options.max_in_flight_per_host &&
           (h.group == kNoGroup || groups[h.group].in_flight < options.max_in_flight_per_host);
  }
  // When the host may take a request: its delay, its hold, and its group's delay.
  int64_t ReadyAt(const Host& h) const {
    const int64_t at = std::max(h.ready_at_ms, h.hold_until_ms);
    return h.group == kNoGroup ? at : std::max(at, groups[h.group].ready_at_ms);
  }
  // A request to host `number` starts or ends; the hosts of its group are filed again.
  void StartFlight(uint32_t number, int64_t now) {
    Host& h = hosts[number];
    h.ready_at_ms = now + DelayOf(h);
    CountFlight(number);
    if (h.group == kNoGroup) return;
    Group& g = groups[h.group];
    g.ready_at_ms = std::max(g.ready_at_ms, h.ready_at_ms);
    RescheduleGroup(h.group, number, now);
  }
  // Counts a request in flight to the host and its group, without starting a delay (a
  // reader loading the leases it finds).
  void CountFlight(uint32_t number) {
    Host& h = hosts[number];
    ++h.in_flight;
    if (h.group != kNoGroup) ++groups[h.group].in_flight;
  }
  void EndFlight(uint32_t number, int64_t now) {
    Host& h = hosts[number];
    --h.in_flight;
    if (h.group == kNoGroup) return;
    --groups[h.group].in_flight;
    RescheduleGroup(h.group, number, now);
  }
  void RescheduleGroup(uint32_t group, uint32_t except, int64_t now) {
    for (uint32_t member : groups[group].members) {
      if (member != except) Reschedule(member, now);
    }
  }
  std::string GroupName(const Host& h) const {
    return h.group == kNoGroup ? std::string() : groups[h.group].name;
  }
  // Moves a host into group `name` (empty: out of any group).
  void JoinGroup(uint32_t number, const std::string& name, int64_t now) {
    Host& h = hosts[number];
    if (h.group != kNoGroup) {
      Group& old = groups[h.group];
      if (old.name == name) return;
      old.members.erase(std::find(old.members.begin(), old.members.end(), number));
      old.in_flight -= h.in_flight;
      const uint32_t left = h.group;
      h.group = kNoGroup;
      RescheduleGroup(left, number, now);
    }
    if (!name.empty()) {
      auto [it, inserted] = group_numbers.try_emplace(name, static_cast<uint32_t>(groups.size()));
      if (inserted) groups.emplace_back().name = name;
      Group& g = groups[it->second];
      g.members.push_back(number);
      g.in_flight += h.in_flight;
      h.group = it->second;
    }
    Reschedule(number, now);
  }

  // Files the host where Next looks for it, after any change to it.
  void Reschedule(uint32_t number, int64_t now) {
    Host& h = hosts[number];
    ++h.ticket;
    if (h.queue.empty() || !HasRoom(h) || Exhausted(h)) return;
    const int64_t at = ReadyAt(h);
    const Ready entry = Ready::Of(h.queue.top(), number, h.ticket);
    if (at <= now) {
      ready.push(entry);
      return;
    }
    waiting.push({at, number, h.ticket});
    if (!Busy()) return;
    // The shorter delay that applies when no host is ready at the normal one.
    int64_t busy_at = std::max(h.ready_at_ms - DelayOf(h) + BusyDelayOf(h), h.hold_until_ms);
    if (h.group != kNoGroup) {
      busy_at = std::max(busy_at, groups[h.group].ready_at_ms - DelayOf(h) + BusyDelayOf(h));
    }
    if (busy_at <= now) {
      busy_ready.push(entry);
    } else {
      busy_waiting.push({busy_at, number, h.ticket});
    }
  }

  // The host and lease queues drop stale entries lazily; when they hold four times more
  // than can be valid, they are rebuilt from what is (O(hosts + leases)), so that a long
  // crawl or a re-key of millions of pages keeps them small.
  void CompactQueues() {
    const size_t bound = 4 * (hosts.size() + leases.size()) + 4096;
    if (ready.size() + waiting.size() + busy_ready.size() + busy_waiting.size() > bound) {
      ready = {};
      waiting = {};
      busy_ready = {};
      busy_waiting = {};
      const int64_t now = clock.NowMs();
      for (uint32_t h = 0; h < hosts.size(); ++h) Reschedule(h, now);
    }
    if (lease_expiry.size() > bound) {
      std::vector<Timed> live;
      live.reserve(leases.size());
      for (const auto& [id, lease] : leases) live.push_back({lease.expiry_ms, id, lease.id});
      lease_expiry = TimeQueue(std::greater<Timed>(), std::move(live));
    }
  }

  // The hard rate (SchedulerOptions::busy_delay_ms): in use when it is below the minimum.
  bool Busy() const {
    return options.busy_delay_ms >= 0 && options.busy_delay_ms < options.min_delay_ms;
  }
  int64_t BusyDelayOf(const Host& h) const {
    return std::max(options.busy_delay_ms, h.crawl_delay_ms);
  }

  void PromoteBusy(int64_t now) {
    while (!busy_waiting.empty() && busy_waiting.top().time <= now) {
      const Timed t = busy_waiting.top();
      busy_waiting.pop();
      const Host& h = hosts[t.who];
      if (h.ticket != t.ticket) continue;
      busy_ready.push(Ready::Of(h.queue.top(), t.who, h.ticket));
    }
  }

  // ---- filters (schemes, URL patterns), applied when a page joins the schedule

  Status CompileFilters() {
    for (const auto* list : {&options.allow_patterns, &options.deny_patterns}) {
      auto& compiled = list == &options.allow_patterns ? allow : deny;
      for (const std::string& pattern : *list) {
        try {
          compiled.emplace_back(pattern, std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error& e) {
          return InvalidArgumentError("URL pattern \"" + pattern + "\": " + e.what());
        }
      }
    }
    for (const RevisitRule& rule : options.revisit_rules) {
      if (rule.interval_ms <= 0 && !(rule.multiplier > 0)) {
        return InvalidArgumentError("revisit rule \"" + rule.pattern +
                                    "\": needs an interval_ms or a multiplier above 0");
      }
      try {
        revisit_rules.emplace_back(rule.pattern, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        return InvalidArgumentError("revisit rule \"" + rule.pattern + "\": " + e.what());
      }
    }
    return Status::Ok();
  }

  bool Allowed(std::string_view url) const {
    if (!options.allowed_schemes.empty()) {
      const std::string_view scheme = url.substr(0, url.find(':'));
      if (std::find(options.allowed_schemes.begin(), options.allowed_schemes.end(), scheme) ==
          options.allowed_schemes.end()) {
        return false;
      }
    }
    const auto matches = [&](const std::regex& re) {
      return std::regex_search(url.begin(), url.end(), re);
    };
    if (std::any_of(deny.begin(), deny.end(), matches)) return false;
    return allow.empty() || std::any_of(allow.begin(), allow.end(), matches);
  }
  std::vector<std::regex> allow, deny;

  void Grow(uint32_t pages) {
    if (slot.size() < pages) {
      slot.resize(pages, kUnknown);
      host_of.resize(pages, kNoHost);
      keys.resize(pages, 0.f);
      if (options.revisits) {
        revisit_at.resize(pages, -1);
        revisit_state.resize(pages);
      }
    }
  }

  // ---- priorities (QueuedExtra::priority)

  int32_t PriorityOf(uint32_t id) const {
    if (priorities.empty()) return 0;  // no caller gave any: no look-up
    const auto it = priorities.find(id);
    return it == priorities.end() ? 0 : it->second;
  }
  // Sets the tier of page `id`, moving it in its host's heap when it is queued there.
  void SetPriority(uint32_t id, int32_t priority, int64_t now) {
    if (priority == 0) {
      priorities.erase(id);
    } else {
      priorities[id] = priority;
    }
    const uint32_t pos = slot[id];
    if (pos >= kFirstState) return;
    hosts[host_of[id]].queue.SetPriority(pos, priority, slot);
    Reschedule(host_of[id], now);
  }

  // Puts an uncrawled page in its host's queue (or filters it).
  void Enqueue(uint32_t id, uint32_t host, uint32_t depth, uint64_t fingerprint, float link_score,
               bool allowed, int64_t now) {
    host_of[id] = host;
    if (!allowed || (options.max_depth != 0 && depth > options.max_depth)) {
      slot[id] = kFiltered;
      ++filtered;
      return;
    }
    keys[id] = KeyOf(id, depth, fingerprint, link_score);
    Requeue(id, now);
  }

  void Requeue(uint32_t id, int64_t now) {
    Host& h = hosts[host_of[id]];
    h.queue.Push(id, keys[id], PriorityOf(id), slot);
    ++queued;
    if (slot[id] == 0) Reschedule(host_of[id], now);
  }

  // ---- revisits

  CrawlHistory HistoryOf(const PageRecord& page) const {
    CrawlHistory history{page.n_crawls, page.n_changes, page.first_crawl_ms, page.last_crawl_ms};
    for (size_t i = 0; i < revisit_rules.size(); ++i) {
      if (std::regex_search(page.url, revisit_rules[i])) {
        history.rule = static_cast<int>(i);
        break;
      }
    }
    return history;
  }

  // The revisit estimator of one page. Cho & Garcia-Molina's estimator of a Poisson change
  // rate from n visits at a fixed interval I, X of which found a change,
  //   rate = -ln((n - X + 0.5) / (n + 0.5)) / I,
  // is unbiased only when the intervals are equal. So a page is revisited in epochs of one
  // interval each: the epoch's counts estimate the rate, and a new epoch starts (counts
  // reset, interval moved toward 1 / rate, by at most 4x) only when the estimate leaves
  // the current interval by more than its noise, max(2%, 2 / sqrt(n)). Without a change
  // the interval grows 4x per two visits; with one every visit it shrinks. On open, each
  // page starts an epoch from its record's totals (n = crawls - 1, X = changes, I = their
  // mean interval), so nothing but the records needs to persist.
  struct RevisitState {
    uint32_t n = 0, changes = 0;  // visits (intervals) and changes in this epoch
    uint32_t seen_changes = 0;    // the record's n_changes at the last crawl
    float interval_ms = 0;
  };
  std::vector<RevisitState> revisit_state;  // by page id, with revisits on

  // Updates page `id`'s estimator with a crawl (or, on open, with its whole history) and
  // returns when it is due again; -1 with revisits off.
  int64_t NextRevisit(uint32_t id, const CrawlHistory& h, bool on_open) {
    if (!options.revisits || h.n_crawls == 0) return -1;
    const auto min = static_cast<double>(options.min_revisit_ms);
    const auto max = static_cast<double>(options.max_revisit_ms);
    RevisitState& st = revisit_state[id];
    if (h.rule >= 0 && options.revisit_rules[h.rule].interval_ms > 0) {
      st.seen_changes = h.n_changes;
      return h.last_crawl_ms + std::clamp(options.revisit_rules[h.rule].interval_ms,
                                          options.min_revisit_ms, options.max_revisit_ms);
    }
    const double multiplier = h.rule >= 0 ? options.revisit_rules[h.rule].multiplier : 1;
    if (on_open || h.n_crawls == 1 || st.interval_ms <= 0) {
      st = RevisitState();
      st.seen_changes = h.n_changes;
      st.interval_ms = static_cast<float>(min);
      if (h.n_crawls >= 2 && h.last_crawl_ms > h.first_crawl_ms) {
        st.n = h.n_crawls - 1;
        st.changes = std::min(h.n_changes, st.n);
        st.interval_ms = static_cast<float>(
            std::clamp(static_cast<double>(h.last_crawl_ms - h.first_crawl_ms) / st.n, min, max));
      }
    } else {
      ++st.n;
      if (h.n_changes > st.seen_changes) ++st.changes;
      st.seen_changes = h.n_changes;
    }
    if (st.n >= 2) {
      const double interval = st.interval_ms;
      const double r = -std::log((st.n - st.changes + 0.5) / (st.n + 0.5));
      const double target = r > 0 ? multiplier * interval / r : 4 * interval;
      const double noise = std::max(0.02, 2 / std::sqrt(static_cast<double>(st.n)));
      if (target > interval * (1 + noise) || target < interval / (1 + noise)) {
        const double moved = std::clamp(target, interval / 4, interval * 4);
        st.interval_ms = static_cast<float>(std::clamp(moved, min, max));
        st.n = st.changes = 0;
      }
    }
    return h.last_crawl_ms + static_cast<int64_t>(st.interval_ms);
  }

  void ScheduleRevisit(uint32_t id, int64_t due_ms) {
    if (due_ms < 0 || !options.revisits) return;
    revisit_at[id] = due_ms;
    revisit_due.push({due_ms, id, 0});
  }

  bool HostReady(const Host& h, int64_t now) const { return HasRoom(h) && ReadyAt(h) <= now; }

  std::vector<int64_t> revisit_at;  // by page id, with revisits on: the valid due time
  TimeQueue revisit_due;            // crawled pages by due time; stale: revisit_at differs
  std::unordered_set<uint32_t> revisit_leases;
  std::vector<std::regex> revisit_rules;  // options.revisit_rules' patterns, compiled

  // ---- time-driven changes, made before Next picks

  void PromoteDue(int64_t now) {
    while (!lease_expiry.empty() && lease_expiry.top().time <= now) {
      const Timed t = lease_expiry.top();
      lease_expiry.pop();
      auto it = leases.find(t.who);
      if (it == leases.end() || it->second.id != t.ticket) continue;
      leases.erase(it);
      EndFlight(host_of[t.who], now);
      if (revisit_leases.erase(t.who) != 0) {
        slot[t.who] = kCrawled;
        ScheduleRevisit(t.who, now);
      } else {
        slot[t.who] = kUnknown;
        Requeue(t.who, now);
      }
      Reschedule(host_of[t.who], now);
    }
    while (!retry_due.empty() && retry_due.top().time <= now) {
      const Timed t = retry_due.top();
      retry_due.pop();
      if (slot[t.who] != kRetrying) continue;
      --retrying;
      slot[t.who] = kUnknown;
      Requeue(t.who, now);
    }
    while (!waiting.empty() && waiting.top().time <= now) {
      const Timed t = waiting.top();
      waiting.pop();
      Host& h = hosts[t.who];
      if (h.ticket != t.ticket) continue;
      Reschedule(t.who, now);
    }
  }

  uint64_t Done() const { return crawled + failed; }

  // Stages `extra` for the page of canonical `url` unless an earlier extra of this
  // transaction names it. REQUIRES: mu held, inside the call's RunWrite body.
  void StageExtra(std::string_view url, uint64_t fingerprint, const QueuedExtra& extra) {
    staged.extras.try_emplace(fingerprint, Staged::Extra{url, &extra});
  }
  // Writes the extra of page `id`, which `write` creates: its payload, and a `schedule`
  // entry (queued) that keeps a priority other than 0.
  Status WriteExtra(WriteTxn& write, uint32_t id, const QueuedExtra& extra) {
    Key32 key(id);
    MDB_val k = key.val();
    if (!extra.payload.empty()) {
      MDB_val v = Val(extra.payload);
      CRAWLRANK_RETURN_IF_ERROR(
          write.Check(mdb_put(write.txn(), store.payloads, &k, &v, 0), "write a payload to"));
    }
    if (extra.priority != 0) {
      ScheduleEntry entry;
      entry.priority = extra.priority;
      std::string value;
      EncodeScheduleEntry(entry, &value);
      MDB_val v = Val(value);
      CRAWLRANK_RETURN_IF_ERROR(write.Check(mdb_put(write.txn(), store.schedule, &k, &v, 0),
                                            "write a page's priority to"));
    }
    return Status::Ok();
  }

  // Hands page `id` of host `number` out under a new lease, in `write`: a queued page
  // (taken from its host's heap), or with `revisit` a crawled page due again.
  Status LeaseOut(WriteTxn& write, uint32_t id, uint32_t number, float key, bool revisit,
                  int64_t now, std::vector<Request>* out);

  // AddSeeds: `extras`, when not empty, holds the extra of pages[i] at i.
  Status Seed(const std::vector<CrawledPage>& pages, std::span<const QueuedExtra> extras);

  // Loads the schedule from the DB: the pages, then the scheduler's tables. A writer
  // returns the leases it finds (into `returned`, for Open to write back); a reader keeps
  // them as they are.
  Status Load(bool writer);
  // REQUIRES: mu held.
  SchedulerStats Stats() const;
  // Changes the persistent state of host `key` (created when new) in one transaction.
  Status ChangeHost(std::string_view key, const std::function<void(HostEntry&)>& change);
  std::vector<std::pair<uint32_t, ScheduleEntry>> returned;
  std::vector<uint32_t> revisits_returned;

  // A reader found page `id` leased under `lease`: a queued page leaves its heap, a
  // crawled one is a revisit in flight.
  void TakeLease(uint32_t id, Lease lease, int64_t now) {
    const uint32_t pos = slot[id];
    if (pos < kFirstState) {
      hosts[host_of[id]].queue.RemoveAt(pos, kLeased, slot);
      --queued;
    } else if (pos == kCrawled) {
      slot[id] = kLeased;
      revisit_leases.insert(id);
    } else {
      return;
    }
    leases[id] = lease;
    lease_expiry.push({lease.expiry_ms, id, lease.id});
    CountFlight(host_of[id]);
    next_lease = std::max(next_lease, lease.id + 1);
    Reschedule(host_of[id], now);
  }

  // ---- keys at open: what the online modes accumulated, the stored ranks

  // REQUIRES: mu held, the arrays sized to the snapshot.
  Status InitialKeys(const Snapshot& snapshot) {
    switch (options.score) {
      case ScoreMode::kInDegree:
        return snapshot.ScanEdges([&](EdgeChunk& chunk) {
          for (uint32_t t : chunk.targets) keys[t] += 1;
          return Status::Ok();
        });
      case ScoreMode::kOpic: {
        // Replays the cash flow: seeds start with one, each crawled page passes its cash
        // on at its first crawl, in the order of first crawls.
        std::vector<std::pair<int64_t, uint32_t>> order;
        CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
          if (page.depth == 0) keys[page.id] = 1;
          if (page.crawled()) order.emplace_back(page.first_crawl_ms, page.id);
          return Status::Ok();
        }));
        std::sort(order.begin(), order.end());
        for (const auto& [when, id] : order) {
          CRAWLRANK_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, snapshot.Links(id));
          if (targets.empty()) continue;
          const float share = keys[id] / static_cast<float>(targets.size());
          keys[id] = 0;
          for (uint32_t t : targets) keys[t] += share;
        }
        return Status::Ok();
      }
      default: break;
    }
    if (!ranked()) return Status::Ok();
    auto stored = LoadRank(store.path, *RankAlgorithmOf(options.score));
    if (!stored.ok()) {
      // None yet: the first re-rank makes one. A damaged file is ranked again too.
      return stored.status().code() == StatusCode::kNotFound ||
                     stored.status().code() == StatusCode::kDataLoss
                 ? Status::Ok()
                 : stored.status();
    }
    const std::vector<double>& scores = stored->rank.scores;
    if (scores.size() > keys.size()) return Status::Ok();  // not of this DB: rank again
    for (size_t id = 0; id < scores.size(); ++id) keys[id] = static_cast<float>(scores[id]);
    ranked_pages = scores.size();
    last_rank_ms = stored->created_ms;
    return Status::Ok();
  }

  // ---- re-ranking

  // REQUIRES: mu held.
  bool RerankDue(int64_t now) const {
    if (!ranked()) return false;
    const uint64_t pages = slot.size();
    if (pages <= ranked_pages) return false;
    const auto grown =
        static_cast<uint64_t>(std::ceil(options.rerank_growth * static_cast<double>(ranked_pages)));
    if (pages >= ranked_pages + std::max<uint64_t>(options.rerank_min_new_pages, grown))
      return true;
    return options.rerank_interval_ms > 0 && now - last_rank_ms >= options.rerank_interval_ms;
  }

  DbRankOptions RerankOptions() const {
    DbRankOptions rank_options;
    rank_options.rank = options.rank;
    rank_options.warm_start = true;
    return rank_options;
  }

  // Ranks a snapshot, then re-keys the schedule in batches, each under `mu` briefly.
  Status RankAndRekey() {
    std::lock_guard one_at_a_time(rerank_mu);
    // The rank holds a snapshot for its whole run: grow the map first, so that the
    // writes meanwhile never need to (a growth waits for every snapshot to close).
    CRAWLRANK_RETURN_IF_ERROR(ReserveMapHeadroom(store));
    const DbRankOptions rank_options = RerankOptions();
    const RankAlgorithm algorithm = *RankAlgorithmOf(options.score);
    if (!live_rank.has_value()) {
      CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored, RankPageDb(db, algorithm, rank_options));
      CountFullReads(1);
      ApplyRanks(stored.rank.scores);
      return Status::Ok();
    }
    // The snapshot and the pages written before it, taken together: no write commits
    // between them (a write holds the writer's lock from its start to its hook's
    // Committed, which adds to `relinked`).
    std::vector<uint32_t> changed;
    std::optional<Snapshot> snapshot;
    {
      std::lock_guard writer(store.write_mutex);
      {
        std::lock_guard lock(mu);
        changed.swap(relinked);
      }
      CRAWLRANK_ASSIGN_OR_RETURN(snapshot, db.NewSnapshot());
    }
    const uint32_t reads_before = live_rank->full_reads();
    Result<StoredRank> stored = live_rank->Rank(db, *snapshot, changed);
    snapshot.reset();
    CountFullReads(live_rank->full_reads() - reads_before);
    if (!stored.ok()) {
      // Start over from every link next time; out of memory, without a kept graph.
      const bool too_big = stored.status().code() == StatusCode::kResourceExhausted;
      {
        std::lock_guard lock(mu);
        live_rank.reset();
        if (!too_big) live_rank.emplace(algorithm, rank_options);
        relinked.clear();
      }
      if (!too_big) return stored.status();
      stored = RankPageDb(db, algorithm, rank_options);
      if (!stored.ok()) return stored.status();
      CountFullReads(1);
    }
    ApplyRanks(stored->rank.scores);
    return Status::Ok();
  }

  void CountFullReads(uint32_t reads) {
    std::lock_guard lock(mu);
    rank_full_reads += reads;
  }

  void ApplyRanks(const std::vector<double>& scores) {
    const size_t n = scores.size();
    const size_t batch = std::max<uint32_t>(1, options.rerank_batch);
    std::vector<uint32_t> touched_hosts;
    for (size_t first = 0; first < n; first += batch) {
      // A mutex does not queue its waiters: released and taken again at once, it would
      // starve a Next waiting for it for the whole re-key. Step aside between batches.
      if (first > 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
      std::lock_guard lock(mu);
      const int64_t now = clock.NowMs();
      touched_hosts.clear();
      const size_t end = std::min(n, first + batch);
      for (size_t id = first; id < end && id < slot.size(); ++id) {
        keys[id] = static_cast<float>(scores[id]);
        const uint32_t pos = slot[id];
        if (pos >= kFirstState) continue;
        hosts[host_of[id]].queue.Update(pos, keys[id], slot);
        touched_hosts.push_back(host_of[id]);
      }
      std::sort(touched_hosts.begin(), touched_hosts.end());
      touched_hosts.erase(std::unique(touched_hosts.begin(), touched_hosts.end()),
                          touched_hosts.end());
      // Only a ready host's entry carries its best score; a waiting host's entry (by time)
      // stays valid as it is.
      for (uint32_t h : touched_hosts) {
        if (std::max(hosts[h].ready_at_ms, hosts[h].hold_until_ms) <= now) Reschedule(h, now);
      }
      CompactQueues();
      ranked_pages = std::max<uint64_t>(ranked_pages, end);  // pushes stop at ranked pages
    }
    std::lock_guard lock(mu);
    last_rank_ms = clock.NowMs();
    ++reranks;
  }

  void RerankLoop(std::stop_token stop) {
    for (;;) {
      {
        std::unique_lock lock(mu);
        const auto due = [&] { return RerankDue(clock.NowMs()); };
        if (options.rerank_interval_ms > 0) {
          rerank_cv.wait_for(lock, stop, std::chrono::milliseconds(options.rerank_interval_ms),
                             due);
        } else {
          rerank_cv.wait(lock, stop, due);
        }
        if (stop.stop_requested()) return;
        if (!due()) continue;
      }
      Status status = RankAndRekey();
      std::lock_guard lock(mu);
      rerank_error = status.ok() ? std::string() : status.ToString();
      if (!status.ok()) last_rank_ms = clock.NowMs();  // do not retry in a tight loop
    }
  }

  // ---- the hook: every write transaction of the PageDB

  Status BeforeCommit(WriteTxn& write) override {
    std::lock_guard lock(mu);
    // A page this transaction both created and fetched is placed as queued, then taken
    // out as fetched below (so that it passes on its score as any fetched page does); one
    // restored as crawled (page_db_load) is placed as crawled.
    std::vector<bool> fetched_new(write.created().size());
    for (size_t i = 0; i < write.fetched_count(); ++i) {
      const uint32_t id = write.fetched(i).id;
      if (id >= write.first_new_id()) fetched_new[id - write.first_new_id()] = true;
    }
    MDB_txn* txn = write.txn();
    for (const PageRecord& record : write.created()) {
      // The call's extra for a page it created and did not crawl at once.
      const QueuedExtra* extra = nullptr;
      if (!staged.extras.empty() && !record.crawled()) {
        const auto it = staged.extras.find(record.fingerprint);
        if (it != staged.extras.end() && it->second.url == record.url) extra = it->second.extra;
      }
      if (extra != nullptr) CRAWLRANK_RETURN_IF_ERROR(WriteExtra(write, record.id, *extra));
      staged.created.push_back({record.id, HostNumber(record.url), record.depth, record.fingerprint,
                                record.link_score, Allowed(record.url),
                                record.crawled() && !fetched_new[record.id - write.first_new_id()],
                                HistoryOf(record), extra != nullptr ? extra->priority : 0});
    }
    for (size_t i = 0; i < write.fetched_count(); ++i) {
      const WriteTxn::Fetched fetched = write.fetched(i);
      const uint32_t id = fetched.id;
      staged.fetched.push_back(id);
      if (options.revisits) {
        staged.revisit_history.push_back(fetched.record != nullptr ? HistoryOf(*fetched.record)
                                                                   : CrawlHistory());
      }
      if (Pushes()) {
        staged.targets.insert(staged.targets.end(), fetched.targets.begin(), fetched.targets.end());
        staged.ends.push_back(static_cast<uint32_t>(staged.targets.size()));
      }
      // A crawled page's state is implied by its record: no entry (an expired lease may
      // have left one behind, so delete without asking), and its payload was delivered.
      Key32 key(id);
      MDB_val k = key.val();
      int rc = mdb_del(txn, store.schedule, &k, nullptr);
      if (rc != 0 && rc != MDB_NOTFOUND) return write.Check(rc, "end the schedule entry in");
      rc = mdb_del(txn, store.payloads, &k, nullptr);
      if (rc != 0 && rc != MDB_NOTFOUND) return write.Check(rc, "delete the payload in");
    }
    if (options.score == ScoreMode::kLinkScore) {
      for (const auto& [id, old] : write.raised_scores()) staged.raised.push_back(id);
    }
    if (live_rank.has_value()) staged.relinked.assign(write.relinked().begin(), write.relinked().end());
    for (const auto& change : staged.failures) {
      std::string value;
      EncodeScheduleEntry(change.entry, &value);
      Key32 key(change.id);
      MDB_val k = key.val(), v = Val(value);
      CRAWLRANK_RETURN_IF_ERROR(
          write.Check(mdb_put(txn, store.schedule, &k, &v, 0), "write a schedule entry to"));
    }
    for (const auto& [number, entry] : staged.host_changes) {
      std::string value;
      EncodeHostEntry(entry, &value);
      MDB_val k = Val(hosts[number].key), v = Val(value);
      if (k.mv_size == 0) continue;  // URLs without a host key share no persistent state
      CRAWLRANK_RETURN_IF_ERROR(
          write.Check(mdb_put(txn, store.hosts, &k, &v, 0), "write a host entry to"));
    }
    return Status::Ok();
  }

  void Committed() override {
    std::lock_guard lock(mu);
    const int64_t now = clock.NowMs();
    relinked.insert(relinked.end(), staged.relinked.begin(), staged.relinked.end());
    Grow(static_cast<uint32_t>(store.writer.counters.pages));
    for (const Staged::NewPage& page : staged.created) {
      Place(page.id, page.host, page.depth, page.fingerprint, page.link_score, page.allowed,
            page.crawled, page.history, page.priority, now);
    }
    for (size_t i = 0; i < staged.fetched.size(); ++i) {
      const uint32_t id = staged.fetched[i];
      if (Pushes() && slot[id] != kCrawled) {  // first crawl only: a replay can match it
        const uint32_t begin = i == 0 ? 0 : staged.ends[i - 1];
        PushFrom(id, std::span(staged.targets).subspan(begin, staged.ends[i] - begin), now);
      }
      MarkCrawled(id, now);
      if (!staged.revisit_history.empty()) {
        ScheduleRevisit(id, NextRevisit(id, staged.revisit_history[i], false));
      }
    }
    for (uint32_t id : staged.revisit_failed) {
      if (slot[id] != kLeased || revisit_leases.erase(id) == 0) continue;
      leases.erase(id);
      EndFlight(host_of[id], now);
      slot[id] = kCrawled;
      ScheduleRevisit(id, now + options.retry_ms);
      Reschedule(host_of[id], now);
    }
    if (RerankDue(now)) rerank_cv.notify_one();
    for (uint32_t id : staged.raised) {
      keys[id] = store.link_scores[id];
      Rekey(id, now);
    }
    for (const auto& change : staged.failures) ApplyFailure(change.id, change.entry, now);
    for (const auto& [number, entry] : staged.host_changes) {
      Host& h = hosts[number];
      h.hold_until_ms = entry.hold_until_ms;
      h.holds_in_a_row = entry.holds_in_a_row;
      // A longer delay also applies to the time since the last hand-out (a crawler learns
      // a host's Crawl-delay while its first request is out).
      const int64_t before = DelayOf(h);
      h.crawl_delay_ms = entry.crawl_delay_ms;
      if (h.ready_at_ms > 0 && DelayOf(h) > before) h.ready_at_ms += DelayOf(h) - before;
      h.robots = entry.robots;
      JoinGroup(number, entry.group, now);
      Reschedule(number, now);
    }
    if (staged.next_lease != 0) next_lease = std::max(next_lease, staged.next_lease);
    staged.Clear();
  }

  void RolledBack() override {
    std::lock_guard lock(mu);
    // Undo Next's picks, newest first.
    for (auto it = staged.picks.rbegin(); it != staged.picks.rend(); ++it) {
      leases.erase(it->id);
      Host& h = hosts[it->host];
      EndFlight(it->host, clock.NowMs());
      h.in_flight = it->in_flight;
      h.ready_at_ms = it->ready_at_ms;
      if (h.group != kNoGroup) groups[h.group].ready_at_ms = it->group_ready_at_ms;
      if (it->revisit) {
        revisit_leases.erase(it->id);
        slot[it->id] = kCrawled;
        revisit_due.push({revisit_at[it->id], it->id, 0});
      } else {
        slot[it->id] = kUnknown;
        h.queue.Push(it->id, it->key, PriorityOf(it->id), slot);
        ++queued;
      }
      Reschedule(it->host, clock.NowMs());
    }
    staged.Clear();
  }

  // A page the schedule has not seen: crawled, or queued (or filtered).
  // `history`: for a crawled page, its crawl counters (revisits).
  // `priority`: the tier of an uncrawled page (QueuedExtra::priority).
  void Place(uint32_t id, uint32_t host, uint32_t depth, uint64_t fingerprint, float link_score,
             bool allowed, bool was_crawled, const CrawlHistory& history, int32_t priority,
             int64_t now) {
    if (was_crawled) {
      host_of[id] = host;
      slot[id] = kCrawled;
      ++crawled;
      ++hosts[host].done;
      if (allowed) ScheduleRevisit(id, NextRevisit(id, history, true));
      return;
    }
    if (priority != 0) priorities[id] = priority;
    Enqueue(id, host, depth, fingerprint, link_score, allowed, now);
  }

  void MarkCrawled(uint32_t id, int64_t now) {
    const uint32_t state = slot[id];
    if (state == kCrawled) return;  // a recrawl not handed out by Next
    const uint32_t host = host_of[id];
    if (state == kLeased && revisit_leases.erase(id) != 0) {  // a revisit came back
      leases.erase(id);
      EndFlight(host, now);
      hosts[host].holds_in_a_row = 0;
      slot[id] = kCrawled;
      Reschedule(host, now);
      return;
    }
    if (state < kFirstState) {
      Host& h = hosts[host];
      const bool top = state == 0;
      h.queue.RemoveAt(state, kCrawled, slot);
      --queued;
      if (top) Reschedule(host, now);
    } else if (state == kLeased) {
      leases.erase(id);
      EndFlight(host, now);
      hosts[host].holds_in_a_row = 0;
    } else if (state == kRetrying) {
      --retrying;
    } else if (state == kFailed) {
      --failed;
      --hosts[host].done;
    } else if (state == kFiltered) {
      --filtered;
    }
    failures.erase(id);
    if (!priorities.empty()) priorities.erase(id);
    slot[id] = kCrawled;
    ++crawled;
    if (host != kNoHost) {
      ++hosts[host].done;
      Reschedule(host, now);
    }
  }

  void ApplyFailure(uint32_t id, const ScheduleEntry& entry, int64_t now) {
    const uint32_t state = slot[id];
    const uint32_t host = host_of[id];
    if (state == kLeased) {
      leases.erase(id);
      EndFlight(host, now);
    } else if (state < kFirstState) {
      hosts[host].queue.RemoveAt(state, kUnknown, slot);
      --queued;
    } else if (state == kRetrying) {
      --retrying;
    } else if (state == kFailed || state == kCrawled) {
      return;  // a late report about a page already settled
    }
    if (entry.state == EntryState::kFailed) {
      slot[id] = kFailed;
      failures.erase(id);
      if (!priorities.empty()) priorities.erase(id);
      ++failed;
      ++hosts[host].done;
    } else {
      slot[id] = kRetrying;
      failures[id] = entry.failures;
      ++retrying;
      retry_due.push({entry.time_ms, id, 0});
    }
    Reschedule(host, now);
  }
};

Scheduler::Scheduler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Scheduler::~Scheduler() = default;

namespace {

Status ValidateOptions(const SchedulerOptions& options) {
  if (options.max_in_flight_per_host == 0 || options.min_delay_ms < 0 || options.lease_ms <= 0 ||
      options.retry_ms < 0 || options.hold_ms < 0 || options.max_hold_ms < options.hold_ms ||
      !(options.rerank_growth >= 0)) {
    return InvalidArgumentError(
        "scheduler options: max_in_flight_per_host must be at least 1, lease_ms above 0, "
        "min_delay_ms, retry_ms, hold_ms and rerank_growth not negative, max_hold_ms at least "
        "hold_ms");
  }
  return Status::Ok();
}

}  // namespace

Status Scheduler::Impl::Load(bool writer) {
  CRAWLRANK_RETURN_IF_ERROR(CompileFilters());
  const int64_t now = clock.NowMs();
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  std::lock_guard lock(mu);
  Grow(static_cast<uint32_t>(snapshot.counters().pages));
  CRAWLRANK_RETURN_IF_ERROR(InitialKeys(snapshot));
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    Place(page.id, HostNumber(page.url), page.depth, page.fingerprint, page.link_score,
          Allowed(page.url), page.crawled(), HistoryOf(page), 0, now);
    return Status::Ok();
  }));
  if (!store.has_schedule) return Status::Ok();  // format version 2, read-only
  // The scheduler's own tables, read in the snapshot's transaction: host state, then
  // the pages whose state their records do not imply.
  MDB_txn* txn = PageDbInternals::TxnOf(snapshot);
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor host_cursor,
                             lmdb::Cursor::Open(txn, store.hosts, store.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, host_cursor.Next(&k, &v));
    if (!more) break;
    HostEntry entry;
    CRAWLRANK_RETURN_IF_ERROR(
        DecodeHostEntry(View(k), View(v), &entry).WithContext(PageDbName(store.path)));
    auto [it, inserted] =
        host_numbers.try_emplace(std::string(View(k)), static_cast<uint32_t>(hosts.size()));
    if (inserted) hosts.emplace_back().key = std::string(View(k));
    Host& h = hosts[it->second];
    h.hold_until_ms = entry.hold_until_ms;
    h.holds_in_a_row = entry.holds_in_a_row;
    h.crawl_delay_ms = entry.crawl_delay_ms;
    h.robots = std::move(entry.robots);
    JoinGroup(it->second, entry.group, now);
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor,
                             lmdb::Cursor::Open(txn, store.schedule, store.path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4)
      return DataLossError(PageDbName(store.path) + ": schedule key of wrong size");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    ScheduleEntry entry;
    CRAWLRANK_RETURN_IF_ERROR(
        DecodeScheduleEntry(id, View(v), &entry).WithContext(PageDbName(store.path)));
    if (id >= slot.size() || (slot[id] == kCrawled && entry.state != EntryState::kLeased)) {
      return DataLossError(PageDbName(store.path) + ": schedule entry of page " +
                           std::to_string(id) + ", which is " +
                           (id >= slot.size() ? "not in the DB" : "crawled"));
    }
    if (slot[id] == kCrawled) {  // a revisit in flight
      if (writer) {
        revisits_returned.push_back(id);  // its entry goes; it is due as its record says
      } else {
        TakeLease(id, {entry.lease, entry.time_ms}, now);
      }
      continue;
    }
    if (entry.failures > 0) failures[id] = entry.failures;
    // The tier of a page not failed for good (queued, leased or retrying), whatever
    // happens to it below: a lease or a retry that returns re-queues it there.
    if (entry.state != EntryState::kFailed && entry.priority != 0) {
      SetPriority(id, entry.priority, now);
    }
    if (entry.state == EntryState::kLeased) {
      if (writer) {
        // The writer that leased it is gone (this process holds the writer lock now).
        entry.state = EntryState::kQueued;
        returned.emplace_back(id, entry);
      } else {
        TakeLease(id, {entry.lease, entry.time_ms}, now);
      }
    } else if (entry.state != EntryState::kQueued) {
      ApplyFailure(id, entry, now);
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Scheduler>> Scheduler::Open(PageDb& db, const SchedulerOptions& options) {
  if (db.read_only()) {
    return FailedPreconditionError("schedule " + PageDbName(db.path()) +
                                   ": opened read-only; a Scheduler needs the writer");
  }
  CRAWLRANK_RETURN_IF_ERROR(ValidateOptions(options));
  auto impl = std::make_unique<Impl>(db, options);
  Impl& s = *impl;
  // Hold the writer's lock while loading and joining, so that no page is written between
  // the snapshot read here and the hook's first transaction.
  std::lock_guard writer(s.store.write_mutex);
  if (s.store.write_hook != nullptr) {
    return FailedPreconditionError("schedule " + PageDbName(db.path()) +
                                   ": another Scheduler uses this PageDb");
  }
  CRAWLRANK_RETURN_IF_ERROR(s.Load(true));
  // The dead writer's leases, returned in memory by Load, are returned in the table too.
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Txn txn, lmdb::Txn::Begin(s.store.env.get(), 0, s.store.path));
  std::string value;
  for (const auto& [id, entry] : s.returned) {
    value.clear();
    EncodeScheduleEntry(entry, &value);
    Key32 key(id);
    MDB_val k = key.val(), v = Val(value);
    if (const int rc = mdb_put(txn.get(), s.store.schedule, &k, &v, 0); rc != 0) {
      return lmdb::Error(rc, "return the leases of the previous writer in", s.store.path);
    }
  }
  for (uint32_t id : s.revisits_returned) {
    Key32 key(id);
    MDB_val k = key.val();
    if (const int rc = mdb_del(txn.get(), s.store.schedule, &k, nullptr); rc != 0) {
      return lmdb::Error(rc, "return the revisits of the previous writer in", s.store.path);
    }
  }
  s.returned.clear();
  s.revisits_returned.clear();
  CRAWLRANK_RETURN_IF_ERROR(txn.Commit(s.store.path));
  s.store.write_hook = &s;
  if (s.ranked() && options.background_rerank) {
    s.rerank_thread = std::jthread([&s](std::stop_token stop) { s.RerankLoop(std::move(stop)); });
  }
  return std::unique_ptr<Scheduler>(new Scheduler(std::move(impl)));
}

Result<ScheduleView> Scheduler::Inspect(const PageDb& db, const SchedulerOptions& options,
                                        size_t next, size_t max_hosts) {
  CRAWLRANK_RETURN_IF_ERROR(ValidateOptions(options));
  // Loading without the writer reads and never writes: leases stay leased, nothing joins.
  Impl s(const_cast<PageDb&>(db), options);
  CRAWLRANK_RETURN_IF_ERROR(s.Load(false));
  ScheduleView view;
  const int64_t now = s.clock.NowMs();
  view.now_ms = now;
  std::vector<PageHeap::Entry> queued;
  for (uint32_t id = 0; id < s.slot.size(); ++id) {
    if (s.slot[id] < kFirstState) queued.push_back({s.keys[id], id, s.PriorityOf(id)});
  }
  const size_t shown = std::min(next, queued.size());
  std::partial_sort(queued.begin(), queued.begin() + static_cast<std::ptrdiff_t>(shown),
                    queued.end(), PageHeap::Before);
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  const auto url_of = [&](uint32_t id) -> Result<std::string> {
    CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, snapshot.FindId(id));
    return record.url;
  };
  for (size_t i = 0; i < shown; ++i) {
    const uint32_t id = queued[i].id;
    CRAWLRANK_ASSIGN_OR_RETURN(std::string url, url_of(id));
    view.next.push_back(
        {std::move(url), queued[i].key, s.hosts[s.host_of[id]].key, queued[i].priority});
  }
  for (const auto& [id, lease] : s.leases) {
    CRAWLRANK_ASSIGN_OR_RETURN(std::string url, url_of(id));
    view.in_flight.push_back(
        {std::move(url), lease.id, lease.expiry_ms, s.hosts[s.host_of[id]].key});
  }
  std::sort(view.in_flight.begin(), view.in_flight.end(),
            [](const auto& a, const auto& b) { return a.lease < b.lease; });
  for (const Host& h : s.hosts) {
    if (h.queue.empty() && h.in_flight == 0 && h.hold_until_ms <= now && h.crawl_delay_ms == 0) {
      continue;
    }
    view.hosts.push_back({h.key, std::max(now, h.hold_until_ms), h.hold_until_ms, h.in_flight,
                          h.queue.size(), h.done, s.DelayOf(h)});
  }
  std::sort(view.hosts.begin(), view.hosts.end(), [](const auto& a, const auto& b) {
    return a.queued != b.queued ? a.queued > b.queued : a.key < b.key;
  });
  if (view.hosts.size() > max_hosts) view.hosts.resize(max_hosts);
  std::lock_guard lock(s.mu);
  view.stats = s.Stats();
  return view;
}

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

Status Scheduler::Impl::LeaseOut(WriteTxn& write, uint32_t id, uint32_t number, float key,
                                 bool revisit, int64_t now, std::vector<Request>* out) {
  Host& h = hosts[number];
  staged.picks.push_back({id, number, key, h.in_flight, h.ready_at_ms, revisit,
                          h.group == kNoGroup ? 0 : groups[h.group].ready_at_ms});
  if (revisit) {
    slot[id] = kLeased;
    revisit_leases.insert(id);
  } else {
    h.queue.RemoveAt(slot[id], kLeased, slot);
    --queued;
  }
  const Lease lease{staged.next_lease++, now + options.lease_ms};
  leases[id] = lease;
  lease_expiry.push({lease.expiry_ms, id, lease.id});
  StartFlight(number, now);
  Reschedule(number, now);

  ScheduleEntry entry;
  entry.state = EntryState::kLeased;
  auto known = failures.find(id);
  entry.failures = known == failures.end() ? 0 : known->second;
  entry.lease = lease.id;
  entry.time_ms = lease.expiry_ms;
  entry.priority = PriorityOf(id);  // a returned lease re-queues at its tier
  std::string value;
  EncodeScheduleEntry(entry, &value);
  Key32 k32(id);
  MDB_val k = k32.val(), v = Val(value);
  CRAWLRANK_RETURN_IF_ERROR(
      write.Check(mdb_put(write.txn(), store.schedule, &k, &v, 0), "lease a page in"));
  // The page's URL and depth, from its record.
  MDB_val rv;
  CRAWLRANK_RETURN_IF_ERROR(
      write.Check(mdb_get(write.txn(), store.pages, &k, &rv), "read a leased page of"));
  PageRecord record;
  CRAWLRANK_RETURN_IF_ERROR(
      DecodePageRecord(id, View(rv), &record).WithContext(PageDbName(store.path)));
  // Its payload, if the call that created it gave one.
  MDB_val pv;
  std::string payload;
  if (const int rc = mdb_get(write.txn(), store.payloads, &k, &pv); rc == 0) {
    payload.assign(View(pv));
  } else if (rc != MDB_NOTFOUND) {
    return write.Check(rc, "read the payload of a leased page of");
  }
  out->push_back({std::move(record.url), record.fingerprint, record.depth, key, lease.id, h.key,
                  revisit, std::move(payload), entry.priority});
  return Status::Ok();
}

Result<std::vector<Request>> Scheduler::Next(size_t n) {
  Impl& s = *impl_;
  if (!s.options.background_rerank && s.ranked()) {
    bool due;
    {
      std::lock_guard lock(s.mu);
      due = s.RerankDue(s.clock.NowMs());
    }
    if (due) CRAWLRANK_RETURN_IF_ERROR(s.RankAndRekey());
  }
  std::vector<Request> out;
  Status status = RunWrite(s.store, nullptr, [&](WriteTxn& write) -> Status {
    out.clear();
    std::lock_guard lock(s.mu);
    const int64_t now = s.clock.NowMs();
    s.PromoteDue(now);
    s.staged.next_lease = s.next_lease;
    // New pages, best first, from the hosts ready now.
    const auto take = [&](std::priority_queue<Ready>& heap) -> Status {
      while (out.size() < n && !heap.empty()) {
        if (s.options.max_pages != 0 && s.Done() + s.leases.size() >= s.options.max_pages) break;
        const Ready top = heap.top();
        heap.pop();
        Host& h = s.hosts[top.host];
        if (h.ticket != top.ticket) continue;  // stale: the host changed since
        CRAWLRANK_RETURN_IF_ERROR(
            s.LeaseOut(write, h.queue.top().id, top.host, h.queue.top().key, false, now, &out));
      }
      return Status::Ok();
    };
    // Revisits due now, earliest first, from hosts ready now. Those whose host is not
    // ready are put back; at most 4 per request asked for are looked at.
    const auto take_revisits = [&](size_t limit) -> Status {
      std::vector<Timed> deferred;
      for (size_t looked = 0; out.size() < limit && !s.revisit_due.empty() &&
                              s.revisit_due.top().time <= now && looked < 4 * n + 16;
           ++looked) {
        const Timed t = s.revisit_due.top();
        s.revisit_due.pop();
        if (s.slot[t.who] != kCrawled || s.revisit_at[t.who] != t.time) continue;  // stale
        const uint32_t number = s.host_of[t.who];
        if (!s.HostReady(s.hosts[number], now)) {
          deferred.push_back(t);
          continue;
        }
        CRAWLRANK_RETURN_IF_ERROR(s.LeaseOut(write, t.who, number, 0, true, now, &out));
      }
      for (const Timed& t : deferred) s.revisit_due.push(t);
      return Status::Ok();
    };
    if (s.options.revisits) {
      const auto share =
          static_cast<size_t>(std::ceil(s.options.revisit_share * static_cast<double>(n)));
      CRAWLRANK_RETURN_IF_ERROR(take_revisits(std::min(n, share)));
    }
    CRAWLRANK_RETURN_IF_ERROR(take(s.ready));
    if (s.options.revisits) CRAWLRANK_RETURN_IF_ERROR(take_revisits(n));
    if (out.size() < n && s.Busy()) {  // nothing is ready at the soft rate: the hard rate
      s.PromoteBusy(now);
      CRAWLRANK_RETURN_IF_ERROR(take(s.busy_ready));
    }
    s.CompactQueues();
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return out;
}

Status Scheduler::Crawled(const CrawlReport& report) {
  return CrawledBatch({report});
}

Status Scheduler::CrawledBatch(const std::vector<CrawlReport>& reports) {
  Impl& s = *impl_;
  // The extras' URLs, canonical, in report order: a bad one fails the call here, before
  // anything is written.
  struct Named {
    std::string url;
    uint64_t fingerprint;
    const QueuedExtra* extra;
  };
  std::vector<Named> extras;
  for (const CrawlReport& report : reports) {
    for (const QueuedExtra& extra : report.extras) {
      auto url = CanonicalizeUrl(extra.url, s.db.url_profile());
      if (!url.ok()) {
        return url.status().WithContext("queue an extra in the report of \"" + report.page.url +
                                        "\"");
      }
      const uint64_t fingerprint = UrlFingerprint(*url);
      extras.push_back({*std::move(url), fingerprint, &extra});
    }
  }
  std::vector<const CrawledPage*> pages;
  pages.reserve(reports.size());
  for (const CrawlReport& report : reports) pages.push_back(&report.page);
  const PreparedBatch prepared = Prepare(pages, false, s.db.url_profile());
  return RunWrite(s.store, nullptr, [&](WriteTxn& write) -> Status {
    if (!extras.empty()) {
      std::lock_guard lock(s.mu);
      for (const Named& named : extras) s.StageExtra(named.url, named.fingerprint, *named.extra);
    }
    for (size_t i = 0; i < prepared.size(); ++i)
      CRAWLRANK_RETURN_IF_ERROR(write.Apply(prepared.at(i)));
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
    const uint32_t id = found->id;
    std::lock_guard lock(s.mu);
    const int64_t now = s.clock.NowMs();
    if (id >= s.slot.size() || s.slot[id] == kCrawled || s.slot[id] == kFailed) {
      return Status::Ok();  // a late report about a page already settled
    }
    if (s.revisit_leases.count(id) != 0) {
      // A revisit that failed: the page keeps what its last crawl found, and is due again
      // after retry_ms. Its lease entry goes (a crawled page has no entry otherwise).
      Key32 key(id);
      MDB_val k = key.val();
      const int rc = mdb_del(write.txn(), s.store.schedule, &k, nullptr);
      if (rc != 0 && rc != MDB_NOTFOUND) return write.Check(rc, "end the schedule entry in");
      s.staged.revisit_failed.push_back(id);
      return Status::Ok();
    }
    auto known = s.failures.find(id);
    ScheduleEntry entry;
    entry.failures = (known == s.failures.end() ? 0 : known->second) + 1;
    entry.priority = s.PriorityOf(id);  // kept while it may retry
    if (report.retryable && entry.failures <= s.options.max_retries) {
      entry.state = EntryState::kRetrying;
      const int shift = static_cast<int>(std::min<uint32_t>(entry.failures - 1, 30));
      entry.time_ms = now + s.options.retry_ms * (int64_t{1} << shift);
    } else {
      entry.state = EntryState::kFailed;
      entry.http_status = report.http_status;
      entry.reason = report.reason.empty() ? "failed" : report.reason;
      // Failed for good: its payload will never be handed out.
      Key32 key(id);
      MDB_val k = key.val();
      const int rc = mdb_del(write.txn(), s.store.payloads, &k, nullptr);
      if (rc != 0 && rc != MDB_NOTFOUND) return write.Check(rc, "delete the payload in");
    }
    s.staged.failures.push_back({id, entry});
    if (report.http_status == 429 || report.http_status == 503) {
      const uint32_t number = s.host_of[id];
      const Host& h = s.hosts[number];
      HostEntry held{0, h.holds_in_a_row + 1, h.crawl_delay_ms, h.robots, s.GroupName(h)};
      int64_t hold = s.options.hold_ms;
      if (report.retry_after_ms) {
        hold = std::clamp<int64_t>(*report.retry_after_ms, 0, s.options.max_hold_ms);
      } else {
        for (uint32_t i = 0; i < h.holds_in_a_row && hold < s.options.max_hold_ms; ++i) hold *= 2;
        hold = std::min(hold, s.options.max_hold_ms);
      }
      held.hold_until_ms = now + hold;
      s.staged.host_changes.emplace_back(number, std::move(held));
    }
    return Status::Ok();
  });
}

Status Scheduler::Impl::ChangeHost(std::string_view key,
                                   const std::function<void(HostEntry&)>& change) {
  if (key.empty()) return InvalidArgumentError("change a host: empty host key");
  return RunWrite(store, nullptr, [&](WriteTxn&) -> Status {
    std::lock_guard lock(mu);
    auto [it, inserted] =
        host_numbers.try_emplace(std::string(key), static_cast<uint32_t>(hosts.size()));
    if (inserted) hosts.emplace_back().key = std::string(key);
    const Host& h = hosts[it->second];
    HostEntry entry{h.hold_until_ms, h.holds_in_a_row, h.crawl_delay_ms, h.robots, GroupName(h)};
    change(entry);
    staged.host_changes.emplace_back(it->second, std::move(entry));
    return Status::Ok();
  });
}

Status Scheduler::SetCrawlDelay(std::string_view host, int64_t delay_ms) {
  if (delay_ms < 0) {
    return InvalidArgumentError("crawl delay of \"" + std::string(host) + "\": negative");
  }
  return impl_->ChangeHost(host, [&](HostEntry& entry) { entry.crawl_delay_ms = delay_ms; });
}

Status Scheduler::Rerank() {
  if (!impl_->ranked()) return Status::Ok();
  return impl_->RankAndRekey();
}

Status Scheduler::SetHostGroup(std::string_view host, std::string_view group) {
  return impl_->ChangeHost(host, [&](HostEntry& entry) { entry.group.assign(group); });
}

std::string Scheduler::HostRobots(std::string_view host) const {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->host_numbers.find(std::string(host));
  return it == impl_->host_numbers.end() ? std::string() : impl_->hosts[it->second].robots;
}

Status Scheduler::SetHostRobots(std::string_view host, std::string_view bytes) {
  return impl_->ChangeHost(host, [&](HostEntry& entry) { entry.robots.assign(bytes); });
}

SchedulerStats Scheduler::Impl::Stats() const {
  const Impl& s = *this;
  const int64_t now = s.clock.NowMs();
  SchedulerStats stats;
  stats.queued = s.queued;
  stats.in_flight = s.leases.size();
  stats.retrying = s.retrying;
  stats.crawled = s.crawled;
  stats.failed = s.failed;
  stats.filtered = s.filtered;
  stats.hosts = s.hosts.size();
  stats.reranks = s.reranks;
  stats.rank_full_reads = s.rank_full_reads;
  stats.ranked_pages = s.ranked_pages;
  stats.rerank_error = s.rerank_error;
  int64_t next = -1;
  const auto consider = [&](int64_t t) { next = next < 0 ? t : std::min(next, t); };
  for (const Host& h : s.hosts) {
    if (h.queue.empty() || s.Exhausted(h)) continue;
    const int64_t at = s.ReadyAt(h);
    if (s.HasRoom(h)) {
      if (at <= now) stats.ready += h.queue.size();
      consider(std::max(at, now));
    }
  }
  // The time queues may hold stale entries (settled early): their top is a lower bound.
  if (s.retrying > 0) consider(std::max(now, s.retry_due.top().time));
  if (!s.leases.empty()) consider(std::max(now, s.lease_expiry.top().time));
  if (!s.revisit_due.empty()) {
    stats.next_revisit_ms = s.revisit_due.top().time;
    consider(std::max(now, stats.next_revisit_ms));
  }
  const bool limit = s.options.max_pages != 0 && s.Done() >= s.options.max_pages;
  stats.finished = limit || (stats.in_flight == 0 && stats.retrying == 0 && next < 0);
  stats.next_ready_ms = stats.finished ? -1 : next;
  return stats;
}

SchedulerStats Scheduler::GetStats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->Stats();
}

}  // namespace crawlrank
