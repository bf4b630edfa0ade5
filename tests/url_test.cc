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
#include <cstring>
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
      // A single trailing dot (a fully-qualified name) is kept as it is (url.h).
      {"trailing dot of a FQDN kept", "http://example.com./", "http://example.com./"},
      {"trailing dot of an IDN FQDN kept", "http://bücher.de./", "http://xn--bcher-kva.de./"},
      {"trailing dot with a port", "http://Example.com.:8080/", "http://example.com.:8080/"},
      {"single-label FQDN", "http://localhost./", "http://localhost./"},
      // UTS #46 maps the ideographic full stop U+3002 to '.'.
      {"ideographic full stop", "http://example。com/", "http://example.com/"},
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
      // RFC 1034 §3.1: no label of a DNS name is empty (one trailing dot is no label).
      {"empty label inside", "http://a..com/", "host \"a..com\" has an empty label"},
      {"empty first label", "http://.com/", "host \".com\" has an empty label"},
      {"only a dot", "http://./", "host \".\" has an empty label"},
      {"two trailing dots", "http://example.com../", "empty label"},
      {"empty label with user info and port", "http://u@a..com:81/", "empty label"},
      {"empty label in upper case", "HTTP://A..COM/", "host \"a..com\" has an empty label"},
      {"zero-width space mapped away", "http://\u200B.com/",
       "host \".com\" (after IDNA mapping) has an empty label"},
      {"zero-width space between dots", "http://a.\u200B.com/", "empty label"},
      {"ideographic full stop after a dot", "http://x.。com/", "empty label"},
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
      "http://\xef\xbc\x8f"
      "examxtp://\xef\xbc\x8e"
      "example.?/le\xae\nle.?/le\xae\nht/%35");
  const auto mapped = CanonicalizeUrl(fullwidth_solidus);
  ASSERT_FALSE(mapped.ok()) << *mapped;
  EXPECT_NE(mapped.status().message().find("not allowed in a host name"), std::string::npos)
      << mapped.status().ToString();
  for (const char* url : {"http://a%7Cb/", "http://a%25b/", "http://a%22b/",
                          "http://a\xef\xb9\xa1"
                          "b/"}) {
    ExpectRejected(CanonicalizeUrl(url), {"escaped or mapped delimiter", url, "host"});
  }
  // The resolved URL's host maps to '*'.
  const std::string small_asterisk("http://exa0m.4444484\xef\xb9\xa1to4em/p//\x01\x00\x00", 35);
  const auto resolved = ResolveUrl(small_asterisk, "\n?8o");
  ASSERT_FALSE(resolved.ok()) << *resolved;
  EXPECT_NE(resolved.status().message().find("not allowed in a host name"), std::string::npos)
      << resolved.status().ToString();
  EXPECT_FALSE(ResolveUrl("http://a/", "//a%7Fb/c").ok());
  // Still accepted: escapes of unreserved characters, IDN, IP literals.
  for (const auto& [url, canonical] : std::vector<std::pair<std::string, std::string>>{
           {"http://a%41b/", "http://aab/"},
           {"http://a%C3%BCb.de/", "http://xn--ab-xka.de/"},
           {"http://B\xc3\xbc"
            "cher.example/",
            "http://xn--bcher-kva.example/"},
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
      "http://19\xef\xbd\xa1"
      "2222/*%2ehttp/exam\n?o://ex.\nh",
      41);
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
  EXPECT_EQ(*CanonicalizeUrl("http://B\xc3\xbc"
                             "cher.example/%7e"),
            "http://xn--bcher-kva.example/~");
}

// ---- ResolveUrl: RFC 3986 §5.4, then canonicalised -------------------------------------

// RFC 3986 §5.4's base URI, against which all its examples resolve.
constexpr char kRfcBase[] = "http://a/b/c/d;p?q";

// One example of RFC 3986 §5.4: the reference, the RFC's answer, and crawlrank's result in
// the rfc3986/1 profile, which is the canonical form of that answer or, when the answer is
// no http(s) URL with a host, a rejection.
struct RfcExample {
  const char* rule;  // the §5.2.2 / §5.2.4 rule the example exercises
  const char* reference;
  const char* rfc_answer;     // as printed in §5.4.1 / §5.4.2
  const char* canonical;      // nullptr: rejected, the message containing `reject_reason`
  const char* reject_reason;  // for a rejection
  const char* why_differs;    // required whenever `canonical` is not `rfc_answer`
};

