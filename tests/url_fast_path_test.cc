// The fast path of URL canonicalisation must never disagree with the full path: whenever
// it accepts a URL, the full canonicaliser returns that URL unchanged.
#include "url/url_fast_path.h"

#include <fstream>
#include <random>

#include "crawlrank/url.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using url_internal::IsCanonicalRfc3986;

// Expects the fast path's verdict on `url` to agree with the full canonicaliser.
void ExpectAgrees(const std::string& url) {
  if (!IsCanonicalRfc3986(url)) return;
  auto full = CanonicalizeUrl(url, UrlProfile::kRfc3986);
  ASSERT_TRUE(full.ok()) << "fast path accepted \"" << url
                         << "\"; full path: " << full.status().ToString();
  ASSERT_EQ(*full, url) << "fast path accepted a URL the full path changes";
}

TEST(UrlFastPathTest, AcceptsPlainCanonicalUrls) {
  for (const char* url : {"http://www.site12.com/a/17", "https://example.com/",
                          "https://example.com/a/b?x=1&y=2", "http://a.b.example:8080/%C3%A9",
                          "http://example.com/a;p=1/b,c?q=a/b?c", "https://x.org/~user/.hidden",
                          "http://x.org/a/..b/c.", "https://en.wikipedia.org/wiki/Web_crawler",
                          "http://127.0.0.1:8080/a", "http://10.0.255.0/"}) {
    EXPECT_TRUE(IsCanonicalRfc3986(url)) << url;
    ExpectAgrees(url);
  }
}

TEST(UrlFastPathTest, LeavesAnythingUnusualToTheFullPath) {
  for (const char* url : {"HTTP://example.com/",
                          "http://Example.com/",
                          "http://example.com",
                          "http://example.com?a",
                          "http://example.com:80/",
                          "https://example.com:443/",
                          "http://example.com:0080/",
                          "http://example.com:/",
                          "http://example.com:99999/",
                          "http://u@example.com/",
                          "http://127.0.0.01/",
                          "http://127.1/",
                          "http://256.0.0.1/",
                          "http://1.2.3.4.5/",
                          "http://1234.0.0.1/",
                          "http://[::1]/",
                          "http://xn--bcher-kva.example/",
                          "http://a..b/",
                          "http://-a.com/",
                          "http://example.com/./a",
                          "http://example.com/a/..",
                          "http://example.com/%41",
                          "http://example.com/%2f",
                          "http://example.com/%2",
                          "http://example.com/a b",
                          "http://example.com/\xc3\xa9",
                          "http://example.com/#f",
                          "http://example.com/?",
                          "ftp://example.com/",
                          "http://example.com/a?b#c",
                          "http://example.com/[x]",
                          "http://example.com/a\\b"}) {
    EXPECT_FALSE(IsCanonicalRfc3986(url)) << url;
  }
}

