// Small parallel helpers for the rank kernels: deterministic work splitting with the
// standard library only.
#ifndef CRAWLRANK_SRC_PARALLEL_H_
#define CRAWLRANK_SRC_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace crawlrank {

// The number of threads to use for a request of `threads` (0: one per core).
inline unsigned ResolveThreads(unsigned threads) {
  if (threads != 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Calls fn(b) once for every b in [0, blocks), spread over `threads` threads (the caller is
// one of them). Which thread runs a block varies; callers keep results deterministic by
// writing per-block outputs and combining them in block order.
template <typename Fn>
void ParallelFor(unsigned threads, size_t blocks, Fn&& fn) {
  const size_t helpers = std::min<size_t>(threads, blocks) - (blocks > 0 ? 1 : 0);
  if (helpers == 0) {
    for (size_t b = 0; b < blocks; ++b) fn(b);
    return;
  }
  std::atomic<size_t> next{0};
  const auto drain = [&] {
    for (size_t b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) fn(b);
  };
  std::vector<std::jthread> pool;
  pool.reserve(helpers);
  for (size_t i = 0; i < helpers; ++i) pool.emplace_back(drain);
  drain();
}

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PARALLEL_H_
