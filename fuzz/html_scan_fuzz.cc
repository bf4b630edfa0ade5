// Fuzzes the streaming extractor (html_scan.h, html_tokenizer.h) against Gumbo's DOM: the
// same body through ExtractHtml with HtmlParser::kStreaming and with kGumbo.
//
// Input: a selector byte, then the body (decoded as UTF-8 or windows-1252 by the selector,
// so that both valid and replaced sequences reach the tokenizer).
//
// Properties, when the scan answered itself (it did not hand the page to Gumbo) and
// neither path cut the page for its nesting (the two count nesting differently: see
// docs/crawler.md):
//   - the same set of link URLs;
//   - the same canonical (so the same <base> resolution) and the same robots flags;
//   - the same nofollow and other-scheme link counts.
// Text and anchor text may differ on pages only fuzzers write (docs/crawler.md lists the
// known cases); the differential test over real sites checks them. Inputs with a numeric
// character reference of 2^31 or more are skipped: Gumbo's int overflows there (a stray
// byte in its output), the scan gives U+FFFD as the standard says.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "crawlrank/html_extract.h"
#include "fuzz_check.h"

namespace crawlrank {
namespace {

std::set<std::string> Urls(const HtmlPage& page) {
  std::set<std::string> urls;
  for (const ExtractedLink& link : page.links) urls.insert(link.url);
  return urls;
}

// Whether `body` holds "&#" or "&#x" digits worth 2^31 or more.
bool HasOverflowingReference(std::string_view body) {
  for (size_t at = body.find("&#"); at != std::string_view::npos; at = body.find("&#", at + 1)) {
    size_t i = at + 2;
    const bool hex = i < body.size() && (body[i] == 'x' || body[i] == 'X');
    if (hex) ++i;
    uint64_t value = 0;
    for (; i < body.size(); ++i) {
      const char c = body[i];
      int d = -1;
      if (c >= '0' && c <= '9') d = c - '0';
      if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
      if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
      if (d < 0) break;
      value = value * (hex ? 16 : 10) + static_cast<uint64_t>(d);
      if (value >= (uint64_t{1} << 31)) return true;
    }
  }
  return false;
}

void Check(std::string_view body, uint8_t selector) {
  if (HasOverflowingReference(body)) return;
  const std::string_view content_type =
      (selector & 1) ? "text/html; charset=windows-1252" : "text/html; charset=utf-8";
  HtmlExtractOptions options;
  options.follow_nofollow = (selector & 2) != 0;
  const std::string_view url = "http://example.com/dir/page.html?q=1";
  const Result<HtmlPage> scanned = ExtractHtml(body, url, content_type, options);
  options.parser = HtmlParser::kGumbo;
  const Result<HtmlPage> tree = ExtractHtml(body, url, content_type, options);
  FUZZ_CHECK(scanned.ok() && tree.ok());
  FUZZ_CHECK(tree->tree_parsed);
  if (scanned->tree_parsed || scanned->nesting_cut || tree->nesting_cut) return;
  FUZZ_CHECK(Urls(*scanned) == Urls(*tree));
  FUZZ_CHECK(scanned->canonical == tree->canonical);
  FUZZ_CHECK(scanned->noindex == tree->noindex);
  FUZZ_CHECK(scanned->nofollow == tree->nofollow);
  FUZZ_CHECK(scanned->other_scheme_links == tree->other_scheme_links);
  FUZZ_CHECK(scanned->nofollow_links == tree->nofollow_links);
}

}  // namespace
}  // namespace crawlrank

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  crawlrank::Check(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), data[0]);
  return 0;
}
