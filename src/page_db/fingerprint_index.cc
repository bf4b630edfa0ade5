#include "page_db/fingerprint_index.h"

#include <xxhash.h>

namespace crawlrank {

uint32_t UrlCheck(std::string_view canonical_url) {
  constexpr uint64_t kCheckSeed = 0x243F6A8885A308D3ull;  // digits of pi: not the fingerprint seed
  return static_cast<uint32_t>(
      XXH3_64bits_withSeed(canonical_url.data(), canonical_url.size(), kCheckSeed) >> 32);
}

void FingerprintIndex::Reserve(size_t n) {
  size_t capacity = 16;
  while (capacity * 7 / 10 < n) capacity *= 2;
  if (capacity <= slots_.size()) return;
  std::vector<Entry> old = std::move(slots_);
  slots_.assign(capacity, Entry{0, kEmpty, 0});
  mask_ = capacity - 1;
  for (const Entry& e : old) {
    if (e.id == kEmpty) continue;
    size_t i = Slot(e.fingerprint);
    while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
    slots_[i] = e;
  }
}

void FingerprintIndex::Insert(uint64_t fingerprint, uint32_t id, uint32_t check) {
  if ((size_ + 1) * 10 > slots_.size() * 7) Reserve(size_ + 1 > 16 ? (size_ + 1) * 2 : 16);
  size_t i = Slot(fingerprint);
  while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
  slots_[i] = Entry{fingerprint, id, check};
  ++size_;
}

void FingerprintIndex::Erase(uint64_t fingerprint) {
  if (slots_.empty()) return;
  size_t i = Slot(fingerprint);
  while (slots_[i].id != kEmpty && slots_[i].fingerprint != fingerprint) i = (i + 1) & mask_;
  if (slots_[i].id == kEmpty) return;
  // Shift later members of the probe run back so every entry stays reachable from its slot.
  for (size_t j = (i + 1) & mask_; slots_[j].id != kEmpty; j = (j + 1) & mask_) {
    const size_t home = Slot(slots_[j].fingerprint);
    const bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
    if (movable) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Entry{0, kEmpty, 0};
  --size_;
}

void FingerprintIndex::Clear() {
  slots_.clear();
  slots_.shrink_to_fit();
  size_ = 0;
  mask_ = 0;
}

}  // namespace crawlrank
