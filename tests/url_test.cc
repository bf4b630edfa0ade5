// Tests of crawlrank/url.h.
//
// Where the expected values come from:
//   - rfc3986/1 canonical forms: written by hand from RFC 3986 (§3 syntax, §5.2.4 dot
//     segments, §5.4 resolution examples, §6.2.2-6.2.3 normalisation), punycode labels
//     from RFC 3492 / Python's "idna" codec, IPv6 text forms from RFC 5952 §4;
//   - w3lib/1 canonical forms: w3lib 2.1.1's canonicalize_url run by hand (the full
//     comparison over tests/data/urls.txt is tests/python/test_w3lib_profile.py);
//   - fingerprints: the published XXH3_64 test vector for empty input, and one value
//     computed with a separate throwaway C program calling libxxhash (see below);
//   - registered domains: the Public Suffix List rules for co.uk and com.
#include "crawlrank/url.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "testutil.h"

namespace crawlrank {
namespace {

// One accepted input: `rule` names what the case checks.
struct CanonicalCase {
  const char* rule;
  std::string input;
  const char* expected;
};

// One rejected input: the message must name the URL and mention `reason` (any case).
struct RejectCase {
  const char* rule;
  std::string input;
  const char* reason;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Returns `s` in double quotes, as error messages name their target.
std::string Quoted(std::string_view s) {
  std::string out = "\"";
  out.append(s);
  out += '"';
  return out;
}

// Returns the value, or the status as text, so that a failed expectation shows why.
std::string ValueOrError(const Result<std::string>& result) {
  return result.ok() ? *result : "error: " + result.status().ToString();
}

// Returns true when `result` holds `value`.
template <typename T>
bool Holds(const Result<T>& result, const T& value) {
  return result.ok() && *result == value;
}

// The URL as an error message quotes it: spaces and C0 controls trimmed at both ends.
std::string Trimmed(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) s.remove_suffix(1);
  return std::string(s);
}

void ExpectRejected(const Result<std::string>& result, const RejectCase& c) {
  SCOPED_TRACE(std::string(c.rule) + ": " + Quoted(c.input));
  ASSERT_FALSE(result.ok()) << "accepted as " << *result;
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  const std::string& message = result.status().message();
  EXPECT_NE(message.find(Quoted(Trimmed(c.input))), std::string::npos) << message;
  EXPECT_NE(Lower(message).find(Lower(c.reason)), std::string::npos) << message;
}

// ---- rfc3986/1 ------------------------------------------------------------------------

const std::vector<CanonicalCase>& Rfc3986Cases() {
  static const std::vector<CanonicalCase> cases = {
      // §6.2.2.1: scheme and host are case-insensitive; the path is not.
      {"scheme and host lower-cased", "HTTP://WWW.Example.COM/Path", "http://www.example.com/Path"},
      {"mixed-case https scheme", "hTTpS://Example.org", "https://example.org/"},
      {"query case kept", "http://EXAMPLE.COM:8080/P?Q#F", "http://example.com:8080/P?Q"},
      // §6.2.3: the scheme's default port is dropped, any other port kept.
      {"http default port dropped", "http://example.com:80/", "http://example.com/"},
      {"https default port dropped", "https://example.com:443/a", "https://example.com/a"},
      {"443 is not http's default", "http://example.com:443/", "http://example.com:443/"},
      {"80 is not https's default", "https://example.com:80/", "https://example.com:80/"},
      {"non-default port kept", "http://example.com:8080/", "http://example.com:8080/"},
      {"highest port kept", "http://example.com:65535/", "http://example.com:65535/"},
      {"empty port dropped", "http://example.com:/x", "http://example.com/x"},
      {"port without path", "http://example.com:8080", "http://example.com:8080/"},
      {"IPv6 with default port", "http://[::1]:80/", "http://[::1]/"},
      // §5.2.4: dot segments removed; ".." never climbs above the root.
      {"dot-dot above the root", "http://example.com/a/b/../../../c", "http://example.com/c"},
      {"dot and dot-dot", "http://example.com/a/./b/../c/.", "http://example.com/a/c/"},
      {"trailing dot-dot", "http://example.com/a/b/..", "http://example.com/a/"},
      {"dot-dot to the root", "http://example.com/a/..", "http://example.com/"},
      {"leading dot", "http://example.com/./a", "http://example.com/a"},
      {"dots inside names kept", "http://example.com/g../..g/.g/g.",
       "http://example.com/g../..g/.g/g."},
      // §6.2.2.2 before §6.2.2.3: escaped dots are decoded, then removed as segments.
      {"escaped dot-dot", "http://example.com/%2E%2E/x", "http://example.com/x"},
      {"escaped dot", "http://example.com/a/%2e/b", "http://example.com/a/b"},
      // §6.2.2.2: unreserved escapes decoded, other escapes' hex upper-cased.
      {"unreserved escapes decoded", "http://example.com/%7Euser/%7e%41%2D%5F%2E",
       "http://example.com/~user/~A-_."},
      {"escaped slash kept", "http://example.com/a%2fb%2Fc", "http://example.com/a%2Fb%2Fc"},
      {"reserved escapes kept", "http://example.com/a%3ab%3A%40", "http://example.com/a%3Ab%3A%40"},
      {"escaped slash is no separator", "http://example.com/a%2F..%2Fb",
       "http://example.com/a%2F..%2Fb"},
      {"hex upper-cased", "http://example.com/%e2%82%ac", "http://example.com/%E2%82%AC"},
      {"query escapes normalised", "http://example.com/?q=%7e%2b%2F",
       "http://example.com/?q=~%2B%2F"},
      // url.h lenient rule: a '%' without two hex digits is a literal '%'.
      {"trailing percent", "http://example.com/100%", "http://example.com/100%25"},
      {"percent without hex", "http://example.com/%zz%4", "http://example.com/%25zz%254"},
      {"percent in query", "http://example.com/?off=50%", "http://example.com/?off=50%25"},
      // IDNA (UTS #46 non-transitional) -> punycode (RFC 3492).
      {"IDN host", "http://bücher.de/", "http://xn--bcher-kva.de/"},
      {"upper-case IDN host", "http://BÜCHER.DE/", "http://xn--bcher-kva.de/"},
      {"sharp s kept (IDNA 2008)", "http://faß.de/", "http://xn--fa-hia.de/"},
      {"Japanese IDN", "http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah/"},
      {"Cyrillic IDN", "http://пример.рф/", "http://xn--e1afmkfd.xn--p1ai/"},
      {"punycode host unchanged", "http://XN--BCHER-KVA.de/", "http://xn--bcher-kva.de/"},
      // IP literals (§3.2.2); IPv6 text in RFC 5952 form.
      {"IPv4 host", "http://1.2.3.4/", "http://1.2.3.4/"},
      {"IPv6 hex lower-cased", "http://[2001:DB8::1]/", "http://[2001:db8::1]/"},
      {"IPv6 zeros compressed", "http://[2001:db8:0:0:0:0:0:1]:8080/",
       "http://[2001:db8::1]:8080/"},
      {"IPv4-mapped IPv6", "http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/"},
      // §3.2.1: user info is case-sensitive; its escapes are normalised too.
      {"user info case kept", "http://User:Pass@Example.com/", "http://User:Pass@example.com/"},
      {"user info escapes", "http://user%41:p%3a@example.com/", "http://userA:p%3A@example.com/"},
      {"empty password kept", "http://user:@example.com/", "http://user:@example.com/"},
      {"non-ASCII user info encoded", "http://üser@example.com/", "http://%C3%BCser@example.com/"},
      // Fragments are dropped (§3.5: not sent to the server).
      {"fragment dropped", "http://example.com/a#frag", "http://example.com/a"},
      {"'?' inside the fragment", "http://example.com/a?b#c?d", "http://example.com/a?b"},
      {"empty fragment", "http://example.com/#", "http://example.com/"},
      // §6.2.3: empty path -> "/"; an empty query is dropped.
      {"empty path", "http://example.com", "http://example.com/"},
      {"empty query without path", "http://example.com?", "http://example.com/"},
      {"empty query", "http://example.com/?", "http://example.com/"},
      {"empty query and fragment", "http://example.com/?#", "http://example.com/"},
      // The query is kept in order, repeated keys and blank values included.
      {"query order kept", "http://example.com/?b=2&a=1&b=1", "http://example.com/?b=2&a=1&b=1"},
      {"blank values kept", "http://example.com/p?q=1&q=2&q=", "http://example.com/p?q=1&q=2&q="},
      {"'+' stays '+'", "http://example.com/?a+b=c%20d", "http://example.com/?a+b=c%20d"},
      // Bytes that may not appear raw are encoded (space, non-ASCII as UTF-8, "<>\"{}|\^`").
      {"spaces encoded", "http://example.com/a b?c d", "http://example.com/a%20b?c%20d"},
      {"non-ASCII path", "http://example.com/résumé", "http://example.com/r%C3%A9sum%C3%A9"},
      {"CJK path", "http://example.com/中文", "http://example.com/%E4%B8%AD%E6%96%87"},
      {"non-ASCII query", "http://example.com/?q=é", "http://example.com/?q=%C3%A9"},
      {"unsafe ASCII in path", "http://example.com/{}|\\^`",
       "http://example.com/%7B%7D%7C%5C%5E%60"},
      {"quotes and angles", "http://example.com/<>\"", "http://example.com/%3C%3E%22"},
      // url.h lenient rules: tab/LF/CR removed anywhere, spaces and C0 trimmed at the ends.
      {"tab in host, LF and CR in path", "http://exa\tmple.com/a\nb\r", "http://example.com/ab"},
      {"tab in scheme", "ht\ttp://example.com/", "http://example.com/"},
      {"surrounding spaces", "  http://example.com/  ", "http://example.com/"},
      {"surrounding C0 controls", "\x01http://example.com/\x1f", "http://example.com/"},
      // ";params" are path characters (§3.3).
      {"params kept", "http://example.com/a;b?c#d", "http://example.com/a;b?c"},
      {"params mid-path", "http://example.com/a;b=1/c", "http://example.com/a;b=1/c"},
      {"trailing dot of a FQDN kept", "http://example.com./", "http://example.com./"},
  };
  return cases;
}

const std::vector<RejectCase>& Rfc3986Rejects() {
  static const std::vector<RejectCase> cases = {
      {"no scheme", "example.com/path", "no scheme"},
      {"relative path", "/relative/path", "no scheme"},
      {"ftp scheme", "ftp://example.com/", "scheme \"ftp\""},
      {"mailto scheme", "mailto:user@example.com", "scheme \"mailto\""},
      {"javascript scheme", "javascript:alert(1)", "scheme \"javascript\""},
      {"file scheme", "file:///etc/passwd", "scheme \"file\""},
      {"empty authority", "http:///path", "host"},
      {"one slash", "http:/example.com/", "host"},
      {"no slashes", "http:example.com", "host"},
      {"nothing after the scheme", "http://", "host"},
      {"port without host", "http://:80/", "host"},
      {"user info without host", "http://user@/", "host"},
      {"space in host", "http://exa mple.com/", "host"},
      {"backslash in host", "http://example.com\\a", "host"},
      {"two '@'", "http://a@b@c.com/", "host"},
      {"letters in port", "http://example.com:abc/", "port"},
      {"negative port", "http://example.com:-1/", "port"},
      {"port above 65535", "http://example.com:65536/", "port"},
      {"huge port", "http://example.com:99999999999999999999/", "port"},
      {"unclosed IPv6", "http://[::1/", "ipv6"},
      {"IPv6 group too long", "http://[12345::1]/", "ipv6"},
      {"IPv4 in brackets", "http://[1.2.3.4]/", "ipv6"},
      {"text after IPv6", "http://[::1]x/", "port"},
      {"IPv6 zone id", "http://[fe80::1%25eth0]/", "zone id"},
      {"control character",
       "http://example.com/a\x01"
       "b",
       "control character"},
      {"DEL", "http://example.com/\x7f", "control character"},
      {"invalid IDN", "http://ü-.de/", "IDN"},
      {"empty", "", "empty"},
      {"only spaces", "   ", "empty"},
  };
  return cases;
}

TEST(UrlRfc3986, CanonicalFormsFollowRfc3986) {
  for (const CanonicalCase& c : Rfc3986Cases()) {
    SCOPED_TRACE(std::string(c.rule) + ": " + Quoted(c.input));
    auto canonical = CanonicalizeUrl(c.input);
    ASSERT_TRUE(canonical.ok()) << canonical.status().ToString();
    EXPECT_EQ(*canonical, c.expected);
  }
}

TEST(UrlRfc3986, CanonicalFormIsAFixedPoint) {
  for (const CanonicalCase& c : Rfc3986Cases()) {
    SCOPED_TRACE(c.expected);
    auto again = CanonicalizeUrl(c.expected);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(*again, c.expected);
  }
}

TEST(UrlRfc3986, GarbageIsRejectedWithTheUrlAndAReason) {
  for (const RejectCase& c : Rfc3986Rejects()) {
    ExpectRejected(CanonicalizeUrl(c.input), c);
  }
}

TEST(UrlRfc3986, DataFileUrlsAreFixedPoints) {
  std::ifstream in(std::string(CRAWLRANK_SOURCE_DIR) + "/tests/data/urls.txt");
  ASSERT_TRUE(in) << "tests/data/urls.txt";
  std::string line;
  int accepted = 0;
  while (std::getline(in, line)) {
    auto canonical = CanonicalizeUrl(line);
    if (!canonical.ok()) continue;  // e.g. symbol host names IDNA 2008 refuses
    ++accepted;
    auto again = CanonicalizeUrl(*canonical);
    ASSERT_TRUE(again.ok()) << line << " -> " << *canonical << ": " << again.status().ToString();
    EXPECT_EQ(*again, *canonical) << line;
  }
  EXPECT_GE(accepted, 300);
}

// Found by fuzz/url_fuzz.cc: hosts whose canonical form was no URL, or a URL that
// CanonicalizeUrl then refused. libcurl decodes escapes in the host ("%7F" became a raw DEL),
// and UTS #46 maps U+FF0F (fullwidth solidus) to '/', which emptied the authority, and
// U+FE61 (small asterisk) to '*', which libcurl refuses in a host.
TEST(UrlRfc3986, HostsThatDecodeOrMapToDelimitersAreRejected) {
  const std::string escaped_del("http://ehtmpl%7F.jsother?q#f");
  ExpectRejected(CanonicalizeUrl(escaped_del), {"escaped DEL", escaped_del, "host"});
  const std::string fullwidth_solidus(
      "http://\xef\xbc\x8f" "examxtp://\xef\xbc\x8e" "example.?/le\xae\nle.?/le\xae\nht/%35");
  const auto mapped = CanonicalizeUrl(fullwidth_solidus);
  ASSERT_FALSE(mapped.ok()) << *mapped;
  EXPECT_NE(mapped.status().message().find("not allowed in a host name"), std::string::npos)
      << mapped.status().ToString();
  for (const char* url : {"http://a%7Cb/", "http://a%25b/", "http://a%22b/",
                          "http://a\xef\xb9\xa1" "b/"}) {
    ExpectRejected(CanonicalizeUrl(url), {"escaped or mapped delimiter", url, "host"});
  }
  // The resolved URL's host maps to '*'.
  const std::string small_asterisk(
      "http://exa0m.4444484\xef\xb9\xa1to4em/p//\x01\x00\x00", 35);
  const auto resolved = ResolveUrl(small_asterisk, "\n?8o");
  ASSERT_FALSE(resolved.ok()) << *resolved;
  EXPECT_NE(resolved.status().message().find("not allowed in a host name"), std::string::npos)
      << resolved.status().ToString();
  EXPECT_FALSE(ResolveUrl("http://a/", "//a%7Fb/c").ok());
  // Still accepted: escapes of unreserved characters, IDN, IP literals.
  for (const auto& [url, canonical] : std::vector<std::pair<std::string, std::string>>{
           {"http://a%41b/", "http://aab/"},
           {"http://a%C3%BCb.de/", "http://xn--ab-xka.de/"},
           {"http://B\xc3\xbc" "cher.example/", "http://xn--bcher-kva.example/"},
           {"http://[::1]:8080/", "http://[::1]:8080/"}}) {
    const auto result = CanonicalizeUrl(url);
    ASSERT_TRUE(result.ok()) << url << ": " << result.status().ToString();
    EXPECT_EQ(*result, canonical);
  }
}

// Found by fuzz/url_fuzz.cc: libcurl normalises an IPv4 address in any of its forms only as
// written, so a host that became "19.2222" by decoding escapes or by IDNA (U+FF61 is a full
// stop) canonicalised to "19.2222", and that to "19.0.8.174".
TEST(UrlRfc3986, HostsThatBecomeIpv4AddressesAreNormalisedAtOnce) {
  const std::string crash(
      "http://19\xef\xbd\xa1" "2222/*%2ehttp/exam\n?o://ex.\nh", 41);
  for (const std::string& url :
       {crash, std::string("http://19%2E2222/"), std::string("http://%31%39.2222/")}) {
    SCOPED_TRACE(Quoted(url));
    const auto canonical = CanonicalizeUrl(url);
    ASSERT_TRUE(canonical.ok()) << canonical.status().ToString();
    EXPECT_TRUE(canonical->starts_with("http://19.0.8.174/")) << *canonical;
    EXPECT_EQ(*CanonicalizeUrl(*canonical), *canonical);
  }
  EXPECT_EQ(*CanonicalizeUrl("http://19.2222/"), "http://19.0.8.174/");
  // Escapes in the user info too ("%5B"), and a host that becomes "0".
  const std::string with_userinfo("http://ex-ampue[mple@%30");
  ASSERT_TRUE(CanonicalizeUrl(with_userinfo).ok());
  EXPECT_EQ(*CanonicalizeUrl(with_userinfo), "http://ex-ampue%5Bmple@0.0.0.0/");
  EXPECT_EQ(*CanonicalizeUrl("http://B\xc3\xbc" "cher.example/%7e"), "http://xn--bcher-kva.example/~");
}

// ---- ResolveUrl: RFC 3986 §5.4, then canonicalised -------------------------------------

constexpr char kRfcBase[] = "http://a/b/c/d;p?q";

TEST(UrlResolve, Rfc3986NormalExamples) {  // §5.4.1
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g/"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q"},
      {"g#s", "http://a/b/c/g"},
      {"g?y#s", "http://a/b/c/g?y"},
      {";x", "http://a/b/c/;x"},
      {"g;x", "http://a/b/c/g;x"},
      {"g;x?y#s", "http://a/b/c/g;x?y"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../", "http://a/"},
      {"../../g", "http://a/g"},
  };
  for (const auto& [reference, expected] : cases) {
    SCOPED_TRACE(reference);
    auto resolved = ResolveUrl(kRfcBase, reference);
    ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
    EXPECT_EQ(*resolved, expected);
  }
}

TEST(UrlResolve, Rfc3986AbnormalExamples) {  // §5.4.2
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"},
      {"g?y/../x", "http://a/b/c/g?y/../x"},
      {"g#s/./x", "http://a/b/c/g"},
      {"g#s/../x", "http://a/b/c/g"},
  };
  for (const auto& [reference, expected] : cases) {
    SCOPED_TRACE(reference);
    auto resolved = ResolveUrl(kRfcBase, reference);
    ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
    EXPECT_EQ(*resolved, expected);
  }
}

