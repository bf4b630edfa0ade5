// The crawler's parse threads: fetched HTML pages queue here, and `work` parses and reports
// them in batches of up to 16, on threads of its own, while the network thread goes on.
// The first error a batch returns is kept (error()), for the network thread to stop on.
#ifndef CRAWLRANK_SRC_CRAWL_PARSE_POOL_H_
#define CRAWLRANK_SRC_CRAWL_PARSE_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "crawl/fetcher.h"
#include "crawlrank/schedule_types.h"
#include "crawlrank/status.h"

namespace crawlrank {

class ParsePool {
 public:
  struct Job {
    Request request;
    FetchResult result;
    int64_t crawl_time_ms = 0;
  };
  using Work = std::function<Status(std::vector<Job>&)>;

  ParsePool(uint32_t threads, Work work) : work_(std::move(work)) {
    for (uint32_t i = 0; i < threads; ++i) {
      threads_.emplace_back([this] { Loop(); });
    }
  }
  ~ParsePool() { Close(/*drop=*/true); }

  void Push(Job job) {
    {
      std::lock_guard lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  // Jobs queued or being parsed.
  size_t backlog() const {
    std::lock_guard lock(mu_);
    return jobs_.size() + busy_;
  }
  Status error() const {
    std::lock_guard lock(mu_);
    return error_;
  }
  // Waits for the threads; with drop, jobs not started are dropped unreported (their
  // leases come back when the PageDB is next opened).
  void Close(bool drop) {
    {
      std::lock_guard lock(mu_);
      if (drop) jobs_.clear();
      closing_ = true;
    }
    cv_.notify_all();
    threads_.clear();  // joins
  }

 private:
  static constexpr size_t kBatch = 16;

  void Loop() {
    std::vector<Job> batch;
    for (;;) {
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return closing_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // closing, and nothing left
        const size_t n = std::min(kBatch, std::max<size_t>(1, jobs_.size() / threads_.size()));
        for (size_t i = 0; i < n && !jobs_.empty(); ++i) {
          batch.push_back(std::move(jobs_.front()));
          jobs_.pop_front();
        }
        busy_ += batch.size();
      }
      Status status = work_(batch);
      {
        std::lock_guard lock(mu_);
        busy_ -= batch.size();
        if (!status.ok() && error_.ok()) error_ = std::move(status);
      }
      batch.clear();
    }
  }

  Work work_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  size_t busy_ = 0;
  bool closing_ = false;
  Status error_;
  std::vector<std::jthread> threads_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_PARSE_POOL_H_
