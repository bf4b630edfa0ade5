#include "page_db/link_block.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "base/coding.h"

namespace crawlrank {

using coding::GetVarint64;

namespace {

// Link lists, format version 2 (docs/format.md, "links"). A list of n targets is the
// zig-zag varint of (first target - source), then the n - 1 gaps g = next - previous - 1,
// each as a 5-bit class (its bit length; 31 for 31 or 32 bits) in one bit array, and the
// bits of g below its leading one (all 32 for class 31) in a second. Bits are packed
// least significant first. The classes can be read without the payload, so each gap's
// payload position is a running sum that does not wait on the payload itself.
constexpr unsigned kClassBits = 5;
constexpr uint32_t kWideClass = 31;  // 32 raw bits, for gaps of 2^30 and more

constexpr std::array<uint8_t, 32> kPayloadBits = [] {
  std::array<uint8_t, 32> bits{};
  for (uint32_t c = 1; c < kWideClass; ++c) bits[c] = static_cast<uint8_t>(c - 1);
  bits[kWideClass] = 32;
  return bits;
}();

constexpr std::array<uint32_t, 32> kPayloadMask = [] {
  std::array<uint32_t, 32> mask{};
  for (uint32_t c = 0; c < 32; ++c)
    mask[c] = static_cast<uint32_t>((uint64_t{1} << kPayloadBits[c]) - 1);
  return mask;
}();

constexpr std::array<uint32_t, 32> kClassBase = [] {
  std::array<uint32_t, 32> base{};
  for (uint32_t c = 1; c < kWideClass; ++c) base[c] = uint32_t{1} << (c - 1);
  return base;
}();

uint32_t ClassOf(uint32_t gap) {
  const auto width = static_cast<uint32_t>(std::bit_width(gap));
  return width < kWideClass ? width : kWideClass;
}

size_t ClassBytes(uint32_t gaps) {
  return (size_t{gaps} * kClassBits + 7) / 8;
}

// Decoding reads 8 bytes at a time without bounds checks, from a copy of the value with
// kPadding zero bytes after it; no read starts more than 28 bytes past the value's end.
constexpr size_t kPadding = 40;

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

// Appends bit fields of up to 32 bits, least significant bit first.
class BitWriter {
 public:
  explicit BitWriter(char* p) : p_(p) {}
  void Put(uint64_t value, unsigned bits) {  // bits <= 32
    buffer_ |= value << filled_;
    filled_ += bits;
    if (filled_ >= 32) {
      for (int i = 0; i < 4; ++i) *p_++ = static_cast<char>(buffer_ >> (8 * i));
      buffer_ >>= 32;
      filled_ -= 32;
    }
  }
  char* Finish() {
    for (; filled_ > 0; filled_ -= std::min(filled_, 8u)) {
      *p_++ = static_cast<char>(buffer_);
      buffer_ >>= 8;
    }
    return p_;
  }

