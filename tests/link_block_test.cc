// The `links` table's block encoding (src/page_db/link_block.h): round trips against hand-computed
// bytes, and damaged blocks.
#include "page_db/link_block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

#include "testutil.h"

namespace crawlrank {
namespace {

// The list of `source` as the only entry of its block, decoded back.
Result<std::vector<uint32_t>> RoundTrip(uint32_t source, std::span<const uint32_t> targets,
                                        std::string* value) {
  value->clear();
  AppendLinkBlockEntry(source, targets, value);
  EdgeChunk chunk;
  std::string scratch;
  CRAWLRANK_RETURN_IF_ERROR(AppendLinkBlock(source >> kLinkBlockShift, *value, &chunk, scratch));
  if (chunk.size() != 1 || chunk.sources[0] != source) return InternalError("one entry expected");
  return chunk.targets;
}

TEST(LinkBlockTest, LinkListsRoundTripAndAreCompact) {
  const uint32_t seed = 20261123;
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::string value;
  for (int trial = 0; trial < 400; ++trial) {
    const uint32_t source = trial % 3 == 0 ? rng() : rng() % 1000000;
    std::set<uint32_t> set;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      // far targets, near ones, and runs of neighbours
      const uint32_t kind = rng() % 3;
      set.insert(kind == 0 ? rng() : kind == 1 ? source + rng() % 300 : source + i);
    }
    std::vector<uint32_t> targets(set.begin(), set.end());
    ASSERT_OK_AND_ASSIGN(std::vector<uint32_t> back, RoundTrip(source, targets, &value));
    EXPECT_EQ(back, targets);
  }
  // Every class boundary: the gaps (next - previous - 1) 2^k - 1 and 2^k, k = 0..31.
  for (uint32_t k = 0; k < 32; ++k) {
    const uint64_t low = (uint64_t{1} << k) - 1, high = uint64_t{1} << k;
    for (uint64_t gap : {low, high}) {
      const std::vector<uint32_t> targets = {7, static_cast<uint32_t>(7 + gap + 1)};
      ASSERT_OK_AND_ASSIGN(std::vector<uint32_t> back, RoundTrip(64, targets, &value));
      EXPECT_EQ(back, targets) << "gap " << gap;
    }
  }
  // Hand-computed sizes. A run of neighbours: slot, count, first target (zig-zag 0), then
  // four 5-bit classes of 0 (gap - 1 = 0) = 20 bits, 3 bytes; no payload.
  const std::vector<uint32_t> run = {10, 11, 12, 13, 14};
  ASSERT_OK(RoundTrip(10, run, &value).status());
  EXPECT_EQ(value, std::string("\x0a\x05\x00\x00\x00\x00", 6));
  // Gaps 3 (class 2, payload bit 1) and 8 (class 4, payload bits 000): classes 2 | 4 << 5
  // = 0x82, 0x00; payload 1 | 000 << 1 = 0x01.
  const std::vector<uint32_t> spaced = {20, 24, 33};
  ASSERT_OK(RoundTrip(20, spaced, &value).status());
  EXPECT_EQ(value, std::string("\x14\x03\x00\x82\x00\x01", 6));
  // Extreme ids survive (64-bit-safe arithmetic): 0 and 2^32 - 1 from the last source.
  const std::vector<uint32_t> extremes = {0, UINT32_MAX};
  ASSERT_OK_AND_ASSIGN(std::vector<uint32_t> back, RoundTrip(UINT32_MAX, extremes, &value));
  EXPECT_EQ(back, extremes);
}

TEST(LinkBlockTest, DamagedLinkListsAreDataLoss) {
  const auto damaged = [](std::string value) {
    EdgeChunk chunk;
    std::string scratch;
    return AppendLinkBlock(0, value, &chunk, scratch).code() == StatusCode::kDataLoss &&
           chunk.targets.empty();
  };
  EXPECT_TRUE(damaged(std::string("\x00\x01\x80", 3))) << "truncated varint";
  // First target below id 0: zig-zag 11 = -6 from source 5.
  EXPECT_TRUE(damaged(std::string("\x05\x01\x0b", 3)));
  // Gaps that run past 2^32 - 1: first target 2^32 - 2, then a gap of 5 (class 3).
  EXPECT_TRUE(damaged(std::string("\x00\x02\xfc\xff\xff\xff\x1f\x03\x01", 9)));
  // Classes promised but missing; payload bits promised but missing.
  EXPECT_TRUE(damaged(std::string("\x00\x09\x00\x00", 4)));
  EXPECT_TRUE(damaged(std::string("\x00\x02\x00\x1e", 4)));
  // Nonzero padding after the last class, or after the last payload bit.
  EXPECT_TRUE(damaged(std::string("\x00\x02\x00\x20", 4)));
  EXPECT_TRUE(damaged(std::string("\x00\x02\x00\x02\x03", 5)));
  // A first-target offset near 2^64 (signed overflow if added unchecked).
  EXPECT_TRUE(damaged(std::string("\x01\x01\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12)));
  // More targets than the value could hold.
  EXPECT_TRUE(damaged(std::string("\x00\xff\xff\x03\x00", 5)));
  // The same bytes with the padding fixed decode (the cases above fail for their reason).
  EXPECT_FALSE(damaged(std::string("\x00\x02\x00\x02\x01", 5)));
  EXPECT_FALSE(damaged(std::string("\x00\x02\x00\x1f\x00\x00\x00\x40", 8)));
}

TEST(LinkBlockTest, EveryDamagedBlockDecodesSafelyOrIsDataLoss) {
  // A block with near, far and wide gaps; every truncation and every single-bit flip must
  // give DataLoss or well-formed lists, never a read or write out of bounds (the
  // sanitizer pass runs this too).
  const uint32_t seed = 77;
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::string value;
  for (uint32_t slot = 0; slot < kLinkBlockSources; slot += 1 + rng() % 4) {
    std::set<uint32_t> set;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) set.insert(rng() % 3 == 0 ? rng() : 64 + slot + rng() % 100);
    AppendLinkBlockEntry(64 + slot, std::vector<uint32_t>(set.begin(), set.end()), &value);
  }
  std::string scratch;
  const auto check = [&](const std::string& bad) {
    EdgeChunk chunk;
    const Status status = AppendLinkBlock(2, bad, &chunk, scratch);
    std::vector<uint32_t> found = {1, 2};
    const Status find = FindInLinkBlock(64 + 5, bad, &found);
    if (!find.ok()) {
      EXPECT_EQ(find.code(), StatusCode::kDataLoss);
      EXPECT_TRUE(found.empty());
    }
    if (!status.ok()) {
      EXPECT_EQ(status.code(), StatusCode::kDataLoss);
      EXPECT_TRUE(chunk.targets.empty() && chunk.sources.empty() && chunk.ends.empty());
      return;
    }
    ASSERT_EQ(chunk.ends.back(), chunk.targets.size());
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (i > 0) {
        EXPECT_LT(chunk.sources[i - 1], chunk.sources[i]);
      }
      const auto targets = chunk.TargetsOf(i);
      EXPECT_TRUE(std::adjacent_find(targets.begin(), targets.end(), std::greater_equal<>()) ==
                  targets.end());
    }
    LinkBlockLayout layout;
    (void)ParseLinkBlock(2, bad, &layout);
  };
  for (size_t size = 0; size < value.size(); ++size) check(value.substr(0, size));
  for (size_t bit = 0; bit < value.size() * 8; ++bit) {
    std::string bad = value;
    bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
    check(bad);
  }
}

TEST(LinkBlockTest, LinkBlocksRoundTripAndLocateTheirEntries) {
  // Block 3 covers sources 96..127; entries for slots 1, 5 and 31, written in slot order.
  const std::vector<std::pair<uint32_t, std::vector<uint32_t>>> lists = {
      {97, {0, 96, 97, 5000}}, {101, {101}}, {127, {1, 2, 3, 4, 1000000}}};
  std::string value;
  for (const auto& [source, targets] : lists) AppendLinkBlockEntry(source, targets, &value);

  EdgeChunk chunk;
  chunk.sources = {7};  // appends after what the chunk holds
  chunk.ends = {2};
  chunk.targets = {8, 9};
  std::string scratch;
  ASSERT_OK(AppendLinkBlock(3, value, &chunk, scratch));
  ASSERT_EQ(chunk.size(), 4u);
  for (size_t i = 0; i < lists.size(); ++i) {
    EXPECT_EQ(chunk.sources[i + 1], lists[i].first);
    const auto got = chunk.TargetsOf(i + 1);
    EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.end()), lists[i].second);
  }
  std::vector<uint32_t> targets;

