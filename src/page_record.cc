#include "page_record.h"

#include <cstring>

#include "coding.h"

namespace crawlrank {

using coding::GetFixed64;
using coding::GetFloat;
using coding::GetVarint32;
using coding::GetVarint64;

void EncodePageRecord(const PageRecord& r, std::string* out) {
  coding::PutVarint32(*out, r.depth);
  coding::PutFixed64(*out, r.discovered_from);
  coding::PutVarint64(*out, static_cast<uint64_t>(r.first_crawl_ms));
  coding::PutVarint64(*out, static_cast<uint64_t>(r.last_crawl_ms));
  coding::PutVarint32(*out, r.n_crawls);
  coding::PutVarint32(*out, r.n_changes);
  coding::PutFloat(*out, r.content_score);
  coding::PutFloat(*out, r.link_score);
  coding::PutFixed64(*out, r.content_hash);
  coding::PutVarint32(*out, r.http_status);
  coding::PutVarint32(*out, r.n_errors);
  coding::PutVarint32(*out, static_cast<uint32_t>(r.url.size()));
  out->append(r.url);
}

Status DecodePageRecord(uint32_t id, std::string_view in, PageRecord* r) {
  uint64_t first = 0, last = 0;
  uint32_t status = 0, url_size = 0;
  r->id = id;
  const bool ok = GetVarint32(in, &r->depth) &&
                  GetFixed64(in, &r->discovered_from) && GetVarint64(in, &first) &&
                  GetVarint64(in, &last) && GetVarint32(in, &r->n_crawls) &&
                  GetVarint32(in, &r->n_changes) && GetFloat(in, &r->content_score) &&
                  GetFloat(in, &r->link_score) && GetFixed64(in, &r->content_hash) &&
                  GetVarint32(in, &status) && status <= UINT16_MAX &&
                  GetVarint32(in, &r->n_errors) && GetVarint32(in, &url_size) &&
                  in.size() == url_size && url_size > 0 && first <= INT64_MAX &&
                  last <= INT64_MAX;
  if (!ok) {
    return DataLossError("page record of id " + std::to_string(id) +
                         ": damaged (truncated, overlong or out-of-range field)");
  }
  r->first_crawl_ms = static_cast<int64_t>(first);
  r->last_crawl_ms = static_cast<int64_t>(last);
  r->http_status = static_cast<uint16_t>(status);
  r->url.assign(in);
  r->fingerprint = UrlFingerprint(r->url);
  return Status::Ok();
}

namespace {

// Writes the varint of `v` at `p` and returns the end. `p` has room for 10 bytes.
char* WriteVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// Writes the link list at `p` and returns the end. `p` has room for 10 + 5 n bytes.
char* WriteLinks(char* p, uint32_t source, std::span<const uint32_t> targets) {
  if (targets.empty()) return p;
  p = WriteVarint(p, coding::ZigZag(int64_t{targets[0]} - int64_t{source}));
  for (size_t i = 1; i < targets.size(); ++i) p = WriteVarint(p, targets[i] - targets[i - 1] - 1);
  return p;
}

size_t MaxLinksSize(size_t n) { return 10 + 5 * n; }

}  // namespace

void EncodeLinks(uint32_t source, std::span<const uint32_t> targets, std::string* out) {
  const size_t at = out->size();
  out->resize(at + MaxLinksSize(targets.size()));
  char* end = WriteLinks(out->data() + at, source, targets);
  out->resize(static_cast<size_t>(end - out->data()));
}

namespace {

// Decodes the list of `source` in `in` to `out`, which has room for in.size() targets
// (each takes at least one byte). Returns the end of what it wrote, or nullptr when damaged.
uint32_t* DecodeListTo(uint32_t source, std::string_view in, uint32_t* out) {
  uint64_t zigzag;
  if (!GetVarint64(in, &zigzag)) return nullptr;
  int64_t current = int64_t{source} + coding::UnZigZag(zigzag);
  if (current < 0 || current > int64_t{UINT32_MAX}) return nullptr;
  *out++ = static_cast<uint32_t>(current);
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  const auto* end = p + in.size();
  while (p != end) {
    // Fast path: most gaps within a host fit one byte.
    if (*p < 0x80) {
      current += *p++ + 1;
    } else {
      std::string_view rest(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p));
      uint64_t gap;
      if (!GetVarint64(rest, &gap) || gap > UINT32_MAX) return nullptr;
      p = reinterpret_cast<const uint8_t*>(rest.data());
      current += static_cast<int64_t>(gap) + 1;
    }
    if (current > int64_t{UINT32_MAX}) return nullptr;
    *out++ = static_cast<uint32_t>(current);
  }
  return out;
}

// Appends the decoded list of `source` to `targets`. Returns false when damaged.
bool AppendDecodedLinks(uint32_t source, std::string_view in, std::vector<uint32_t>* targets) {
  const size_t size = targets->size();
  targets->resize(size + in.size());
  uint32_t* end = DecodeListTo(source, in, targets->data() + size);
  targets->resize(end == nullptr ? size : static_cast<size_t>(end - targets->data()));
  return end != nullptr;
}

// Reads the header of the next block entry: its slot and its list bytes.
bool NextBlockEntry(std::string_view& in, uint32_t* slot, std::string_view* list) {
  uint32_t length;
  if (!GetVarint32(in, slot) || *slot >= kLinkBlockSources || !GetVarint32(in, &length) ||
      length == 0 || length > in.size()) {
    return false;
  }
  *list = in.substr(0, length);
  in.remove_prefix(length);
  return true;
}

Status DamagedBlock(uint32_t block) {
  return DataLossError("links block " + std::to_string(block) + " (pages " +
                       std::to_string(uint64_t{block} << kLinkBlockShift) + ".." +
                       std::to_string(((uint64_t{block} + 1) << kLinkBlockShift) - 1) +
                       "): damaged");
}

}  // namespace