TEST(UrlResolve, NonHttpResultsAreRejected) {
  // "g:h" is absolute with scheme g; "http:g" is, for a strict parser (§5.4.2), the
  // authority-less "http:g", which has no host.
  ExpectRejected(ResolveUrl(kRfcBase, "g:h"), {"other scheme", "g:h", "scheme \"g\""});
  ExpectRejected(ResolveUrl(kRfcBase, "http:g"), {"strict http:g", "http:g", "host"});
  ExpectRejected(ResolveUrl(kRfcBase, "mailto:x@y.z"), {"mailto", "mailto:x@y.z", "scheme"});
}

TEST(UrlResolve, ReferencesAreCleanedAndCanonicalised) {
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "  g h\t")), "http://a/b/c/g%20h");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "ü")), "http://a/b/c/%C3%BC");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "?")), "http://a/b/c/d;p");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "HTTPS://Other:443/x#y")), "https://other/x");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "//g:8080/../x")), "http://g:8080/x");
  // §5.2.3: merging with a base that has an authority and an empty path.
  EXPECT_EQ(ValueOrError(ResolveUrl("http://a", "g")), "http://a/g");
  EXPECT_EQ(ValueOrError(ResolveUrl("https://Example.com:443/dir/page.html#top", "../up?x=1")),
            "https://example.com/up?x=1");
}

