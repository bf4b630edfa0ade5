// SplitOutLinks: the partitioned in-links of the PageRank kernel (link_bins.h), written
// straight from the out-links, as rank_graph.cc's transpose writes pull rows.
#include "rank/link_bins.h"

#include <algorithm>

#include "base/parallel.h"
#include "rank/huge_pages.h"
#include "rank/gather.h"

namespace crawlrank {

LinkBins SplitOutLinks(std::span<const uint64_t> out_offsets, std::span<const uint32_t> out_targets,
                       std::span<const uint32_t> position, std::span<const uint32_t> first) {
  const auto n = static_cast<uint32_t>(out_offsets.size() - 1);
  const size_t threads = first.size() - 1;
  LinkBins b;
  b.pages = n;
  b.parts = LinkBins::PartsFor(n);
  const uint64_t parts = b.parts, bins = parts * parts;
  const auto id_of = [&](uint32_t s) { return position.empty() ? s : position[s]; };
  // Each thread's range: how many links it puts in every row, and in every bin (q, p) at
  // q·parts + p; then, where in the row and the bin its links begin.
  std::vector<std::vector<uint32_t>> in_row(threads);
  std::vector<std::vector<uint64_t>> in_bin(threads);
  ParallelFor(threads, threads, [&](size_t k) {
    AssignHuge<uint32_t>(in_row[k], n);
    in_bin[k].assign(bins, 0);
    for (uint32_t s = first[k]; s < first[k + 1]; ++s) {
      const uint32_t p = LinkBins::PartOf(id_of(s));
      for (uint64_t e = out_offsets[s]; e < out_offsets[s + 1]; ++e) {
        const uint32_t t = out_targets[e], q = LinkBins::PartOf(t);
        if (q == p) {
          ++in_row[k][t];
        } else {
          ++in_bin[k][q * parts + p];
        }
      }
    }
  });
  AssignHuge<uint64_t>(b.local_offsets, uint64_t{n} + 1);
  uint64_t at = 0;
  for (uint32_t t = 0; t < n; ++t) {
    b.local_offsets[t] = at;
    uint32_t in = 0;
    for (size_t k = 0; k < threads; ++k) {
      const uint32_t count = in_row[k][t];
      in_row[k][t] = in;
      in += count;
    }
    at += in;
  }
  b.local_offsets[n] = at;
  b.bin_first.resize(bins + 1);
  const uint64_t slot = PartStarts(in_bin, bins, b.bin_first.data());
  b.bin_first[bins] = slot;
  b.local_sources = HugeArray<uint16_t>(at + kRowPadding);
  std::fill_n(b.local_sources.get() + at, kRowPadding, uint16_t{0});
  b.slot_source = HugeArray<uint16_t>(slot);
  b.slot_target = HugeArray<uint16_t>(slot);
  ParallelFor(threads, threads, [&](size_t k) {
    uint32_t* row = in_row[k].data();
    uint64_t* bin = in_bin[k].data();
    for (uint32_t s = first[k]; s < first[k + 1]; ++s) {
      const uint32_t id = id_of(s), p = LinkBins::PartOf(id);
      const auto from = static_cast<uint16_t>(id - LinkBins::PartBegin(p));
      for (uint64_t e = out_offsets[s]; e < out_offsets[s + 1]; ++e) {
        const uint32_t t = out_targets[e], q = LinkBins::PartOf(t);
        if (q == p) {
          b.local_sources[b.local_offsets[t] + row[t]++] = from;
        } else {
          const uint64_t i = bin[q * parts + p]++;
          b.slot_source[i] = from;
          b.slot_target[i] = static_cast<uint16_t>(t - LinkBins::PartBegin(q));
        }
      }
    }
  });
  return b;
}

}  // namespace crawlrank
