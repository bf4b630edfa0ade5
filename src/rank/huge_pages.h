// Transparent huge pages for the rank kernels' large arrays (a hint: nothing changes
// where the kernel does not grant it).
#ifndef CRAWLRANK_SRC_RANK_HUGE_PAGES_H_
#define CRAWLRANK_SRC_RANK_HUGE_PAGES_H_

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace crawlrank {

// Asks for 2 MiB pages behind [data, data + bytes) before it is first touched: one fault
// maps 512 times what a 4 KiB fault maps, and on a virtual machine each fault is dear.
inline void AdviseHugePages(void* data, size_t bytes) {
  constexpr uintptr_t kPage = uintptr_t{2} << 20;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// An array of n T left unset, behind huge pages.
template <typename T>
std::unique_ptr<T[]> HugeArray(size_t n) {
  auto a = std::make_unique_for_overwrite<T[]>(n);
  AdviseHugePages(a.get(), n * sizeof(T));
  return a;
}

// v with room for n elements behind huge pages (v empty: nothing of it touched yet).
template <typename T>
void ReserveHuge(std::vector<T>& v, size_t n) {
  v.reserve(n);
  AdviseHugePages(v.data(), v.capacity() * sizeof(T));
}

// v.assign(n, value), behind huge pages when v had no room for n (as ReserveHuge).
template <typename T>
void AssignHuge(std::vector<T>& v, size_t n, T value = T()) {
  if (v.capacity() < n) {
    std::vector<T>().swap(v);
    ReserveHuge(v, n);
  }
  v.assign(n, value);
}

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_RANK_HUGE_PAGES_H_