TEST(UrlResolve, BadBaseOrReferenceIsRejected) {
  ExpectRejected(ResolveUrl("/no/scheme", "g"), {"relative base", "/no/scheme", "no scheme"});
  ExpectRejected(ResolveUrl("ftp://a/b", "g"), {"ftp base", "ftp://a/b", "scheme"});
  ExpectRejected(ResolveUrl("http:/a/b", "g"), {"base without host", "http:/a/b", "host"});
  ExpectRejected(ResolveUrl(kRfcBase, "g\x01h"), {"control", "g\x01h", "control character"});
}

TEST(UrlResolve, W3libProfileCanonicalisesTheResult) {
  // canonicalize_url("http://a/b/c/d;p?y") == "http://a/b/c/d;p?y=" (w3lib 2.1.1).
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "?y", UrlProfile::kW3lib)), "http://a/b/c/d;p?y=");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "g;x?y#s", UrlProfile::kW3lib)),
            "http://a/b/c/g;x?y=");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "../g", UrlProfile::kW3lib)), "http://a/b/g");
}

// ---- w3lib/1 --------------------------------------------------------------------------

TEST(UrlW3lib, MatchesCanonicalizeUrl) {
  // Each expected value is w3lib.url.canonicalize_url(input) from w3lib 2.1.1.
  const std::vector<CanonicalCase> cases = {
      {"query sorted (w3lib docstring)", "http://www.example.com/do?c=3&b=5&b=2&a=50",
       "http://www.example.com/do?a=50&b=2&b=5&c=3"},
      {"UTF-8 path (w3lib docstring)", "http://www.example.com/résumé",
       "http://www.example.com/r%C3%A9sum%C3%A9"},
      {"default port, dot segments kept; user info lower-cased",
       "HTTP://User:PassWord@Example.COM:80/a/./b/../c?x=1#frag",
       "http://user:password@example.com:80/a/./b/../c?x=1"},
      {"spaces become '+', blank value added", "http://example.com/?a+b=c%20d&e",
       "http://example.com/?a+b=c+d&e="},
      {"%2F and %3F kept, %25 decoded", "http://example.com/a%2fb%3F%41%25",
       "http://example.com/a%2Fb%3FA%"},
      {"params quoted once", "http://example.com/a;%2f?x", "http://example.com/a;%2f?x="},
      {"empty params dropped; ';' splits the query", "http://example.com/a;?q=1;r",
       "http://example.com/a?q=1&r="},
      {"IDN host with port", "http://bücher.de:8080/", "http://xn--bcher-kva.de:8080/"},
      {"trailing dot of an IDN host", "http://www.Bücher.DE./", "http://www.xn--bcher-kva.de./"},
      {"empty port stripped", "http://example.com:/", "http://example.com/"},
      {"IPv6 only lower-cased", "http://[2001:DB8::1]/", "http://[2001:db8::1]/"},
      {"non-UTF-8 escape kept", "http://example.com/?q=%E9", "http://example.com/?q=%E9"},
      {"values sorted as bytes", "http://example.com/?b=%C3%A9&b=z&b=E",
       "http://example.com/?b=E&b=z&b=%C3%A9"},
      {"'&' escape vs '+'", "http://example.com/?q=a%26b&q=a+b",
       "http://example.com/?q=a+b&q=a%26b"},
      {"tilde decoded everywhere", "http://example.com/~a/%7e?%7e=%7E",
       "http://example.com/~a/~?~=~"},
  };
  for (const CanonicalCase& c : cases) {
    SCOPED_TRACE(std::string(c.rule) + ": " + Quoted(c.input));
    auto canonical = CanonicalizeUrl(c.input, UrlProfile::kW3lib);
    ASSERT_TRUE(canonical.ok()) << canonical.status().ToString();
    EXPECT_EQ(*canonical, c.expected);
  }
}

