// SumRows and GatherSlots, with AVX2 gathers where the processor has them.
#include "rank/gather.h"

#include <immintrin.h>

namespace crawlrank {
namespace {

[[gnu::target("avx2")]] double RowSumAvx2(const uint16_t* v, size_t size, const float* in) {
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    const __m256i index =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i)));
    const __m256 x = _mm256_i32gather_ps(in, index, 4);
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
  }
  if (i < size) {  // up to 7 sources past the row are loaded (padding) and masked off
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(size - i)), lanes);
    const __m256i index = _mm256_and_si256(
        mask, _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i))));
    const __m256 x =
        _mm256_mask_i32gather_ps(_mm256_setzero_ps(), in, index, _mm256_castsi256_ps(mask), 4);
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
  }
  alignas(32) double t[4];
  _mm256_store_pd(t, _mm256_add_pd(lo, hi));
  return (t[0] + t[1]) + (t[2] + t[3]);
}

[[gnu::target("avx2")]] void SumRowsAvx2(const uint64_t* offsets, const uint16_t* sources,
                                         uint32_t first, uint32_t last, const float* in,
                                         double* sums) {
  for (uint32_t u = first; u < last; ++u) {
    sums[u - first] = RowSumAvx2(sources + offsets[u], offsets[u + 1] - offsets[u], in);
  }
}

[[gnu::target("avx2")]] void GatherSlotsAvx2(const uint16_t* sources, uint64_t count,
                                             const float* from, float* to) {
  uint64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i index =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sources + i)));
    _mm256_storeu_ps(to + i, _mm256_i32gather_ps(from, index, 4));
  }
  for (; i < count; ++i) to[i] = from[sources[i]];
}

}  // namespace

bool GathersWithAvx2() {
  return __builtin_cpu_supports("avx2");
}

void GatherSlots(const uint16_t* sources, uint64_t count, const float* from, float* to) {
  if (GathersWithAvx2()) {
    GatherSlotsAvx2(sources, count, from, to);
    return;
  }
  for (uint64_t i = 0; i < count; ++i) to[i] = from[sources[i]];
}

void SumRows(const uint64_t* offsets, const uint16_t* sources, uint32_t first, uint32_t last,
             const float* in, double* sums) {
  if (GathersWithAvx2()) {
    SumRowsAvx2(offsets, sources, first, last, in, sums);
    return;
  }
  for (uint32_t u = first; u < last; ++u) {
    sums[u - first] = RowSum(
        std::span<const uint16_t>(sources + offsets[u], offsets[u + 1] - offsets[u]), in);
  }
}

}  // namespace crawlrank
