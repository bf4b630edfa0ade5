// ASCII character classes and case mapping, the one copy src/ uses.
//
// Why not <cctype>: std::isalpha, std::isalnum, std::tolower and friends consult the C
// locale, and a program embedding crawlrank may set one (Python does at start-up) in which
// bytes above 0x7F are letters. URLs, HTTP, robots.txt and HTML's syntax are defined over
// ASCII, so these functions look at the byte's value only: a byte above 0x7F is in no
// class and maps to itself, whatever the locale and whether char is signed.
//
// Every function takes `char`; an unsigned char converts to it without changing the
// answer (a byte above 0x7F is outside every range below either way). Code points (int32_t)
// must not be passed: the conversion would drop their high bits.
#ifndef CRAWLRANK_SRC_BASE_ASCII_H_
#define CRAWLRANK_SRC_BASE_ASCII_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace crawlrank {

// 0-9.
constexpr bool IsAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}

// A-Z.
constexpr bool IsAsciiUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

// a-z.
constexpr bool IsAsciiLower(char c) {
  return c >= 'a' && c <= 'z';
}

// A-Z, a-z.
constexpr bool IsAsciiAlpha(char c) {
  return IsAsciiUpper(c) || IsAsciiLower(c);
}

// A-Z, a-z, 0-9.
constexpr bool IsAsciiAlnum(char c) {
  return IsAsciiAlpha(c) || IsAsciiDigit(c);
}

// 0-9, A-F, a-f.
constexpr bool IsAsciiHexDigit(char c) {
  return IsAsciiDigit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

// HTML's "ASCII whitespace" (WHATWG Infra): space, tab, LF, FF and CR. Unlike
// std::isspace, not vertical tab.
constexpr bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

// `s` without the ASCII whitespace (IsAsciiSpace) at either end.
constexpr std::string_view TrimAsciiSpace(std::string_view s) {
  while (!s.empty() && IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

// The lower-case letter for A-Z; any other byte unchanged.
constexpr char AsciiToLower(char c) {
  return IsAsciiUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}

// The upper-case letter for a-z; any other byte unchanged.
constexpr char AsciiToUpper(char c) {
  return IsAsciiLower(c) ? static_cast<char>(c - 'a' + 'A') : c;
}

// The value, 0 to 15, of a hex digit of either case. REQUIRES: IsAsciiHexDigit(c).
constexpr int AsciiHexValue(char c) {
  return IsAsciiDigit(c) ? c - '0' : AsciiToLower(c) - 'a' + 10;
}

// Lower-cases the ASCII letters of `s` in place; other bytes stay.
constexpr void AsciiStrToLower(std::string& s) {
  for (char& c : s) c = AsciiToLower(c);
}

// Whether `a` and `b` are equal once their ASCII letters are lower-cased.
constexpr bool AsciiEqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiToLower(a[i]) != AsciiToLower(b[i])) return false;
  }
  return true;
}

// Whether every byte of `s` is ASCII (below 0x80).
constexpr bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_BASE_ASCII_H_