 private:
  char* p_;
  uint64_t buffer_ = 0;
  unsigned filled_ = 0;
};

// Writes the varint of `v` at `p` and returns the end. `p` has room for 10 bytes.
char* WriteVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// The most bytes a block entry of n >= 1 targets takes: slot, count (varint32), the first
// target's zig-zag offset (|offset| < 2^32, so at most 5 bytes), the classes, and 32
// payload bits per gap.
size_t MaxEntrySize(size_t n) {
  const auto gaps = static_cast<uint32_t>(n - 1);
  return 1 + 5 + 5 + ClassBytes(gaps) + 4 * size_t{gaps};
}

// Writes the entry header and list of `source` at p (room: MaxEntrySize) and returns the end.
char* WriteEntry(char* p, uint32_t source, std::span<const uint32_t> targets) {
  p = WriteVarint(p, source & (kLinkBlockSources - 1));
  p = WriteVarint(p, targets.size());
  p = WriteVarint(p, coding::ZigZag(int64_t{targets[0]} - int64_t{source}));
  const auto gaps = static_cast<uint32_t>(targets.size() - 1);
  // The classes take a known number of bytes, so both arrays are written in one pass.
  BitWriter classes(p);
  BitWriter payload(p + ClassBytes(gaps));
  for (uint32_t i = 1; i <= gaps; ++i) {
    const uint32_t gap = targets[i] - targets[i - 1] - 1;
    const uint32_t c = ClassOf(gap);
    classes.Put(c, kClassBits);
    payload.Put(gap - kClassBase[c], kPayloadBits[c]);
  }
  classes.Finish();
  return payload.Finish();
}

struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
};

// The helpers below run once per list or per entry (every ~17 links) on the edge stream's
// path; they are forced inline because a call each measured ~5% of the stream.

[[gnu::always_inline]] inline bool ReadVarint(Cursor& in, uint64_t* v) {
  if (in.p != in.end && *in.p < 0x80) {  // most headers and first targets: one byte
    *v = *in.p++;
    return true;
  }
  std::string_view rest(reinterpret_cast<const char*>(in.p), static_cast<size_t>(in.end - in.p));
  if (!GetVarint64(rest, v)) return false;
  in.p = reinterpret_cast<const uint8_t*>(rest.data());
  return true;
}

// Reads an entry header. False when damaged: a slot past the block, no targets, or more
// targets than the bytes left could hold (the first takes a byte, each next one 5 bits).
[[gnu::always_inline]] inline bool ReadEntryHeader(Cursor& in, uint32_t* slot, uint32_t* count) {
  uint64_t s, n;
  if (!ReadVarint(in, &s) || s >= kLinkBlockSources || !ReadVarint(in, &n) || n == 0) return false;
  const auto room = static_cast<uint64_t>(in.end - in.p);
  if (room == 0 || n - 1 > (room - 1) * 8 / kClassBits) return false;
  *slot = static_cast<uint32_t>(s);
  *count = static_cast<uint32_t>(n);  // < 2^32: bounded by the value's size
  return true;
}

// True when the bits of the last byte of a `bits`-bit array past its end are zero.
[[gnu::always_inline]] inline bool PaddingIsZero(const uint8_t* bytes, uint64_t bits) {
  return (bits & 7) == 0 || (bytes[bits >> 3] >> (bits & 7)) == 0;
}

// A list's parts, as its first bytes place them: the first target and the class array;
// the payload follows the classes.
struct ListStart {
  int64_t first;
  uint32_t gaps;
  const uint8_t* classes;
  const uint8_t* payload;
};

// Reads the first target of a list of `count` targets of `source` and places its class
// array. False when damaged: a truncated varint, a first target outside [0, 2^32), or
// classes past the end.
[[gnu::always_inline]] inline bool ReadListStart(Cursor& in, uint32_t source, uint32_t count,
                                                 ListStart* list) {
  uint64_t zigzag;
  // |first - source| < 2^32, so its zig-zag form is below 2^33.
  if (!ReadVarint(in, &zigzag) || zigzag >= (uint64_t{1} << 33)) return false;
  list->first = int64_t{source} + coding::UnZigZag(zigzag);
  if (list->first < 0 || list->first > int64_t{UINT32_MAX}) return false;
  list->gaps = count - 1;
  const size_t class_bytes = ClassBytes(list->gaps);
  if (static_cast<size_t>(in.end - in.p) < class_bytes) return false;
  list->classes = in.p;
  list->payload = in.p + class_bytes;
  return true;
}

// Checks that the payload of `payload_bits` bits ends inside the value and that both
// arrays' padding bits are zero, then moves `in` past the list.
[[gnu::always_inline]] inline bool FinishList(Cursor& in, const ListStart& list,
                                              uint64_t payload_bits) {
  const uint64_t payload_bytes = (payload_bits + 7) / 8;
  if (static_cast<uint64_t>(in.end - list.payload) < payload_bytes ||
      !PaddingIsZero(list.classes, uint64_t{list.gaps} * kClassBits) ||
      !PaddingIsZero(list.payload, payload_bits)) {
    return false;
  }
  in.p = list.payload + payload_bytes;
  return true;
}

// Decodes the `count` targets of `source` at `in` into out (room for count) and moves `in`
// past the list. False when damaged (see ReadListStart and FinishList), or when a target
// passes 2^32 - 1; out then holds garbage.
bool DecodeList(Cursor& in, uint32_t source, uint32_t count, uint32_t* out) {
  ListStart list;
  if (!ReadListStart(in, source, count, &list)) return false;
  *out++ = static_cast<uint32_t>(list.first);
  // Locals, not list's fields: the stores through `out` could otherwise alias them.
  const uint32_t gaps = list.gaps;
  const uint8_t* classes = list.classes;
  const uint8_t* payload = list.payload;
  // The payload position is checked after every eight gaps: until a check fails, reads
  // start at most 7 * 4 bytes past the value's end, within kPadding.
  const uint64_t payload_limit = 8 * static_cast<uint64_t>(in.end - payload);
  auto current = static_cast<uint64_t>(list.first);
  uint64_t payload_at = 0;
  // One gap: its class from `word`, its payload bits from the payload array.
  const auto gap = [&](uint64_t word, unsigned shift) {
    const auto c = static_cast<uint32_t>(word >> shift) & 31;
    const uint64_t raw =
        (Load64(payload + (payload_at >> 3)) >> (payload_at & 7)) & kPayloadMask[c];
    payload_at += kPayloadBits[c];
    current += kClassBase[c] + raw + 1;
    *out++ = static_cast<uint32_t>(current);
  };
  // Eight classes fill five bytes: one load serves eight gaps.
  uint32_t i = 0;
  for (; i + 8 <= gaps; i += 8) {
    const uint64_t word = Load64(classes + i / 8 * 5);
    for (unsigned j = 0; j < 8; ++j) gap(word, j * kClassBits);
    if (payload_at > payload_limit) return false;
  }
  const uint64_t word = Load64(classes + i / 8 * 5);  // starts at most at the payload
  for (unsigned j = 0; i < gaps; ++i, ++j) gap(word, j * kClassBits);
  return current <= UINT32_MAX && FinishList(in, list, payload_at);
}

// Moves `in` past a list of `count` targets without decoding it: the payload's length is
// the sum of its classes' widths. False when damaged, as DecodeList, except for a target
// past 2^32 - 1, which only decoding can tell.
bool SkipList(Cursor& in, uint32_t source, uint32_t count) {
  ListStart list;
  if (!ReadListStart(in, source, count, &list)) return false;
  uint64_t payload_bits = 0;
  for (uint32_t i = 0; i < list.gaps; i += 8) {
    const uint64_t word = Load64(list.classes + i / 8 * 5);
    for (uint32_t j = 0; j < 8 && i + j < list.gaps; ++j) {
      payload_bits += kPayloadBits[(word >> (j * kClassBits)) & 31];
    }
  }
  return FinishList(in, list, payload_bits);
}

Cursor CursorOf(std::string_view value) {
  const auto* p = reinterpret_cast<const uint8_t*>(value.data());
  return {p, p + value.size()};
}

Status DamagedBlock(uint32_t block) {
  return DataLossError("links block " + std::to_string(block) + " (pages " +
                       std::to_string(uint64_t{block} << kLinkBlockShift) + ".." +
                       std::to_string(((uint64_t{block} + 1) << kLinkBlockShift) - 1) +
                       "): damaged");
}

enum class Step { kNext, kStop, kDamaged };

// Walks the entries of block value `value` over a padded copy of it in `scratch`, calling
// fn(source, count, entry offset, cursor) with the cursor at the entry's list. fn moves
// the cursor past the list and returns kNext, or returns kStop (done) or kDamaged. Checks
// slot order and that the value ends with its last entry.
template <typename Fn>
Status ForEachEntry(uint32_t block, std::string_view value, std::string& scratch, Fn&& fn) {
  if ((uint64_t{block} << kLinkBlockShift) > UINT32_MAX || value.empty())
    return DamagedBlock(block);
  const uint32_t base = block << kLinkBlockShift;
  scratch.resize(value.size() + kPadding);
  std::memcpy(scratch.data(), value.data(), value.size());
  std::memset(scratch.data() + value.size(), 0, kPadding);
  Cursor in = CursorOf(std::string_view(scratch.data(), value.size()));
  const uint8_t* begin = in.p;
  int64_t previous_slot = -1;
  while (in.p != in.end) {
    const auto offset = static_cast<size_t>(in.p - begin);
    uint32_t slot, count;
    if (!ReadEntryHeader(in, &slot, &count) || int64_t{slot} <= previous_slot) {
      return DamagedBlock(block);
    }
    const Step step = fn(base + slot, count, offset, in);
    if (step == Step::kDamaged) return DamagedBlock(block);
    if (step == Step::kStop) break;
    previous_slot = slot;
  }
  return Status::Ok();
}

}  // namespace

