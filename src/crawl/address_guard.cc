#include "crawl/address_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>

namespace crawlrank {
namespace {

// IPv4 ranges that are not public unicast (IANA special-purpose registry, RFC 6890 and
// its updates), most specific first where they nest.
struct Range4 {
  uint32_t network;
  int prefix;
  std::string_view name;
};
constexpr Range4 kRanges4[] = {
    {0x00000000, 8, "unspecified"},        // 0.0.0.0/8 "this network"
    {0x0A000000, 8, "private"},            // 10/8
    {0x64400000, 10, "carrier-grade NAT"}, // 100.64/10
    {0x7F000000, 8, "loopback"},           // 127/8
    {0xA9FE0000, 16, "link-local"},        // 169.254/16
    {0xAC100000, 12, "private"},           // 172.16/12
    {0xC0000000, 24, "reserved"},          // 192.0.0/24 protocol assignments
    {0xC0000200, 24, "documentation"},     // 192.0.2/24
    {0xC0586300, 24, "reserved"},          // 192.88.99/24 (6to4 relay anycast)
    {0xC0A80000, 16, "private"},           // 192.168/16
    {0xC6120000, 15, "benchmarking"},      // 198.18/15
    {0xC6336400, 24, "documentation"},     // 198.51.100/24
    {0xCB007100, 24, "documentation"},     // 203.0.113/24
    {0xE0000000, 4, "multicast"},          // 224/4
    {0xF0000000, 4, "reserved"},           // 240/4, 255.255.255.255 included
};

std::string_view Check4(uint32_t host_order) {
  for (const Range4& r : kRanges4) {
    const uint32_t mask = r.prefix == 0 ? 0 : ~uint32_t{0} << (32 - r.prefix);
    if ((host_order & mask) == r.network) return r.name;
  }
  return {};
}

uint32_t Load4(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

std::string_view Check6(const uint8_t* a) {
  static constexpr uint8_t kZero[16] = {};
  if (std::memcmp(a, kZero, 15) == 0 && (a[15] == 0 || a[15] == 1)) {
    return a[15] == 0 ? "unspecified" : "loopback";
  }
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated): the IPv4 address.
  if (std::memcmp(a, kZero, 10) == 0 && ((a[10] == 0xff && a[11] == 0xff) ||
                                         (a[10] == 0 && a[11] == 0))) {
    return Check4(Load4(a + 12));
  }
  // 64:ff9b::/96 (NAT64) carries an IPv4 address in its last 32 bits.
  static constexpr uint8_t kNat64[12] = {0, 0x64, 0xff, 0x9b};
  if (std::memcmp(a, kNat64, 12) == 0) return Check4(Load4(a + 12));
  // 2002::/16 (6to4) carries one in bits 16-47.
  if (a[0] == 0x20 && a[1] == 0x02) return Check4(Load4(a + 2));
  if (a[0] == 0xff) return "multicast";                          // ff00::/8
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return "link-local"; // fe80::/10
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0) return "site-local"; // fec0::/10
  if ((a[0] & 0xfe) == 0xfc) return "private";                    // fc00::/7 unique local
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8) return "documentation";
  if (a[0] == 0x01 && a[1] == 0 && std::memcmp(a + 2, kZero, 6) == 0) return "discard";
  // Global unicast is 2000::/3; everything else is unassigned or special.
  if ((a[0] & 0xe0) != 0x20) return "reserved";
  return {};
}

}  // namespace

std::string_view NonPublicRange(const sockaddr* address, socklen_t length) {
  if (address == nullptr) return "not IP";
  if (address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    return Check4(ntohl(in->sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    return Check6(in6->sin6_addr.s6_addr);
  }
  return "not IP";
}

std::string_view NonPublicRange(std::string_view literal) {
  const std::string text(literal);
  in_addr a4;
  if (inet_pton(AF_INET, text.c_str(), &a4) == 1) return Check4(ntohl(a4.s_addr));
  in6_addr a6;
  if (inet_pton(AF_INET6, text.c_str(), &a6) == 1) return Check6(a6.s6_addr);
  return "not an address";
}

std::string AddressText(const sockaddr* address, socklen_t length) {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (address != nullptr && address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, buffer,
              sizeof buffer);
  } else if (address != nullptr && address->sa_family == AF_INET6 &&
             length >= sizeof(sockaddr_in6)) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, buffer,
              sizeof buffer);
  } else {
    return "(not IP)";
  }
  return buffer;
}

}  // namespace crawlrank
