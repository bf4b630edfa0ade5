// The in-links of a graph split by partitions of pages, for the PageRank kernel's
// partition-centric iterations (after Lakhotia, Kannan and Prasanna, USENIX ATC 2018).
// A link within its target's partition stays in a pull row; a link across partitions
// goes through a bin. An iteration first copies every crossing source's contribution into
// its slot (a source partition writes its bins in runs), then each target partition sums
// its rows, adds its bins in one sequential stream and updates its pages. The random
// reads of a pull over pages all over memory become sequential writes and reads, and
// every random access stays within one partition: 2^16 pages, whose contributions (as
// floats) and sums (doubles) fit a core's L2 cache together.
#ifndef CRAWLRANK_SRC_RANK_LINK_BINS_H_
#define CRAWLRANK_SRC_RANK_LINK_BINS_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace crawlrank {

struct LinkBins {
  static constexpr uint32_t kPartBits = 16;
  static constexpr uint32_t kPartPages = uint32_t{1} << kPartBits;
  // Beyond this many partitions (2^27 pages) the bins' table, parts² entries, outgrows
  // what it saves: such graphs keep pull rows.
  static constexpr uint32_t kMaxParts = 2048;

  uint32_t pages = 0;
  uint32_t parts = 0;  // 0: not split
  // Pull rows of the links within their target's partition.
  std::vector<uint64_t> local_offsets;  // pages + 1
  // Each source, less its partition's first page; kRowPadding entries of 0 after the last.
  std::unique_ptr<uint16_t[]> local_sources;
  // Bin (p → q), the links from partition p into q in their sources' order, is slots
  // [Bin(p, q), Bin(p + 1, q)): the bins into q lie together, in source partition order.
  std::vector<uint64_t> bin_first;    // parts² + 1
  std::unique_ptr<uint16_t[]> slot_source;  // each slot's source, less its partition's first page
  std::unique_ptr<uint16_t[]> slot_target;  // its target, less its partition's first page

  static uint32_t PartsFor(uint32_t pages) {
    return static_cast<uint32_t>((uint64_t{pages} + kPartPages - 1) >> kPartBits);
  }
  static uint32_t PartOf(uint32_t page) { return page >> kPartBits; }
  static uint32_t PartBegin(uint32_t part) { return part << kPartBits; }
  uint32_t PartEnd(uint32_t part) const {
    return static_cast<uint32_t>(std::min<uint64_t>(uint64_t{part + 1} << kPartBits, pages));
  }
  std::span<const uint16_t> LocalLinks(uint32_t page) const {
    return {local_sources.get() + local_offsets[page],
            local_offsets[page + 1] - local_offsets[page]};
  }
  // Bin(parts, q) is where the bins into q end.
  uint64_t Bin(uint32_t from, uint32_t to) const { return bin_first[uint64_t{to} * parts + from]; }
  uint64_t crossing() const { return bin_first.empty() ? 0 : bin_first.back(); }
  // The most bytes SplitOutLinks holds besides the out-links and the result (4 bytes a
  // link at most): per thread, a count a page and a cursor a bin.
  static uint64_t BuildBytes(uint64_t pages, uint64_t threads) {
    const uint64_t parts = (pages + kPartPages - 1) >> kPartBits;
    return threads * (pages * 4 + parts * parts * 8) + parts * parts * 8 + pages * 8;
  }
};

// The split of a graph given by its out-links: targets of `out_targets` (row s from
// out_offsets[s]) are already in the split's numbering; `position` maps a source page to
// its number there (empty: the same). Up to `parts` threads each take a contiguous range
// of sources (split at `first`, parts + 1 entries); every row and bin comes out in the
// order of its sources' page ids, for any number of parts.
LinkBins SplitOutLinks(std::span<const uint64_t> out_offsets, std::span<const uint32_t> out_targets,
                       std::span<const uint32_t> position, std::span<const uint32_t> first);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_RANK_LINK_BINS_H_
