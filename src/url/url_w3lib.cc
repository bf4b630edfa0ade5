// The w3lib/1 URL profile: the result of Python's w3lib.url.canonicalize_url(url) with its
// defaults (keep_blank_values=True, keep_fragments=False, encoding=None), as shipped by
// Debian (w3lib 2.1.1 on Python 3.11's urllib.parse).
//
// canonicalize_url does NOT call safe_url_string. It runs, in order:
//   1. _strip: trim C0 controls and spaces, drop tab/LF/CR      (CleanInput did this)
//   2. urlparse: scheme lower-cased; netloc up to the first "/?#"; fragment after the
//      first '#'; query after the first '?'; ";params" after the last '/' of the path
//   3. _safe_ParseResult: netloc.encode("idna") (IDNA 2003, label by label, over the
//      WHOLE netloc; on failure the netloc is kept as it is), path quoted with
//      _path_safe_chars, params and query quoted with _safe_chars (both keep '%')
//   4. query: parse_qsl_to_bytes(keep_blank_values) splitting on '&' AND ';', '+' -> ' ',
//      escapes decoded to raw bytes; pairs sorted as bytes; urlencode (quote_plus)
//   5. path: "%2F"/"%3F" protected, all escapes decoded, re-quoted; empty path -> "/"
//   6. netloc lower-cased (user info included) and trailing ':' stripped; fragment dropped;
//      urlunparse joins the parts (";params" only when params is non-empty).
// Default ports and dot segments are kept; nothing else is normalised.
//
// Inputs rejected here although w3lib returns something (each is garbage or would give a
// string that is not a usable URL; the reason names the rule):
//   - not valid UTF-8 (w3lib raises UnicodeDecodeError on such bytes too);
//   - a control character other than tab/LF/CR inside the URL (url.h's shared rule,
//     applied by CleanInput; w3lib would percent-encode it in the path or query);
//   - no "//" after the scheme, or an empty host (w3lib returns "http:///...");
//   - a host or user info with characters outside RFC 3986's reg-name / userinfo sets
//     (space, '"', '<', '>', '\', '^', '`', '{', '|', '}', '%' in the host, '@' twice, ...),
//     which w3lib copies into the result raw;
//   - a port that is not decimal digits or is above 65535 (w3lib copies it);
//   - a non-ASCII host that IDNA cannot convert: w3lib then keeps the raw Unicode netloc;
//   - non-ASCII user info, or a non-ASCII first/last host label next to user info/a port:
//     w3lib punycodes e.g. "user@bücher" as one label ("xn--user@bcher-...");
//   - IPv6 zone ids ("[fe80::1%25eth0]") and IPvFuture literals ("[v1.x]").
// IDNA is done by libidn2 in UTS #46 transitional mode (HostToAscii), which agrees with
// Python's IDNA 2003 codec on ordinary names; where they differ (labels that start or end
// with '-' or have "--" in positions 3-4, code points whose Unicode 3.2 nameprep mapping
// differs from UTS #46) the URL is rejected or, rarely, canonicalised differently.
//
// ResolveUrl(..., kW3lib) is canonicalize_url(urljoin(base, reference)), as Scrapy resolves
// and fingerprints links: JoinLikeUrljoin follows Python 3.11's urljoin step by step,
// including where it departs from RFC 3986 (url.h lists the differences), and
// tests/python/test_w3lib_profile.py compares the two over a seeded corpus of references.
#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "url/url_internal.h"