void AppendLinkBlockEntry(uint32_t source, std::span<const uint32_t> targets, std::string* out) {
  const size_t at = out->size();
  out->resize(at + MaxEntrySize(targets.size()));
  char* end = WriteEntry(out->data() + at, source, targets);
  out->resize(static_cast<size_t>(end - out->data()));
}

Status AppendLinkBlock(uint32_t block, std::string_view value, EdgeChunk* chunk,
                       std::string& scratch) {
  std::vector<uint32_t>& targets = chunk->targets;
  const size_t first_target = targets.size();
  const size_t first_source = chunk->sources.size();
  // A list of n targets takes at least 1 + 5 (n - 1) / 8 bytes and is decoded only once
  // its classes fit the value, so a block, even a damaged one, never decodes more than
  // 8/5 targets per byte, plus one. A value that could take the chunk past 2^32 targets
  // (its 32-bit ends) is no block a writer made: 32 lists of at most 2^32 ids, in
  // practice a few KB.
  const uint64_t room = first_target + uint64_t{value.size()} * 8 / 5 + 2;
  if (room > UINT32_MAX) return DamagedBlock(block);
  targets.resize(room);
  uint32_t* out = targets.data() + first_target;
  const Status status =
      ForEachEntry(block, value, scratch, [&](uint32_t source, uint32_t count, size_t, Cursor& in) {
        if (!DecodeList(in, source, count, out)) return Step::kDamaged;
        out += count;
        chunk->sources.push_back(source);
        chunk->ends.push_back(static_cast<uint32_t>(out - targets.data()));
        return Step::kNext;
      });
  if (!status.ok()) {
    targets.resize(first_target);
    chunk->sources.resize(first_source);
    chunk->ends.resize(first_source);
    return status;
  }
  targets.resize(static_cast<size_t>(out - targets.data()));
  return status;
}

