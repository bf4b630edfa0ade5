// Fuzzes the `links` block codec (src/page_db/link_block.h): AppendLinkBlock, ParseLinkBlock and
// FindInLinkBlock on arbitrary values, and the encoder on arbitrary lists.
//
// Input: a mode byte, a 4-byte block number (masked to a block whose sources fit 32
// bits), then either (mode even) a block value to decode, or (mode odd) a description of
// lists to encode: per entry, a slot step byte, a count byte, a first-target word and one
// gap byte (scaled by a shift byte) per further target.
//
// Properties of a value AppendLinkBlock accepts:
//   - entries have strictly increasing sources inside the block, non-empty lists, and each
//     list is strictly increasing (ends are strictly increasing too);
//   - the chunk's earlier contents are untouched; on DataLoss the chunk is as before;
//   - re-encoding the decoded lists gives a value no longer than the input that decodes to
//     the same lists (the encoder is the canonical, shortest form);
//   - ParseLinkBlock accepts it, with the same counts, and its entries laid end to end are
//     the value; each entry alone decodes to its list;
//   - FindInLinkBlock finds every source's list (and nothing for the others).
// Lists the encoder is given decode back to themselves, with the properties above.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "page_db/link_block.h"

namespace crawlrank {
namespace {

constexpr uint32_t kBlockMask = (uint32_t{1} << (32 - kLinkBlockShift)) - 1;

// A chunk as a caller might hand it over: one earlier entry.
EdgeChunk EarlierChunk() {
  EdgeChunk chunk;
  chunk.sources = {3};
  chunk.ends = {3};
  chunk.targets = {1, 5, 9};
  return chunk;
}

bool SameChunk(const EdgeChunk& a, const EdgeChunk& b) {
  return a.sources == b.sources && a.ends == b.ends && a.targets == b.targets;
}

// Checks a value AppendLinkBlock accepted, given its decoded lists (in `chunk` after the
// earlier entry).
void CheckAccepted(uint32_t block, std::string_view value, const EdgeChunk& chunk) {
  const EdgeChunk earlier = EarlierChunk();
  const uint32_t base = block << kLinkBlockShift;
  FUZZ_CHECK(chunk.size() >= 1 + 1);
  FUZZ_CHECK(chunk.sources[0] == earlier.sources[0] && chunk.ends[0] == earlier.ends[0]);
  FUZZ_CHECK(std::equal(earlier.targets.begin(), earlier.targets.end(), chunk.targets.begin()));
  FUZZ_CHECK(chunk.ends.size() == chunk.size() && chunk.ends.back() == chunk.targets.size());
  std::string canonical;
  LinkBlockLayout layout_expected;
  for (size_t i = 1; i < chunk.size(); ++i) {
    const uint32_t source = chunk.sources[i];
    FUZZ_CHECK(source >= base && source - base < kLinkBlockSources);
    if (i > 1) FUZZ_CHECK(source > chunk.sources[i - 1]);
    FUZZ_CHECK(chunk.ends[i] > chunk.ends[i - 1]);
    const std::span<const uint32_t> list = chunk.TargetsOf(i);
    for (size_t j = 1; j < list.size(); ++j) FUZZ_CHECK(list[j] > list[j - 1]);
    AppendLinkBlockEntry(source, list, &canonical);
    layout_expected.counts[source - base] = static_cast<uint32_t>(list.size());
  }
  // The canonical encoding decodes to the same lists and is never longer.
  FUZZ_CHECK(canonical.size() <= value.size());
  EdgeChunk again = EarlierChunk();
  std::string scratch;
  FUZZ_CHECK(AppendLinkBlock(block, canonical, &again, scratch).ok());
  FUZZ_CHECK(SameChunk(again, chunk));

  LinkBlockLayout layout;
  FUZZ_CHECK(ParseLinkBlock(block, value, &layout).ok());
  FUZZ_CHECK(layout.counts == layout_expected.counts);
  std::string joined;
  for (uint32_t slot = 0; slot < kLinkBlockSources; ++slot) {
    FUZZ_CHECK(layout.entries[slot].empty() == (layout.counts[slot] == 0));
    joined.append(layout.entries[slot]);
  }
  FUZZ_CHECK(joined == value);

  size_t next = 1;  // the chunk entry of the next source present
  std::vector<uint32_t> found;
  for (uint32_t slot = 0; slot < kLinkBlockSources; ++slot) {
    const uint32_t source = base + slot;
    FUZZ_CHECK(FindInLinkBlock(source, value, &found).ok());
    if (next < chunk.size() && chunk.sources[next] == source) {
      const std::span<const uint32_t> list = chunk.TargetsOf(next);
      FUZZ_CHECK(std::equal(found.begin(), found.end(), list.begin(), list.end()));
      // The entry alone is a block of one entry.
      EdgeChunk single;
      FUZZ_CHECK(AppendLinkBlock(block, layout.entries[slot], &single, scratch).ok());
      FUZZ_CHECK(single.size() == 1 && single.sources[0] == source);
      FUZZ_CHECK(
          std::equal(single.targets.begin(), single.targets.end(), list.begin(), list.end()));
      ++next;
    } else {
      FUZZ_CHECK(found.empty());
    }
  }
}

void Decode(uint32_t block, std::string_view value) {
  EdgeChunk chunk = EarlierChunk();
  std::string scratch;
  const Status status = AppendLinkBlock(block, value, &chunk, scratch);
  if (!status.ok()) {
    FUZZ_CHECK(status.code() == StatusCode::kDataLoss);
    FUZZ_CHECK(SameChunk(chunk, EarlierChunk()));
    // The other decoders must fail safely too; their verdicts may differ (ParseLinkBlock
    // does not decode targets, FindInLinkBlock stops at its source).
    LinkBlockLayout layout;
    (void)ParseLinkBlock(block, value, &layout);
    std::vector<uint32_t> found;
    const uint32_t base = block << kLinkBlockShift;
    for (uint32_t slot = 0; slot < kLinkBlockSources; ++slot) {
      if (!FindInLinkBlock(base + slot, value, &found).ok()) FUZZ_CHECK(found.empty());
    }
    return;
  }
  CheckAccepted(block, value, chunk);
}

void Encode(uint32_t block, fuzz::Bytes& in) {
  const uint32_t base = block << kLinkBlockShift;
  const unsigned shift = in.U8() % 32;
  std::string value;
  EdgeChunk expected = EarlierChunk();
  uint32_t slot = in.U8() % kLinkBlockSources;
  while (!in.empty() && slot < kLinkBlockSources) {
    const uint32_t source = base + slot;
    const size_t count = 1 + in.U8();
    uint64_t target = in.U32();
    std::vector<uint32_t> list = {static_cast<uint32_t>(target)};
    while (list.size() < count) {
      target += 1 + (uint64_t{in.U8()} << shift);
      if (target > UINT32_MAX) break;
      list.push_back(static_cast<uint32_t>(target));
    }
    AppendLinkBlockEntry(source, list, &value);
    expected.sources.push_back(source);
    expected.targets.insert(expected.targets.end(), list.begin(), list.end());
    expected.ends.push_back(static_cast<uint32_t>(expected.targets.size()));
    slot += 1 + in.U8() % 8;
  }
  if (value.empty()) return;
  EdgeChunk chunk = EarlierChunk();
  std::string scratch;
  FUZZ_CHECK(AppendLinkBlock(block, value, &chunk, scratch).ok());
  FUZZ_CHECK(SameChunk(chunk, expected));
  CheckAccepted(block, value, chunk);
}

}  // namespace
}  // namespace crawlrank

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  crawlrank::fuzz::Bytes in(data, size);
  const uint8_t mode = in.U8();
  const uint32_t block = in.U32() & crawlrank::kBlockMask;
  if (mode % 2 == 0) {
    crawlrank::Decode(block, in.rest());
  } else {
    crawlrank::Encode(block, in);
  }
  return 0;
}
