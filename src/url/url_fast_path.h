// A quick test for URLs that are already in rfc3986/1 canonical form, so the common case
// (links written by a server that canonicalises, or URLs read back from a PageDB) skips
// the full parse. Deliberately conservative: anything unusual (userinfo, IPv6 literals,
// IPv4 written other than as four plain decimal numbers,
// punycode, escapes of unreserved bytes, dot segments, default ports, fragments, empty
// queries, upper case) goes to the full canonicaliser.
#ifndef CRAWLRANK_SRC_URL_FAST_PATH_H_
#define CRAWLRANK_SRC_URL_FAST_PATH_H_

#include <string_view>

namespace crawlrank::url_internal {

// Returns true only when CanonicalizeUrl(url, kRfc3986) would return `url` unchanged.
// (The converse does not hold: false means "not sure".) Tested against the full path.
bool IsCanonicalRfc3986(std::string_view url);

}  // namespace crawlrank::url_internal

#endif  // CRAWLRANK_SRC_URL_FAST_PATH_H_
