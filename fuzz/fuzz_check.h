// Shared by the fuzz targets: a property check that aborts (so libFuzzer keeps the input as
// a crash) with a message saying which property broke.
#ifndef CRAWLRANK_FUZZ_FUZZ_CHECK_H_
#define CRAWLRANK_FUZZ_FUZZ_CHECK_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(condition)                                                                 \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace crawlrank::fuzz {

// Reads bytes from the front of a fuzz input; past its end, reads give zeros.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : rest_(reinterpret_cast<const char*>(data), size) {}
  uint8_t U8() {
    if (rest_.empty()) return 0;
    const auto v = static_cast<uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return v;
  }
  uint32_t U32() {  // little-endian
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{U8()} << (8 * i);
    return v;
  }
  bool empty() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

}  // namespace crawlrank::fuzz

#endif  // CRAWLRANK_FUZZ_FUZZ_CHECK_H_
