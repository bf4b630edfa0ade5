// The writer's in-memory map fingerprint -> (page id, check hash), 16 bytes a slot.
//
// It lets the writer resolve a link target without an LMDB look-up, and spot fingerprint
// collisions: `check` is a second, independent 32-bit hash of the URL, so two URLs with
// the same fingerprint are told apart unless both hashes collide (about 2^-32 of
// fingerprint collisions, themselves ~2^-64 per pair). Cold paths compare full URLs.
#ifndef CRAWLRANK_SRC_FINGERPRINT_INDEX_H_
#define CRAWLRANK_SRC_FINGERPRINT_INDEX_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace crawlrank {

// Returns the check hash of a canonical URL (XXH3 with a seed unlike the fingerprint's).
uint32_t UrlCheck(std::string_view canonical_url);

class FingerprintIndex {
 public:
  struct Entry {
    uint64_t fingerprint;
    uint32_t id;  // kEmpty marks a free slot
    uint32_t check;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  // Returns the entry of `fingerprint`, or nullptr.
  const Entry* Find(uint64_t fingerprint) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = Slot(fingerprint);; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.id == kEmpty) return nullptr;
      if (e.fingerprint == fingerprint) return &e;
    }
  }

  // Starts loading the slot where `fingerprint` would be, ahead of a Find.
  void Prefetch(uint64_t fingerprint) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[Slot(fingerprint)]);
  }

  // Adds an entry. REQUIRES: `fingerprint` is not present; id != kEmpty.
  void Insert(uint64_t fingerprint, uint32_t id, uint32_t check);
  // Removes `fingerprint` if present (backward-shift deletion: no tombstones).
  void Erase(uint64_t fingerprint);
  void Reserve(size_t n);
  void Clear();
  size_t size() const { return size_; }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Entry); }

 private:
  size_t Slot(uint64_t fingerprint) const {
    // Fingerprints are already uniform; mix anyway so crafted keys cannot cluster.
    return static_cast<size_t>((fingerprint * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
  }
  std::vector<Entry> slots_;
  size_t size_ = 0;
  size_t mask_ = 0;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_FINGERPRINT_INDEX_H_
