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
//                        The host's escapes are decoded, and an IPv4 address in any form
//                        written as dotted decimal; a host name that decodes or IDNA-maps
//                        to anything but unreserved characters is an error.
//   w3lib/1              the result of Python's w3lib.url.canonicalize_url (what Scrapy's
//                        request fingerprints use): query arguments sorted, default ports
//                        and dot segments kept, fragment dropped.
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
// URL `base` per RFC 3986 §5.2, and returns the canonical form of the result.
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
// (an IP literal or a host that is itself a public suffix is its own key).
Result<std::string> HostKey(std::string_view canonical_url,
                            HostKeyMode mode = HostKeyMode::kHost);

}  // namespace crawlrank

#endif  // CRAWLRANK_URL_H_
