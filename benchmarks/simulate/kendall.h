// Kendall's tau-b of two rankings of the same items, in O(n log n) (Knight 1966): how well
// the order one gives (a crawler's scores) agrees with the other's (the true PageRank),
// ties on either side accounted for. 1: the same order; 0: no relation; -1: reversed.
// The formula is scipy.stats.kendalltau's (variant 'b'), which the tests compare with.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_KENDALL_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_KENDALL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

namespace crawlrank::bench {

// Tau-b of x and y (equal sizes); none when fewer than two items, or when either side ties
// everything (the measure is undefined there).
inline std::optional<double> KendallTauB(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 2 || y.size() != n) return std::nullopt;
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return x[a] != x[b] ? x[a] < x[b] : y[a] < y[b];
  });
  const auto pairs = [](uint64_t t) { return t * (t - 1) / 2; };
  // Ties in x, and in x and y together, along the x order.
  uint64_t x_ties = 0, joint_ties = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && x[order[j]] == x[order[i]]) ++j;
    x_ties += pairs(j - i);
    for (size_t k = i; k < j;) {
      size_t l = k + 1;
      while (l < j && y[order[l]] == y[order[k]]) ++l;
      joint_ties += pairs(l - k);
      k = l;
    }
    i = j;
  }
  // Discordant pairs: the inversions of y along that order, counted by a merge sort.
  std::vector<double> v(n), buffer(n);
  for (size_t i = 0; i < n; ++i) v[i] = y[order[i]];
  uint64_t swaps = 0;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(n, lo + width), hi = std::min(n, lo + 2 * width);
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi) {
        if (v[b] < v[a]) {
          swaps += mid - a;
          buffer[k++] = v[b++];
        } else {
          buffer[k++] = v[a++];
        }
      }
      while (a < mid) buffer[k++] = v[a++];
      while (b < hi) buffer[k++] = v[b++];
    }
    v.swap(buffer);
  }
  // Ties in y, along the sorted y.
  uint64_t y_ties = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && v[j] == v[i]) ++j;
    y_ties += pairs(j - i);
    i = j;
  }
  const double total = static_cast<double>(pairs(n));
  const double denominator = std::sqrt(total - static_cast<double>(x_ties)) *
                             std::sqrt(total - static_cast<double>(y_ties));
  if (denominator == 0) return std::nullopt;
  const double concordant_minus_discordant = total - static_cast<double>(x_ties) -
                                             static_cast<double>(y_ties) +
                                             static_cast<double>(joint_ties) - 2.0 * swaps;
  return concordant_minus_discordant / denominator;
}

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_KENDALL_H_