Status DecodeLinks(uint32_t source, std::string_view in, std::vector<uint32_t>* targets) {
  targets->clear();
  if (in.empty() || AppendDecodedLinks(source, in, targets)) return Status::Ok();
  return DataLossError("link list of page " + std::to_string(source) + ": damaged");
}

void AppendLinkBlockEntry(uint32_t source, std::span<const uint32_t> targets, std::string* out) {
  // The list goes after room for the longest header, then moves up behind the real one.
  constexpr size_t kMaxHeader = 1 + 5;  // slot (< 128), length varint32
  const size_t at = out->size();
  out->resize(at + kMaxHeader + MaxLinksSize(targets.size()));
  char* list = out->data() + at + kMaxHeader;
  const size_t length = static_cast<size_t>(WriteLinks(list, source, targets) - list);
  char* p = WriteVarint(out->data() + at, source & (kLinkBlockSources - 1));
  p = WriteVarint(p, length);
  std::memmove(p, list, length);
  out->resize(static_cast<size_t>(p + length - out->data()));
}

Status AppendLinkBlock(uint32_t block, std::string_view in, EdgeChunk* chunk) {
  const uint64_t base = uint64_t{block} << kLinkBlockShift;
  if (base > UINT32_MAX || in.empty()) return DamagedBlock(block);
  int64_t previous_slot = -1;
  std::vector<uint32_t>& targets = chunk->targets;
  const size_t first_target = targets.size();
  targets.resize(first_target + in.size());  // room for the most targets the block can hold
  uint32_t* out = targets.data() + first_target;
  while (!in.empty()) {
    uint32_t slot;
    std::string_view list;
    if (!NextBlockEntry(in, &slot, &list) || int64_t{slot} <= previous_slot) {
      targets.resize(first_target);
      return DamagedBlock(block);
    }
    previous_slot = slot;
    const auto source = static_cast<uint32_t>(base + slot);
    out = DecodeListTo(source, list, out);
    if (out == nullptr) {
      targets.resize(first_target);
      return DamagedBlock(block);
    }
    chunk->sources.push_back(source);
    chunk->ends.push_back(static_cast<uint32_t>(out - targets.data()));
  }
  targets.resize(static_cast<size_t>(out - targets.data()));
  return Status::Ok();
}

Status ParseLinkBlock(uint32_t block, std::string_view in, LinkBlockLayout* layout) {
  *layout = LinkBlockLayout{};
  if (in.empty()) return DamagedBlock(block);
  int64_t previous_slot = -1;
  while (!in.empty()) {
    const char* entry_start = in.data();
    uint32_t slot;
    std::string_view list;
    if (!NextBlockEntry(in, &slot, &list) || int64_t{slot} <= previous_slot) {
      return DamagedBlock(block);
    }
    previous_slot = slot;
    layout->entries[slot] = std::string_view(entry_start, static_cast<size_t>(in.data() - entry_start));
    layout->lists[slot] = list;
  }
  return Status::Ok();
}

uint32_t CountLinks(std::string_view list) {
  uint32_t n = 0;
  for (char c : list) n += (static_cast<unsigned char>(c) & 0x80) == 0;
  return n;
}

Status FindInLinkBlock(uint32_t source, std::string_view in, std::vector<uint32_t>* targets) {
  targets->clear();
  const uint32_t block = source >> kLinkBlockShift;
  const uint32_t wanted = source & (kLinkBlockSources - 1);
  while (!in.empty()) {
    uint32_t slot;
    std::string_view list;
    if (!NextBlockEntry(in, &slot, &list)) return DamagedBlock(block);
    if (slot < wanted) continue;
    if (slot > wanted) break;
    if (!AppendDecodedLinks(source, list, targets)) return DamagedBlock(block);
    break;
  }
  return Status::Ok();
}

}  // namespace crawlrank
