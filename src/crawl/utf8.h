// UTF-8 encoding of one code point, shared by the crawler's decoders.
#ifndef CRAWLRANK_SRC_CRAWL_UTF8_H_
#define CRAWLRANK_SRC_CRAWL_UTF8_H_

#include <cstdint>
#include <string>

namespace crawlrank::crawl_internal {

// Appends the UTF-8 form of `cp`. REQUIRES: cp is a Unicode scalar value (at most
// 0x10FFFF, not a surrogate); callers check input they did not produce.
inline void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace crawlrank::crawl_internal

#endif  // CRAWLRANK_SRC_CRAWL_UTF8_H_