void ExpectRfcExample(const RfcExample& e) {
  SCOPED_TRACE(std::string(e.rule) + ": " + Quoted(e.reference) + " -> " + e.rfc_answer);
  // A table row that departs from the RFC must say why.
  const bool same = e.canonical != nullptr && std::string_view(e.canonical) == e.rfc_answer;
  EXPECT_EQ(same, *e.why_differs == '\0') << "why_differs: " << Quoted(e.why_differs);
  auto resolved = ResolveUrl(kRfcBase, e.reference, UrlProfile::kRfc3986);
  if (e.canonical == nullptr) {
    // An absolute reference is named in the message as given.
    ExpectRejected(resolved, {e.rule, e.reference, e.reject_reason});
  } else {
    EXPECT_EQ(ValueOrError(resolved), e.canonical);
  }
}

// Why a canonical form may differ from the RFC's answer.
constexpr char kFragmentDropped[] = "rfc3986/1 drops the fragment (§3.5: never sent to a server)";
constexpr char kEmptyPathIsSlash[] = "rfc3986/1 writes an empty path as \"/\" (§6.2.3)";

TEST(UrlResolveRfc3986Section54, NormalExamples) {  // §5.4.1
  const std::vector<RfcExample> examples = {
      {"5.2.2 scheme defined: absolute", "g:h", "g:h", nullptr, "scheme \"g\"",
       "only http and https URLs are accepted"},
      {"5.2.3 merge", "g", "http://a/b/c/g", "http://a/b/c/g", "", ""},
      {"5.2.4 \"./\" removed", "./g", "http://a/b/c/g", "http://a/b/c/g", "", ""},
      {"5.2.3 merge, trailing slash kept", "g/", "http://a/b/c/g/", "http://a/b/c/g/", "", ""},
      {"5.2.2 absolute path", "/g", "http://a/g", "http://a/g", "", ""},
      {"5.2.2 authority defined", "//g", "http://g", "http://g/", "", kEmptyPathIsSlash},
      {"5.2.2 empty path, query defined", "?y", "http://a/b/c/d;p?y", "http://a/b/c/d;p?y", "", ""},
      {"5.2.3 merge, with query", "g?y", "http://a/b/c/g?y", "http://a/b/c/g?y", "", ""},
      {"5.2.2 empty path, base query kept", "#s", "http://a/b/c/d;p?q#s", "http://a/b/c/d;p?q", "",
       kFragmentDropped},
      {"5.2.3 merge, with fragment", "g#s", "http://a/b/c/g#s", "http://a/b/c/g", "",
       kFragmentDropped},
      {"5.2.3 merge, with query and fragment", "g?y#s", "http://a/b/c/g?y#s", "http://a/b/c/g?y",
       "", kFragmentDropped},
      {"5.2.3 merge, params of the base dropped", ";x", "http://a/b/c/;x", "http://a/b/c/;x", "",
       ""},
      {"5.2.3 merge, params", "g;x", "http://a/b/c/g;x", "http://a/b/c/g;x", "", ""},
      {"5.2.3 merge, params, query and fragment", "g;x?y#s", "http://a/b/c/g;x?y#s",
       "http://a/b/c/g;x?y", "", kFragmentDropped},
      {"5.2.2 empty reference: the base", "", "http://a/b/c/d;p?q", "http://a/b/c/d;p?q", "", ""},
      {"5.2.4 final \".\"", ".", "http://a/b/c/", "http://a/b/c/", "", ""},
      {"5.2.4 \"./\"", "./", "http://a/b/c/", "http://a/b/c/", "", ""},
      {"5.2.4 final \"..\"", "..", "http://a/b/", "http://a/b/", "", ""},
      {"5.2.4 \"../\"", "../", "http://a/b/", "http://a/b/", "", ""},
      {"5.2.4 \"../\" then a segment", "../g", "http://a/b/g", "http://a/b/g", "", ""},
      {"5.2.4 two final \"..\"", "../..", "http://a/", "http://a/", "", ""},
      {"5.2.4 \"../../\"", "../../", "http://a/", "http://a/", "", ""},
      {"5.2.4 \"../../\" then a segment", "../../g", "http://a/g", "http://a/g", "", ""},
  };
  for (const RfcExample& e : examples) ExpectRfcExample(e);
}

TEST(UrlResolveRfc3986Section54, AbnormalMoreDotDotsThanLevelsStopAtTheRoot) {  // §5.4.2
  const std::vector<RfcExample> examples = {
      {"5.2.4 \"..\" above the root", "../../../g", "http://a/g", "http://a/g", "", ""},
      {"5.2.4 \"..\" twice above the root", "../../../../g", "http://a/g", "http://a/g", "", ""},
  };
  for (const RfcExample& e : examples) ExpectRfcExample(e);
}