namespace crawlrank {
namespace {

using url_internal::AppendEscape;
using url_internal::BadUrl;

bool IsSubDelim(unsigned char c) {
  return c != 0 && std::strchr("!$&'()*+,;=", c) != nullptr;
}

// Returns true when `s` is well-formed UTF-8 (no overlong forms, surrogates or values
// above U+10FFFF), i.e. when Python's bytes.decode("utf-8") accepts it.
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

// ---- urllib.parse's quoting primitives, on bytes -------------------------------------

// quote()'s always-safe bytes: ALPHA / DIGIT / "_.-~".
bool IsAlwaysSafe(unsigned char c) {
  return IsAsciiAlnum(c) || c == '_' || c == '.' || c == '-' || c == '~';
}

// w3lib's _safe_chars: RFC 3986 reserved + unreserved + "|" (EXTRA_SAFE_CHARS) + "%".
bool IsW3libSafe(unsigned char c) {
  return IsAlwaysSafe(c) || IsSubDelim(c) || (c != 0 && std::strchr(":/?#[]@|%", c) != nullptr);
}

// w3lib's _path_safe_chars: _safe_chars without '#'.
bool IsW3libPathSafe(unsigned char c) {
  return c != '#' && IsW3libSafe(c);
}

// urllib.parse.quote(bytes, safe): every byte that is neither always-safe nor in `safe`
// becomes "%XX" (upper-case hex). A '%' in `safe` is copied, escape or not.
template <typename SafePredicate>
std::string Quote(std::string_view in, SafePredicate is_safe) {
  std::string out;
  out.reserve(in.size() + 8);
  for (unsigned char c : in) {
    if (is_safe(c)) {
      out += static_cast<char>(c);
    } else {
      AppendEscape(out, c);
    }
  }
  return out;
}

// urllib.parse.unquote_to_bytes: "%XX" with two hex digits becomes the byte; any other
// '%' stays literal. Works on bytes, so escapes of non-UTF-8 bytes survive.
std::string UnquoteToBytes(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() && IsAsciiHexDigit(in[i + 1]) &&
        IsAsciiHexDigit(in[i + 2])) {
      out += static_cast<char>(AsciiHexValue(in[i + 1]) * 16 + AsciiHexValue(in[i + 2]));
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

// urllib.parse.quote_plus(bytes, safe=""), as urlencode() applies it: space -> '+',
// everything but the always-safe bytes -> "%XX".
std::string QuotePlus(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 8);
  for (unsigned char c : in) {
    if (c == ' ') {
      out += '+';
    } else if (IsAlwaysSafe(c)) {
      out += static_cast<char>(c);
    } else {
      AppendEscape(out, c);
    }
  }
  return out;
}

// ---- urlparse -------------------------------------------------------------------------

// urlparse()'s six-tuple, less the fragment, which canonicalize_url drops (and which
// urljoin only carries along).
struct ParsedUrl {
  std::string scheme;  // lower-cased; urlparse's default scheme when the URL has none
  bool has_scheme = false;
  bool has_slashes = false;  // "//" starts what follows the scheme (the netloc may be empty)
  std::string_view netloc;
  std::string_view path;
  std::string_view params;
  std::string_view query;
};

// urllib.parse.urlparse(url, default_scheme) for an http(s) context, without its checks
// (urlsplit's bracket and NFKC checks are made by SplitNetloc and NetlocToIdna): urlsplit(),
// then _splitparams() (params start at the first ';' after the last '/' of the path).
// REQUIRES: `url` has no leading spaces or C0 controls and no tab, LF or CR (urlsplit
// removes them first).
ParsedUrl SplitLikeUrlparse(std::string_view url, std::string_view default_scheme) {
  ParsedUrl parts;
  parts.scheme = std::string(default_scheme);
  // urlsplit: the scheme is everything before the first ':', if made of scheme chars.
  const size_t colon = url.find(':');
  const auto is_scheme_char = [](unsigned char c) {
    return IsAsciiAlnum(c) || c == '+' || c == '-' || c == '.';
  };
  if (colon != std::string_view::npos && colon > 0 && IsAsciiAlpha(url[0]) &&
      std::all_of(url.begin(), url.begin() + colon, is_scheme_char)) {
    parts.has_scheme = true;
    parts.scheme = std::string(url.substr(0, colon));
    AsciiStrToLower(parts.scheme);
    url.remove_prefix(colon + 1);
  }
  if (url.starts_with("//")) {
    parts.has_slashes = true;
    const size_t netloc_end = std::min(url.find_first_of("/?#", 2), url.size());
    parts.netloc = url.substr(2, netloc_end - 2);
    url.remove_prefix(netloc_end);
  }
  url = url.substr(0, url.find('#'));
  if (const size_t q = url.find('?'); q != std::string_view::npos) {
    parts.query = url.substr(q + 1);
    url = url.substr(0, q);
  }
  parts.path = url;
  const size_t last_slash = url.rfind('/');
  const size_t semicolon = url.find(';', last_slash == std::string_view::npos ? 0 : last_slash);
  if (semicolon != std::string_view::npos) {
    parts.path = url.substr(0, semicolon);
    parts.params = url.substr(semicolon + 1);
  }
  return parts;
}

// urlparse() of an absolute http(s) URL, rejecting any other.
Result<ParsedUrl> ParseLikeUrlparse(std::string_view url) {
  ParsedUrl parts = SplitLikeUrlparse(url, "");
  if (!parts.has_scheme) return BadUrl(url, "no scheme (a relative URL needs a base URL)");
  if (parts.scheme != "http" && parts.scheme != "https") {
    return BadUrl(
        url, "scheme " + QuoteForMessage(parts.scheme) + " is not allowed (only http and https)");
  }
  if (!parts.has_slashes) return BadUrl(url, "no host (expected \"//\" after the scheme)");
  return parts;
}

// urlunparse((scheme, netloc, path, params, query, "")) for a non-empty netloc.
std::string UnparseWithNetloc(std::string_view scheme, std::string_view netloc,
                              std::string_view path, std::string_view params,
                              std::string_view query) {
  std::string out(scheme);
  out += "://";
  out += netloc;
  if (!path.empty() && !path.starts_with('/')) out += '/';
  out += path;
  if (!params.empty()) {
    out += ';';
    out += params;
  }
  if (!query.empty()) {
    out += '?';
    out += query;
  }
  return out;
}

// Splits `path` on '/' as Python's str.split("/") does: n slashes give n + 1 pieces.
std::vector<std::string_view> SplitOnSlash(std::string_view path) {
  std::vector<std::string_view> pieces;
  while (true) {
    const size_t slash = path.find('/');
    pieces.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return pieces;
    path.remove_prefix(slash + 1);
  }
}

// ---- netloc ---------------------------------------------------------------------------

// A reg-name byte RFC 3986 allows (unreserved / sub-delims); non-ASCII goes to IDNA.
bool IsHostChar(unsigned char c) {
  return IsAlwaysSafe(c) || IsSubDelim(c) || c >= 0x80;
}

// A userinfo byte: unreserved / sub-delims / ":" / '%' (escapes are copied as they are).
bool IsUserinfoChar(unsigned char c) {
  return IsAlwaysSafe(c) || IsSubDelim(c) || c == ':' || c == '%';
}

// The netloc split as urllib's _userinfo/_hostinfo properties split it, as byte offsets
// into the netloc (w3lib never splits it itself, but IDNA's labels must be placed).
struct NetlocParts {
  size_t host_begin = 0;
  size_t host_end = 0;
};

// Returns true when `port` is decimal digits with a value of at most 65535.
bool IsValidPort(std::string_view port) {
  if (port.empty()) return false;
  uint32_t value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint32_t>(c - '0');
    if (value > 65535) return false;
  }
  return true;
}

// Splits and checks the netloc: the checks urlsplit makes ("Invalid IPv6 URL", brackets
// holding an IPv6 address) plus the garbage rejections listed in the file comment.
Result<NetlocParts> SplitNetloc(std::string_view netloc, std::string_view url) {
  NetlocParts parts;
  const size_t at = netloc.rfind('@');
  if (at != std::string_view::npos) {
    const std::string_view userinfo = netloc.substr(0, at);
    if (!std::all_of(userinfo.begin(), userinfo.end(), IsUserinfoChar)) {
      return BadUrl(url, "user info has a character that is not allowed there");
    }
    parts.host_begin = at + 1;
  }
  std::string_view hostport = netloc.substr(parts.host_begin);
  // w3lib strips trailing ':' from the netloc: "host:" and "host::" have no port.
  while (hostport.ends_with(':')) hostport.remove_suffix(1);
  std::string_view port;
  bool has_port = false;
  if (hostport.find_first_of("[]") != std::string_view::npos) {
    // urlsplit: '[' first, a matching ']', an IPv6 address between, nothing but a port after.
    const size_t close = hostport.find(']');
    if (!hostport.starts_with('[') || close == std::string_view::npos) {
      return BadUrl(url, "bad IPv6 literal: unbalanced '[' or ']'");
    }
    const std::string literal(hostport.substr(1, close - 1));
    if (literal.starts_with('v') || literal.starts_with('V')) {
      return BadUrl(url, "IPvFuture literals are not supported");
    }
    if (literal.find('%') != std::string::npos) {
      return BadUrl(url, "IPv6 zone ids are not supported");
    }
    in6_addr address;
    if (inet_pton(AF_INET6, literal.c_str(), &address) != 1) {
      return BadUrl(url, "bad IPv6 literal " + QuoteForMessage(literal));
    }
    parts.host_end = parts.host_begin + close + 1;
    port = hostport.substr(close + 1);
    if (!port.empty() && !port.starts_with(':')) {
      return BadUrl(url, "bad IPv6 literal: text after ']' that is not a port");
    }
    has_port = !port.empty();
  } else {
    const size_t colon = std::min(hostport.find(':'), hostport.size());
    parts.host_end = parts.host_begin + colon;
    port = hostport.substr(colon);
    has_port = !port.empty();
    const std::string_view host = hostport.substr(0, colon);
    if (host.empty()) return BadUrl(url, "no host");
    if (host.find('%') != std::string_view::npos) {
      return BadUrl(url, "percent-escape in the host name");
    }
    if (!std::all_of(host.begin(), host.end(), IsHostChar)) {
      return BadUrl(url, "host has a character that is not allowed in a host name");
    }
  }
  if (has_port && !IsValidPort(port.substr(1))) {
    return BadUrl(url, "bad port " + QuoteForMessage(port.substr(1)) +
                           " (expected a decimal number from 0 to 65535)");
  }
  return parts;
}

// The separators Python's IDNA codec splits labels on: '.', U+3002, U+FF0E, U+FF61.
size_t DotLength(std::string_view s, size_t i) {
  if (s[i] == '.') return 1;
  for (std::string_view dot : {"\xE3\x80\x82", "\xEF\xBC\x8E", "\xEF\xBD\xA1"}) {
    if (s.substr(i, dot.size()) == dot) return dot.size();
  }
  return 0;
}

// netloc.encode("idna") as _safe_ParseResult applies it. An ASCII netloc comes back as it
// is (on success and on failure alike). Otherwise each dot-separated label of the WHOLE
// netloc is converted: ASCII labels are kept (1 to 63 bytes), others nameprep'd and
// punycoded; the dots are rewritten as '.'.
Result<std::string> NetlocToIdna(std::string_view netloc, const NetlocParts& parts,
                                 std::string_view url) {
  if (IsAscii(netloc)) return std::string(netloc);
  std::string out;
  size_t begin = 0;
  while (begin <= netloc.size()) {
    size_t end = begin;
    size_t dot = 0;
    while (end < netloc.size() && (dot = DotLength(netloc, end)) == 0) ++end;
    const std::string_view label = netloc.substr(begin, end - begin);
    const bool last = end == netloc.size();
    if (last && label.empty() && begin > 0) break;  // a trailing dot: kept as '.'
    if (IsAscii(label)) {
      if (label.empty() || label.size() > 63) {
        return BadUrl(url, "host is not a valid IDNA name (empty or over-long label)");
      }
      out.append(label);
    } else {
      if (begin < parts.host_begin || end > parts.host_end) {
        return BadUrl(url,
                      "non-ASCII host label next to user info or a port (w3lib would "
                      "punycode them together)");
      }
      CRAWLRANK_ASSIGN_OR_RETURN(
          std::string ascii,
          url_internal::HostToAscii(label, url_internal::IdnaMode::kTransitional, url));
      // Python's urlsplit refuses a netloc whose NFKC form gains one of "/?#@:".
      if (ascii.empty() || !std::all_of(ascii.begin(), ascii.end(), [](unsigned char c) {
            return c < 0x80 && IsHostChar(c);
          })) {
        return BadUrl(url, "host maps to characters that are not allowed in a host name");
      }
      out += ascii;
    }
    if (last) break;
    out += '.';
    begin = end + dot;
  }
  return out;
}

// The netloc as canonicalize_url returns it: IDNA, then lower-cased whole (user info
// included), then trailing ':' stripped (an empty port goes away; a default one stays).
Result<std::string> CanonicalNetloc(std::string_view netloc, std::string_view url) {
  if (netloc.empty()) return BadUrl(url, "no host");
  CRAWLRANK_ASSIGN_OR_RETURN(NetlocParts parts, SplitNetloc(netloc, url));
  CRAWLRANK_ASSIGN_OR_RETURN(std::string out, NetlocToIdna(netloc, parts, url));
  AsciiStrToLower(out);
  while (out.ends_with(':')) out.pop_back();
  return out;
}

// ---- path, params, query --------------------------------------------------------------

// The path: quoted by _safe_ParseResult, then canonicalize_url's _unquotepath (which
// protects "%2F" and "%3F" as "%252F"/"%253F", then decodes every escape to bytes) and
// quoted again with _path_safe_chars. Net effect: escapes of safe bytes are decoded, hex
// is upper-cased, "%25" decodes to a bare '%'. An empty path becomes "/".
std::string CanonicalPath(std::string_view raw_path) {
  std::string path = Quote(raw_path, IsW3libPathSafe);
  std::string protected_path;
  protected_path.reserve(path.size() + 8);
  for (size_t i = 0; i < path.size(); ++i) {
    const std::string_view next = std::string_view(path).substr(i, 3);
    if (next == "%2f" || next == "%2F" || next == "%3f" || next == "%3F") {
      protected_path += "%25";
      protected_path += AsciiToUpper(next[1]);
      protected_path += AsciiToUpper(next[2]);
      i += 2;
    } else {
      protected_path += path[i];
    }
  }
  std::string out = Quote(UnquoteToBytes(protected_path), IsW3libPathSafe);
  return out.empty() ? "/" : out;
}

// The ";params" of the last path segment: only quoted once with _safe_chars, so their
// escapes keep their case. Empty params disappear (urlunparse), taking the ';' along.
std::string CanonicalParams(std::string_view params) {
  return Quote(params, IsW3libSafe);
}

// The query: quoted with _safe_chars, split by parse_qsl_to_bytes (on '&' and ';'; empty
// pieces skipped; a piece without '=' gets an empty value; '+' means space; escapes decode
// to raw bytes), the (name, value) byte pairs sorted, and re-joined by urlencode.
std::string CanonicalQuery(std::string_view raw_query) {
  const std::string query = Quote(raw_query, IsW3libSafe);
  std::vector<std::pair<std::string, std::string>> pairs;
  size_t begin = 0;
  while (begin <= query.size()) {
    const size_t end = std::min(query.find_first_of("&;", begin), query.size());
    std::string piece = query.substr(begin, end - begin);
    begin = end + 1;
    if (piece.empty()) continue;
    std::replace(piece.begin(), piece.end(), '+', ' ');
    const size_t eq = piece.find('=');
    const std::string_view name = std::string_view(piece).substr(0, eq);
    const std::string_view value =
        eq == std::string::npos ? std::string_view() : std::string_view(piece).substr(eq + 1);
    pairs.emplace_back(UnquoteToBytes(name), UnquoteToBytes(value));
  }
  // Python compares bytes unsigned; so does std::string (char_traits<char>::lt).
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty()) out += '&';
    out += QuotePlus(name);
    out += '=';
    out += QuotePlus(value);
  }
  return out;
}

}  // namespace

