#include "crawlrank/url.h"

#include <idn2.h>
#include <libpsl.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "base/ascii.h"
#include "url/url_fast_path.h"
#include "url/url_internal.h"

namespace crawlrank {
namespace url_internal {
namespace {

bool IsSchemeChar(unsigned char c, bool first) {
  if (std::isalpha(c)) return true;
  return !first && (std::isdigit(c) || c == '+' || c == '-' || c == '.');
}

// Returns the length of "scheme:" at the front of `url`, or 0 if there is none.
size_t SchemeLength(std::string_view url) {
  for (size_t i = 0; i < url.size(); ++i) {
    const auto c = static_cast<unsigned char>(url[i]);
    if (c == ':') return i == 0 ? 0 : i + 1;
    if (!IsSchemeChar(c, i == 0)) return 0;
  }
  return 0;
}

}  // namespace

bool HasScheme(std::string_view url) {
  return SchemeLength(url) != 0;
}

namespace {

bool IsUnsafeRaw(unsigned char c) {
  return c <= 0x20 || c >= 0x7F || std::strchr("<>\"^`{|}\\", c) != nullptr;
}

}  // namespace

Status BadUrl(std::string_view url, std::string_view why) {
  std::string message = "URL ";
  message += QuoteForMessage(url);
  message += ": ";
  message.append(why);
  return InvalidArgumentError(std::move(message));
}

void AppendEscape(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += '%';
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

bool IsUnreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

Result<std::string> CleanInput(std::string_view url) {
  auto trimmable = [](unsigned char c) { return c <= 0x20; };
  while (!url.empty() && trimmable(url.front())) url.remove_prefix(1);
  while (!url.empty() && trimmable(url.back())) url.remove_suffix(1);
  std::string out;
  out.reserve(url.size());
  for (unsigned char c : url) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (c < 0x20 || c == 0x7F) {
      return BadUrl(url, "control character " + std::to_string(c) + " in URL");
    }
    out += static_cast<char>(c);
  }
  if (out.empty()) return BadUrl(url, "empty URL");
  return out;
}

std::string EncodeUnsafeBytes(std::string_view url) {
  // Locate the authority ("//" after an optional scheme): it is left for libcurl, which
  // handles IDN host names itself.
  size_t authority_begin = std::string_view::npos;
  size_t authority_end = std::string_view::npos;
  const size_t scheme = SchemeLength(url);
  if (url.substr(scheme, 2) == "//") {
    authority_begin = scheme + 2;
    authority_end = url.find_first_of("/?#", authority_begin);
    if (authority_end == std::string_view::npos) authority_end = url.size();
  }
  std::string out;
  out.reserve(url.size() + 16);
  for (size_t i = 0; i < url.size(); ++i) {
    const auto c = static_cast<unsigned char>(url[i]);
    if (i >= authority_begin && i < authority_end) {
      out += static_cast<char>(c);
    } else if (c == '%') {
      if (i + 2 < url.size() && IsAsciiHexDigit(url[i + 1]) && IsAsciiHexDigit(url[i + 2])) {
        out += '%';
      } else {
        out += "%25";
      }
    } else if (IsUnsafeRaw(c)) {
      AppendEscape(out, c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Result<std::string> HostToAscii(std::string_view host, IdnaMode mode,
                                std::string_view context_url) {
  std::string out(host);
  const bool ascii =
      std::all_of(host.begin(), host.end(), [](unsigned char c) { return c < 0x80; });
  if (!ascii) {
    char* converted = nullptr;
    const int flags = mode == IdnaMode::kUts46 ? (IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL)
                                               : (IDN2_NFC_INPUT | IDN2_TRANSITIONAL);
    const int rc = idn2_to_ascii_8z(out.c_str(), &converted, flags);
    if (rc != IDN2_OK) {
      return BadUrl(context_url, std::string("host is not a valid IDN name: ") + idn2_strerror(rc));
    }
    out = converted;
    idn2_free(converted);
  }
  AsciiStrToLower(out);
  return out;
}

CurlUrl::CurlUrl() : handle_(curl_url()) {}

Status CurlUrl::Set(CURLUPart part, const std::string& value, unsigned flags,
                    std::string_view context_url) {
  if (!handle_) return ResourceExhaustedError("curl_url: out of memory");
  const CURLUcode rc = curl_url_set(handle_.get(), part, value.c_str(), flags);
  if (rc != CURLUE_OK) return BadUrl(context_url, curl_url_strerror(rc));
  return Status::Ok();
}

Result<std::string> CurlUrl::Get(CURLUPart part, unsigned flags) const {
  char* raw = nullptr;
  const CURLUcode rc = curl_url_get(handle_.get(), part, &raw, flags);
  if (rc != CURLUE_OK) return NotFoundError(curl_url_strerror(rc));
  std::string value(raw);
  curl_free(raw);
  return value;
}

}  // namespace url_internal

namespace {

using url_internal::BadUrl;
using url_internal::CurlUrl;

enum class Component { kUserinfo, kPath, kQuery };

bool AllowedRaw(unsigned char c, Component component) {
  if (url_internal::IsUnreserved(c)) return true;
  if (std::strchr("!$&'()*+,;=", c) != nullptr) return true;  // sub-delims
  switch (component) {
    case Component::kUserinfo: return c == ':';
    case Component::kPath: return c == ':' || c == '@' || c == '/';
    case Component::kQuery: return c == ':' || c == '@' || c == '/' || c == '?';
  }
  return false;
}

// RFC 3986 §6.2.2.2: decodes escapes of unreserved characters, upper-cases the hex of the
// others, and encodes any byte that may not appear raw in the component.
std::string NormalizePercent(std::string_view in, Component component) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    auto c = static_cast<unsigned char>(in[i]);
    if (c == '%' && i + 2 < in.size() && IsAsciiHexDigit(in[i + 1]) && IsAsciiHexDigit(in[i + 2])) {
      c = static_cast<unsigned char>(AsciiHexValue(in[i + 1]) * 16 + AsciiHexValue(in[i + 2]));
      i += 2;
      if (url_internal::IsUnreserved(c)) {
        out += static_cast<char>(c);
        continue;
      }
    } else if (AllowedRaw(c, component)) {
      out += static_cast<char>(c);
      continue;
    }
    url_internal::AppendEscape(out, c);
  }
  return out;
}

// RFC 3986 §5.2.4.
std::string RemoveDotSegments(std::string_view input) {
  std::string output;
  output.reserve(input.size());
  auto pop_last_segment = [&output] {
    const size_t slash = output.rfind('/');
    output.resize(slash == std::string::npos ? 0 : slash);
  };
  while (!input.empty()) {
    if (input.starts_with("../")) {
      input.remove_prefix(3);
    } else if (input.starts_with("./")) {
      input.remove_prefix(2);
    } else if (input.starts_with("/./")) {
      input.remove_prefix(2);
    } else if (input == "/.") {
      input = "/";
    } else if (input.starts_with("/../")) {
      input.remove_prefix(3);
      pop_last_segment();
    } else if (input == "/..") {
      input = "/";
      pop_last_segment();
    } else if (input == "." || input == "..") {
      input = {};
    } else {
      const size_t next = input.find('/', 1);
      const size_t n = next == std::string_view::npos ? input.size() : next;
      output.append(input.substr(0, n));
      input.remove_prefix(n);
    }
  }
  return output;
}

Status CheckScheme(std::string_view url, std::string_view original) {
  const size_t colon = url.find(':');
  const std::string_view head = url.substr(0, colon);
  const bool has_scheme = colon != std::string_view::npos && colon > 0 &&
                          std::all_of(head.begin(), head.end(),
                                      [](unsigned char c) {
                                        return std::isalnum(c) || c == '+' || c == '-' || c == '.';
                                      }) &&
                          std::isalpha(static_cast<unsigned char>(head[0]));
  if (!has_scheme) return BadUrl(original, "no scheme (a relative URL needs a base URL)");
  std::string scheme(head);
  AsciiStrToLower(scheme);
  if (scheme != "http" && scheme != "https") {
    return BadUrl(original,
                  "scheme " + QuoteForMessage(scheme) + " is not allowed (only http and https)");
  }
  return Status::Ok();
}

// Requires "//" and a non-empty authority after "scheme:" (RFC 3986 §3.2). libcurl would
// take "http:/x" and "http:///x" as host "x". REQUIRES: CheckScheme(url) is OK.
Status CheckAuthority(std::string_view url, std::string_view original) {
  const std::string_view rest = url.substr(url.find(':') + 1);
  if (!rest.starts_with("//") || rest.substr(2, 1) == "/") {
    return BadUrl(original, "no host (expected \"//host\" after the scheme)");
  }
  return Status::Ok();
}

// Rejects a host name with an empty label: "a..com", ".com", "." and "\u200B.com" (IDNA
// maps the zero-width space to nothing). DNS names have no empty labels (RFC 1034 §3.1),
// so such a host names nothing. One trailing dot is no empty label: it marks the name as
// fully qualified ("example.com."), a form HTTP keeps apart (it is sent as it is in Host),
// and it is kept. `host` is after IDNA, `raw_host` before; an IPv6 literal passes.
Status CheckHostLabels(std::string_view host, std::string_view raw_host,
                       std::string_view original) {
  if (host.starts_with('[')) return Status::Ok();
  std::string_view name = host;
  if (name.ends_with('.')) name.remove_suffix(1);
  if (name.empty() || name.starts_with('.') || name.ends_with('.') ||
      name.find("..") != std::string_view::npos) {
    return BadUrl(original, "host " + QuoteForMessage(host) +
                                (IsAscii(raw_host) ? "" : " (after IDNA mapping)") +
                                " has an empty label");
  }
  return Status::Ok();
}

// `second_pass`: see the end.
Result<std::string> CanonicalizeRfc3986(std::string_view clean, std::string_view original,
                                        bool second_pass = false) {
  CurlUrl url;
  CRAWLRANK_RETURN_IF_ERROR(url.Set(CURLUPART_URL, url_internal::EncodeUnsafeBytes(clean),
                                    CURLU_PATH_AS_IS | CURLU_NON_SUPPORT_SCHEME, original));
  auto scheme = url.Get(CURLUPART_SCHEME, 0);
  auto raw_host = url.Get(CURLUPART_HOST, 0);
  if (!scheme.ok()) return BadUrl(original, "no scheme");
  if (!raw_host.ok() || raw_host->empty()) return BadUrl(original, "no host");
  // libcurl keeps a zone id apart from the host; dropping it would merge distinct URLs.
  if (url.Get(CURLUPART_ZONEID, 0).ok()) {
    return BadUrl(original, "IPv6 zone ids are not supported");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(
      std::string host,
      url_internal::HostToAscii(*raw_host, url_internal::IdnaMode::kUts46, original));
  CRAWLRANK_RETURN_IF_ERROR(CheckHostLabels(host, *raw_host, original));
  // libcurl gives the host with its escapes decoded ("%7F" is a raw DEL, "%7C" a '|'), and
  // IDNA may map a character to a delimiter (U+FF0F to '/', U+FE61 to '*'): the result would
  // not be a URL, or one libcurl refuses when canonicalised again. A canonical host name is
  // unreserved characters only: libcurl refuses the rest of RFC 3986's reg-name (sub-delims)
  // raw. IP literals were checked by libcurl. Found by fuzz/url_fuzz.cc.
  if (!raw_host->starts_with('[') &&
      !std::all_of(host.begin(), host.end(), url_internal::IsUnreserved)) {
    return BadUrl(original, "host " + QuoteForMessage(host) +
                                " has a character that is not allowed in a host name");
  }
  AsciiStrToLower(*scheme);

  std::string out = *scheme + "://";
  if (auto user = url.Get(CURLUPART_USER, 0); user.ok()) {
    out += NormalizePercent(*user, Component::kUserinfo);
    if (auto password = url.Get(CURLUPART_PASSWORD, 0); password.ok()) {
      out += ':';
      out += NormalizePercent(*password, Component::kUserinfo);
    }
    out += '@';
  }
  out += host;
  if (auto port = url.Get(CURLUPART_PORT, CURLU_NO_DEFAULT_PORT); port.ok()) {
    out += ':';
    out += *port;
  }
  auto path = url.Get(CURLUPART_PATH, 0);
  std::string normal_path =
      RemoveDotSegments(NormalizePercent(path.ok() ? *path : "", Component::kPath));
  out += normal_path.empty() ? "/" : normal_path;
  if (auto query = url.Get(CURLUPART_QUERY, 0); query.ok() && !query->empty()) {
    out += '?';
    out += NormalizePercent(*query, Component::kQuery);
  }
  // libcurl reads a host that looks like an IPv4 address in any of its forms ("19.2222",
  // "0x7f.1") as that address, but only as written: a host that became one by decoding
  // escapes ("19%2E2222") or by IDNA ("19", U+FF61, "2222") would become one only when
  // canonicalised again. So such a URL is canonicalised twice (found by fuzz/url_fuzz.cc).
  if (!second_pass) {
    const std::string_view after_slashes = clean.substr(clean.find("//") + 2);
    const std::string_view authority = after_slashes.substr(0, after_slashes.find_first_of("/?#"));
    const bool ascii =
        std::all_of(raw_host->begin(), raw_host->end(), [](unsigned char c) { return c < 0x80; });
    if (!ascii || authority.find('%') != std::string_view::npos) {
      return CanonicalizeRfc3986(out, original, /*second_pass=*/true);
    }
  }
  return out;
}

// A URI reference split as RFC 3986 Appendix B splits it, the fragment left out, except
// that a scheme must be made of scheme characters (§3.1), as HasScheme checks: "1a:b" is a
// relative path, as it is to browsers. A component that is absent is nullopt.
struct ReferenceParts {
  std::optional<std::string_view> scheme;
  std::optional<std::string_view> authority;
  std::string_view path;
  std::optional<std::string_view> query;
};

ReferenceParts SplitReference(std::string_view reference) {
  ReferenceParts parts;
  reference = reference.substr(0, reference.find('#'));
  if (url_internal::HasScheme(reference)) {
    const size_t colon = reference.find(':');
    parts.scheme = reference.substr(0, colon);
    reference.remove_prefix(colon + 1);
  }
  if (reference.starts_with("//")) {
    const size_t end = std::min(reference.find_first_of("/?", 2), reference.size());
    parts.authority = reference.substr(2, end - 2);
    reference.remove_prefix(end);
  }
  if (const size_t question = reference.find('?'); question != std::string_view::npos) {
    parts.query = reference.substr(question + 1);
    reference = reference.substr(0, question);
  }
  parts.path = reference;
  return parts;
}

// Returns the target URI of `reference` against `base` by RFC 3986 §5.2.2 (strict: a
// reference with a scheme is absolute, "http:g" included), without its fragment.
// remove_dot_segments is left to the canonicaliser, which applies it to the whole target
// path after decoding escapes of unreserved bytes (§6.2.2), so that "%2E%2E" counts as ".."
// as it does in CanonicalizeUrl. REQUIRES: `base` has a scheme and an authority.
std::string ResolveReference(std::string_view base, std::string_view reference) {
  const ReferenceParts ref = SplitReference(reference);
  if (ref.scheme) return std::string(reference);
  const ReferenceParts parent = SplitReference(base);
  std::string target(*parent.scheme);
  target += "://";
  std::optional<std::string_view> query = ref.query;
  if (ref.authority) {
    target += *ref.authority;
    target += ref.path;
  } else {
    target += parent.authority.value_or("");
    if (ref.path.empty()) {
      target += parent.path;
      if (!query) query = parent.query;
    } else if (ref.path.starts_with('/')) {
      target += ref.path;
    } else {
      // §5.2.3 merge: the base path up to its last '/', or "/" for an empty base path.
      const size_t slash = parent.path.rfind('/');
      target += slash == std::string_view::npos ? "/" : parent.path.substr(0, slash + 1);
      target += ref.path;
    }
  }
  if (query) {
    target += '?';
    target += *query;
  }
  return target;
}

Result<std::string> Canonicalize(std::string_view clean, std::string_view original,
                                 UrlProfile profile) {
  CRAWLRANK_RETURN_IF_ERROR(CheckScheme(clean, original));
  CRAWLRANK_RETURN_IF_ERROR(CheckAuthority(clean, original));
  switch (profile) {
    case UrlProfile::kRfc3986: return CanonicalizeRfc3986(clean, original);
    case UrlProfile::kW3lib: return CanonicalizeW3lib(clean);
  }
  return InvalidArgumentError("unknown URL profile " + std::to_string(static_cast<int>(profile)));
}

}  // namespace

std::string_view UrlProfileName(UrlProfile profile) {
  switch (profile) {
    case UrlProfile::kRfc3986: return "rfc3986/1";
    case UrlProfile::kW3lib: return "w3lib/1";
  }
  return "unknown";
}

Result<UrlProfile> ParseUrlProfile(std::string_view name) {
  if (name == "rfc3986" || name == "rfc3986/1") return UrlProfile::kRfc3986;
  if (name == "w3lib" || name == "w3lib/1") return UrlProfile::kW3lib;
  return InvalidArgumentError("URL profile \"" + std::string(name) +
                              "\": unknown (known: rfc3986/1, w3lib/1)");
}

Result<std::string> CanonicalizeUrl(std::string_view url, UrlProfile profile) {
  // Most URLs a crawl sees are canonical already: skip the parse (tests/url_fast_path_test.cc).
  if (profile == UrlProfile::kRfc3986 && url_internal::IsCanonicalRfc3986(url)) {
    return std::string(url);
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::string clean, url_internal::CleanInput(url));
  return Canonicalize(clean, url, profile);
}

namespace {

// Relative links climb ("../../std/index.html"): the target keeps its dot segments, which
// the full canonicaliser removes after decoding escapes. A path of plain characters only
// (RFC 3986 pchar but '%') needs nothing else: its dot segments are removed here, and the
// result is taken when the fast check finds it canonical. Else nullopt.
std::optional<std::string> WithoutDotSegments(std::string_view target) {
  const size_t authority = target.find("://");
  if (authority == std::string_view::npos) return std::nullopt;
  const size_t path = target.find('/', authority + 3);
  if (path == std::string_view::npos) return std::nullopt;
  const size_t query = target.find('?', path);
  const std::string_view segments = target.substr(path, query == std::string_view::npos
                                                            ? std::string_view::npos
                                                            : query - path);
  if (segments.find("/.") == std::string_view::npos) return std::nullopt;
  for (const char c : segments) {
    if (!(IsAsciiAlnum(c) || std::string_view("-._~!$&'()*+,;=:@/").find(c) !=
                                 std::string_view::npos)) {
      return std::nullopt;
    }
  }
  std::string out(target.substr(0, path));
  const std::string clean = RemoveDotSegments(segments);
  out += clean.empty() ? "/" : clean;
  if (query != std::string_view::npos) out += target.substr(query);
  if (!url_internal::IsCanonicalRfc3986(out)) return std::nullopt;
  return out;
}

}  // namespace

Result<std::string> ResolveUrl(std::string_view base, std::string_view reference,
                               UrlProfile profile) {
  // The base must be a URL the profile accepts, whatever the reference. A crawler resolves
  // every link of a page against the same canonical base: the fast path skips its parse.
  std::string clean_base;
  if (profile == UrlProfile::kRfc3986 && url_internal::IsCanonicalRfc3986(base)) {
    clean_base = base;
  } else {
    CRAWLRANK_ASSIGN_OR_RETURN(clean_base, url_internal::CleanInput(base));
    CRAWLRANK_RETURN_IF_ERROR(Canonicalize(clean_base, base, profile).status());
  }
  // A reference of spaces and controls only is empty: the base document itself (§5.4.1).
  std::string clean_ref;
  if (!std::all_of(reference.begin(), reference.end(), [](unsigned char c) { return c <= 0x20; })) {
    CRAWLRANK_ASSIGN_OR_RETURN(clean_ref, url_internal::CleanInput(reference));
  }
  std::string target;
  if (profile == UrlProfile::kW3lib) {
    // Python's urljoin, as Scrapy resolves links, then canonicalize_url's own trimming.
    CRAWLRANK_ASSIGN_OR_RETURN(target,
                               url_internal::CleanInput(JoinLikeUrljoin(clean_base, reference)));
  } else {
    target = ResolveReference(clean_base, clean_ref);
  }
  if (profile == UrlProfile::kRfc3986) {
    if (url_internal::IsCanonicalRfc3986(target)) return target;
    if (std::optional<std::string> fast = WithoutDotSegments(target)) return *std::move(fast);
  }
  // Messages name an absolute reference as given, and a relative one as resolved.
  return Canonicalize(target, target == clean_ref ? reference : std::string_view(target), profile);
}

uint64_t UrlFingerprint(std::string_view canonical_url) {
  return XXH3_64bits_withSeed(canonical_url.data(), canonical_url.size(), kFingerprintSeed);
}

std::string FormatFingerprint(uint64_t fingerprint) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, fingerprint >>= 4) out[i] = kHex[fingerprint & 15];
  return out;
}

Result<uint64_t> ParseFingerprint(std::string_view hex) {
  if (hex.size() != 16) {
    return InvalidArgumentError("hash \"" + std::string(hex) + "\": expected 16 hex digits, got " +
                                std::to_string(hex.size()) + " characters");
  }
  uint64_t value = 0;
  for (char c : hex) {
    if (!IsAsciiHexDigit(c)) {
      return InvalidArgumentError("hash \"" + std::string(hex) + "\": '" + std::string(1, c) +
                                  "' is not a hex digit");
    }
    value = value * 16 + static_cast<uint64_t>(AsciiHexValue(c));
  }
  return value;
}

namespace {
bool IsIpLiteral(std::string_view host) {
  if (host.starts_with('[')) return true;
  return !host.empty() &&
         std::all_of(host.begin(), host.end(), [](char c) { return IsAsciiDigit(c) || c == '.'; });
}
}  // namespace

Result<std::string> HostKey(std::string_view canonical_url, HostKeyMode mode) {
  const size_t start = canonical_url.find("://");
  if (start == std::string_view::npos) return BadUrl(canonical_url, "not a canonical URL");
  std::string_view authority = canonical_url.substr(start + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  std::string_view host = authority;
  if (host.starts_with('[')) {
    host = host.substr(0, host.find(']') + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host.empty()) return BadUrl(canonical_url, "no host");
  if (mode == HostKeyMode::kHost || IsIpLiteral(host)) return std::string(host);
  // The Public Suffix List holds names without the trailing dot of a fully-qualified one:
  // libpsl would take "co.uk." for the registered domain of "www.example.co.uk.".
  if (host.ends_with('.')) host.remove_suffix(1);
  const std::string host_z(host);
  const char* domain = psl_registrable_domain(psl_builtin(), host_z.c_str());
  return domain == nullptr ? host_z : std::string(domain);
}

}  // namespace crawlrank