TEST(UrlW3lib, DeliberateRejections) {
  // w3lib returns a string for all but the invalid UTF-8 (on which it raises); the header
  // of src/url_w3lib.cc says why the profile rejects them. ftp: only http(s) is accepted.
  const std::vector<RejectCase> cases = {
      {"user info punycoded with the host", "http://user@bücher.de/", "user info"},
      {"port punycoded with the host", "http://bücher:8080/", "port"},
      {"port above 65535", "http://example.com:99999/", "port"},
      {"letters in port", "http://example.com:8a/", "port"},
      {"space in host", "http://exa mple.com/", "host"},
      {"no host", "http:///example.com/", "host"},
      {"IPv6 zone id", "http://[fe80::1%25eth0]/", "zone id"},
      {"IPvFuture", "http://[v1.abc]/", "IPvFuture"},
      {"hyphen rule of IDNA 2008", "http://ü-.de/", "IDN"},
      {"invalid UTF-8", "http://example.com/\xff", "UTF-8"},
      {"ftp scheme", "ftp://example.com/", "scheme"},
  };
  for (const RejectCase& c : cases) ExpectRejected(CanonicalizeUrl(c.input, UrlProfile::kW3lib), c);
}

// ---- fingerprints ---------------------------------------------------------------------

TEST(UrlFingerprint, IsXxh3Of64BitsWithSeedZero) {
  // XXH3_64bits("") = 0x2D06800538D394C2: the published xxHash test vector.
  EXPECT_EQ(UrlFingerprint(""), 0x2D06800538D394C2ULL);
  // No python xxhash module or xxhsum was available here: computed with a separate
  // throwaway C program, printf("%016llx", XXH3_64bits_withSeed(url, strlen(url), 0)).
  EXPECT_EQ(UrlFingerprint("http://example.com/"), 0xb97a010e03af1e2bULL);
  EXPECT_EQ(UrlFingerprint("https://www.example.com/a?b=c"), 0x6a169c078d13cb1eULL);
}

