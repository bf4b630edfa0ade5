// Value encodings of the `pages` and `links` tables (docs/format.md, format version 1).
#ifndef CRAWLRANK_SRC_PAGE_RECORD_H_
#define CRAWLRANK_SRC_PAGE_RECORD_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/edge_source.h"
#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank {

// Appends the encoding of `record`: every field but the id (the key) and the fingerprint
// (the hash of the URL).
void EncodePageRecord(const PageRecord& record, std::string* out);

// Decodes a `pages` value stored under `id`, computing the fingerprint from the URL.
// DataLoss naming the id on any truncated, overlong or trailing byte.
Status DecodePageRecord(uint32_t id, std::string_view value, PageRecord* record);

// Appends the link list of `source`: zig-zag varint of (first target - source), then a
// varint of (gap - 1) for each next target. REQUIRES: `targets` strictly increasing.
void EncodeLinks(uint32_t source, std::span<const uint32_t> targets, std::string* out);

// Decodes a link list into `targets` (cleared first). DataLoss on damaged input or a
// target outside [0, 2^32).
Status DecodeLinks(uint32_t source, std::string_view value, std::vector<uint32_t>* targets);

// The `links` table stores the lists of kLinkBlockSources consecutive source ids under one
// key (source >> kLinkBlockShift): fewer, fuller B-tree entries and one cursor step per
// block when streaming. A block value is a sequence of entries in increasing source order:
//   varint slot (source - first source of the block), varint byte length, link list.
inline constexpr uint32_t kLinkBlockShift = 5;
inline constexpr uint32_t kLinkBlockSources = 1u << kLinkBlockShift;

// Appends the entry of `source` to a block value. REQUIRES: `targets` non-empty and
// strictly increasing; entries appended in increasing source order.
void AppendLinkBlockEntry(uint32_t source, std::span<const uint32_t> targets, std::string* out);

// Decodes block `block` entirely, appending one source and its targets per entry to
// `chunk` (whose targets must stay below 2^32 in number). DataLoss naming the block when
// damaged; the chunk's targets are then as before, its sources may have grown.
Status AppendLinkBlock(uint32_t block, std::string_view value, EdgeChunk* chunk);

// Where each source's entry lies in a block value, so that a writer can replace one list
// and copy the others as they are.
struct LinkBlockLayout {
  std::array<std::string_view, kLinkBlockSources> entries;  // header and list; empty: none
  std::array<std::string_view, kLinkBlockSources> lists;    // the list bytes alone
};

// Finds the entries of a block value (checking their headers, not their lists).
Status ParseLinkBlock(uint32_t block, std::string_view value, LinkBlockLayout* layout);

// Counts the targets of an encoded list: each varint ends at a byte below 0x80.
uint32_t CountLinks(std::string_view list);

// Decodes only the list of `source` from its block value into `targets` (cleared first;
// left empty when the block has no entry for it).
Status FindInLinkBlock(uint32_t source, std::string_view value, std::vector<uint32_t>* targets);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_RECORD_H_