  LinkBlockLayout layout;
  ASSERT_OK(ParseLinkBlock(3, value, &layout));
  std::string rebuilt;
  for (uint32_t slot = 0; slot < kLinkBlockSources; ++slot) rebuilt.append(layout.entries[slot]);
  EXPECT_EQ(rebuilt, value) << "the entries tile the value";
  EXPECT_EQ(layout.counts[1], 4u);
  EXPECT_EQ(layout.counts[5], 1u);
  EXPECT_EQ(layout.counts[31], 5u);
  EXPECT_EQ(layout.counts[0], 0u);
  EXPECT_TRUE(layout.entries[0].empty());
  ASSERT_OK(FindInLinkBlock(127, value, &targets));
  EXPECT_EQ(targets, lists[2].second);
  ASSERT_OK(FindInLinkBlock(100, value, &targets));
  EXPECT_TRUE(targets.empty());

  // Entries out of order, a slot past the block, a length past the end: all damaged.
  std::string swapped;
  AppendLinkBlockEntry(101, lists[1].second, &swapped);
  AppendLinkBlockEntry(97, lists[0].second, &swapped);
  for (const std::string& bad :
       {swapped, std::string("\x20\x01\x00", 3), std::string("\x01\x09\x00", 3), std::string()}) {
    chunk.Clear();
    EXPECT_EQ(AppendLinkBlock(3, bad, &chunk, scratch).code(), StatusCode::kDataLoss);
    EXPECT_TRUE(chunk.targets.empty());
    EXPECT_EQ(ParseLinkBlock(3, bad, &layout).code(), StatusCode::kDataLoss);
  }
}

}  // namespace
}  // namespace crawlrank
