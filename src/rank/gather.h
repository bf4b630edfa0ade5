// The gathers of the PageRank kernel over a split (link_bins.h), with AVX2 where the
// processor has it and the same bits as the portable loops.
//
// RowSum: the sum of a pull row's contributions, in one order for every machine: link i of a row
// goes to lane i mod 8 of eight double sums, and the lanes are added as
// ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)). Eight lanes keep eight additions in
// flight, and they are what one AVX2 gather of floats fills: SumRows uses it where the
// processor has it, with the same bits as the portable loop.
#ifndef CRAWLRANK_SRC_RANK_GATHER_H_
#define CRAWLRANK_SRC_RANK_GATHER_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace crawlrank {

// Entries of 0 after the last row of an array of 2-byte sources: SumRows may load up to
// this many past a row's end (and ignore them).
inline constexpr size_t kRowPadding = 7;

// Σ double(in[row[i]]) in the lane order above.
template <typename I, typename T>
[[gnu::always_inline]] inline double RowSum(std::span<const I> row, const T* in) {
  using D4 = double __attribute__((vector_size(32)));
  D4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
  const I* v = row.data();
  const size_t size = row.size();
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    lo += D4{double(in[v[i]]), double(in[v[i + 1]]), double(in[v[i + 2]]), double(in[v[i + 3]])};
    hi += D4{double(in[v[i + 4]]), double(in[v[i + 5]]), double(in[v[i + 6]]),
             double(in[v[i + 7]])};
  }
  if (i < size) {  // the lanes past the row add 0, as a masked gather does
    double tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t j = 0; i + j < size; ++j) tail[j] = double(in[v[i + j]]);
    lo += D4{tail[0], tail[1], tail[2], tail[3]};
    hi += D4{tail[4], tail[5], tail[6], tail[7]};
  }
  const D4 t = lo + hi;
  return (t[0] + t[1]) + (t[2] + t[3]);
}

// sums[u - first] = RowSum(row u) for the rows [first, last) of 2-byte sources (rows
// from offsets[u], sources relative to `in`; the array padded by kRowPadding), with AVX2
// gathers when the processor has them.
void SumRows(const uint64_t* offsets, const uint16_t* sources, uint32_t first, uint32_t last,
             const float* in, double* sums);

// to[i] = from[sources[i]] for i < count (a bin's slots), with AVX2 gathers when the
// processor has them.
void GatherSlots(const uint16_t* sources, uint64_t count, const float* from, float* to);

// Whether SumRows and GatherSlots use AVX2 here.
bool GathersWithAvx2();

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_RANK_GATHER_H_
