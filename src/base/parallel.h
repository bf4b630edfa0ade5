// Small parallel helpers for the rank kernels: deterministic work splitting with the
// standard library only.
#ifndef CRAWLRANK_SRC_PARALLEL_H_
#define CRAWLRANK_SRC_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace crawlrank {

// The number of threads to use for a request of `threads` (0: one per core).
inline unsigned ResolveThreads(unsigned threads) {
  if (threads != 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Calls fn(b, scratch) once for every b in [0, blocks), spread over `threads` threads
// (the caller is one of them), each with its own scratch = make(), made once per thread.
// Which thread runs a block varies; callers keep results deterministic by writing
// per-block outputs and combining them in block order.
template <typename Make, typename Fn>
void ParallelForWith(unsigned threads, size_t blocks, Make&& make, Fn&& fn) {
  const size_t helpers = std::min<size_t>(threads, blocks) - (blocks > 0 ? 1 : 0);
  std::atomic<size_t> next{0};
  const auto drain = [&] {
    auto scratch = make();
    for (size_t b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) fn(b, scratch);
  };
  std::vector<std::jthread> pool;
  pool.reserve(helpers);
  for (size_t i = 0; i < helpers; ++i) pool.emplace_back(drain);
  drain();
}

// ParallelFor: fn(b) for every b in [0, blocks), as above, without scratch.
template <typename Fn>
void ParallelFor(unsigned threads, size_t blocks, Fn&& fn) {
  ParallelForWith(threads, blocks, [] { return 0; }, [&](size_t b, int) { fn(b); });
}

// Where the items of parts written in parallel go, for layouts where entry i (a row, a
// bin) holds the items of every part, parts in order: from counts[k][i], the number of
// part k's items in entry i, sets first[i] to where entry i starts and counts[k][i] to
// where part k's items in it start, entries laid out in order from 0. Returns the total.
template <typename Count>
uint64_t PartStarts(std::vector<std::vector<Count>>& counts, size_t entries, uint64_t* first) {
  uint64_t at = 0;
  for (size_t i = 0; i < entries; ++i) {
    first[i] = at;
    for (auto& part : counts) {
      const uint64_t count = part[i];
      part[i] = at;
      at += count;
    }
  }
  return at;
}

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PARALLEL_H_