Result<std::string> CanonicalizeW3lib(std::string_view url) {
  if (!IsValidUtf8(url)) return BadUrl(url, "not valid UTF-8");
  CRAWLRANK_ASSIGN_OR_RETURN(ParsedUrl parts, ParseLikeUrlparse(url));
  CRAWLRANK_ASSIGN_OR_RETURN(std::string netloc, CanonicalNetloc(parts.netloc, url));
  if (netloc.empty()) return BadUrl(url, "no host");

  // urlunparse((scheme, netloc, path, params, query, "")).
  std::string out = parts.scheme + "://" + netloc + CanonicalPath(parts.path);
  if (const std::string params = CanonicalParams(parts.params); !params.empty()) {
    out += ';';
    out += params;
  }
  if (const std::string query = CanonicalQuery(parts.query); !query.empty()) {
    out += '?';
    out += query;
  }
  return out;
}

std::string JoinLikeUrljoin(std::string_view base, std::string_view reference) {
  if (reference.empty()) return std::string(base);
  // urlsplit's own clean-up: leading spaces and C0 controls, and tab/LF/CR anywhere, go.
  std::string ref;
  ref.reserve(reference.size());
  for (unsigned char c : reference) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (ref.empty() && c <= 0x20) continue;
    ref += static_cast<char>(c);
  }
  const ParsedUrl parent = SplitLikeUrlparse(base, "");
  const ParsedUrl r = SplitLikeUrlparse(ref, parent.scheme);
  // uses_relative holds http and https: only another scheme stands alone unchanged.
  if (r.scheme != parent.scheme) return ref;
  // A netloc, even with the base's scheme, stands alone too: no dot segments are removed.
  if (!r.netloc.empty()) return UnparseWithNetloc(r.scheme, r.netloc, r.path, r.params, r.query);
  if (r.path.empty() && r.params.empty()) {
    return UnparseWithNetloc(r.scheme, parent.netloc, parent.path, parent.params,
                             r.query.empty() ? parent.query : r.query);
  }
  std::vector<std::string_view> segments;
  if (r.path.starts_with('/')) {
    segments = SplitOnSlash(r.path);
  } else {
    // The base path less its last segment, then the reference's segments; empty segments
    // are dropped except the first and the last ("a//b" joins as "a/b").
    segments = SplitOnSlash(parent.path);
    if (!segments.back().empty()) segments.pop_back();
    for (std::string_view segment : SplitOnSlash(r.path)) segments.push_back(segment);
    const auto middle_begin = segments.begin() + 1;
    const auto middle_end = std::remove(middle_begin, segments.end() - 1, std::string_view());
    segments.erase(middle_end, segments.end() - 1);
  }
  // ".." pops even the root's empty segment (the path then gets its '/' back from
  // urlunsplit); a final "." or ".." leaves a trailing '/'.
  std::vector<std::string_view> resolved;
  for (std::string_view segment : segments) {
    if (segment == "..") {
      if (!resolved.empty()) resolved.pop_back();
    } else if (segment != ".") {
      resolved.push_back(segment);
    }
  }
  if (segments.back() == "." || segments.back() == "..") resolved.emplace_back();
  std::string path;
  for (size_t i = 0; i < resolved.size(); ++i) {
    if (i > 0) path += '/';
    path.append(resolved[i]);
  }
  if (path.empty()) path = "/";
  return UnparseWithNetloc(r.scheme, parent.netloc, path, r.params, r.query);
}

}  // namespace crawlrank