TEST(UrlFingerprint, EqualCanonicalFormsGiveEqualFingerprints) {
  auto a = CanonicalizeUrl("HTTP://Example.COM:80#top");
  auto b = CanonicalizeUrl("http://example.com/");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(UrlFingerprint(*a), UrlFingerprint(*b));
  EXPECT_NE(UrlFingerprint("http://example.com/a"), UrlFingerprint("http://example.com/b"));
}

TEST(UrlFingerprint, FormatsAs16LowerCaseHexDigits) {
  EXPECT_EQ(FormatFingerprint(0), "0000000000000000");
  EXPECT_EQ(FormatFingerprint(0xb97a010e03af1e2bULL), "b97a010e03af1e2b");
  EXPECT_EQ(FormatFingerprint(0x2D06800538D394C2ULL), "2d06800538d394c2");
  EXPECT_EQ(FormatFingerprint(UINT64_MAX), "ffffffffffffffff");
  EXPECT_EQ(FormatFingerprint(1), "0000000000000001");
}

TEST(UrlFingerprint, ParseInvertsFormat) {
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{0xb97a010e03af1e2b},
                         uint64_t{0x8000000000000000}, UINT64_MAX}) {
    auto parsed = ParseFingerprint(FormatFingerprint(value));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, value);
  }
  auto upper = ParseFingerprint("B97A010E03AF1E2B");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, 0xb97a010e03af1e2bULL);
}

