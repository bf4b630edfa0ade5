// crawlrank/failure_kind.h: why a page could not be fetched, from a fixed list.
//
// Every failure a frontier records carries one kind (FailureReport::kind), and a page
// failed for good keeps the kind of its last failure in the PageDB with the detail text,
// the last HTTP status, the attempts and the time (docs/format.md, version 4). The names
// are what `crawlrank failed --kind`, `crawlrank requeue --kind`, page_db_stats and the
// Python bindings show and take; the numbers are stored, so a kind is never renumbered:
// a new one takes the next number.
#ifndef CRAWLRANK_FAILURE_KIND_H_
#define CRAWLRANK_FAILURE_KIND_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace crawlrank {

enum class FailureKind : uint8_t {
  kOther = 0,               // none of the below (an older DB's failure whose cause is unknown)
  kTimeout = 1,             // connect, total or low-speed timeout
  kConnect = 2,             // connection refused or unreachable
  kDns = 3,                 // the name did not resolve
  kTls = 4,                 // TLS handshake or certificate
  kConnection = 5,          // reset, closed early, nothing received
  kHttp4xx = 6,             // 429 (other 4xx are crawled pages with their status)
  kHttp5xx = 7,             // 5xx
  kRobotsDisallowed = 8,    // robots.txt disallows the URL
  kRobotsUnreachable = 9,   // the origin's robots.txt could not be fetched, retries spent
  kPrivateAddress = 10,     // the host resolves only to private addresses (allow_private)
  kTooLarge = 11,           // body over max_body_bytes or headers over max_header_bytes
  kProtocol = 12,           // malformed HTTP, bad content encoding
  kRedirectLimit = 13,      // past the consecutive redirects a chain may take
  kBadUrl = 14,             // a URL the crawler cannot fetch (too long, refused by libcurl)
};

// The highest number in use; a stored kind above it is damage.
inline constexpr uint8_t kMaxFailureKind = 14;

// "timeout", "connect", "dns", "tls", "connection", "http-4xx", "http-5xx",
// "robots-disallowed", "robots-unreachable", "private-address", "too-large", "protocol",
// "redirect-limit", "bad-url", "other".
std::string_view FailureKindName(FailureKind kind);
// The kind of a name above; nullopt for anything else.
std::optional<FailureKind> ParseFailureKind(std::string_view name);
// Calls fn(kind) for every kind, in number order.
template <typename Fn>
constexpr void ForEachFailureKind(Fn&& fn) {
  for (uint8_t k = 0; k <= kMaxFailureKind; ++k) fn(static_cast<FailureKind>(k));
}
// The kind of a failure reported without one: from its HTTP status (429 and 4xx:
// http-4xx, 5xx: http-5xx), else kOther. Also how an upgrade files the failures that an
// older DB stored without a kind (their reason "robots.txt disallows it" included).
FailureKind InferFailureKind(uint16_t http_status, std::string_view reason);

}  // namespace crawlrank

#endif  // CRAWLRANK_FAILURE_KIND_H_
