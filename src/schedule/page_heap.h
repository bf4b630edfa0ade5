// A host's queue: a binary max-heap of (priority, score, page id) whose entries' positions
// are kept in an array by page id shared by every host's heap, so that an entry can be
// found, re-keyed or removed in O(log n) (the index page -> current key that Aduana lacked).
// The priority is the caller's tier (QueuedExtra::priority, 0 for most pages): it goes
// before the score, and a re-key keeps it.
#ifndef CRAWLRANK_SRC_SCHEDULE_PAGE_HEAP_H_
#define CRAWLRANK_SRC_SCHEDULE_PAGE_HEAP_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace crawlrank {

// Positions at or above kFirstState are not heap positions: the page is in no heap, and
// the value says why (the scheduler's page states).
inline constexpr uint32_t kFirstState = 0xFFFFFFF0u;

class PageHeap {
 public:
  struct Entry {  // 12 bytes
    float key;
    uint32_t id;
    int32_t priority;
  };
  static_assert(sizeof(Entry) == 12, "docs/scheduler.md counts 12 bytes per queued page");
  // True when a goes before b: the higher priority, then the higher score, then the lower
  // id (discovered earlier).
  static bool Before(const Entry& a, const Entry& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.key > b.key || (a.key == b.key && a.id < b.id);
  }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  // REQUIRES: !empty().
  const Entry& top() const { return entries_.front(); }
  // Every entry, in heap order.
  const std::vector<Entry>& entries() const { return entries_; }

  // `slot[id]` receives the entry's position and follows it.
  void Push(uint32_t id, float key, int32_t priority, std::vector<uint32_t>& slot) {
    entries_.push_back({key, id, priority});
    Up(entries_.size() - 1, slot);
  }
  // Removes the entry at position `pos`, setting slot[its id] to `state`.
  void RemoveAt(uint32_t pos, uint32_t state, std::vector<uint32_t>& slot) {
    const uint32_t id = entries_[pos].id;
    const Entry last = entries_.back();
    entries_.pop_back();
    slot[id] = state;
    if (pos == entries_.size()) return;
    entries_[pos] = last;
    slot[last.id] = pos;
    Up(pos, slot);
    Down(slot[last.id], slot);
  }
  // Re-keys the entry at position `pos`; its priority stays.
  void Update(uint32_t pos, float key, std::vector<uint32_t>& slot) {
    entries_[pos].key = key;
    Move(pos, slot);
  }
  // Moves the entry at position `pos` to another priority; its key stays.
  void SetPriority(uint32_t pos, int32_t priority, std::vector<uint32_t>& slot) {
    entries_[pos].priority = priority;
    Move(pos, slot);
  }

 private:
  // Restores the heap order around the entry at `pos` after its ordering fields changed.
  void Move(uint32_t pos, std::vector<uint32_t>& slot) {
    const uint32_t id = entries_[pos].id;
    Up(pos, slot);
    Down(slot[id], slot);
  }
  void Up(size_t pos, std::vector<uint32_t>& slot) {
    const Entry e = entries_[pos];
    while (pos > 0) {
      const size_t parent = (pos - 1) / 2;
      if (!Before(e, entries_[parent])) break;
      entries_[pos] = entries_[parent];
      slot[entries_[pos].id] = static_cast<uint32_t>(pos);
      pos = parent;
    }
    entries_[pos] = e;
    slot[e.id] = static_cast<uint32_t>(pos);
  }
  void Down(size_t pos, std::vector<uint32_t>& slot) {
    const Entry e = entries_[pos];
    const size_t n = entries_.size();
    for (;;) {
      size_t child = 2 * pos + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(entries_[child + 1], entries_[child])) ++child;
      if (!Before(entries_[child], e)) break;
      entries_[pos] = entries_[child];
      slot[entries_[pos].id] = static_cast<uint32_t>(pos);
      pos = child;
    }
    entries_[pos] = e;
    slot[e.id] = static_cast<uint32_t>(pos);
  }

  std::vector<Entry> entries_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_PAGE_HEAP_H_