TEST(UrlResolveRfc3986Section54, AbnormalDotSegmentsAreOnlyWholeSegments) {  // §5.4.2
  const std::vector<RfcExample> examples = {
      {"5.2.4 \"/./\" in an absolute path", "/./g", "http://a/g", "http://a/g", "", ""},
      {"5.2.4 \"/../\" in an absolute path", "/../g", "http://a/g", "http://a/g", "", ""},
      {"5.2.4 trailing dot is a name", "g.", "http://a/b/c/g.", "http://a/b/c/g.", "", ""},
      {"5.2.4 leading dot is a name", ".g", "http://a/b/c/.g", "http://a/b/c/.g", "", ""},
      {"5.2.4 trailing dots are a name", "g..", "http://a/b/c/g..", "http://a/b/c/g..", "", ""},
      {"5.2.4 leading dots are a name", "..g", "http://a/b/c/..g", "http://a/b/c/..g", "", ""},
  };
  for (const RfcExample& e : examples) ExpectRfcExample(e);
}

TEST(UrlResolveRfc3986Section54, AbnormalUnnecessaryOrNonsensicalDotSegments) {  // §5.4.2
  const std::vector<RfcExample> examples = {
      {"5.2.4 \"./\" then \"../\"", "./../g", "http://a/b/g", "http://a/b/g", "", ""},
      {"5.2.4 final \"/.\"", "./g/.", "http://a/b/c/g/", "http://a/b/c/g/", "", ""},
      {"5.2.4 inner \"/./\"", "g/./h", "http://a/b/c/g/h", "http://a/b/c/g/h", "", ""},
      {"5.2.4 inner \"/../\"", "g/../h", "http://a/b/c/h", "http://a/b/c/h", "", ""},
      {"5.2.4 \"/./\" after params", "g;x=1/./y", "http://a/b/c/g;x=1/y", "http://a/b/c/g;x=1/y",
       "", ""},
      {"5.2.4 \"/../\" after params", "g;x=1/../y", "http://a/b/c/y", "http://a/b/c/y", "", ""},
  };
  for (const RfcExample& e : examples) ExpectRfcExample(e);
}

TEST(UrlResolveRfc3986Section54, AbnormalDotSegmentsInQueryOrFragmentAreKept) {  // §5.4.2
  const std::vector<RfcExample> examples = {
      {"5.2.2 query is not path", "g?y/./x", "http://a/b/c/g?y/./x", "http://a/b/c/g?y/./x", "",
       ""},
      {"5.2.2 query is not path", "g?y/../x", "http://a/b/c/g?y/../x", "http://a/b/c/g?y/../x", "",
       ""},
      {"5.2.2 fragment is not path", "g#s/./x", "http://a/b/c/g#s/./x", "http://a/b/c/g", "",
       kFragmentDropped},
      {"5.2.2 fragment is not path", "g#s/../x", "http://a/b/c/g#s/../x", "http://a/b/c/g", "",
       kFragmentDropped},
  };
  for (const RfcExample& e : examples) ExpectRfcExample(e);
}

TEST(UrlResolveRfc3986Section54, AbnormalSchemeInARelativeReferenceIsStrict) {  // §5.4.2
  // §5.4.2 allows "http://a/b/c/g" "for backward compatibility"; rfc3986/1 is the strict
  // parser (urljoin, and so w3lib/1, takes the other answer).
  ExpectRfcExample({"5.2.2 strict: scheme defined, no authority", "http:g", "http:g", nullptr,
                    "no host", "an http URL without an authority has no host (RFC 9110 §4.2.1)"});
}

TEST(UrlResolve, NonHttpResultsAreRejected) {
  ExpectRejected(ResolveUrl(kRfcBase, "mailto:x@y.z"), {"mailto", "mailto:x@y.z", "scheme"});
  ExpectRejected(ResolveUrl(kRfcBase, "ftp://a/b"), {"ftp", "ftp://a/b", "scheme \"ftp\""});
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
  ExpectRejected(ResolveUrl("http://a..com/", "g"),
                 {"base label", "http://a..com/", "empty label"});
  // A relative reference is named as resolved.
  ExpectRejected(ResolveUrl(kRfcBase, "//.b/x"), {"label", "http://.b/x", "empty label"});
}

