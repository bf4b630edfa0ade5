// Which addresses the crawler may connect to (crawler.h, "Safety").
#ifndef CRAWLRANK_SRC_CRAWL_ADDRESS_GUARD_H_
#define CRAWLRANK_SRC_CRAWL_ADDRESS_GUARD_H_

#include <sys/socket.h>

#include <string>
#include <string_view>

namespace crawlrank {

// Returns "" when the address is a public unicast address, else the name of the range
// that makes it non-public ("loopback", "private", "link-local", "multicast", ...).
// IPv4-mapped and IPv4-compatible IPv6 addresses, NAT64 (64:ff9b::/96) and 6to4
// (2002::/16) are judged by the IPv4 address they carry. Anything but AF_INET/AF_INET6
// is "not IP".
std::string_view NonPublicRange(const sockaddr* address, socklen_t length);

// The same for an address literal ("127.0.0.1", "::1"); "not an address" when it is none.
std::string_view NonPublicRange(std::string_view literal);

// The address as text, for messages.
std::string AddressText(const sockaddr* address, socklen_t length);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_ADDRESS_GUARD_H_
