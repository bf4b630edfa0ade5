// Tests of the crawler's private pieces: the address guard (src/crawl/address_guard.h),
// the sitemap reader (src/crawl/sitemap.h) and the fetcher's header caps
// (src/crawl/fetcher.h, against a tiny server on 127.0.0.1). The crawler itself is tested
// end to end against local servers in tests/python/test_crawl.py.
//
// Where the expected values come from: the IANA IPv4 and IPv6 special-purpose address
// registries (RFC 6890, RFC 6598, RFC 5737, RFC 3849, RFC 4193, RFC 4291 §2.5.5, RFC 6052),
// the sitemaps.org protocol's own examples, written out by hand, and crawler.h's contract
// (headers past max_header_bytes fail for good).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "crawl/address_guard.h"
#include "crawl/fetcher.h"
#include "crawl/sitemap.h"
#include "testutil.h"

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
  // A limit of 0 gives nothing, from an index as from a sitemap (sitemap_fuzz found an
  // index that gave one sitemap).
  const SitemapUrls none = ParseSitemap(
      "<sitemapindex><sitemap><loc>http://e.com/s.xml.gz</loc></sitemap></sitemapindex>", 0);
  EXPECT_TRUE(none.sitemaps.empty() && none.pages.empty());
  EXPECT_TRUE(ParseSitemap("<urlset><url><loc>http://e.com/1</loc></url></urlset>", 0).pages.empty());
  EXPECT_TRUE(ParseSitemap("http://e.com/1\n", 0).pages.empty());
  // Cut off inside an element: what was complete is kept, nothing is invented.
  EXPECT_EQ(ParseSitemap("<urlset><url><loc>http://e.com/1</loc><url><loc>http://e.c").pages,
            (std::vector<std::string>{"http://e.com/1"}));
}

// `text` as a gzip stream, as a .xml.gz sitemap is served.
std::string Gzip(std::string_view text) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, text.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

TEST(SitemapTest, NamespacesPrefixedOrNotAndOnlyTheSitemapsOwnLocs) {
  const SitemapUrls urls = ParseSitemap(R"(<?xml version="1.0"?>
<s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9"
          xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <s:url><s:loc>http://e.com/a</s:loc>
    <image:image><image:loc>http://e.com/a.png</image:loc></image:image></s:url>
  <s:url><image:loc>http://e.com/b.png</image:loc><s:loc>http://e.com/b</s:loc></s:url>
  <s:url/>
</s:urlset>)");
  EXPECT_EQ(urls.pages, (std::vector<std::string>{"http://e.com/a", "http://e.com/b"}));
}

TEST(SitemapTest, GzipSitemapsAreInflatedAndACutStreamKeepsItsWholeLocs) {
  const std::string xml =
      "<urlset><url><loc>http://e.com/1</loc></url><url><loc>http://e.com/2</loc></url>"
      "</urlset>";
  EXPECT_EQ(ParseSitemap(Gzip(xml)).pages,
            (std::vector<std::string>{"http://e.com/1", "http://e.com/2"}));
  const std::string gz = Gzip(xml + std::string(4000, ' ') + "<!-- tail -->");
  const SitemapUrls cut = ParseSitemap(std::string_view(gz).substr(0, gz.size() - 8));
  EXPECT_EQ(cut.pages, (std::vector<std::string>{"http://e.com/1", "http://e.com/2"}));
  EXPECT_TRUE(ParseSitemap("\x1f\x8bnot gzip at all").pages.empty());
  // A text sitemap, gzipped.
  EXPECT_EQ(ParseSitemap(Gzip("http://e.com/t\n")).pages,
            (std::vector<std::string>{"http://e.com/t"}));
}

TEST(SitemapTest, NoExternalEntitiesAndNoEntityBombs) {
  // XXE: an external entity naming a local file is never read.
  const SitemapUrls xxe = ParseSitemap(R"(<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<urlset><url><loc>http://e.com/&secret;</loc></url></urlset>)");
  for (const std::string& url : xxe.pages) EXPECT_EQ(url.find('\n'), std::string::npos) << url;
  ASSERT_LE(xxe.pages.size(), 1u);
  if (!xxe.pages.empty()) {
    EXPECT_EQ(xxe.pages[0], "http://e.com/");
  }
  // A billion laughs: entities a DTD declares are not expanded (libxml2 stops at the
  // reference); this returns at once, with no URL longer than the text written.
  std::string bomb = "<?xml version=\"1.0\"?><!DOCTYPE urlset [<!ENTITY a0 \"lol\">";
  for (int i = 1; i < 10; ++i) {
    bomb += "<!ENTITY a" + std::to_string(i) + " \"";
    for (int j = 0; j < 10; ++j) bomb += "&a" + std::to_string(i - 1) + ";";
    bomb += "\">";
  }
  bomb += "]><urlset><url><loc>http://e.com/&a9;</loc></url>"
          "<url><loc>http://e.com/ok</loc></url></urlset>";
  const SitemapUrls laughs = ParseSitemap(bomb);
  for (const std::string& url : laughs.pages) EXPECT_LT(url.size(), 100u);
}