TEST(UrlResolve, W3libProfileCanonicalisesTheResult) {
  // canonicalize_url("http://a/b/c/d;p?y") == "http://a/b/c/d;p?y=" (w3lib 2.1.1).
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "?y", UrlProfile::kW3lib)), "http://a/b/c/d;p?y=");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "g;x?y#s", UrlProfile::kW3lib)),
            "http://a/b/c/g;x?y=");
  EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, "../g", UrlProfile::kW3lib)), "http://a/b/g");
}

TEST(UrlResolve, FinalDotSegmentKeepsItsSlashBeforeAQueryOrFragment) {
  // §5.2.4: "/dir/sub/../" loses "sub/" and keeps the '/', and so does a final ".." or "."
  // whether a query or fragment follows or not. urljoin agrees, so both profiles do.
  constexpr char kBase[] = "http://example.com/dir/sub/page.html";
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"../?q=1", "http://example.com/dir/?q=1"},
      {"./?q=1", "http://example.com/dir/sub/?q=1"},
      {"..?q=1", "http://example.com/dir/?q=1"},
      {".?q=1", "http://example.com/dir/sub/?q=1"},
      {"../#f", "http://example.com/dir/"},
      {"..#f", "http://example.com/dir/"},
      {"x/..?q=1", "http://example.com/dir/sub/?q=1"},
      {"/dir/sub/../?q=1", "http://example.com/dir/?q=1"},
      {"/dir/sub/.?q=1", "http://example.com/dir/sub/?q=1"},
  };
  for (UrlProfile profile : {UrlProfile::kRfc3986, UrlProfile::kW3lib}) {
    for (const auto& [reference, expected] : cases) {
      SCOPED_TRACE(std::string(UrlProfileName(profile)) + ": " + reference);
      EXPECT_EQ(ValueOrError(ResolveUrl(kBase, reference, profile)), expected);
    }
  }
}

TEST(UrlResolve, W3libProfileFollowsUrljoinWhereItLeavesRfc3986) {
  // The w3lib/1 values are canonicalize_url(urljoin(kRfcBase, reference)) from Python 3.11
  // and w3lib 2.1.1; the rfc3986/1 ones follow §5.2 (strict) and §6.2.2 by hand. A value
  // starting with "rejected " means: rejected for having no host, the message naming the
  // URL that follows (an absolute reference as given, a relative one as resolved).
  struct Case {
    const char* reference;
    std::string rfc3986;
    const char* w3lib;
  };
  const std::vector<Case> cases = {
      {"http:g", "rejected http:g", "http://a/b/c/g"},  // urljoin: the base's scheme is relative
      {"HTTP:g", "rejected HTTP:g", "http://a/b/c/g"},
      {"///host/x", "rejected http:///host/x", "http://a/host/x"},  // urljoin: base's host
      {"?", "http://a/b/c/d;p", "http://a/b/c/d;p?q="},             // urljoin keeps the base query
      {"a//b/", "http://a/b/c/a//b/", "http://a/b/c/a/b/"},         // urljoin drops "" segments
      {"/..//x", "http://a//x", "http://a/x"},         // urljoin: ".." pops the root's segment
      {"..;x", "http://a/b/c/..;x", "http://a/b/;x"},  // urljoin splits params off first
      {"g/..;x", "http://a/b/c/g/..;x", "http://a/b/c/;x"},
      {"%2E%2E/g", "http://a/b/g", "http://a/b/c/../g"},  // w3lib keeps the decoded ".."
      {"//g/a/../b", "http://g/b", "http://g/a/../b"},    // urljoin leaves it as it is
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reference);
    if (c.rfc3986.starts_with("rejected ")) {
      ExpectRejected(ResolveUrl(kRfcBase, c.reference),
                     {"no host", c.rfc3986.substr(std::strlen("rejected ")), "no host"});
    } else {
      EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, c.reference)), c.rfc3986);
    }
    EXPECT_EQ(ValueOrError(ResolveUrl(kRfcBase, c.reference, UrlProfile::kW3lib)), c.w3lib);
  }
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

