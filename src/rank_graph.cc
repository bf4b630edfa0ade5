#include "rank_graph.h"

namespace crawlrank {

Result<CsrGraph> BuildCsr(EdgeSource& graph, bool with_out) {
  CsrGraph csr;
  csr.pages = graph.num_pages();
  const uint32_t n = csr.pages;
  csr.out_degree.assign(n, 0);
  csr.in_offsets.assign(uint64_t{n} + 1, 0);
  // A sum of one hash per edge tells whether pass 2 read the edges pass 1 counted.
  const auto edge_hash = [](uint32_t s, uint32_t t) {
    return ((uint64_t{s} << 32) | t) * 0x9E3779B97F4A7C15ull;
  };
  // Pass 1: degrees. in_offsets[t + 1] counts the in-links of t for now.
  uint64_t links = 0;
  uint64_t hash = 0;
  CRAWLRANK_RETURN_IF_ERROR(graph.Scan([&](EdgeChunk& chunk) {
    for (size_t i = 0; i < chunk.size(); ++i) {
      const auto targets = chunk.TargetsOf(i);
      csr.out_degree[chunk.sources[i]] = static_cast<uint32_t>(targets.size());
      for (uint32_t t : targets) hash += edge_hash(chunk.sources[i], t);
    }
    for (uint32_t t : chunk.targets) ++csr.in_offsets[uint64_t{t} + 1];
    links += chunk.targets.size();
    return Status::Ok();
  }));
  for (uint32_t t = 0; t < n; ++t) csr.in_offsets[t + 1] += csr.in_offsets[t];
  csr.in_sources.resize(links);
  if (with_out) {
    csr.out_offsets.assign(uint64_t{n} + 1, 0);
    for (uint32_t s = 0; s < n; ++s) csr.out_offsets[s + 1] = csr.out_offsets[s] + csr.out_degree[s];
    csr.out_targets.resize(links);
  }
  // Pass 2: fill. in_offsets[t] walks through t's range and ends at its end, which is
  // where t + 1 starts: one shift afterwards restores the starts without a second array.
  uint64_t seen = 0;
  uint64_t seen_hash = 0;
  Status changed = FailedPreconditionError("the edge source changed while a CSR was built from it");
  CRAWLRANK_RETURN_IF_ERROR(graph.Scan([&](EdgeChunk& chunk) {
    seen += chunk.targets.size();
    if (seen > links) return changed;
    for (size_t i = 0; i < chunk.size(); ++i) {
      const uint32_t s = chunk.sources[i];
      const auto targets = chunk.TargetsOf(i);
      if (targets.size() != csr.out_degree[s]) return changed;
      for (uint32_t t : targets) {
        if (csr.in_offsets[t] >= links) return changed;
        csr.in_sources[csr.in_offsets[t]++] = s;
        seen_hash += edge_hash(s, t);
      }
      if (with_out) std::copy(targets.begin(), targets.end(), csr.out_targets.begin() + csr.out_offsets[s]);
    }
    return Status::Ok();
  }));
  if (seen != links || seen_hash != hash) return changed;
  for (uint32_t t = n; t > 0; --t) csr.in_offsets[t] = csr.in_offsets[t - 1];
  csr.in_offsets[0] = 0;
  return csr;
}

}  // namespace crawlrank
