#include "url/url_fast_path.h"

#include <array>

#include "base/ascii.h"

namespace crawlrank::url_internal {
namespace {

enum CharClass : uint8_t {
  kHostChar = 1,   // a-z 0-9 '-'
  kPathChar = 2,   // may appear raw in a canonical path: unreserved, sub-delims, ':' '@' '/'
  kQueryChar = 4,  // path chars and '?'
  kUpperHex = 8,   // 0-9 A-F
  kUnreserved = 16,
};

constexpr std::array<uint8_t, 256> MakeClasses() {
  std::array<uint8_t, 256> c{};
  for (int ch = 'a'; ch <= 'z'; ++ch) c[ch] |= kHostChar | kPathChar | kQueryChar | kUnreserved;
  for (int ch = 'A'; ch <= 'Z'; ++ch) c[ch] |= kPathChar | kQueryChar | kUnreserved;
  for (int ch = '0'; ch <= '9'; ++ch) {
    c[ch] |= kHostChar | kPathChar | kQueryChar | kUpperHex | kUnreserved;
  }
  for (int ch = 'A'; ch <= 'F'; ++ch) c[ch] |= kUpperHex;
  c['-'] |= kHostChar;
  for (unsigned char ch : std::string_view("-._~")) c[ch] |= kPathChar | kQueryChar | kUnreserved;
  for (unsigned char ch : std::string_view("!$&'()*+,;=:@/")) c[ch] |= kPathChar | kQueryChar;
  c['?'] |= kQueryChar;
  return c;
}

constexpr std::array<uint8_t, 256> kClasses = MakeClasses();

bool Is(char ch, CharClass cls) {
  return kClasses[static_cast<unsigned char>(ch)] & cls;
}

// Checks a port: digits without a leading zero, below 65536, not the scheme's default.
bool IsPlainPort(std::string_view port, bool https) {
  if (port.empty() || port.size() > 5 || port.front() == '0') return false;
  unsigned value = 0;
  for (char ch : port) {
    if (!IsAsciiDigit(ch)) return false;
    value = value * 10 + static_cast<unsigned>(ch - '0');
  }
  return value <= 65535 && value != (https ? 443u : 80u);
}

// Scans a host of lower-case LDH labels from the front of `s` up to '/' or ':': no empty
// label, none over 63 bytes, none starting or ending with '-', no "xn--" label (punycode
// is validated by the full path) and a last label that is not all digits (IPv4 forms are
// normalised by the full path). Returns the host's length, or 0 when it is not plain.
size_t PlainHostLength(std::string_view s) {
  size_t label_start = 0;
  bool digits_only = true;
  for (size_t i = 0;; ++i) {
    const char ch = i < s.size() ? s[i] : '\0';
    if (Is(ch, kHostChar)) {
      digits_only = digits_only && IsAsciiDigit(ch);
      continue;
    }
    const size_t length = i - label_start;
    if (length == 0 || length > 63 || s[label_start] == '-' || s[i - 1] == '-') return 0;
    if (length >= 4 && s[label_start + 2] == '-' && s[label_start + 3] == '-') return 0;
    if (ch != '.') return (ch == '/' || ch == ':') && !digits_only && i <= 253 ? i : 0;
    label_start = i + 1;
    digits_only = true;
  }
}

// Scans a dotted-decimal IPv4 address from the front of `s` up to '/' or ':', as the full
// path writes one: four numbers 0-255 without leading zeros. Returns its length, or 0.
size_t CanonicalIpv4Length(std::string_view s) {
  size_t i = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (i >= s.size() || s[i] != '.') return 0;
      ++i;
    }
    const size_t start = i;
    unsigned value = 0;
    while (i < s.size() && IsAsciiDigit(s[i]) && i - start < 3) {
      value = value * 10 + static_cast<unsigned>(s[i] - '0');
      ++i;
    }
    const size_t length = i - start;
    if (length == 0 || value > 255 || (length > 1 && s[start] == '0')) return 0;
  }
  return i < s.size() && (s[i] == '/' || s[i] == ':') ? i : 0;
}

// Checks the path and query: allowed raw bytes, escapes with upper-case hex of bytes that
// are not unreserved, no "." or ".." segment, a non-empty query.
bool IsPlainPathAndQuery(std::string_view rest) {
  if (rest.empty() || rest.front() != '/') return false;
  size_t segment_start = 1;
  auto dot_segment = [&](size_t end) {
    const size_t length = end - segment_start;
    return (length == 1 && rest[segment_start] == '.') ||
           (length == 2 && rest[segment_start] == '.' && rest[segment_start + 1] == '.');
  };
  size_t i = 1;
  for (; i < rest.size(); ++i) {
    const char ch = rest[i];
    if (Is(ch, kPathChar)) {
      if (ch != '/') continue;
      if (dot_segment(i)) return false;
      segment_start = i + 1;
    } else if (ch == '%') {
      if (i + 2 >= rest.size() || !Is(rest[i + 1], kUpperHex) || !Is(rest[i + 2], kUpperHex)) {
        return false;
      }
      const int byte = AsciiHexValue(rest[i + 1]) * 16 + AsciiHexValue(rest[i + 2]);
      if (kClasses[byte] & kUnreserved) return false;
      i += 2;
    } else if (ch == '?') {
      break;
    } else {
      return false;
    }
  }
  if (dot_segment(i)) return false;
  if (i == rest.size()) return true;
  if (i + 1 == rest.size()) return false;  // an empty query is dropped
  for (++i; i < rest.size(); ++i) {
    const char ch = rest[i];
    if (Is(ch, kQueryChar)) continue;
    if (ch != '%' || i + 2 >= rest.size() || !Is(rest[i + 1], kUpperHex) ||
        !Is(rest[i + 2], kUpperHex)) {
      return false;
    }
    const int byte = AsciiHexValue(rest[i + 1]) * 16 + AsciiHexValue(rest[i + 2]);
    if (kClasses[byte] & kUnreserved) return false;
    i += 2;
  }
  return true;
}

}  // namespace

bool IsCanonicalRfc3986(std::string_view url) {
  bool https;
  if (url.starts_with("http://")) {
    https = false;
    url.remove_prefix(7);
  } else if (url.starts_with("https://")) {
    https = true;
    url.remove_prefix(8);
  } else {
    return false;
  }
  size_t host = PlainHostLength(url);
  if (host == 0) host = CanonicalIpv4Length(url);
  if (host == 0) return false;
  url.remove_prefix(host);
  if (url.front() == ':') {
    const size_t slash = url.find('/');
    if (slash == std::string_view::npos || !IsPlainPort(url.substr(1, slash - 1), https)) {
      return false;
    }
    url.remove_prefix(slash);
  }
  return IsPlainPathAndQuery(url);
}

}  // namespace crawlrank::url_internal
