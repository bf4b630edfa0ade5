#include "rank/link_bins.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace crawlrank {
namespace {

// Out-link rows of a random graph: each page links to pages of its own 2^16 and to pages
// anywhere, so rows and bins both fill.
struct OutRows {
  std::vector<uint64_t> offsets{0};
  std::vector<uint32_t> targets;
};

OutRows RandomRows(uint32_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  OutRows g;
  for (uint32_t s = 0; s < n; ++s) {
    const int links = static_cast<int>(rng() % 7);
    for (int k = 0; k < links; ++k) {
      const uint32_t near = s - std::min<uint32_t>(s, 300) + static_cast<uint32_t>(rng() % 600);
      g.targets.push_back(rng() % 3 == 0 ? static_cast<uint32_t>(rng() % n) : std::min(near, n - 1));
    }
    g.offsets.push_back(g.targets.size());
  }
  return g;
}

// The thread ranges of a split: `threads` contiguous source ranges.
std::vector<uint32_t> Ranges(uint32_t n, uint32_t threads) {
  std::vector<uint32_t> first;
  for (uint32_t k = 0; k <= threads; ++k) first.push_back(static_cast<uint32_t>(uint64_t{n} * k / threads));
  return first;
}

using SplitLink = std::tuple<uint32_t, uint32_t>;  // (source as numbered, target)

// Every link of the split, by where it sits: local rows in row order, bins in slot order.
struct Layout {
  std::vector<std::vector<uint32_t>> rows;      // by target: local sources, as numbered
  std::map<std::pair<uint32_t, uint32_t>, std::vector<SplitLink>> bins;  // (from, to) → slots
};

Layout Read(const LinkBins& b) {
  Layout out;
  out.rows.resize(b.pages);
  for (uint32_t t = 0; t < b.pages; ++t) {
    for (uint16_t s : b.LocalLinks(t)) out.rows[t].push_back(LinkBins::PartBegin(LinkBins::PartOf(t)) + s);
  }
  for (uint32_t q = 0; q < b.parts; ++q) {
    for (uint32_t p = 0; p < b.parts; ++p) {
      for (uint64_t i = b.Bin(p, q); i < b.Bin(p + 1, q); ++i) {
        out.bins[{p, q}].emplace_back(LinkBins::PartBegin(p) + b.slot_source[i],
                                      LinkBins::PartBegin(q) + b.slot_target[i]);
      }
    }
  }
  return out;
}

// What the split must hold, from its definition: a link whose source and target share a
// partition in the target's row, any other in the bin of their partitions; both in the
// order of the sources' page ids (a source's own links in their row order).
Layout Expected(const OutRows& g, const std::vector<uint32_t>& position) {
  const auto n = static_cast<uint32_t>(g.offsets.size() - 1);
  Layout out;
  out.rows.resize(n);
  for (uint32_t s = 0; s < n; ++s) {
    const uint32_t id = position.empty() ? s : position[s];
    for (uint64_t e = g.offsets[s]; e < g.offsets[s + 1]; ++e) {
      const uint32_t t = g.targets[e];
      if (id >> 16 == t >> 16) {
        out.rows[t].push_back(id);
      } else {
        out.bins[{id >> 16, t >> 16}].emplace_back(id, t);
      }
    }
  }
  return out;
}

TEST(LinkBinsTest, EveryLinkIsInItsTargetsRowOrItsPartitionsBinInSourceOrder) {
  const uint64_t seed = std::random_device{}();
  std::printf("LinkBinsTest seed %llu\n", static_cast<unsigned long long>(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 3 * LinkBins::kPartPages + 1234;  // a short last partition
  const OutRows g = RandomRows(n, seed);
  const Layout want = Expected(g, {});
  for (uint32_t threads : {1u, 2u, 4u}) {
    const LinkBins b = SplitOutLinks(g.offsets, g.targets, {}, Ranges(n, threads));
    ASSERT_EQ(b.parts, 4u);
    EXPECT_EQ(b.PartEnd(3), n);
    EXPECT_EQ(b.local_offsets.back() + b.crossing(), g.targets.size());
    const Layout got = Read(b);
    EXPECT_EQ(got.rows, want.rows) << threads << " threads";
    EXPECT_EQ(got.bins, want.bins) << threads << " threads";
    for (const auto& [bin, links] : got.bins) EXPECT_NE(bin.first, bin.second);
  }
}

TEST(LinkBinsTest, RenumberedSourcesGoWhereTheirNewIdsSendThem) {
  const uint64_t seed = std::random_device{}();
  std::printf("LinkBinsTest seed %llu\n", static_cast<unsigned long long>(seed));
  SCOPED_TRACE("seed " + std::to_string(seed));
  const uint32_t n = 2 * LinkBins::kPartPages + 77;
  OutRows g = RandomRows(n, seed);
  // Reversed ids: a link within a partition by page id may cross by position.
  std::vector<uint32_t> position(n);
  for (uint32_t i = 0; i < n; ++i) position[i] = n - 1 - i;
  for (uint32_t& t : g.targets) t = position[t];
  const Layout want = Expected(g, position);
  for (uint32_t threads : {1u, 3u}) {
    const LinkBins b = SplitOutLinks(g.offsets, g.targets, position, Ranges(n, threads));
    const Layout got = Read(b);
    EXPECT_EQ(got.rows, want.rows) << threads << " threads";
    EXPECT_EQ(got.bins, want.bins) << threads << " threads";
  }
}

TEST(LinkBinsTest, AGraphWithoutLinksHasEmptyRowsAndBins) {
  OutRows g;
  g.offsets.assign(LinkBins::kPartPages + 2, 0);
  const LinkBins b = SplitOutLinks(g.offsets, g.targets, {}, Ranges(LinkBins::kPartPages + 1, 2));
  EXPECT_EQ(b.parts, 2u);
  EXPECT_EQ(b.crossing(), 0u);
  EXPECT_EQ(b.local_offsets.back(), 0u);
}

}  // namespace
}  // namespace crawlrank
