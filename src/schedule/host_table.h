// Politeness: the hosts of a schedule (each a politeness key, SchedulerOptions::host_key),
// their politeness groups, and the heaps that say which host may take a request when.
//
// Each host keeps its queued pages in a PageHeap; the page state machine pushes and takes
// pages there, and calls Reschedule after any change to a host, which files the host where
// PopReady looks for it: in `ready` by its best page when it may take a request now, else
// in `waiting` by the time it may. With a hard rate (busy_delay_ms below delay_ms) it
// is filed a second time at that rate, for the Next calls that find no host ready at the
// normal one. Entries are invalidated by a ticket per host, never removed, and skipped as
// they reach the top; Compact rebuilds the heaps when stale entries pile up. Nothing here
// reads the PageDB or the clock: every call is given `now`.
#ifndef CRAWLRANK_SRC_SCHEDULE_HOST_TABLE_H_
#define CRAWLRANK_SRC_SCHEDULE_HOST_TABLE_H_

#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crawlrank/scheduler_options.h"
#include "page_db/schedule_table.h"
#include "schedule/page_heap.h"
#include "schedule/time_queue.h"

namespace crawlrank {

struct Host {
  std::string key;
  PageHeap queue;
  uint32_t in_flight = 0;
  uint64_t done = 0;           // crawled or failed for good (max_pages_per_host)
  int64_t ready_at_ms = 0;     // the politeness delay since the last hand-out
  int64_t crawl_delay_ms = 0;  // SetCrawlDelay; 0: delay_ms
  int64_t hold_until_ms = 0;   // 429 / 503
  uint32_t holds_in_a_row = 0;
  std::string robots;           // kept for the crawler (format version 3 reserves it)
  uint64_t ticket = 0;          // the host's entries in the heaps with this ticket are valid
  uint32_t group = UINT32_MAX;  // its politeness group (SetHostGroup); none: its own budget
  uint64_t page_limit = 0;      // SetHostLimit; 0: max_pages_per_host
};

class HostTable {
 public:
  static constexpr uint32_t kNoGroup = UINT32_MAX;

  explicit HostTable(const SchedulerOptions& options);

  // ---- hosts by number
  // The number of the host of canonical `url` (a URL without a host key shares the host
  // ""), created when new.
  uint32_t NumberOfUrl(std::string_view url);
  // The number of host `key`, created when new.
  uint32_t Number(std::string key);
  std::optional<uint32_t> Find(std::string_view key) const;
  Host& operator[](uint32_t number) { return hosts_[number]; }
  const Host& operator[](uint32_t number) const { return hosts_[number]; }
  size_t size() const { return hosts_.size(); }
  const std::vector<Host>& all() const { return hosts_; }

  // ---- politeness of one host
  // Its delay between two requests: delay_ms, or its crawl delay when longer.
  int64_t DelayOf(const Host& h) const;
  // Its page limit (its own, else max_pages_per_host) reached by what it has done and has
  // in flight.
  bool Exhausted(const Host& h) const;
  // Room for one more request to the host and to its group.
  bool HasRoom(const Host& h) const;
  // When the host may take a request: its delay, its hold, and its group's delay.
  int64_t ReadyAt(const Host& h) const;
  bool Ready(const Host& h, int64_t now) const { return HasRoom(h) && ReadyAt(h) <= now; }
  // Its persistent state (the `hosts` table's entry).
  HostEntry EntryOf(const Host& h) const;
  // Makes `entry` its state: the hold, the crawl delay (a longer one also extends the
  // delay since the last hand-out), the robots.txt state, the group, the page limit.
  // Files it again.
  void Apply(uint32_t number, const HostEntry& entry, int64_t now);

  // ---- requests in flight
  // A request to the host starts now: its delay (and its group's) runs from now.
  void StartFlight(uint32_t number, int64_t now);
  // Counts a request in flight without starting a delay (a reader loading leases).
  void CountFlight(uint32_t number);
  void EndFlight(uint32_t number, int64_t now);
  // What StartFlight changes, to undo it (a rolled-back hand-out).
  struct FlightMark {
    uint32_t in_flight;
    int64_t ready_at_ms, group_ready_at_ms;
  };
  FlightMark Mark(uint32_t number) const;
  // Ends the flight and restores the host as `mark` saw it (the caller files it again).
  void Undo(uint32_t number, const FlightMark& mark, int64_t now);

  // ---- groups
  // Moves the host into group `name` (empty: out of any group), and files it again.
  void JoinGroup(uint32_t number, const std::string& name, int64_t now);

  // Changes delay_ms: each host's time since its last hand-out is measured against its
  // new delay, and every host is filed again.
  void SetMinDelay(int64_t delay_ms, int64_t now);

  // ---- where Next finds hosts
  // Files the host where PopReady looks for it, after any change to it.
  void Reschedule(uint32_t number, int64_t now);
  // Moves the hosts whose time has come to `ready` (and, with a hard rate, `busy` ones).
  void PromoteWaiting(int64_t now);
  void PromoteBusy(int64_t now);
  // The hard rate (busy_delay_ms) is in use: it is below delay_ms.
  bool Busy() const;
  // The ready host with the best page (`busy`: at the hard rate), taken off the heap; the
  // caller takes a page and files it again. nullopt when none is ready.
  std::optional<uint32_t> PopReady(bool busy);
  // Rebuilds the heaps when they hold more than `bound` entries (stale ones pile up).
  void Compact(size_t bound, int64_t now);
  // Pages queued at hosts that may take a request now (added to *ready), and the earliest
  // time a host with queued pages may (never later); -1 when none has room.
  int64_t NextReady(int64_t now, uint64_t* ready) const;

 private:
  // Hosts that share one politeness budget (SetHostGroup): requests in flight to any of
  // them count together, and the delay runs from the last request to any of them.
  struct Group {
    std::string name;
    std::vector<uint32_t> members;  // host numbers
    uint32_t in_flight = 0;
    int64_t ready_at_ms = 0;
  };
  // A host by its best page, ordered as PageHeap orders pages (a max-heap).
  struct ReadyHost {
    int32_t priority;
    float key;
    uint32_t best;  // the host's best page id (ties)
    uint32_t host;
    uint64_t ticket;
    bool operator<(const ReadyHost& o) const {
      return PageHeap::Before({o.key, o.best, o.priority}, {key, best, priority});
    }
    static ReadyHost Of(const PageHeap::Entry& top, uint32_t host, uint64_t ticket) {
      return {top.priority, top.key, top.id, host, ticket};
    }
  };

  int64_t BusyDelayOf(const Host& h) const;
  std::string GroupName(const Host& h) const;
  void RescheduleGroup(uint32_t group, uint32_t except, int64_t now);

  struct Politeness {
    HostKeyMode host_key;
    int64_t delay_ms;
    uint32_t per_host;
    int64_t busy_delay_ms;
    uint64_t max_pages_per_host;
  } options_;
  std::vector<Host> hosts_;
  std::unordered_map<std::string, uint32_t> numbers_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, uint32_t> group_numbers_;
  std::priority_queue<ReadyHost> ready_;
  TimeQueue waiting_;  // hosts with queued pages, by the time they may take one
  // The same at the hard rate (busy_delay_ms), used when `ready_` has nothing.
  std::priority_queue<ReadyHost> busy_ready_;
  TimeQueue busy_waiting_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_HOST_TABLE_H_
