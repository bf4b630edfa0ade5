#include "web_graph.h"

#include <algorithm>
#include <cmath>

namespace crawlrank::bench {
namespace {

// SplitMix64: a tiny, well-mixed generator with a fixed definition.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1].
  double Unit() { return (static_cast<double>(Next() >> 11) + 1.0) * 0x1.0p-53; }
  // Uniform in [0, n).
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>(Unit() * static_cast<double>(n)) % n; }
  // Standard normal (Box-Muller).
  double Normal() {
    constexpr double kTwoPi = 6.283185307179586;
    return std::sqrt(-2.0 * std::log(Unit())) * std::cos(kTwoPi * Unit());
  }

 private:
  uint64_t state_;
};

constexpr double kHostAlpha = 1.2;    // Pareto shape of host sizes
constexpr double kHostMinSize = 4.0;  // Pareto scale
constexpr double kDegreeSigma = 1.0;  // log-normal spread of out-degree
constexpr uint32_t kMaxDegree = 2000;

}  // namespace

WebGraph::WebGraph(const WebGraphOptions& options) : options_(options) {
  Rng rng(options.seed * 0x2545F4914F6CDD1Dull + 1);
  const double max_size = std::max(1.0, options.pages / 20.0);
  for (uint64_t start = 0; start < options.pages;) {
    host_start_.push_back(static_cast<uint32_t>(start));
    const double size = std::min(max_size, kHostMinSize / std::pow(rng.Unit(), 1.0 / kHostAlpha));
    start += static_cast<uint64_t>(size);
  }
}

size_t WebGraph::HostOf(uint32_t page) const {
  return static_cast<size_t>(std::upper_bound(host_start_.begin(), host_start_.end(), page) -
                             host_start_.begin()) -
         1;
}

void WebGraph::OutLinks(uint32_t page, std::vector<uint32_t>& out) const {
  out.clear();
  Rng rng((options_.seed << 32) ^ (uint64_t{page} * 0x9E3779B97F4A7C15ull));
  const double mu = std::log(options_.mean_out_degree) - kDegreeSigma * kDegreeSigma / 2;
  const auto degree = static_cast<uint32_t>(
      std::min<double>(kMaxDegree, std::floor(std::exp(mu + kDegreeSigma * rng.Normal()) + 0.5)));
  const size_t host = HostOf(page);
  const uint32_t start = host_start_[host];
  const uint32_t end = host + 1 < host_start_.size() ? host_start_[host + 1] : options_.pages;
  const uint32_t size = end - start;
  for (uint32_t k = 0; k < degree; ++k) {
    // (Drawn only when asked for: the graphs without it keep their links.)
    if (options_.random_share > 0 && rng.Unit() <= options_.random_share) {
      out.push_back(static_cast<uint32_t>(rng.Below(options_.pages)));
      continue;
    }
    if (size > 1 && rng.Unit() <= options_.local_fraction) {
      // Within the host: a tenth go to its home page, the rest near the source
      // (two-sided geometric distance, mean a sixteenth of the host).
      if (rng.Unit() < 0.1) {
        out.push_back(start);
        continue;
      }
      const double mean = std::max(1.0, size / 16.0);
      const auto distance = static_cast<int64_t>(std::floor(-std::log(rng.Unit()) * mean)) + 1;
      const int64_t offset = int64_t{page - start} + (rng.Next() & 1 ? distance : -distance);
      const int64_t wrapped = ((offset % size) + size) % size;
      out.push_back(start + static_cast<uint32_t>(wrapped));
    } else {
      // Another host, in proportion to its size, preferring its first pages.
      const size_t other = HostOf(static_cast<uint32_t>(rng.Below(options_.pages)));
      const uint32_t other_start = host_start_[other];
      const uint32_t other_end =
          other + 1 < host_start_.size() ? host_start_[other + 1] : options_.pages;
      const double u = rng.Unit();
      out.push_back(other_start +
                    std::min(other_end - other_start - 1,
                             static_cast<uint32_t>(u * u * u * (other_end - other_start))));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

std::string WebGraph::Url(uint32_t page) const {
  const size_t host = HostOf(page);
  return "http://www.site" + std::to_string(host) + ".com/a/" +
         std::to_string(page - host_start_[host]);
}

std::vector<uint32_t> RandomPermutation(uint32_t n, uint64_t seed) {
  std::vector<uint32_t> perm(n);
  for (uint32_t i = 0; i < n; ++i) perm[i] = i;
  Rng rng(seed * 0x9E3779B97F4A7C15ull + 7);
  for (uint32_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.Below(i)]);
  return perm;
}

}  // namespace crawlrank::bench
