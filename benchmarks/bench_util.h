// Plumbing shared by the benchmark programs: timing, medians, and stopping on an error.
#ifndef CRAWLRANK_BENCHMARKS_BENCH_UTIL_H_
#define CRAWLRANK_BENCHMARKS_BENCH_UTIL_H_

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank::bench {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Prints `program: status` and exits 1.
[[noreturn]] inline void Die(const Status& status) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> result) {
  if (!result.ok()) Die(result.status());
  return *std::move(result);
}

inline void Check(const Status& status) {
  if (!status.ok()) Die(status);
}

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_BENCH_UTIL_H_
