// Value encoding of the `links` table (docs/format.md, format version 2): the link lists
// of 32 consecutive source pages per block.
#ifndef CRAWLRANK_SRC_LINK_BLOCK_H_
#define CRAWLRANK_SRC_LINK_BLOCK_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/edge_chunk.h"
#include "crawlrank/status.h"

namespace crawlrank {

// The `links` table stores the lists of kLinkBlockSources consecutive source ids under one
// key (source >> kLinkBlockShift): fewer, fuller B-tree entries and one cursor step per
// block when streaming. A block value is a sequence of entries in increasing source order:
//   varint slot (source - first source of the block), varint count of targets, then the
//   list: zig-zag varint (first target - source), a 5-bit class per gap, the gaps' bits.
// docs/format.md has the details.
inline constexpr uint32_t kLinkBlockShift = 5;
inline constexpr uint32_t kLinkBlockSources = 1u << kLinkBlockShift;

// Appends the entry of `source` to a block value. REQUIRES: `targets` non-empty and
// strictly increasing; entries appended in increasing source order.
void AppendLinkBlockEntry(uint32_t source, std::span<const uint32_t> targets, std::string* out);

// Decodes block `block` entirely, appending one source and its targets per entry to
// `chunk` (whose targets must stay below 2^32 in number). DataLoss naming the block when
// damaged; the chunk is then as before. `scratch` is a buffer the caller keeps between
// calls (decoding works on a padded copy of the value).
Status AppendLinkBlock(uint32_t block, std::string_view value, EdgeChunk* chunk,
                       std::string& scratch);

// Where each source's entry lies in a block value, so that a writer can replace one list
// and copy the others as they are.
struct LinkBlockLayout {
  std::array<std::string_view, kLinkBlockSources> entries;  // header and list; empty: none
  std::array<uint32_t, kLinkBlockSources> counts{};         // targets of each entry
};

// Finds the entries of a block value, checking their structure (not their targets' range).
Status ParseLinkBlock(uint32_t block, std::string_view value, LinkBlockLayout* layout);

// Decodes only the list of `source` from its block value into `targets` (cleared first;
// left empty when the block has no entry for it, or on DataLoss). Entries after it are
// not read.
Status FindInLinkBlock(uint32_t source, std::string_view value, std::vector<uint32_t>* targets);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_LINK_BLOCK_H_
