// Dense, deliberately plain implementations of the rank formulas of docs/ranking.md, for
// checking the kernels on small graphs. They share no code with src/rank*.cc: weights are
// computed per edge straight from their definitions, HITS updates hubs from the new
// authorities (Kleinberg's order), and every iteration runs until the vector stops moving.
#ifndef CRAWLRANK_TESTS_RANK_REFERENCE_H_
#define CRAWLRANK_TESTS_RANK_REFERENCE_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace crawlrank::testing {

using EdgeList = std::vector<std::pair<uint32_t, uint32_t>>;

// A random graph with `n` pages and about n * degree distinct edges, some pages dangling.
inline EdgeList RandomGraph(uint32_t n, double degree, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::pair<uint32_t, uint32_t>> edges;
  std::uniform_int_distribution<uint32_t> page(0, n - 1);
  const auto target_count = static_cast<size_t>(n * degree);
  while (edges.size() < target_count) {
    const uint32_t s = page(rng);
    if (s % 7 == 3) continue;  // every 7th page is dangling
    edges.emplace(s, page(rng));
  }
  return {edges.begin(), edges.end()};
}

// The L1 distance; infinite when the sizes differ, so that a short or empty result never
// passes a tolerance.
inline double L1(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += std::abs(a[i] - b[i]);
  return d;
}

// weight[v][u] of every edge, as a dense matrix.
using Matrix = std::vector<std::vector<double>>;

inline Matrix Adjacency(uint32_t n, const EdgeList& edges) {
  Matrix a(n, std::vector<double>(n, 0.0));
  for (const auto& [s, t] : edges) a[s][t] = 1;
  return a;
}

// 1/n_v on every edge of v.
inline Matrix UniformWeights(const Matrix& a) {
  Matrix w = a;
  for (auto& row : w) {
    double degree = 0;
    for (double x : row) degree += x;
    for (double& x : row) x = degree > 0 ? x / degree : 0;
  }
  return w;
}

// Xing & Ghorbani: W_in(v,u) * W_out(v,u), each a share of v's targets' in/out-link counts,
// with each out-link count plus one (docs/ranking.md: a page without out-links still takes
// a share).
inline Matrix WeightedPageRankWeights(const Matrix& a) {
  const size_t n = a.size();
  std::vector<double> in(n, 0), out(n, 0);
  for (size_t v = 0; v < n; ++v) {
    for (size_t u = 0; u < n; ++u) {
      out[v] += a[v][u];
      in[u] += a[v][u];
    }
  }
  Matrix w(n, std::vector<double>(n, 0.0));
  for (size_t v = 0; v < n; ++v) {
    double sum_in = 0, sum_out = 0;
    for (size_t p = 0; p < n; ++p) {
      if (a[v][p] == 0) continue;
      sum_in += in[p];
      sum_out += out[p] + 1;
    }
    for (size_t u = 0; u < n; ++u) {
      if (a[v][u] == 0) continue;
      w[v][u] = (in[u] / sum_in) * ((out[u] + 1) / sum_out);
    }
  }
  return w;
}

// Iterates π ← c·Wᵀπ + r·(1 − c·Σ_v π_v Σ_u W[v][u]) from r to a fixed point.
inline std::vector<double> PowerIterate(const Matrix& w, const std::vector<double>& r, double c) {
  const size_t n = w.size();
  std::vector<double> pi = r;
  for (int iteration = 0; iteration < 100000; ++iteration) {
    std::vector<double> next(n, 0.0);
    double passed = 0;
    for (size_t v = 0; v < n; ++v) {
      for (size_t u = 0; u < n; ++u) {
        next[u] += c * pi[v] * w[v][u];
        passed += c * pi[v] * w[v][u];
      }
    }
    for (size_t u = 0; u < n; ++u) next[u] += r[u] * (1 - passed);
    const double change = L1(next, pi);
    pi = next;
    if (change < 1e-15) break;
  }
  return pi;
}

// Kleinberg's HITS with topic weights `topic` (all 1: plain HITS), L1-normalised.
// With damping c < 1, randomized HITS: each vector, once scaled, becomes (1 − c)/N + c·itself.
inline std::pair<std::vector<double>, std::vector<double>> ReferenceHits(
    const Matrix& a, const std::vector<double>& topic, double c = 0.85) {
  const size_t n = a.size();
  std::vector<double> auth(n, 1.0 / n), hub(n, 1.0 / n);
  const auto normalise = [&](std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    for (double& x : v) x = (1 - c) / n + c * x / s;
  };
  for (int iteration = 0; iteration < 100000; ++iteration) {
    std::vector<double> next_auth(n, 0.0), next_hub(n, 0.0);
    for (size_t j = 0; j < n; ++j) {
      for (size_t i = 0; i < n; ++i) next_auth[i] += a[j][i] * hub[j];
    }
    normalise(next_auth);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) next_hub[i] += a[i][j] * topic[j] * next_auth[j];
    }
    normalise(next_hub);
    const double change = L1(next_auth, auth) + L1(next_hub, hub);
    auth = next_auth;
    hub = next_hub;
    if (change < 1e-15) break;
  }
  return {auth, hub};
}

}  // namespace crawlrank::testing

#endif  // CRAWLRANK_TESTS_RANK_REFERENCE_H_
