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
// known cases); the differential test over real sites checks them.
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

void Check(std::string_view body, uint8_t selector) {
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
