// In-degree (rank_kernels.h): each page's count of in-links, in one pass.
#include "rank/rank_kernels.h"

namespace crawlrank::rank_internal {

Result<std::vector<double>> InDegree(Run& run) {
  std::vector<double> count(run.n, 0.0);
  CRAWLRANK_RETURN_IF_ERROR(
      StreamPass(*run.graph, run.threads, [&](const EdgeChunk& chunk, uint32_t lo, uint32_t hi) {
        for (uint32_t t : chunk.targets) {
          if (t >= lo && t < hi) count[t] += 1;
        }
      }));
  run.report.iterations = 1;
  run.report.converged = true;
  return count;
}

}  // namespace crawlrank::rank_internal
