// The robots.txt line parser and the matcher's building blocks (robots_internal.h).
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "base/ascii.h"
#include "crawl/robots_internal.h"
#include "crawlrank/robots.h"

namespace crawlrank::robots_internal {
namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

struct Spelling {
  std::string_view text;
  RobotsKey key;
};

// Every accepted spelling of a key (robots.h); typos as google/robotstxt and protego accept.
constexpr std::array<Spelling, 17> kSpellings = {{
    {"user-agent", RobotsKey::kUserAgent},
    {"useragent", RobotsKey::kUserAgent},
    {"user agent", RobotsKey::kUserAgent},
    {"allow", RobotsKey::kAllow},
    {"disallow", RobotsKey::kDisallow},
    {"dissallow", RobotsKey::kDisallow},
    {"dissalow", RobotsKey::kDisallow},
    {"disalow", RobotsKey::kDisallow},
    {"diasllow", RobotsKey::kDisallow},
    {"disallaw", RobotsKey::kDisallow},
    {"sitemap", RobotsKey::kSitemap},
    {"sitemaps", RobotsKey::kSitemap},
    {"site-map", RobotsKey::kSitemap},
    {"crawl-delay", RobotsKey::kCrawlDelay},
    {"crawl delay", RobotsKey::kCrawlDelay},
    {"crawldelay", RobotsKey::kCrawlDelay},
    {"", RobotsKey::kUnknown},
}};

// Splits one comment-free, trimmed, non-empty line into an event; false when it is not a
// `key: value` line.
bool SplitLine(std::string_view line, RobotsLine* out) {
  if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    out->name = TrimBlanks(line.substr(0, colon));
    out->value = TrimBlanks(line.substr(colon + 1));
    out->key = ClassifyRobotsKey(out->name);
    out->colon_missing = false;
    return true;
  }
  // Lenient: "Disallow /x", a known key, then a space or tab, then the value.
  for (const Spelling& s : kSpellings) {
    if (s.text.empty() || line.size() <= s.text.size()) continue;
    if (!AsciiEqualsIgnoreCase(line.substr(0, s.text.size()), s.text)) continue;
    if (!IsBlank(line[s.text.size()])) continue;
    out->name = line.substr(0, s.text.size());
    out->value = TrimBlanks(line.substr(s.text.size()));
    out->key = s.key;
    out->colon_missing = true;
    return true;
  }
  return false;
}

bool IsUnreserved(unsigned char c) {
  return IsAsciiAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

// RFC 3986 §2.2 gen-delims and sub-delims: compared as written.
bool IsReserved(unsigned char c) {
  switch (c) {
    case ':':
    case '/':
    case '?':
    case '#':
    case '[':
    case ']':
    case '@':
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=': return true;
    default: return false;
  }
}

constexpr char kHexDigits[] = "0123456789ABCDEF";

void AppendEscaped(unsigned char c, std::string* out) {
  out->push_back('%');
  out->push_back(kHexDigits[c >> 4]);
  out->push_back(kHexDigits[c & 0xF]);
}

// Appends `text` with its escapes normalised (robots.h).
void AppendNormalized(std::string_view text, std::string* out) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '%') {
      if (i + 2 < text.size() && IsAsciiHexDigit(text[i + 1]) && IsAsciiHexDigit(text[i + 2])) {
        const auto decoded = static_cast<unsigned char>(AsciiHexValue(text[i + 1]) * 16 +
                                                        AsciiHexValue(text[i + 2]));
        if (IsUnreserved(decoded)) {
          out->push_back(static_cast<char>(decoded));
        } else {
          AppendEscaped(decoded, out);
        }
        i += 2;
      } else {
        AppendEscaped('%', out);
      }
    } else if (IsUnreserved(c) || IsReserved(c)) {
      out->push_back(static_cast<char>(c));
    } else {
      AppendEscaped(c, out);
    }
  }
}

}  // namespace

RobotsKey ClassifyRobotsKey(std::string_view name) {
  for (const Spelling& s : kSpellings) {
    if (!s.text.empty() && AsciiEqualsIgnoreCase(name, s.text)) return s.key;
  }
  return RobotsKey::kUnknown;
}

