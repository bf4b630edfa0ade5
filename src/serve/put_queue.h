// What a stream of writes (PutURLs items, PutDiscovered batches) has sent and the server has
// not written yet. The call's thread reads and checks each entry and pushes it here; a
// writer thread takes everything queued at once, writes it in one transaction and sends
// the acks together: one commit and one flush per group rather than per entry (group
// commit), and still no ack before its entry is committed.
//
// Bounded: Push waits while `max_entries` entries or `max_bytes` bytes are queued, so a
// client that sends faster than the PageDB writes is slowed down rather than held in memory.
// Thread safety: any number of threads may call any method.
#ifndef CRAWLRANK_SRC_SERVE_PUT_QUEUE_H_
#define CRAWLRANK_SRC_SERVE_PUT_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace crawlrank {

template <typename Entry>
class PutQueue {
 public:
  PutQueue(size_t max_entries, size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  // Queues `entry`, counting `bytes` against max_bytes (an entry larger than max_bytes is
  // taken when the queue is empty). Waits while the queue is full. False, and nothing
  // queued, once Stop was called.
  bool Push(Entry entry, size_t bytes) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] {
      return stopped_ || entries_.empty() ||
             (entries_.size() < max_entries_ && bytes_ + bytes <= max_bytes_);
    });
    if (stopped_) return false;
    entries_.push_back(std::move(entry));
    bytes_ += bytes;
    changed_.notify_all();
    return true;
  }
  // No more entries will come: TakeAll returns false once the queue is empty.
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    changed_.notify_all();
  }
  // The writer is gone (its client left): Push refuses from now on.
  void Stop() {
    std::lock_guard lock(mu_);
    stopped_ = true;
    changed_.notify_all();
  }
  // Waits for an entry or Close, then moves every entry queued to `entries` (replaced), in
  // the order pushed. False when closed and empty.
  bool TakeAll(std::vector<Entry>* entries) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return !entries_.empty() || closed_; });
    entries->clear();
    if (entries_.empty()) return false;
    entries->swap(entries_);
    bytes_ = 0;
    changed_.notify_all();
    return true;
  }

 private:
  const size_t max_entries_, max_bytes_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Entry> entries_;             // guarded by mu_
  size_t bytes_ = 0;                       // guarded by mu_
  bool closed_ = false, stopped_ = false;  // guarded by mu_
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_PUT_QUEUE_H_
