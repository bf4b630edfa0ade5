// Tests of the crawler's private pieces: the address guard (src/crawl/address_guard.h) and
// the sitemap reader (src/crawl/sitemap.h). The crawler itself is tested end to end
// against local servers in tests/python/test_crawl.py.
//
// Where the expected values come from: the IANA IPv4 and IPv6 special-purpose address
// registries (RFC 6890, RFC 6598, RFC 5737, RFC 3849, RFC 4193, RFC 4291 §2.5.5, RFC 6052),
// and the sitemaps.org protocol's own examples, written out by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "crawl/address_guard.h"
#include "crawl/sitemap.h"

namespace crawlrank {
namespace {

TEST(AddressGuardTest, PublicAddressesPass) {
  for (const char* a : {"8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.0",
                        "172.15.255.255", "172.32.0.0", "192.167.255.255", "223.255.255.255",
                        "2001:4860:4860::8888", "2606:4700::1111", "::ffff:8.8.8.8",
                        "64:ff9b::808:808", "2002:808:808::1"}) {
    EXPECT_EQ(NonPublicRange(a), "") << a;
  }
}

TEST(AddressGuardTest, SpecialRangesAreRefused) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"127.0.0.1", "loopback"},          {"127.255.255.254", "loopback"},
      {"10.1.2.3", "private"},            {"172.16.0.1", "private"},
      {"172.31.255.255", "private"},      {"192.168.1.1", "private"},
      {"169.254.169.254", "link-local"},  {"100.64.0.1", "carrier-grade NAT"},
      {"0.0.0.0", "unspecified"},         {"224.0.0.1", "multicast"},
      {"239.255.255.250", "multicast"},   {"255.255.255.255", "reserved"},
      {"240.0.0.1", "reserved"},          {"192.0.2.7", "documentation"},
      {"198.18.0.1", "benchmarking"},     {"::1", "loopback"},
      {"::", "unspecified"},              {"fe80::1", "link-local"},
      {"fc00::1", "private"},             {"fd12:3456::1", "private"},
      {"ff02::1", "multicast"},           {"2001:db8::1", "documentation"},
      // IPv4 inside IPv6: judged by the IPv4 address (mapped, compatible, NAT64, 6to4).
      {"::ffff:127.0.0.1", "loopback"},   {"::ffff:10.0.0.1", "private"},
      {"::127.0.0.1", "loopback"},        {"64:ff9b::7f00:1", "loopback"},
      {"2002:c0a8:0101::1", "private"},   {"::ffff:169.254.169.254", "link-local"},
  };
  for (const auto& [address, range] : cases) EXPECT_EQ(NonPublicRange(address), range) << address;
}

TEST(AddressGuardTest, NotAnAddress) {
  EXPECT_EQ(NonPublicRange("localhost"), "not an address");
  EXPECT_EQ(NonPublicRange("127.1"), "not an address");  // inet_pton takes dotted quads only
}

TEST(SitemapTest, UrlSetLocs) {
  const std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://www.example.com/</loc><lastmod>2005-01-01</lastmod></url>
  <url>
    <loc>
      http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii
    </loc>
  </url>
  <url><loc><![CDATA[http://www.example.com/a&b]]></loc></url>
  <url><loc>http://www.example.com/caf&#233;?x=&#x41;</loc></url>
  <url><location>http://not.a.loc/</location></url>
</urlset>)";
  const SitemapUrls urls = ParseSitemap(xml);
  EXPECT_EQ(urls.pages,
            (std::vector<std::string>{"http://www.example.com/",
                                      "http://www.example.com/catalog?item=12&desc=vacation_hawaii",
                                      "http://www.example.com/a&b",
                                      "http://www.example.com/caf\xc3\xa9?x=A"}));
  EXPECT_TRUE(urls.sitemaps.empty());
}

TEST(SitemapTest, IndexListsSitemaps) {
  const SitemapUrls urls = ParseSitemap(
      "<sitemapindex><sitemap><loc>http://e.com/s1.xml</loc></sitemap>"
      "<sitemap><loc>http://e.com/s2.xml</loc></sitemap></sitemapindex>");
  EXPECT_EQ(urls.sitemaps, (std::vector<std::string>{"http://e.com/s1.xml", "http://e.com/s2.xml"}));
  EXPECT_TRUE(urls.pages.empty());
}

TEST(SitemapTest, TextSitemapAndLimits) {
  const SitemapUrls text = ParseSitemap("http://e.com/a\r\n\nnot a url\nhttps://e.com/b\n");
  EXPECT_EQ(text.pages, (std::vector<std::string>{"http://e.com/a", "https://e.com/b"}));
  EXPECT_EQ(ParseSitemap("<urlset><url><loc>http://e.com/1</loc><loc>http://e.com/2</loc>", 1)
                .pages.size(),
            1u);
  // Cut off inside an element: what was complete is kept, nothing is invented.
  EXPECT_EQ(ParseSitemap("<urlset><url><loc>http://e.com/1</loc><url><loc>http://e.c").pages,
            (std::vector<std::string>{"http://e.com/1"}));
}

}  // namespace
}  // namespace crawlrank
