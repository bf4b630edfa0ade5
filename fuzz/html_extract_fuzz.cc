// Fuzzes HTML extraction (html_extract.h): charset sniffing and decoding, Gumbo's parse,
// the DOM walk, link resolution and the keyword scores.
//
// Input: a selector byte, then the body. The selector picks the Content-Type header's
// charset (none, or one of a few labels, iconv-converted ones included), the URL profile,
// follow_nofollow and a small max_links.
//
// Properties:
//   - ExtractHtml never fails on a valid page URL;
//   - every link is canonical in the profile (CanonicalizeUrl(link) == link, rfc3986/1
//     only: w3lib/1 is not idempotent, see url_fuzz.cc), distinct, and at most max_links;
//   - anchor texts, the title and the canonical are valid UTF-8, anchors at most
//     kMaxAnchorTextBytes, with no leading or trailing space;
//   - scores lie in [0, 1];
//   - the decoder's output is valid UTF-8 whatever the encoding;
//   - the same body extracts to the same result twice (no hidden state).
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "crawl/charset.h"
#include "crawlrank/html_extract.h"
#include "crawlrank/url.h"
#include "fuzz_check.h"

namespace crawlrank {
namespace {

constexpr std::string_view kContentTypes[] = {
    "",
    "text/html",
    "text/html; charset=utf-8",
    "text/html; charset=iso-8859-1",
    "text/html; charset=utf-16le",
    "text/html; charset=UTF-16BE",
    "text/html; charset=shift_jis",
    "text/html; charset=gb18030",
    "text/html; charset=euc-kr",
    "text/html; charset=iso-2022-jp",
    "text/html; charset=koi8-r",
    "text/html; charset=x-user-defined",
    "text/html; charset=replacement",
    "text/html; charset=big5",
    "text/html; charset=\"windows-1251\"",
    "text/html; charset=bogus",
};

const KeywordScorer& Keywords() {
  static const KeywordScorer* scorer = new KeywordScorer({"a", "link", "the", "\xC3\xA9t\xC3\xA9"});
  return *scorer;
}

void Check(std::string_view body, uint8_t selector) {
  const std::string_view content_type = kContentTypes[selector % 16];
  HtmlExtractOptions options;
  options.profile = (selector & 0x10) ? UrlProfile::kW3lib : UrlProfile::kRfc3986;
  options.follow_nofollow = (selector & 0x20) != 0;
  options.max_links = (selector & 0x40) ? 3 : 10000;
  options.keywords = &Keywords();
  options.link_context_words = (selector & 0x80) ? 0 : 10;

  const crawl_internal::DecodedBody decoded = crawl_internal::DecodeBody(body, content_type);
  FUZZ_CHECK(crawl_internal::IsValidUtf8(decoded.text));

  const Result<HtmlPage> page =
      ExtractHtml(body, "http://example.com/dir/page.html?q=1", content_type, options);
  FUZZ_CHECK(page.ok());
  FUZZ_CHECK(page->charset == decoded.encoding->name);
  FUZZ_CHECK(page->links.size() <= options.max_links);
  FUZZ_CHECK(page->content_score >= 0.f && page->content_score <= 1.f);
  FUZZ_CHECK(crawl_internal::IsValidUtf8(page->title));
  std::set<std::string> seen;
  for (const ExtractedLink& link : page->links) {
    FUZZ_CHECK(seen.insert(link.url).second);
    const Result<std::string> again = CanonicalizeUrl(link.url, options.profile);
    FUZZ_CHECK(again.ok());
    if (options.profile == UrlProfile::kRfc3986) FUZZ_CHECK(*again == link.url);
    FUZZ_CHECK(link.score >= 0.f && link.score <= 1.f);
    FUZZ_CHECK(link.anchor_text.size() <= kMaxAnchorTextBytes);
    FUZZ_CHECK(crawl_internal::IsValidUtf8(link.anchor_text));
    FUZZ_CHECK(link.anchor_text.empty() ||
               (link.anchor_text.front() != ' ' && link.anchor_text.back() != ' '));
  }
  if (!page->canonical.empty()) FUZZ_CHECK(CanonicalizeUrl(page->canonical, options.profile).ok());

  const Result<HtmlPage> twice =
      ExtractHtml(body, "http://example.com/dir/page.html?q=1", content_type, options);
  FUZZ_CHECK(twice.ok());
  FUZZ_CHECK(twice->content_hash == page->content_hash);
  FUZZ_CHECK(twice->links.size() == page->links.size());
}

}  // namespace
}  // namespace crawlrank

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  crawlrank::Check(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), data[0]);
  return 0;
}
