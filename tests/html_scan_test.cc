// Tests of the streaming extractor (crawl/html_scan.h) through ExtractHtml, named after the
// tree construction rules of the HTML Living Standard (§13.2.6) they exercise. Each
// expectation is worked out by hand from the standard (which elements exist, where text
// goes, which whitespace the element boundaries add) and checked against both parsers:
// the streaming scan and Gumbo's DOM. The cases the scan hands to Gumbo are checked to be
// handed over. Also one test per defect of Wget2's scanner (docs/crawler.md).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <xxhash.h>

#include "crawlrank/html_extract.h"

namespace crawlrank {
namespace {

constexpr std::string_view kPageUrl = "http://example.com/d/p.html";

struct Expected {
  std::string text;                       // the visible text, collapsed
  std::vector<std::string> links;         // "url|anchor text", in order
  std::string title = "";
  bool handed_to_gumbo = false;
};

uint64_t XXH3Hash(std::string_view text) { return XXH3_64bits(text.data(), text.size()); }

std::string Describe(const HtmlPage& page) {
  std::string out = "text_bytes=" + std::to_string(page.text_bytes) + " title=[" + page.title +
                    "] links=";
  for (const ExtractedLink& link : page.links) out += "[" + link.url + "|" + link.anchor_text + "]";
  return out;
}

// Checks both parsers against `want`.
void ExpectBoth(std::string_view html, const Expected& want) {
  for (const HtmlParser parser : {HtmlParser::kStreaming, HtmlParser::kGumbo}) {
    HtmlExtractOptions options;
    options.parser = parser;
    const Result<HtmlPage> page = ExtractHtml(html, kPageUrl, "text/html; charset=utf-8", options);
    ASSERT_TRUE(page.ok());
    const char* name = parser == HtmlParser::kGumbo ? "gumbo" : "streaming";
    SCOPED_TRACE(std::string(name) + ": " + std::string(html) + " -> " + Describe(*page));
    EXPECT_EQ(page->content_hash, XXH3Hash(want.text));
    EXPECT_EQ(page->text_bytes, want.text.size());
    EXPECT_EQ(page->title, want.title);
    std::vector<std::string> links;
    for (const ExtractedLink& link : page->links) links.push_back(link.url + "|" + link.anchor_text);
    EXPECT_EQ(links, want.links);
    EXPECT_EQ(page->tree_parsed, parser == HtmlParser::kGumbo || want.handed_to_gumbo);
  }
}

std::string Abs(std::string_view path) { return "http://example.com" + std::string(path); }

// ----------------------------------------------------------------------------------------
// Before the body: the "initial" to "after head" insertion modes.

TEST(HtmlScanTreeRules, TextInTheHeadStartsTheBody) {
  ExpectBoth("<title>T</title> \n hello <a href=/x>x</a>",
             {"hello x", {Abs("/x") + "|x"}, "T"});
}

TEST(HtmlScanTreeRules, HeadElementsAfterTheHeadStayHidden) {
  ExpectBoth("<head></head><style>s</style><script>x</script><body>b",
             {"b", {}});
}

TEST(HtmlScanTreeRules, ANoscriptInTheHeadClosesOnBodyContent) {
  // Scripting off: "in head noscript" pops the noscript for anything but head elements,
  // so the link is in the body, visible.
  ExpectBoth("<head><noscript><link rel=x href=/n><a href=/a>a</a></noscript>z",
             {"az", {Abs("/a") + "|a"}});
}

// ----------------------------------------------------------------------------------------
// In body.

TEST(HtmlScanTreeRules, InlineElementBoundariesAreNotWhitespaceAndBlockOnesAre) {
  ExpectBoth("<b>A</b>BC<div>D</div>E<span>F</span><br>G", {"ABC D EF G", {}});
}

TEST(HtmlScanTreeRules, ABlockStartClosesAnOpenP) {
  ExpectBoth("<p>a<div>b</div>c</p>d", {"a b c d", {}});
}

TEST(HtmlScanTreeRules, AnEndTagOfAnElementNotInScopeIsIgnored) {
  ExpectBoth("a</div>b</span>c", {"abc", {}});
}

TEST(HtmlScanTreeRules, AnEndTagPWithNoPInScopeInsertsAnEmptyParagraph) {
  ExpectBoth("a</p>b", {"a b", {}});
}

TEST(HtmlScanTreeRules, AnEndTagBrIsABrElement) {
  ExpectBoth("a</br>b", {"a b", {}});
}

TEST(HtmlScanTreeRules, ListItemsCloseTheOpenItem) {
  ExpectBoth("<ul><li><a href=/1>one</a><li>two</ul>", {"one two", {Abs("/1") + "|one"}});
}

TEST(HtmlScanTreeRules, AnAInsideAnOpenAClosesTheFirst) {
  ExpectBoth("<a href=/1>x<a href=/2>y</a>z", {"xyz", {Abs("/1") + "|x", Abs("/2") + "|y"}});
}

TEST(HtmlScanTreeRules, ANestedFormIsIgnored) {
  ExpectBoth("<form>a<form>b<br></form>c", {"ab c", {}});
}

TEST(HtmlScanTreeRules, AFormEndTagRemovesTheFormAloneAndGumboMovesItsPendingText) {
  // The standard puts "a" and "b" in the form. Gumbo inserts text when it next opens or
  // closes an element, and removing the form is neither: "ab" lands after the form, with
  // "c". The scan hands such a page to Gumbo.
  ExpectBoth("<form>a<form>b</form>c", {"abc", {}, "", true});
  // With an element opened since the text, the form's end is where the standard has it.
  ExpectBoth("<form>a<input>b<br></form>c", {"a b c", {}});
}

TEST(HtmlScanTreeRules, RawTextElementsHideTheirMarkup) {
  ExpectBoth("<textarea><a href=/t>t</a></textarea><xmp><a href=/x></xmp>"
             "<iframe><a href=/i></iframe><noembed><a href=/n></noembed><a href=/ok>ok</a>",
             {"<a href=/t>t</a> <a href=/x> ok", {Abs("/ok") + "|ok"}});
}

TEST(HtmlScanTreeRules, PlaintextMakesTheRestText) {
  ExpectBoth("a<plaintext><a href=/p>&amp;", {"a <a href=/p>&amp;", {}});
}

TEST(HtmlScanTreeRules, TemplateContentIsHiddenButItsLinksCount) {
  ExpectBoth("a<template><a href=/t>t</a></template>b", {"a b", {Abs("/t") + "|"}});
}

TEST(HtmlScanTreeRules, NulInBodyTextIsDropped) {
  using namespace std::string_literals;
  ExpectBoth("a\0b"s, {"ab", {}});
}

// ----------------------------------------------------------------------------------------
// Tables and select.

TEST(HtmlScanTreeRules, CellsCloseCellsAndRowsImplyTheirGroups) {
  ExpectBoth("<table><tr><td>a<td><a href=/b>b</a><tr><th>c</table>d",
             {"a b c d", {Abs("/b") + "|b"}});
}

TEST(HtmlScanTreeRules, TextATableMovesBeforeItselfGoesToGumbo) {
  ExpectBoth("<table><tr><td>a</td></tr>moved</table>", {"moved a", {}, "", true});
}

TEST(HtmlScanTreeRules, SelectDropsTagsItDoesNotAllowAndKeepsTheirText) {
  ExpectBoth("<select><option>o<a href=/a>a</a><style>s</style></select><a href=/b>b</a>",
             {"oas b", {Abs("/b") + "|b"}});
}

TEST(HtmlScanTreeRules, AnInputInsideASelectClosesIt) {
  ExpectBoth("<select><option>o<input><a href=/a>a</a>", {"o a", {Abs("/a") + "|a"}});
}

TEST(HtmlScanTreeRules, AFramesetGoesToGumbo) {
  ExpectBoth("<frameset><frame src=x><noframes><a href=/n>n</a></noframes></frameset>",
             {"", {}, "", true});
}

// ----------------------------------------------------------------------------------------
// The adoption agency and re-opened formatting elements: handed to Gumbo.

TEST(HtmlScanTreeRules, AnEndTagWithABlockOpenInsideGoesToGumbo) {
  // </a> with a <div> open inside: the div moves out of the a (a clone of the a inside it).
  ExpectBoth("<a href=/x><div>y</a>z</div>", {"yz", {Abs("/x") + "|"}, "", true});
}

TEST(HtmlScanTreeRules, AnAClosedByABlockIsReopenedByGumbo) {
  ExpectBoth("<p><a href=/x>y</p>z", {"y z", {Abs("/x") + "|y"}, "", true});
}

TEST(HtmlScanTreeRules, AnEndTagOfAFormattingElementClosedEarlierGoesToGumbo) {
  // </p> closes the <b>, which stays active: "plain" gets a copy of it, which </b> closes.
  ExpectBoth("<p><b>bold</p>plain</b>after", {"bold plainafter", {}, "", true});
}

// ----------------------------------------------------------------------------------------
// Foreign content.

TEST(HtmlScanTreeRules, SvgTitleIsNotTheDocumentsTitleAndIsHidden) {
  ExpectBoth("<svg><title>s</title><text>t</text></svg>u", {"t u", {}});
}

TEST(HtmlScanTreeRules, CdataInForeignContentIsText) {
  ExpectBoth("<svg><![CDATA[<a href=/c>]]></svg>", {"<a href=/c>", {}});
  // Elsewhere it is a bogus comment, up to the first '>'.
  ExpectBoth("<![CDATA[<a href=/c>x]]>y", {"x]]>y", {}});
}

TEST(HtmlScanTreeRules, AnHtmlStartTagBreaksOutOfSvg) {
  ExpectBoth("<svg><g><p><a href=/p>p</a></p></g></svg>", {"p", {Abs("/p") + "|p"}});
}

TEST(HtmlScanTreeRules, IntegrationPointsReadHtml) {
  ExpectBoth("<svg><foreignObject><textarea><a href=/no></textarea></foreignObject></svg>"
             "<math><mi><a href=/m>m</a></mi></math>",
             {"<a href=/no> m", {Abs("/m") + "|m"}});
}

TEST(HtmlScanTreeRules, AForeignEndTagMatchesByItsTextAsInGumbo) {
  // Gumbo compares the text between "</" and ">": "</mi >" closes no <mi>, which stays
  // open; <xmp> in it (a MathML text integration point) is HTML, raw text.
  ExpectBoth("<math><mi></mi ><xmp><a href=/x></xmp></math>", {"<a href=/x>", {}});
  ExpectBoth("<math><mi></MI><xmp><a href=/x></xmp></math>", {"", {Abs("/x") + "|"}});
}

// ----------------------------------------------------------------------------------------
// Where Wget2's scanner goes wrong (docs/crawler.md): each the standard's way here.

TEST(HtmlScanWget2Cases, TheFirstBaseCountsNotTheLast) {
  ExpectBoth("<base href=/one/><base href=/two/><a href=x>x</a>", {"x", {Abs("/one/x") + "|x"}});
}

TEST(HtmlScanWget2Cases, EveryNamedReferenceIsDecoded) {
  ExpectBoth("<a href='/caf&eacute;?a=1&amp;b=&hellip;'>&eacute;</a>",
             {"\xC3\xA9", {Abs("/caf%C3%A9?a=1&b=%E2%80%A6") + "|\xC3\xA9"}});
}

TEST(HtmlScanWget2Cases, TitleContentIsTextNotMarkup) {
  ExpectBoth("<title><a href=/t>x</a></title>", {"", {}, "<a href=/t>x</a>"});
}

TEST(HtmlScanWget2Cases, ACommentOpenerInsideAScriptDoesNotHideItsEnd) {
  ExpectBoth("<script>var s = '<!--';</script><a href=/after>a</a>",
             {"a", {Abs("/after") + "|a"}});
}

TEST(HtmlScanWget2Cases, TheShortCommentFormsEndAtOnce) {
  ExpectBoth("<!--><a href=/1>1</a><!---><a href=/2>2</a><!-- x --!><a href=/3>3</a>",
             {"123", {Abs("/1") + "|1", Abs("/2") + "|2", Abs("/3") + "|3"}});
}

TEST(HtmlScanWget2Cases, ANulByteDoesNotStopTheScan) {
  using namespace std::string_literals;
  ExpectBoth("<a href=/1>1</a>\0<a href=/2>2</a>"s, {"12", {Abs("/1") + "|1", Abs("/2") + "|2"}});
}

// ----------------------------------------------------------------------------------------
// Deep documents.

TEST(HtmlScanDepth, TheScanStopsAtTheStartTagPastTheNestingLimit) {
  std::string html = "<a href=/before>b</a>";
  for (size_t i = 0; i < kMaxHtmlNesting + 10; ++i) html += "<div>";
  html += "<a href=/after>a</a>";
  const Result<HtmlPage> page = ExtractHtml(html, kPageUrl, "text/html");
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->nesting_cut);
  EXPECT_FALSE(page->tree_parsed);
  ASSERT_EQ(page->links.size(), 1u);
  EXPECT_EQ(page->links[0].url, Abs("/before"));
}

}  // namespace
}  // namespace crawlrank
