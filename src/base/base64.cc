#include "base/base64.h"

#include <array>
#include <cstdint>

namespace crawlrank {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of each byte, or 64 for a byte outside the alphabet.
constexpr std::array<uint8_t, 256> Values() {
  std::array<uint8_t, 256> values{};
  for (auto& v : values) v = 64;
  for (size_t i = 0; i < kAlphabet.size(); ++i) values[static_cast<uint8_t>(kAlphabet[i])] = i;
  return values;
}
constexpr std::array<uint8_t, 256> kValues = Values();

}  // namespace

std::string EncodeBase64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = uint32_t{static_cast<uint8_t>(bytes[i])} << 16 |
                       uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8 |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(n >> shift) & 63];
  }
  const size_t left = bytes.size() - i;
  if (left > 0) {
    uint32_t n = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (left == 2) n |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += left == 2 ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> DecodeBase64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const size_t data = last ? 4 - padding : 4;  // characters that carry bits
    uint32_t n = 0;
    for (size_t j = 0; j < 4; ++j) {
      uint8_t v = 0;
      if (j < data) {
        v = kValues[static_cast<uint8_t>(text[i + j])];
        if (v == 64) return std::nullopt;
      }
      n = n << 6 | v;
    }
    // Canonical: the bits past the data are 0 (4 with one byte left, 2 with two).
    if (data == 2 && (n & 0xFFFF) != 0) return std::nullopt;
    if (data == 3 && (n & 0xFF) != 0) return std::nullopt;
    out += static_cast<char>(n >> 16);
    if (data >= 3) out += static_cast<char>((n >> 8) & 0xFF);
    if (data == 4) out += static_cast<char>(n & 0xFF);
  }
  return out;
}

}  // namespace crawlrank
