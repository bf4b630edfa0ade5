// Quadratic extrapolation of the PageRank family's iterates (rank_kernels.h), which the
// CSR kernel (pagerank.cc) applies every RankOptions::extrapolation_period iterations.
#include "rank/rank_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace crawlrank::rank_internal {

// Quadratic extrapolation (Kamvar, Haveliwala, Manning & Golub, 2003): from the iterates
// x(k-3) .. x(k-1) in `past` and x(k) in `now`, estimates the fixed point by removing the
// two next largest eigenvector components, and writes it to `now` (clamped at 0, scaled to
// sum 1). Declines (leaves `now`) when the least-squares system is near singular (the
// differences point one way) or when the estimate would move further from `now` than 20×
// the last step's change `residual`: the error left after a step is residual·λ/(1−λ) for a
// decay λ, 5.7× at λ = 0.85, so a larger move means the model does not fit.
void QuadraticExtrapolation(Run& run, const std::vector<std::vector<double>>& past, double residual,
                            std::vector<double>& now) {
  const std::vector<double>& x0 = past[0];
  const std::vector<double>& x1 = past[1];
  const std::vector<double>& x2 = past[2];
  // y_j = x(k-3+j) - x(k-3); the five dot products over those differences in one pass
  // (five passes over the vectors cost more than the iteration before), each added in
  // block order.
  enum { k11, k12, k22, k1n, k2n, kDots };
  std::vector<std::array<double, kDots>> parts(RankBlocks(run.n));
  ParallelFor(run.threads, parts.size(), [&](size_t block) {
    const auto begin = static_cast<uint32_t>(block * kRankBlock);
    const auto end = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{begin} + kRankBlock, run.n));
    std::array<double, kDots> d{};
    for (uint32_t i = begin; i < end; ++i) {
      const double y1 = x1[i] - x0[i], y2 = x2[i] - x0[i], yn = now[i] - x0[i];
      d[k11] += y1 * y1;
      d[k12] += y1 * y2;
      d[k22] += y2 * y2;
      d[k1n] += y1 * yn;
      d[k2n] += y2 * yn;
    }
    parts[block] = d;
  });
  std::array<double, kDots> dots{};
  for (const auto& d : parts) {
    for (int k = 0; k < kDots; ++k) dots[k] += d[k];
  }
  const double a11 = dots[k11], a12 = dots[k12], a22 = dots[k22];
  const double b1 = dots[k1n], b2 = dots[k2n];
  const double det = a11 * a22 - a12 * a12;
  if (!(det > 1e-10 * a11 * a22) || !std::isfinite(det)) return;
  const double g1 = (-b1 * a22 + b2 * a12) / det;
  const double g2 = (-b2 * a11 + b1 * a12) / det;
  const double beta0 = g1 + g2 + 1, beta1 = g2 + 1, beta2 = 1;
  // The estimate is a combination whose weights need not sum to 1: scale it to sum 1.
  const auto raw = [&](uint32_t i) {
    return std::max(0.0, beta0 * x1[i] + beta1 * x2[i] + beta2 * now[i]);
  };
  const double sum = ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    double s = 0;
    for (uint32_t i = begin; i < end; ++i) s += raw(i);
    return s;
  });
  if (!(sum > 0) || !std::isfinite(sum)) return;
  const double move = ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    double s = 0;
    for (uint32_t i = begin; i < end; ++i) s += std::abs(raw(i) / sum - now[i]);
    return s;
  });
  if (!(move <= 20 * residual)) return;
  ForBlocks(run.threads, run.n, [&](uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end; ++i) now[i] = raw(i) / sum;
    return 0.0;
  });
}

}  // namespace crawlrank::rank_internal
