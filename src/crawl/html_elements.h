// What the HTML Living Standard's tree construction (§13.2.6) and the extractor say about
// elements, by Gumbo's tag ids (gumbo_tagn_enum): the categories the streaming scan
// (html_scan.cc) needs to model the tree builder, and the two the visible text is made of,
// which the DOM walk of html_extract.cc shares.
#ifndef CRAWLRANK_CRAWL_HTML_ELEMENTS_H_
#define CRAWLRANK_CRAWL_HTML_ELEMENTS_H_

#include <gumbo.h>

#include <span>

#include "crawl/html_tokenizer.h"

namespace crawlrank::crawl_internal {

// Whether `tag` is one of `tags`.
template <typename... T>
bool OneOf(GumboTag tag, T... tags) {
  return ((tag == tags) || ...);
}

// Elements whose text a browser does not render as page content (and those whose
// children Gumbo keeps as raw text).
bool IsHiddenTag(GumboTag tag);
// Phrasing elements a browser renders inline: their boundaries do not separate words
// ("<b>A</b>BC" reads "ABC"). Every other element's start and end count as whitespace.
bool IsInlineTag(GumboTag tag);

// h1 to h6.
bool IsHeading(GumboTag tag);
// The standard's "special" category, HTML elements, as Gumbo 0.10 lists it.
bool IsSpecialHtml(GumboTag tag);
// MathML text integration points: mi, mo, mn, ms, mtext.
bool IsMathTextIntegration(GumboTag tag);
// Elements whose start tag closes an open <p> ("close a p element" in "in body").
bool ClosesP(GumboTag tag);
// End tags "in body" handles by popping up to their element when it is in scope.
bool IsBlockEnd(GumboTag tag);
// The formatting elements (the adoption agency's).
bool IsFormatting(GumboTag tag);
// Elements that put a marker on the list of active formatting elements: applet, caption,
// marquee, object, td, th, template.
bool IsMarker(GumboTag tag);
// Void elements, and those "in body" inserts and pops at once.
bool IsVoid(GumboTag tag);
// Start tags that leave foreign content (§13.2.6.5); <font> only with color, face or size.
bool BreaksOutOfForeign(GumboTag tag, std::span<const HtmlAttribute> attributes);

}  // namespace crawlrank::crawl_internal

#endif  // CRAWLRANK_CRAWL_HTML_ELEMENTS_H_