TEST(UrlFingerprint, ParseRejectsMalformedHex) {
  for (const std::string bad :
       {"", "123", "b97a010e03af1e2b0", "g97a010e03af1e2b", "0xb97a010e03af1e", " 97a010e03af1e2b",
        "-000000000000001", "b97a010e03af1e2 "}) {
    SCOPED_TRACE(Quoted(bad));
    auto parsed = ParseFingerprint(bad);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(Quoted(bad)), std::string::npos)
        << parsed.status().message();
  }
}

// ---- host keys ------------------------------------------------------------------------

TEST(UrlHostKey, HostAndRegisteredDomain) {
  struct Case {
    const char* url;
    const char* host;
    const char* domain;
  };
  const std::vector<Case> cases = {
      {"http://www.example.co.uk/x", "www.example.co.uk", "example.co.uk"},
      {"https://a.b.example.com:8443/?q", "a.b.example.com", "example.com"},
      {"http://user:pw@sub.example.com:8080/a", "sub.example.com", "example.com"},
      {"http://example.com/", "example.com", "example.com"},
      {"http://www.xn--bcher-kva.de/", "www.xn--bcher-kva.de", "xn--bcher-kva.de"},
      // An IP literal is its own key.
      {"http://192.0.2.1:8080/", "192.0.2.1", "192.0.2.1"},
      {"http://[2001:db8::1]:8080/x", "[2001:db8::1]", "[2001:db8::1]"},
      // A host that is itself a public suffix is its own key.
      {"http://co.uk/", "co.uk", "co.uk"},
      {"http://com/", "com", "com"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.url);
    auto host = HostKey(c.url, HostKeyMode::kHost);
    auto domain = HostKey(c.url, HostKeyMode::kRegisteredDomain);
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    ASSERT_TRUE(domain.ok()) << domain.status().ToString();
    EXPECT_EQ(*host, c.host);
    EXPECT_EQ(*domain, c.domain);
  }
  EXPECT_EQ(ValueOrError(HostKey("http://www.example.co.uk/")),
            "www.example.co.uk");  // default: host
}

