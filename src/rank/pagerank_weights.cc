// The edge weights of weighted PageRank (rank_kernels.h, EdgeWeights): every page's in-
// and out-degree, then per source the sums of both over its targets.
#include "rank/rank_kernels.h"

namespace crawlrank::rank_internal {

// The weights need every page's in- and out-degree, then per source the sums of both over
// its targets. With a CSR both come from its arrays; otherwise each takes a pass.
Result<EdgeWeights> WeightedPageRankWeights(EdgeSource& graph, const CsrGraph* csr) {
  const uint32_t n = graph.num_pages();
  std::vector<uint32_t> in(n, 0), out(n, 0);
  if (csr != nullptr) {
    for (uint32_t u = 0; u < n; ++u) {
      in[u] = static_cast<uint32_t>(csr->InLinks(u).size());
      out[u] = csr->out_degree[u];
    }
  } else {
    CRAWLRANK_RETURN_IF_ERROR(graph.Scan([&](EdgeChunk& chunk) {
      for (size_t i = 0; i < chunk.size(); ++i) {
        out[chunk.sources[i]] = static_cast<uint32_t>(chunk.TargetsOf(i).size());
      }
      for (uint32_t t : chunk.targets) ++in[t];
      return Status::Ok();
    }));
  }
  EdgeWeights w;
  w.factor.resize(n);
  w.denominator.assign(n, 0.0);
  // O_u + 1, not O_u: a page with no out-links known (in a crawl, every page not fetched
  // yet) would otherwise take no weight at all, and every page of the frontier would rank
  // alike (docs/ranking.md, "Weighted PageRank").
  for (uint32_t u = 0; u < n; ++u) w.factor[u] = double(in[u]) * (double(out[u]) + 1);
  // Integer sums: exact in any order, so both ways give the same denominators.
  std::vector<uint64_t> sum_in(n, 0), sum_out(n, 0);
  if (csr != nullptr) {
    for (uint32_t p = 0; p < n; ++p) {
      for (uint32_t v : csr->InLinks(p)) {
        sum_in[v] += in[p];
        sum_out[v] += out[p] + 1;
      }
    }
  } else {
    CRAWLRANK_RETURN_IF_ERROR(graph.Scan([&](EdgeChunk& chunk) {
      for (size_t i = 0; i < chunk.size(); ++i) {
        const uint32_t v = chunk.sources[i];
        for (uint32_t p : chunk.TargetsOf(i)) {
          sum_in[v] += in[p];
          sum_out[v] += out[p] + 1;
        }
      }
      return Status::Ok();
    }));
  }
  for (uint32_t v = 0; v < n; ++v) w.denominator[v] = double(sum_in[v]) * double(sum_out[v]);
  if (csr != nullptr) {
    w.passed.assign(n, 0.0);
    for (uint32_t p = 0; p < n; ++p) {
      for (uint32_t v : csr->InLinks(p)) {
        if (w.denominator[v] > 0) w.passed[v] += w.factor[p] / w.denominator[v];
      }
    }
  }
  return w;
}

}  // namespace crawlrank::rank_internal
