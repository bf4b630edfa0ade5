#include "serve/put_queue.h"

#include <utility>

namespace crawlrank {

bool PutQueue::Push(std::string id, PutItem item, size_t bytes) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] {
    return stopped_ || items_.empty() ||
           (items_.size() < max_items_ && bytes_ + bytes <= max_bytes_);
  });
  if (stopped_) return false;
  items_.push_back(std::move(item));
  ids_.push_back(std::move(id));
  bytes_ += bytes;
  changed_.notify_all();
  return true;
}

void PutQueue::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  changed_.notify_all();
}

void PutQueue::Stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  changed_.notify_all();
}

bool PutQueue::TakeAll(std::vector<PutItem>* items, std::vector<std::string>* ids) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return !items_.empty() || closed_; });
  items->clear();
  ids->clear();
  if (items_.empty()) return false;
  items->swap(items_);
  ids->swap(ids_);
  bytes_ = 0;
  changed_.notify_all();
  return true;
}

}  // namespace crawlrank
