// What a PutURLs stream has sent and the server has not written yet. The call's thread
// reads and checks each item and pushes it here; a writer thread takes everything queued
// at once, writes it in one transaction and sends the acks together: one commit and one
// flush per group of items rather than per item (group commit), and still no ack before
// its item is committed.
//
// Bounded: Push waits while `max_items` items or `max_bytes` bytes are queued, so a client
// that sends faster than the PageDB writes is slowed down rather than held in memory.
// Thread safety: any number of threads may call any method.
#ifndef CRAWLRANK_SRC_SERVE_PUT_QUEUE_H_
#define CRAWLRANK_SRC_SERVE_PUT_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "serve/frontier_items.h"

namespace crawlrank {

class PutQueue {
 public:
  PutQueue(size_t max_items, size_t max_bytes) : max_items_(max_items), max_bytes_(max_bytes) {}

  // Queues `item`, acknowledged as `id`, counting `bytes` against max_bytes (an item
  // larger than max_bytes is taken when the queue is empty). Waits while the queue is
  // full. False, and nothing queued, once Stop was called.
  bool Push(std::string id, PutItem item, size_t bytes);
  // No more items will come: TakeAll returns false once the queue is empty.
  void Close();
  // The writer is gone (its client left): Push refuses from now on.
  void Stop();
  // Waits for an item or Close, then moves every item queued to `items` and their IDs to
  // `ids` (both replaced), in the order pushed. False when closed and empty.
  bool TakeAll(std::vector<PutItem>* items, std::vector<std::string>* ids);

 private:
  const size_t max_items_, max_bytes_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<PutItem> items_;   // guarded by mu_
  std::vector<std::string> ids_;  // guarded by mu_
  size_t bytes_ = 0;              // guarded by mu_
  bool closed_ = false, stopped_ = false;  // guarded by mu_
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_PUT_QUEUE_H_
