// What ExtractHtml reads from a page's markup, by either of its two parsers: the streaming
// scan (ScanHtml: the tokenizer of html_tokenizer.h and a simulation of the tree builder's
// few decisions that matter here) or Gumbo's DOM (WalkGumbo). Both fill the same
// PageMarkup; ExtractHtml then resolves and scores the links.
#ifndef CRAWLRANK_CRAWL_HTML_SCAN_H_
#define CRAWLRANK_CRAWL_HTML_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace crawlrank::crawl_internal {

// An a[href] or area[href] as found; resolved once the whole page is read (the <base>
// and the robots meta may come later in the document).
struct LinkSite {
  uint32_t href_begin = 0;  // the href is PageMarkup::hrefs[href_begin, +href_size)
  uint32_t href_size = 0;
  size_t text_begin = 0;  // the link's visible text is PageMarkup::text[text_begin, text_end)
  size_t text_end = 0;
  std::string alt;  // an <area>'s anchor text, collapsed
  bool is_area = false;
  bool nofollow = false;  // rel=nofollow
};

struct PageMarkup {
  std::string text;  // visible text, collapsed (html_extract.h, HtmlPage::content_hash)
  std::string title;  // the first HTML <title>'s text, collapsed
  std::vector<LinkSite> sites;  // in document order
  std::string hrefs;            // the sites' hrefs, one after another (one allocation)
  std::string base_href;        // the first base[href]
  std::string canonical_href;   // the first link[rel~=canonical][href]
  bool has_base = false, has_canonical = false, has_title = false;
  bool noindex = false, nofollow = false;  // from meta robots
  // The scan stopped at a start tag that would have opened more than `max_nesting`
  // elements: nothing from that tag on is read.
  bool nesting_cut = false;

  // Appends `href` to hrefs for `site`.
  void SetHref(LinkSite& site, std::string_view href) {
    site.href_begin = static_cast<uint32_t>(hrefs.size());
    site.href_size = static_cast<uint32_t>(href.size());
    hrefs.append(href);
  }
  // A site's href; the view lasts while hrefs does not grow (once the page is read).
  std::string_view Href(const LinkSite& site) const {
    return std::string_view(hrefs).substr(site.href_begin, site.href_size);
  }
};

// Reads `html` (UTF-8) without building a tree, up to the start tag that would open more
// than `max_nesting` elements (PageMarkup::nesting_cut). Returns false, and leaves `out` in an
// unspecified state, when the document needs the tree builder for an answer that matches
// the DOM's: a <frameset>, text or elements a <table> would move out of itself ("foster
// parenting"), an end tag that would move elements ("adoption agency": </b> or </a> with
// a block open inside), an <a> the tree builder would re-open (clone) after a block
// closed it, tags inside <select> that it drops, <isindex>. The caller then parses with
// Gumbo (WalkGumbo).
bool ScanHtml(std::string_view html, size_t max_nesting, PageMarkup& out);

// Helpers both parsers share.

// Appends `text` to `out` with every run of ASCII whitespace as one space; `pending` holds
// a space owed to `out` (never at its start) until more text comes.
void AppendCollapsed(std::string_view text, std::string& out, bool& pending);
// Whether the space- or comma-separated token list `list` holds `token` (lower case),
// ASCII case ignored.
bool HasToken(std::string_view list, std::string_view token);
// `text` collapsed as AppendCollapsed does it.
std::string CollapsedText(std::string_view text);
// Whether a <meta name=...> names the robots directives crawlrank obeys.
bool IsRobotsMetaName(std::string_view name);


}  // namespace crawlrank::crawl_internal

#endif  // CRAWLRANK_CRAWL_HTML_SCAN_H_
