// A queue of things that come due at a time: hosts whose delay ends, leases that expire,
// retries and revisits. Entries are never removed early; each carries a ticket (or a
// time) that its owner compares with the current one, skipping stale entries as they come
// to the top.
#ifndef CRAWLRANK_SRC_SCHEDULE_TIME_QUEUE_H_
#define CRAWLRANK_SRC_SCHEDULE_TIME_QUEUE_H_

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace crawlrank {

struct Timed {
  int64_t time;
  uint32_t who;     // a page id or a host number
  uint64_t ticket;  // what its owner checks the entry against (a lease id, a host ticket)
  // Earlier first; at one time, the lower number.
  bool operator>(const Timed& o) const { return time > o.time || (time == o.time && who > o.who); }
};
using TimeQueue = std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>>;

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_TIME_QUEUE_H_
