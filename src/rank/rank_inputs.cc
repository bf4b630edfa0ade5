// What a rank run starts from (rank_kernels.h): the options checked, the teleport vector
// and the starting vector.
#include "rank/rank_kernels.h"

#include <cmath>
#include <string>

namespace crawlrank::rank_internal {
namespace {

// InvalidArgument naming the first entry of `v` (`what`) that is negative or not finite.
Status CheckVector(std::span<const double> v, const char* what) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]) || v[i] < 0) {
      return InvalidArgumentError(std::string(what) + "[" + std::to_string(i) + "] is " +
                                  std::to_string(v[i]) + "; it must be finite and not negative");
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckOptions(const RankOptions& o) {
  if (!(o.damping >= 0 && o.damping <= 1)) {
    return InvalidArgumentError("damping " + std::to_string(o.damping) + " is outside [0, 1]");
  }
  if (o.max_iterations == 0) return InvalidArgumentError("max_iterations must be at least 1");
  if (!(o.uniform_teleport >= 0 && o.uniform_teleport <= 1)) {
    return InvalidArgumentError("uniform_teleport " + std::to_string(o.uniform_teleport) +
                                " is outside [0, 1]");
  }
  if (!(o.tolerance >= 0) || !std::isfinite(o.tolerance)) {
    return InvalidArgumentError("tolerance " + std::to_string(o.tolerance) +
                                " must be finite and not negative");
  }
  return Status::Ok();
}

Result<Teleport> MakeTeleport(RankAlgorithm algorithm, std::span<const double> given, uint32_t n,
                              double uniform_share) {
  Teleport r;
  r.uniform = n == 0 ? 0 : 1.0 / n;
  if (algorithm == RankAlgorithm::kPageRank || algorithm == RankAlgorithm::kWeightedPageRank) {
    return r;
  }
  CRAWLRANK_RETURN_IF_ERROR(CheckVector(given, "teleport"));
  if (given.size() > n) {
    return InvalidArgumentError("teleport has " + std::to_string(given.size()) +
                                " entries for a graph of " + std::to_string(n) + " pages");
  }
  std::vector<double> w(n, 0.0);
  double sum = 0;
  for (size_t i = 0; i < given.size(); ++i) {
    w[i] = algorithm == RankAlgorithm::kTrustRank ? (given[i] > 0 ? 1.0 : 0.0) : given[i];
    sum += w[i];
  }
  if (sum == 0) {
    if (algorithm == RankAlgorithm::kTrustRank) {
      return InvalidArgumentError("TrustRank needs at least one trusted page (teleport > 0)");
    }
    return r;  // no information: uniform
  }
  if (algorithm == RankAlgorithm::kTopicHits) {
    r.weights = std::move(w);  // topic scores are used as given
    return r;
  }
  for (double& x : w) x = (1 - uniform_share) * x / sum + uniform_share * r.uniform;
  r.weights = std::move(w);
  return r;
}

Result<std::vector<double>> MakeStart(std::span<const double> given, uint32_t n,
                                      const std::function<double(uint32_t)>& fill) {
  CRAWLRANK_RETURN_IF_ERROR(CheckVector(given, "start"));
  std::vector<double> v(n);
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    v[i] = i < given.size() ? given[i] : fill(i);
    sum += v[i];
  }
  if (sum <= 0) {
    for (uint32_t i = 0; i < n; ++i) v[i] = fill(i);
    sum = 0;
    for (double x : v) sum += x;
  }
  if (sum > 0) {
    for (double& x : v) x /= sum;
  }
  return v;
}

}  // namespace crawlrank::rank_internal