TEST(UrlHostKey, RejectsWhatIsNotACanonicalUrl) {
  for (const std::string bad : {"example.com", "http:///path"}) {
    SCOPED_TRACE(bad);
    auto key = HostKey(bad);
    ASSERT_FALSE(key.ok());
    EXPECT_EQ(key.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(key.status().message().find(bad), std::string::npos);
  }
}

// ---- profiles -------------------------------------------------------------------------

TEST(UrlProfiles, ParseAndName) {
  EXPECT_TRUE(Holds(ParseUrlProfile("rfc3986"), UrlProfile::kRfc3986));
  EXPECT_TRUE(Holds(ParseUrlProfile("rfc3986/1"), UrlProfile::kRfc3986));
  EXPECT_TRUE(Holds(ParseUrlProfile("w3lib"), UrlProfile::kW3lib));
  EXPECT_TRUE(Holds(ParseUrlProfile("w3lib/1"), UrlProfile::kW3lib));
  EXPECT_EQ(UrlProfileName(UrlProfile::kRfc3986), "rfc3986/1");
  EXPECT_EQ(UrlProfileName(UrlProfile::kW3lib), "w3lib/1");
  for (UrlProfile p : {UrlProfile::kRfc3986, UrlProfile::kW3lib}) {
    EXPECT_TRUE(Holds(ParseUrlProfile(UrlProfileName(p)), p));
  }
  for (const std::string bad : {"", "RFC3986", "w3lib/2", "rfc3986/", "scrapy"}) {
    SCOPED_TRACE(Quoted(bad));
    auto parsed = ParseUrlProfile(bad);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(Quoted(bad)), std::string::npos);
  }
}

TEST(UrlProfiles, DefaultIsRfc3986) {
  EXPECT_EQ(ValueOrError(CanonicalizeUrl("http://a/?b=1&a=2")), "http://a/?b=1&a=2");
  EXPECT_EQ(ValueOrError(CanonicalizeUrl("http://a/?b=1&a=2", UrlProfile::kW3lib)),
            "http://a/?a=2&b=1");
}

}  // namespace
}  // namespace crawlrank