void ParseRobotsTxt(std::string_view body, RobotsHandler& handler) {
  if (body.size() > kRobotsMaxBytes) {
    // Only whole lines: drop what follows the last line ending inside the limit.
    body = body.substr(0, kRobotsMaxBytes);
    const size_t last_end = body.find_last_of("\r\n");
    body = last_end == std::string_view::npos ? std::string_view() : body.substr(0, last_end);
  }
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
  int line_number = 0;
  while (!body.empty() || line_number == 0) {
    ++line_number;
    const size_t end = body.find_first_of("\r\n");
    std::string_view line = body.substr(0, end);
    if (end == std::string_view::npos) {
      body = {};
    } else {
      const bool crlf = body[end] == '\r' && end + 1 < body.size() && body[end + 1] == '\n';
      body.remove_prefix(end + (crlf ? 2 : 1));
    }
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = TrimBlanks(line);
    if (line.empty()) continue;
    RobotsLine event;
    event.line_number = line_number;
    if (SplitLine(line, &event)) handler.OnLine(event);
  }
}

std::string_view RobotsProductToken(std::string_view value) {
  size_t n = 0;
  while (n < value.size()) {
    const char c = value[n];
    if (!(IsAsciiAlpha(c) || c == '_' || c == '-')) break;
    ++n;
  }
  return value.substr(0, n);
}

std::string NormalizeRobotsPattern(std::string_view value) {
  std::string out;
  if (value.empty()) return out;
  out.reserve(value.size() + 1);
  if (value.front() != '/') out.push_back('/');
  AppendNormalized(value, &out);
  return out;
}

std::string NormalizeRobotsPath(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 1);
  if (path.empty() || path.front() != '/') out.push_back('/');
  AppendNormalized(path, &out);
  return out;
}

bool IsNormalRobotsPath(std::string_view path) {
  if (path.empty() || path.front() != '/') return false;
  for (size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c == '%') {
      // Normal only as an escape of a non-unreserved byte with upper-case hex.
      if (i + 2 >= path.size()) return false;
      const char h = path[i + 1];
      const char l = path[i + 2];
      if (!IsAsciiHexDigit(h) || !IsAsciiHexDigit(l) || IsAsciiLower(h) || IsAsciiLower(l)) {
        return false;
      }
      if (IsUnreserved(static_cast<unsigned char>(AsciiHexValue(h) * 16 + AsciiHexValue(l)))) {
        return false;
      }
      i += 2;
    } else if (!IsUnreserved(c) && !IsReserved(c)) {
      return false;
    }
  }
  return true;
}

bool RobotsPatternMatches(std::string_view pattern, std::string_view path) {
  const bool anchored = !pattern.empty() && pattern.back() == '$';
  if (anchored) pattern.remove_suffix(1);
  size_t star = pattern.find('*');
  if (star == std::string_view::npos) {
    return anchored ? path == pattern : path.starts_with(pattern);
  }
  if (!path.starts_with(pattern.substr(0, star))) return false;
  size_t pos = star;  // where the rest of the path starts
  pattern.remove_prefix(star + 1);
  // The pieces between stars: each at its leftmost place after the previous one. Taking
  // the leftmost place never loses a match, as everything after it is still available.
  while ((star = pattern.find('*')) != std::string_view::npos) {
    const std::string_view piece = pattern.substr(0, star);
    if (!piece.empty()) {
      const size_t at = path.find(piece, pos);
      if (at == std::string_view::npos) return false;
      pos = at + piece.size();
    }
    pattern.remove_prefix(star + 1);
  }
  // The last piece: anywhere after `pos`, or, anchored, at the very end.
  if (!anchored) return pattern.empty() || path.find(pattern, pos) != std::string_view::npos;
  return path.size() - pos >= pattern.size() && path.ends_with(pattern);
}

std::optional<int64_t> ParseCrawlDelayMs(std::string_view value) {
  constexpr int64_t kMaxSeconds = kMaxCrawlDelayMs / 1000;
  const auto digit = [&](size_t i) { return i < value.size() && IsAsciiDigit(value[i]); };
  bool any_digit = false;
  size_t i = 0;
  int64_t seconds = 0;
  for (; digit(i); ++i) {
    any_digit = true;
    seconds = std::min(seconds * 10 + (value[i] - '0'), kMaxSeconds);  // no overflow: <= 1e10
  }
  int64_t ms = 0;
  if (i < value.size() && value[i] == '.') {
    int places = 0;
    for (++i; digit(i); ++i) {
      any_digit = true;
      if (places < 3) {
        ms = ms * 10 + (value[i] - '0');
        ++places;
      }
    }
    for (; places < 3; ++places) ms *= 10;
  }
  if (!any_digit || i != value.size()) return std::nullopt;
  return std::min(seconds * 1000 + ms, kMaxCrawlDelayMs);
}

}  // namespace crawlrank::robots_internal