TEST(UrlFastPathTest, AgreesWithTheFullPathOnRandomUrls) {
  const uint32_t seed = 1234567;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  const std::vector<std::string> schemes = {"http://", "https://", "HTTP://", "ftp://", "http:/"};
  const std::vector<std::string> hosts = {"example.com",
                                          "Example.com",
                                          "a.b.c",
                                          "xn--bcher-kva.example",
                                          "127.0.0.1",
                                          "10.0.255.0:8080",
                                          "0.0.0.0",
                                          "01.2.3.4",
                                          "256.1.1.1",
                                          "1.2.3.4.5",
                                          "0x7f.0.0.1",
                                          "1.2.3",
                                          "a..b",
                                          "-a.com",
                                          "a-.com",
                                          "[::1]",
                                          "user@host.com",
                                          "h.com:80",
                                          "h.com:8080",
                                          "h.com:0080",
                                          "h.com:443",
                                          "h.com:",
                                          "a1.com",
                                          "1a.com",
                                          "x",
                                          ""};
  const std::vector<std::string> pieces = {
      "/",    "/a",        "/./",  "/../",           "/%41", "/%2f", "/%2F", "/%zz",
      "/a b", "/\xc3\xa9", "/~x",  "/!$&'()*+,;=:@", "/.",   "/..",  "/.a",  "/..b",
      "//",   "/%7E",      "/%7e", "/%25",           "/a%",  "%"};
  const std::vector<std::string> queries = {"",       "",    "?",    "?a=1", "?b=2&a=1",
                                            "?a=%20", "?/?", "?a+b", "?%41", "?a=|"};
  const std::vector<std::string> fragments = {"", "", "", "#f", "#"};
  auto pick = [&rng](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  int accepted = 0, canonical_forms = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string url = pick(schemes) + pick(hosts);
    for (int k = std::uniform_int_distribution<int>(0, 3)(rng); k > 0; --k) url += pick(pieces);
    url += pick(queries) + pick(fragments);
    ExpectAgrees(url);
    // Canonical forms are what the fast path is for: most must be accepted, all agree.
    if (auto canonical = CanonicalizeUrl(url); canonical.ok()) {
      ++canonical_forms;
      ExpectAgrees(*canonical);
      accepted += IsCanonicalRfc3986(*canonical);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("fast path accepted %d of %d canonical forms\n", accepted, canonical_forms);
  EXPECT_GT(accepted, canonical_forms / 2) << "the fast path is hardly ever taken";
}

TEST(UrlFastPathTest, AgreesWithTheFullPathOnTheUrlCorpus) {
  std::ifstream in(std::string(CRAWLRANK_SOURCE_DIR) + "/tests/data/urls.txt");
  if (!in) GTEST_SKIP() << "tests/data/urls.txt not found";
  std::string line;
  while (std::getline(in, line)) {
    ExpectAgrees(line);
    auto canonical = CanonicalizeUrl(line);
    // The canonical form of anything is either accepted or left to the full path, and a
    // second canonicalisation never changes it.
    if (canonical.ok()) {
      ExpectAgrees(*canonical);
      EXPECT_EQ(*CanonicalizeUrl(*canonical), *canonical) << line;
    }
  }
}

TEST(UrlFastPathTest, ResolvingDotSegmentsAgreesWithTheFullPath) {
  // ResolveUrl removes the dot segments of a plain path itself (no escapes): the result
  // must be what the full canonicaliser makes of the merged target.
  const uint32_t seed = 7654321;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  const std::vector<std::string> segments = {"..",  ".",   "a",   "b.html", "%2E%2E", "%2e",
                                             "x y", "~",   "%41", "\xc3\xa9", "!$&'()*+,;=:@",
                                             "",    "...", ".a",  "a.",     "%7e"};
  const std::vector<std::string> queries = {"", "", "?q=1", "?", "?a=../b"};
  int fast = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string reference;
    for (int k = std::uniform_int_distribution<int>(1, 5)(rng); k > 0; --k) {
      if (!reference.empty()) reference += '/';
      reference += segments[std::uniform_int_distribution<size_t>(0, segments.size() - 1)(rng)];
    }
    reference += queries[std::uniform_int_distribution<size_t>(0, queries.size() - 1)(rng)];
    if (reference.empty() || reference.front() == '?') continue;
    const Result<std::string> resolved =
        ResolveUrl("http://h.example:8080/d1/d2/page.html", reference, UrlProfile::kRfc3986);
    const Result<std::string> full =
        CanonicalizeUrl("http://h.example:8080/d1/d2/" + reference, UrlProfile::kRfc3986);
    ASSERT_EQ(resolved.ok(), full.ok()) << reference;
    if (resolved.ok()) ASSERT_EQ(*resolved, *full) << reference;
    fast += reference.find('%') == std::string::npos && reference.find(' ') == std::string::npos;
  }
  std::printf("%d references of plain characters\n", fast);
}

}  // namespace
}  // namespace crawlrank
