#include "rank/gather.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace crawlrank {
namespace {

// GatherRows of 0 to 40 two-byte sources into 5000 random floats (some negative, as the steps
// on the change gather), laid out as a partition's rows, padded as the split pads them.
struct GatherRows {
  std::vector<uint64_t> offsets{0};
  std::vector<uint16_t> sources;
  std::vector<float> in;
};

GatherRows RandomGatherRows(uint64_t seed) {
  std::mt19937_64 rng(seed);
  GatherRows r;
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  // Exponents 2^-40 to 2^40: sums of such floats round in double, so the order shows.
  for (int i = 0; i < 5000; ++i) {
    r.in.push_back(std::ldexp(value(rng), static_cast<int>(rng() % 81) - 40));
  }
  for (int u = 0; u < 3000; ++u) {
    const int size = static_cast<int>(rng() % 41);
    for (int k = 0; k < size; ++k) r.sources.push_back(static_cast<uint16_t>(rng() % r.in.size()));
    r.offsets.push_back(r.sources.size());
  }
  r.sources.resize(r.sources.size() + kRowPadding, 0);
  return r;
}

// The lane order as the header states it, written out: link i into lane i mod 8, then
// ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)).
double ReferenceLaneSum(const uint16_t* v, size_t size, const float* in) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < size; ++i) lane[i % 8] += double(in[v[i]]);
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

TEST(GatherTest, RowSumAddsInTheLaneOrderAndSumRowsGivesItsBits) {
  const uint64_t seed = std::random_device{}();
  std::printf("GatherTest seed %llu, AVX2 gathers %s\n", static_cast<unsigned long long>(seed),
              GathersWithAvx2() ? "on" : "off");
  SCOPED_TRACE("seed " + std::to_string(seed));
  const GatherRows r = RandomGatherRows(seed);
  const auto rows = static_cast<uint32_t>(r.offsets.size() - 1);
  std::vector<double> sums(rows);
  SumRows(r.offsets.data(), r.sources.data(), 0, rows, r.in.data(), sums.data());
  for (uint32_t u = 0; u < rows; ++u) {
    const uint16_t* v = r.sources.data() + r.offsets[u];
    const size_t size = r.offsets[u + 1] - r.offsets[u];
    const double want = ReferenceLaneSum(v, size, r.in.data());
    const double scalar = RowSum(std::span<const uint16_t>(v, size), r.in.data());
    EXPECT_EQ(scalar, want) << "row " << u << " of " << size;
    EXPECT_EQ(sums[u], want) << "row " << u << " of " << size;
  }
  // A range of rows starts at its first row's sums[0].
  std::vector<double> part(10);
  SumRows(r.offsets.data(), r.sources.data(), 100, 110, r.in.data(), part.data());
  for (uint32_t u = 100; u < 110; ++u) EXPECT_EQ(part[u - 100], sums[u]);
}

TEST(GatherTest, GatherSlotsCopiesEachSourcesValue) {
  const uint64_t seed = std::random_device{}();
  std::printf("GatherTest seed %llu\n", static_cast<unsigned long long>(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));
  const GatherRows r = RandomGatherRows(seed);
  for (uint64_t count : {uint64_t{0}, uint64_t{7}, uint64_t{8}, uint64_t{1001}}) {
    std::vector<float> to(count + 1, -7.0f);
    GatherSlots(r.sources.data() + 3, count, r.in.data(), to.data());
    for (uint64_t i = 0; i < count; ++i) EXPECT_EQ(to[i], r.in[r.sources[3 + i]]) << i;
    EXPECT_EQ(to[count], -7.0f) << "nothing past the slots";
  }
}

}  // namespace
}  // namespace crawlrank