Status ParseLinkBlock(uint32_t block, std::string_view value, LinkBlockLayout* layout) {
  *layout = LinkBlockLayout{};
  std::string scratch;
  return ForEachEntry(
      block, value, scratch, [&](uint32_t source, uint32_t count, size_t offset, Cursor& in) {
        if (!SkipList(in, source, count)) return Step::kDamaged;
        const auto end =
            static_cast<size_t>(in.p - reinterpret_cast<const uint8_t*>(scratch.data()));
        const uint32_t slot = source & (kLinkBlockSources - 1);
        layout->entries[slot] = value.substr(offset, end - offset);
        layout->counts[slot] = count;
        return Step::kNext;
      });
}

Status FindInLinkBlock(uint32_t source, std::string_view value, std::vector<uint32_t>* targets) {
  targets->clear();
  std::string scratch;
  const Status status = ForEachEntry(
      source >> kLinkBlockShift, value, scratch,
      [&](uint32_t entry, uint32_t count, size_t, Cursor& in) {
        if (entry > source) return Step::kStop;
        if (entry < source) return SkipList(in, entry, count) ? Step::kNext : Step::kDamaged;
        targets->resize(count);
        return DecodeList(in, source, count, targets->data()) ? Step::kStop : Step::kDamaged;
      });
  if (!status.ok()) targets->clear();
  return status;
}

}  // namespace crawlrank