TEST(UrlW3lib, EmptyHostLabelsAreKeptAsW3libKeepsThem) {
  // canonicalize_url leaves an ASCII netloc as it is (w3lib 2.1.1); rfc3986/1 rejects these.
  for (const char* url : {"http://a..com/", "http://.com/", "http://example.com../"}) {
    SCOPED_TRACE(url);
    EXPECT_EQ(ValueOrError(CanonicalizeUrl(url, UrlProfile::kW3lib)), url);
    ExpectRejected(CanonicalizeUrl(url), {"rfc3986/1", url, "empty label"});
  }
  EXPECT_EQ(ValueOrError(CanonicalizeUrl("http://Example.COM./", UrlProfile::kW3lib)),
            "http://example.com./");
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

// ---- error messages -------------------------------------------------------------------

// A bad line of a crawl's link dump can be megabytes long: messages quote at most 200 bytes
// of it, then "…" (U+2026) and the whole length.
constexpr char kEllipsis[] = "\xE2\x80\xA6";

TEST(UrlErrors, LongUrlIsQuotedUpTo200BytesWithItsLength) {
  // 1 MiB: a control character (rejected by both profiles) near the front, then 'a's.
  std::string url = "http://example.com/\x01";
  url.resize(size_t{1} << 20, 'a');
  const std::string expected =
      "URL \"" + url.substr(0, 200) + kEllipsis + "\" (1048576 bytes): control character 1 in URL";
  for (UrlProfile profile : {UrlProfile::kRfc3986, UrlProfile::kW3lib}) {
    SCOPED_TRACE(UrlProfileName(profile));
    auto canonical = CanonicalizeUrl(url, profile);
    ASSERT_FALSE(canonical.ok());
    EXPECT_EQ(canonical.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(canonical.status().message(), expected);
    auto resolved = ResolveUrl("http://example.com/", url, profile);
    ASSERT_FALSE(resolved.ok());
    EXPECT_EQ(resolved.status().message(), expected);
  }
}

TEST(UrlErrors, QuoteIsCutBetweenUtf8Characters) {
  // 21 ASCII bytes (a control character among them), then 2-byte characters: byte 200 is
  // the second byte of the 90th 'é', so the quote keeps 21 + 2 * 89 = 199 bytes.
  const std::string prefix = "http://example.com/\x01!";
  std::string url = prefix;
  for (int i = 0; i < 150; ++i) url += "\xC3\xA9";
  std::string head = prefix;
  for (int i = 0; i < 89; ++i) head += "\xC3\xA9";
  auto canonical = CanonicalizeUrl(url);
  ASSERT_FALSE(canonical.ok());
  EXPECT_EQ(canonical.status().message(), "URL \"" + head + kEllipsis + "\" (" +
                                              std::to_string(url.size()) +
                                              " bytes): control character 1 in URL");
}

TEST(UrlErrors, QuoteLimitIs200Bytes) {
  for (size_t size : {size_t{200}, size_t{201}}) {
    std::string url = "ftp://example.com/";
    url.resize(size, 'b');
    auto canonical = CanonicalizeUrl(url);
    ASSERT_FALSE(canonical.ok());
    const std::string& message = canonical.status().message();
    if (size == 200) {
      EXPECT_NE(message.find(Quoted(url)), std::string::npos) << message;
    } else {
      EXPECT_NE(message.find("\"" + url.substr(0, 200) + kEllipsis + "\" (201 bytes)"),
                std::string::npos)
          << message;
    }
  }
}

TEST(UrlErrors, LongSchemePortAndHostPartsAreCutToo) {
  // Parts a message quotes besides the URL (a scheme, a port, an IPv6 literal) are cut the
  // same way: no message grows with the input.
  const size_t kBig = size_t{1} << 20;
  const std::vector<std::string> inputs = {
      std::string(kBig, 'x') + "://example.com/",
      "http://example.com:" + std::string(kBig, '9') + "/",
      "http://[" + std::string(kBig, ':') + "]/",
      "http://" + std::string(kBig, 'a') + " b/",
  };
  for (UrlProfile profile : {UrlProfile::kRfc3986, UrlProfile::kW3lib}) {
    for (const std::string& input : inputs) {
      SCOPED_TRACE(std::string(UrlProfileName(profile)) + ": " + input.substr(0, 20));
      auto canonical = CanonicalizeUrl(input, profile);
      ASSERT_FALSE(canonical.ok());
      EXPECT_EQ(canonical.status().code(), StatusCode::kInvalidArgument);
      EXPECT_LT(canonical.status().message().size(), 700u) << canonical.status().message();
      EXPECT_NE(canonical.status().message().find("(" + std::to_string(input.size()) + " bytes)"),
                std::string::npos);
    }
  }
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
      // A trailing dot stays in the host and is ignored for the registered domain.
      {"http://www.example.co.uk./", "www.example.co.uk.", "example.co.uk"},
      {"http://example.com.:8080/", "example.com.", "example.com"},
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
