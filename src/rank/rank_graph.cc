// BuildCsr: the in-memory CSR of the rank kernels, built from two passes over a source.
#include "rank/rank_graph.h"

#include <atomic>

namespace crawlrank {

namespace {

// A sum of one hash per edge tells whether two passes read the same edges.
uint64_t EdgeHash(uint32_t s, uint32_t t) {
  return ((uint64_t{s} << 32) | t) * 0x9E3779B97F4A7C15ull;
}

// One StreamPass calling visit(s, all, mine, owns_s) for every source s of every chunk,
// where `all` are s's targets, `mine` those in the worker's range and owns_s whether s
// itself is. Adds the number and the hashes of the edges in `mine` to `links` and `hash`
// (atomically, once per chunk: integer sums do not care about order). visit returns false
// to give up on the chunk, having recorded why.
template <typename Visit>
Status CountedPass(EdgeSource& graph, unsigned threads, std::atomic<uint64_t>& links,
                   std::atomic<uint64_t>& hash, Visit&& visit) {
  return StreamPass(graph, threads, [&](const EdgeChunk& chunk, uint32_t lo, uint32_t hi) {
    uint64_t chunk_links = 0, chunk_hash = 0;
    for (size_t i = 0; i < chunk.size(); ++i) {
      const uint32_t s = chunk.sources[i];
      const auto all = chunk.TargetsOf(i);
      const auto mine = InRange(all, lo, hi);
      if (!visit(s, all, mine, s >= lo && s < hi)) return;
      for (uint32_t t : mine) chunk_hash += EdgeHash(s, t);
      chunk_links += mine.size();
    }
    links += chunk_links;
    hash += chunk_hash;
  });
}

}  // namespace

Result<CsrGraph> BuildCsr(EdgeSource& graph, bool with_out, unsigned threads, uint64_t budget) {
  CsrGraph csr;
  const uint32_t n = graph.num_pages();
  csr.out_degree.assign(n, 0);
  csr.in_offsets.assign(uint64_t{n} + 1, 0);
  // Both passes run as StreamPass: each worker writes only the entries of its own target
  // (and source) range, so the in-link rows come out in source order whatever the threads.
  // Pass 1: degrees. in_offsets[t + 1] counts the in-links of t for now.
  std::atomic<uint64_t> links{0}, hash{0};
  CRAWLRANK_RETURN_IF_ERROR(CountedPass(
      graph, threads, links, hash,
      [&](uint32_t s, std::span<const uint32_t> all, std::span<const uint32_t> mine, bool owns) {
        if (owns) csr.out_degree[s] = static_cast<uint32_t>(all.size());
        for (uint32_t t : mine) ++csr.in_offsets[uint64_t{t} + 1];
        return true;
      }));
  for (uint32_t t = 0; t < n; ++t) csr.in_offsets[t + 1] += csr.in_offsets[t];
  const uint64_t total = links;
  if (CsrGraph::Bytes(n, total, with_out) > budget) {
    return ResourceExhaustedError("a CSR of " + std::to_string(n) + " pages and " +
                                  std::to_string(total) + " links exceeds the memory budget of " +
                                  std::to_string(budget) + " bytes");
  }
  csr.links = total;
  csr.in_sources = std::make_unique_for_overwrite<uint32_t[]>(total);
  if (with_out) {
    csr.out_offsets.assign(uint64_t{n} + 1, 0);
    for (uint32_t s = 0; s < n; ++s)
      csr.out_offsets[s + 1] = csr.out_offsets[s] + csr.out_degree[s];
    csr.out_targets = std::make_unique_for_overwrite<uint32_t[]>(total);
  }
  // Pass 2: fill. in_offsets[t] walks through t's range and ends at its end, which is
  // where t + 1 starts: one shift afterwards restores the starts without a second array.
  std::atomic<uint64_t> seen{0}, seen_hash{0};
  std::atomic<bool> changed{false};
  CRAWLRANK_RETURN_IF_ERROR(CountedPass(
      graph, threads, seen, seen_hash,
      [&](uint32_t s, std::span<const uint32_t> all, std::span<const uint32_t> mine, bool owns) {
        if (owns && all.size() != csr.out_degree[s]) return !(changed = true);
        if (owns && with_out)
          std::copy(all.begin(), all.end(), csr.out_targets.get() + csr.out_offsets[s]);
        for (uint32_t t : mine) {
          if (csr.in_offsets[t] >= total) return !(changed = true);
          csr.in_sources[csr.in_offsets[t]++] = s;
        }
        return true;
      }));
  if (changed || seen != total || seen_hash != hash) {
    return FailedPreconditionError("the edge source changed while a CSR was built from it");
  }
  for (uint32_t t = n; t > 0; --t) csr.in_offsets[t] = csr.in_offsets[t - 1];
  csr.in_offsets[0] = 0;
  return csr;
}

}  // namespace crawlrank