// Sends all of `data`; false once the peer is gone.
bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// An HTTP server on 127.0.0.1, one connection at a time: reads a request's head, lets
// `respond` write the answer on the socket, closes. Counts the connections it served.
class TinyServer {
 public:
  explicit TinyServer(std::function<void(int fd)> respond) : respond_(std::move(respond)) {
    listener_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(address);
    auto* generic = reinterpret_cast<sockaddr*>(&address);
    if (::bind(listener_.get(), generic, size) != 0 || ::listen(listener_.get(), 8) != 0 ||
        ::getsockname(listener_.get(), generic, &size) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::jthread([this] { Serve(); });
  }
  ~TinyServer() { ::shutdown(listener_.get(), SHUT_RDWR); }  // ends accept; thread_ joins
  std::string Url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  int connections() const { return connections_; }

 private:
  void Serve() {
    for (;;) {
      UniqueFd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (client.get() < 0) return;
      ++connections_;
      std::string head;
      char buffer[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(client.get(), buffer, sizeof(buffer), 0);
        if (n <= 0) break;
        head.append(buffer, static_cast<size_t>(n));
      }
      respond_(client.get());
    }
  }

  std::function<void(int fd)> respond_;
  UniqueFd listener_;
  int port_ = 0;
  std::atomic<int> connections_ = 0;
  std::jthread thread_;  // last: joins before the members it uses go
};

// Fetches `url` with `options` (private addresses allowed) and returns the result.
FetchResult FetchOne(const std::string& url, FetcherOptions options) {
  options.allow_private = true;
  options.timeout_ms = 20'000;
  auto fetcher = Fetcher::Create(options);
  EXPECT_OK(fetcher.status());
  if (!fetcher.ok()) return {};
  EXPECT_OK((*fetcher)->Start({.url = url}));
  std::vector<FetchResult> done;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (done.empty() && std::chrono::steady_clock::now() < deadline) {
    EXPECT_OK((*fetcher)->Poll(100, &done));
  }
  EXPECT_EQ(done.size(), 1u);
  return done.empty() ? FetchResult{} : done.front();
}

// An answer whose second line is one header of `bytes` bytes, streamed; `sent` counts
// what got out before the client hung up.
std::function<void(int)> OneLongHeaderLine(uint64_t bytes, std::atomic<uint64_t>* sent) {
  return [bytes, sent](int fd) {
    if (!SendAll(fd, "HTTP/1.1 200 OK\r\nX-Long: ")) return;
    const std::string chunk(64 << 10, 'a');
    for (uint64_t left = bytes; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
      if (!SendAll(fd, std::string_view(chunk).substr(0, n))) return;
      *sent += n;
      left -= n;
    }
    SendAll(fd, "\r\nContent-Length: 2\r\n\r\nok");
  };
}

TEST(FetcherTest, SmallHeadersPass) {
  std::atomic<uint64_t> sent = 0;
  TinyServer server(OneLongHeaderLine(1000, &sent));
  const FetchResult r = FetchOne(server.Url("/"), {});
  EXPECT_EQ(r.error, FetchError::kNone) << r.message;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
}

// crawler.h: headers over max_header_bytes (64 KiB) fail for good at once. A line libcurl
// hands to the header callback (80 KiB) trips the fetcher's own count; a longer one never
// reaches it and trips libcurl's line cap (100 KiB in 7.88), which used to come out as
// "other", retried. 100 MB streamed: the fetch ends after the first few hundred KiB.
TEST(FetcherTest, OneHeaderLinePastTheCapFailsForGood) {
  for (const uint64_t bytes : {uint64_t{80} << 10, uint64_t{100'000'000}}) {
    SCOPED_TRACE(bytes);
    std::atomic<uint64_t> sent = 0;
    TinyServer server(OneLongHeaderLine(bytes, &sent));
    const FetchResult r = FetchOne(server.Url("/long"), {});
    EXPECT_EQ(r.error, FetchError::kHeadersTooLarge) << r.message;
    EXPECT_EQ(FailureKindOf(r.error), FailureKind::kTooLarge);  // what the page is filed as
    EXPECT_FALSE(FetchErrorRetryable(r.error));
    EXPECT_NE(r.message.find("headers over"), std::string::npos) << r.message;
    EXPECT_LT(sent, uint64_t{16} << 20);
    EXPECT_EQ(server.connections(), 1);
  }
}

// With max_header_bytes above libcurl's cap on a whole header block (300 KiB in 7.88),
// that cap decides; it fails for good too, instead of as a retried connection error.
TEST(FetcherTest, HeadersPastLibcurlsTotalCapFailForGood) {
  TinyServer server([](int fd) {
    std::string answer = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 400; ++i) {
      answer += "X-Filler-" + std::to_string(i) + ": " + std::string(1000, 'y') + "\r\n";
    }
    SendAll(fd, answer + "Content-Length: 0\r\n\r\n");
  });
  FetcherOptions options;
  options.max_header_bytes = 1 << 20;
  const FetchResult r = FetchOne(server.Url("/many"), options);
  EXPECT_EQ(r.error, FetchError::kHeadersTooLarge) << r.message;
  EXPECT_FALSE(FetchErrorRetryable(r.error));
}

}  // namespace
}  // namespace crawlrank
