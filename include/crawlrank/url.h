// crawlrank/url.h: canonical URLs, relative-link resolution, fingerprints and host keys.
//
// Two URLs name the same page when their canonical forms are equal. Canonicalisation is a
// named, versioned profile; a PageDB records the profile it was created with, because
// changing it changes every key (SPEC §2).
//
//   rfc3986/1 (default)  lower-case scheme and host, IDNA (punycode) host, default port
//                        dropped, fragment dropped, dot segments removed, percent-escapes
//                        normalised (unreserved decoded, hex upper-cased, bytes that may
//                        not appear raw encoded), empty path -> "/", empty query dropped.
//                        A host with an empty label is rejected: "a..com", ".com", and
//                        "\u200B.com", which IDNA maps to ".com". One trailing dot is kept
//                        ("http://example.com./" is canonical as it is): it is the fully
//                        qualified form of the name, which HTTP sends as it is in Host and
//                        a server may answer differently, so it is not merged with
//                        "example.com" (HostKey's registered domain ignores it).
//                        The host's escapes are decoded, and an IPv4 address in any form
//                        written as dotted decimal; a host name that decodes or IDNA-maps
//                        to anything but unreserved characters is an error.
//   w3lib/1              the result of Python's w3lib.url.canonicalize_url (what Scrapy's
//                        request fingerprints use): query arguments sorted, default ports
//                        and dot segments kept, fragment dropped. An ASCII host is kept as
//                        it is, empty labels included: "http://a..com/" is canonical here,
//                        as w3lib leaves it, though rfc3986/1 rejects it.
//
// Lenient rules for messy input, shared by both profiles and tested:
//   - leading and trailing spaces and C0 controls are removed; ASCII tab, LF and CR are
//     removed anywhere (as browsers do);
//   - any other C0 control or DEL is an error;
//   - a '%' not followed by two hex digits is taken literally and encoded as "%25".
// Only http and https are accepted; every rejected URL gets a message saying why.
//
// Thread safety: every function here is thread-safe.
#ifndef CRAWLRANK_URL_H_
#define CRAWLRANK_URL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "crawlrank/status.h"

namespace crawlrank {

enum class UrlProfile : uint8_t {
  kRfc3986 = 1,
  kW3lib = 2,
};

// Returns the profile's versioned name: "rfc3986/1" or "w3lib/1".
std::string_view UrlProfileName(UrlProfile profile);

// Parses "rfc3986", "rfc3986/1", "w3lib" or "w3lib/1".
Result<UrlProfile> ParseUrlProfile(std::string_view name);

// Returns the canonical form of the absolute URL `url`.
// Errors: InvalidArgument naming the URL and the reason (no scheme, scheme not http/https,
// no host, bad port, bad IPv6 literal, control character, ...).
Result<std::string> CanonicalizeUrl(std::string_view url,
                                    UrlProfile profile = UrlProfile::kRfc3986);

// Resolves `reference` (absolute or relative, as found in an href) against the absolute
// URL `base`, and returns the canonical form of the result. How depends on the profile:
//   rfc3986/1  RFC 3986 §5.2 with a strict parser: "http:g" is absolute (and has no host),
//              "///x" has an empty host (both rejected). Dot segments are removed once, from
//              the whole path after escapes of unreserved bytes are decoded, so "%2E%2E" is
//              ".." as in CanonicalizeUrl.
//   w3lib/1    Python's urllib.parse.urljoin (how Scrapy resolves links), then the profile.
//              Where urljoin departs from RFC 3986 so does this: "http:g" is relative to an
//              http base; "?" keeps the base's query; empty segments of a relative path are
//              dropped ("a//b" joins as "a/b"); ";params" are split off before dot segments
//              are removed (so "..;x" is ".." with params "x"); "%2E%2E" is no dot segment;
//              an empty host ("///x") takes the base's host; and a reference with a host
//              ("//h/a/../b") keeps its dot segments, as w3lib/1 keeps them.
// In both, a final "." or ".." segment leaves a trailing '/': "../?q=1" against
// "http://h/dir/sub/page" is "http://h/dir/?q=1" (§5.2.4).
// Errors: InvalidArgument when `base` is not a URL the profile accepts, when the reference
// has a control character, or when the resolved URL is rejected (the message names an
// absolute reference as given, a relative one as resolved).
Result<std::string> ResolveUrl(std::string_view base, std::string_view reference,
                               UrlProfile profile = UrlProfile::kRfc3986);

// Seed of the fingerprint hash. Recorded in every PageDB header.
inline constexpr uint64_t kFingerprintSeed = 0;

// Returns the 64-bit XXH3 hash (seed kFingerprintSeed) of a canonical URL: the page key.
uint64_t UrlFingerprint(std::string_view canonical_url);

// Formats a fingerprint as 16 lower-case hex digits, and parses that form back.
std::string FormatFingerprint(uint64_t fingerprint);
Result<uint64_t> ParseFingerprint(std::string_view hex);

enum class HostKeyMode : uint8_t {
  kHost = 1,              // the host name: politeness per host.
  kRegisteredDomain = 2,  // eTLD+1 from the Public Suffix List (libpsl): per site.
};

// Returns the politeness key of a canonical URL: its host, or its registered domain
// (an IP literal or a host that is itself a public suffix is its own key). The host keeps
// a trailing dot ("example.com."); the registered domain is looked up without it
// ("www.example.co.uk." -> "example.co.uk").
Result<std::string> HostKey(std::string_view canonical_url, HostKeyMode mode = HostKeyMode::kHost);

}  // namespace crawlrank

#endif  // CRAWLRANK_URL_H_
