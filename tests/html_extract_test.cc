// Tests of crawlrank/html_extract.h.
//
// Where the expected values come from:
//   - links: RFC 3986 §5.2 resolution by hand, HTML's rules for <base> (the first one with
//     an href; HTML §4.2.3), rel tokens (§4.6.7) and <meta name=robots> as search engines
//     document it;
//   - charsets: the WHATWG Encoding Standard's label table and index-windows-1252 (0x80 is
//     U+20AC), HTML §13.2.3.2 (BOM first, then the transport's charset, then the prescan),
//     and Shift_JIS bytes worked out from the JIS X 0208 row/cell of 日 (0x467C) and 本
//     (0x4B5C); UTF-8 bytes written by hand from the code points;
//   - content hashes: libxxhash's XXH3_64bits of the visible text written out by hand, and
//     the published XXH3-64 value of empty input (0x2D06800538D394C2);
//   - keyword scores: counted by hand (what Python's re.findall(r"\w+") gives on the same
//     text, lower-cased, as crawlrank.scrapy.scoring does).
#include "crawlrank/html_extract.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <xxhash.h>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "crawl/charset.h"
#include "crawl/words.h"
#include "testutil.h"

namespace crawlrank {
namespace {

constexpr std::string_view kPage = "http://example.com/dir/page.html";

HtmlPage Extract(std::string_view body, const HtmlExtractOptions& options = {},
                 std::string_view content_type = "", std::string_view url = kPage) {
  Result<HtmlPage> page = ExtractHtml(body, url, content_type, options);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  return page.ok() ? std::move(page).value() : HtmlPage{};
}

std::vector<std::string> Urls(const HtmlPage& page) {
  std::vector<std::string> urls;
  for (const ExtractedLink& link : page.links) urls.push_back(link.url);
  return urls;
}

uint64_t Hash(std::string_view text) {
  return XXH3_64bits(text.data(), text.size());
}

using Strings = std::vector<std::string>;

// ---------------------------------------------------------------------------------------
// Links

TEST(HtmlLinks, RelativeHrefsResolveAgainstThePageUrl) {
  const HtmlPage page = Extract(
      "<a href='other.html'>Other page</a> <a href=/root>Root</a>"
      "<a href='../up/x?b=2&amp;a=1#frag'>Up</a> <a href='https://Other.EXAMPLE:443/p'>Abs</a>"
      "<a href='//cdn.example.com/lib'>Net</a> <a href='#top'>Top</a>");
  EXPECT_EQ(Urls(page),
            (Strings{"http://example.com/dir/other.html", "http://example.com/root",
                     "http://example.com/up/x?b=2&a=1", "https://other.example/p",
                     "http://cdn.example.com/lib", "http://example.com/dir/page.html"}));
  ASSERT_EQ(page.links.size(), 6u);
  EXPECT_EQ(page.links[0].anchor_text, "Other page");
  EXPECT_EQ(page.links[2].anchor_text, "Up");
  EXPECT_EQ(page.bad_links + page.nofollow_links + page.dropped_links + page.other_scheme_links,
            0u);
}

TEST(HtmlLinks, TheFirstBaseWithAnHrefCounts) {
  // The first <base> has no href; the second is resolved against the page URL; the third
  // is ignored (HTML: "the first base element with an href attribute, in tree order").
  const HtmlPage page = Extract(
      "<head><base target=_blank><base href='/x/'><base href='http://ignored.example/'>"
      "</head><body><a href=y>Y</a><a href='http://abs.example/z'>Z</a>");
  EXPECT_EQ(Urls(page), (Strings{"http://example.com/x/y", "http://abs.example/z"}));

  const HtmlPage absolute =
      Extract("<base href='http://base.example/sub/'><a href=a>A</a><a href='../b'>B</a>");
  EXPECT_EQ(Urls(absolute), (Strings{"http://base.example/sub/a", "http://base.example/b"}));

  // A <base> after the links still counts: it is the document's base URL.
  const HtmlPage late = Extract("<a href=a>A</a><base href='http://late.example/'>");
  EXPECT_EQ(Urls(late), (Strings{"http://late.example/a"}));

  // A base that does not resolve leaves the page URL as base.
  const HtmlPage bad = Extract("<base href='http://[oops/'><a href=a>A</a>");
  EXPECT_EQ(Urls(bad), (Strings{"http://example.com/dir/a"}));
}

TEST(HtmlLinks, AreaHrefsAreLinksWithTheirAltAsAnchorText) {
  const HtmlPage page = Extract(
      "<img usemap=#m><map name=m><area href='/map1' alt=' Map \n one '>"
      "<area alt='no href'><area href='/map2'></map>");
  ASSERT_EQ(Urls(page), (Strings{"http://example.com/map1", "http://example.com/map2"}));
  EXPECT_EQ(page.links[0].anchor_text, "Map one");
  EXPECT_EQ(page.links[1].anchor_text, "");
}

TEST(HtmlLinks, RelNofollowIsCountedNotFollowedUnlessAsked) {
  const std::string body =
      "<a href=/a rel=nofollow>A</a><a href=/b rel='external NoFollow'>B</a>"
      "<a href=/c rel='nofollowing'>C</a><area href=/d rel=nofollow>";
  const HtmlPage page = Extract(body);
  EXPECT_EQ(Urls(page), (Strings{"http://example.com/c"}));
  EXPECT_EQ(page.nofollow_links, 3u);
  EXPECT_FALSE(page.nofollow);

  const HtmlPage followed = Extract(body, {.follow_nofollow = true});
  EXPECT_EQ(followed.links.size(), 4u);
  EXPECT_EQ(followed.nofollow_links, 0u);
}

TEST(HtmlLinks, JavascriptMailtoAndOtherSchemesAreDroppedAndCounted) {
  const HtmlPage page = Extract(
      "<a href='javascript:void(0)'>1</a><a href=' mailto:a@example.com'>2</a>"
      "<a href='tel:+123'>3</a><a href='java&#x09;script:x()'>4</a><a href='ftp://f.example/'>5</a>"
      "<a href='data:text/html,hi'>6</a>"
      "<a href='http://[bad/'>7</a><a href='http://'>8</a>"
      "<a href='HTTPS://OK.example/'>9</a><a href='a:b'>10</a>");
  EXPECT_EQ(Urls(page), (Strings{"https://ok.example/"}));
  EXPECT_EQ(page.other_scheme_links, 7u);
  EXPECT_EQ(page.bad_links, 2u);
}

TEST(HtmlLinks, RepeatsAreKeptOnceFirstAnchorWins) {
  const HtmlPage page = Extract(
      "<a href=/x>first</a><a href='/x#frag'>second</a><a href='http://EXAMPLE.com/x'>third</a>"
      "<a href=/y>y</a>");
  ASSERT_EQ(Urls(page), (Strings{"http://example.com/x", "http://example.com/y"}));
  EXPECT_EQ(page.links[0].anchor_text, "first");
}

TEST(HtmlLinks, MaxLinksDropsAndCountsDistinctLinksPastIt) {
  const HtmlPage page = Extract(
      "<a href=/1>1</a><a href=/2>2</a><a href=/1>1 again</a><a href=/3>3</a>"
      "<a href=/4>4</a><a href=/5>5</a><a href=/4>4 again</a><a href=/2>2 again</a>",
      {.max_links = 3});
  EXPECT_EQ(Urls(page),
            (Strings{"http://example.com/1", "http://example.com/2", "http://example.com/3"}));
  EXPECT_EQ(page.dropped_links, 2u);  // /4 and /5, each once

  EXPECT_TRUE(Extract("<a href=/1>1</a>", {.max_links = 0}).links.empty());
}

TEST(HtmlLinks, LinksAreCanonicalInTheOptionsProfile) {
  const std::string body = "<a href='/p/./q?b=2&a=1'>q</a>";
  EXPECT_EQ(Urls(Extract(body)), (Strings{"http://example.com/p/q?b=2&a=1"}));
  // w3lib/1 sorts the query arguments (urljoin has removed the "." segment).
  EXPECT_EQ(Urls(Extract(body, {.profile = UrlProfile::kW3lib})),
            (Strings{"http://example.com/p/q?a=1&b=2"}));
}

TEST(HtmlLinks, AnchorTextIsTheVisibleTextCollapsedAndCapped) {
  const HtmlPage page = Extract(
      "<a href=/x>  Hello <b>big</b>\n <span>world</span><img alt=ignored src=i.png> </a>"
      "<a href=/y><div>One</div><div>Two</div></a>"
      "<a href=/z>Fish &amp; chips&nbsp;&eacute;<script>no()</script></a>");
  ASSERT_EQ(page.links.size(), 3u);
  EXPECT_EQ(page.links[0].anchor_text, "Hello big world");
  EXPECT_EQ(page.links[1].anchor_text, "One Two");  // block boundaries are spaces
  EXPECT_EQ(page.links[2].anchor_text, "Fish & chips\xC2\xA0\xC3\xA9");

  // 'a' and 200 'é' (2 bytes each): byte 256 is the second byte of the 128th 'é', so the cut
  // falls before it: 'a' and 127 'é', 255 bytes.
  std::string long_text = "a";
  for (int i = 0; i < 200; ++i) long_text += "\xC3\xA9";
  const HtmlPage capped = Extract("<a href=/long>" + long_text + "</a>");
  ASSERT_EQ(capped.links.size(), 1u);
  EXPECT_EQ(capped.links[0].anchor_text, long_text.substr(0, 255));
}

TEST(HtmlLinks, CanonicalLinkIsResolved) {
  EXPECT_EQ(Extract("<link rel=canonical href='/canon?x=1#f'>").canonical,
            "http://example.com/canon?x=1");
  EXPECT_EQ(Extract("<base href='http://b.example/d/'><link rel='Canonical alternate' href=c>"
                    "<link rel=canonical href=/second>")
                .canonical,
            "http://b.example/d/c");
  EXPECT_EQ(Extract("<link rel=stylesheet href=/s.css>").canonical, "");
  EXPECT_EQ(Extract("<link rel=canonical href='javascript:x'>").canonical, "");
}

// ---------------------------------------------------------------------------------------
// Robots meta

TEST(HtmlRobots, MetaRobotsNofollowHidesEveryLink) {
  const std::string body =
      "<meta name=ROBOTS content='noindex, NOFOLLOW'><a href=/a>A</a><a href=/b>B</a>";
  const HtmlPage page = Extract(body);
  EXPECT_TRUE(page.noindex);
  EXPECT_TRUE(page.nofollow);
  EXPECT_TRUE(page.links.empty());
  EXPECT_EQ(page.nofollow_links, 2u);

  const HtmlPage followed = Extract(body, {.follow_nofollow = true});
  EXPECT_TRUE(followed.nofollow);
  EXPECT_EQ(followed.links.size(), 2u);
  EXPECT_EQ(followed.nofollow_links, 0u);
}

TEST(HtmlRobots, NoneMeansBothAndOtherRobotsAreIgnored) {
  const HtmlPage none = Extract("<meta name=' crawlrank ' content=none><a href=/a>A</a>");
  EXPECT_TRUE(none.noindex);
  EXPECT_TRUE(none.nofollow);
  EXPECT_TRUE(none.links.empty());

  const HtmlPage noindex = Extract("<meta name=robots content=noindex><a href=/a>A</a>");
  EXPECT_TRUE(noindex.noindex);
  EXPECT_FALSE(noindex.nofollow);
  EXPECT_EQ(noindex.links.size(), 1u);

  const HtmlPage other =
      Extract("<meta name=googlebot content='noindex,nofollow'><a href=/a>A</a>");
  EXPECT_FALSE(other.noindex);
  EXPECT_FALSE(other.nofollow);
  EXPECT_EQ(other.links.size(), 1u);
}

// ---------------------------------------------------------------------------------------
// Text, title and content hash

TEST(HtmlText, TitleAndEntities) {
  const HtmlPage page = Extract("<title>\n Fish &amp;  Chips &eacute;</title><p>x</p>");
  EXPECT_EQ(page.title, "Fish & Chips \xC3\xA9");
  EXPECT_EQ(page.content_hash, Hash("x"));  // the title is not visible text
}

TEST(HtmlText, MarkupOnlyChangesKeepTheHash) {
  const HtmlPage a = Extract("<p>Hello <b>world</b></p><!-- comment -->");
  const HtmlPage b = Extract(
      "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head>"
      "<body><div class=x><p id=y>Hello\n   world</p></div></body></html>");
  EXPECT_EQ(a.content_hash, Hash("Hello world"));
  EXPECT_EQ(b.content_hash, a.content_hash);
  EXPECT_EQ(a.text_bytes, 11u);
  EXPECT_NE(Extract("<p>Hello World</p>").content_hash, a.content_hash);
  EXPECT_NE(Extract("<p>Hello world!</p>").content_hash, a.content_hash);
}

TEST(HtmlText, BlockBoundariesAreSpacesInlineOnesAreNot) {
  EXPECT_EQ(Extract("<p>a</p><p>b</p>").content_hash, Hash("a b"));
  EXPECT_EQ(Extract("a<br>b<table><td>c</table>").content_hash, Hash("a b c"));
  // A <td> outside a table is no element (HTML ignores the tag): "b" and "c" join.
  EXPECT_EQ(Extract("a<br>b<td>c").content_hash, Hash("a bc"));
  EXPECT_EQ(Extract("<b>a</b>b<span>c</span>").content_hash, Hash("abc"));
}

TEST(HtmlText, ScriptStyleNoscriptTemplateAndHeadAreExcluded) {
  const HtmlPage page = Extract(
      "<head><title>Title</title><script>var inHead = 1;</script></head>"
      "<body><p>Hi</p><script>var x = '<p>no</p>';</script><style>p { color: red }</style>"
      "<noscript>enable js</noscript><template><p>tpl</p></template>"
      "<iframe>frame</iframe><p>there</p></body>");
  EXPECT_EQ(page.content_hash, Hash("Hi there"));
  EXPECT_EQ(page.text_bytes, 8u);
}

TEST(HtmlText, EmptyBody) {
  const HtmlPage page = Extract("");
  EXPECT_EQ(page.content_hash, 0x2D06800538D394C2ULL);  // XXH3-64 of no bytes
  EXPECT_EQ(page.text_bytes, 0u);
  EXPECT_TRUE(page.links.empty());
  EXPECT_EQ(page.title, "");
  EXPECT_EQ(page.charset, "UTF-8");
}

TEST(HtmlText, MalformedHtmlIsParsedNotRejected) {
  const HtmlPage page = Extract(
      "<html><body><p>Unclosed <a href='/a'>link <div>block</p></a><table><td>cell</table>"
      "<<<>>> </a></a></div></span><a href=/b>B<a href=/c>C");
  const Strings urls = Urls(page);
  EXPECT_EQ(urls.front(), "http://example.com/a");
  EXPECT_NE(std::find(urls.begin(), urls.end(), "http://example.com/b"), urls.end());
  EXPECT_NE(std::find(urls.begin(), urls.end(), "http://example.com/c"), urls.end());
  EXPECT_GT(page.text_bytes, 0u);
  // Bytes that are no HTML at all.
  constexpr char kJunk[] = "\0\x01<\xFF\x80><!--<a";
  const std::string junk(kJunk, sizeof kJunk - 1);
  EXPECT_TRUE(ExtractHtml(junk, kPage, "", {}).ok());
}

// Runs `f` on a thread with a 512 KiB stack.
template <typename F>
void RunOnSmallStack(F f) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 512 << 10);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<F*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, &f), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

TEST(HtmlText, DeepNestingDoesNotExhaustTheStack) {
  // kMaxHtmlNesting - 1 nested <span> (Gumbo keeps them nested: each is a child of the one
  // before), on a 512 KiB stack: neither the walk nor freeing the DOM recurses per level.
  constexpr int kDepth = static_cast<int>(kMaxHtmlNesting) - 1;  // the <a> is one more
  std::string body;
  body.reserve(kDepth * 6 + 64);
  for (int i = 0; i < kDepth; ++i) body += "<span>";
  body += "deep <a href=/deep>link</a>";
  HtmlPage page;
  RunOnSmallStack([&] { page = Extract(body); });
  EXPECT_EQ(Urls(page), (Strings{"http://example.com/deep"}));
  EXPECT_EQ(page.content_hash, Hash("deep link"));
  EXPECT_FALSE(page.nesting_cut);
}

TEST(HtmlText, NestingPastTheCapIsCutBeforeGumbo) {
  // 100 000 nested <div>: Gumbo alone would take most of a minute (53 s, docs/crawler.md).
  // Only what comes before the kMaxHtmlNesting + 1st open element is parsed.
  std::string body = "<a href=/before>before</a>";
  for (int i = 0; i < 100000; ++i) body += "<div>";
  body += "<a href=/after>after</a>";
  const HtmlPage page = Extract(body);
  EXPECT_TRUE(page.nesting_cut);
  EXPECT_EQ(Urls(page), (Strings{"http://example.com/before"}));
  // Elements that close themselves, or whose end tag may be left out, open nothing.
  std::string list = "<ul>";
  for (int i = 0; i < 20000; ++i) list += "<li><p>item<br><img src=x><span/>";
  list += "<!-- <div><div> --><script>if (a<b) '<div>'</script><a href=/end>end</a>";
  const HtmlPage flat = Extract(list);
  EXPECT_FALSE(flat.nesting_cut);
  EXPECT_EQ(Urls(flat), (Strings{"http://example.com/end"}));
}

// ---------------------------------------------------------------------------------------
// Charsets

constexpr std::string_view kCafeUtf8 = "<p>caf\xC3\xA9</p>";
constexpr std::string_view kCafeLatin1 = "<p>caf\xE9</p>";

TEST(HtmlCharset, ContentTypeHeaderCharset) {
  const HtmlPage utf8 = Extract(kCafeUtf8);
  EXPECT_EQ(utf8.content_hash, Hash("caf\xC3\xA9"));
  const HtmlPage latin1 = Extract(kCafeLatin1, {}, "text/html; charset=ISO-8859-1");
  EXPECT_EQ(latin1.charset, "windows-1252");
  EXPECT_EQ(latin1.content_hash, utf8.content_hash);
  EXPECT_EQ(Extract(kCafeLatin1, {}, "text/html;charset=\"latin1\"").content_hash,
            utf8.content_hash);
  // The header wins over the meta.
  const HtmlPage header_first =
      Extract("<meta charset=latin1><p>caf\xC3\xA9</p>", {}, "text/html; charset=utf-8");
  EXPECT_EQ(header_first.charset, "UTF-8");
  EXPECT_EQ(header_first.content_hash, utf8.content_hash);
  // An unknown label is ignored: the prescan, then UTF-8, decide.
  EXPECT_EQ(Extract(kCafeUtf8, {}, "text/html; charset=bogus").charset, "UTF-8");
  // windows-1252, not ISO-8859-1: 0x80 is the euro sign.
  EXPECT_EQ(Extract("<p>\x80</p>", {}, "text/html; charset=us-ascii").content_hash,
            Hash("\xE2\x82\xAC"));
}

TEST(HtmlCharset, MetaPrescan) {
  const uint64_t cafe = Hash("caf\xC3\xA9");
  const HtmlPage meta = Extract("<meta charset=latin1><p>caf\xE9</p>");
  EXPECT_EQ(meta.charset, "windows-1252");
  EXPECT_EQ(meta.content_hash, cafe);
  const HtmlPage pragma = Extract(
      "<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=iso-8859-1'>"
      "<p>caf\xE9</p>");
  EXPECT_EQ(pragma.charset, "windows-1252");
  EXPECT_EQ(pragma.content_hash, cafe);
  // content= without http-equiv is no declaration (need_pragma); nor is a commented meta.
  EXPECT_EQ(Extract("<meta content='text/html; charset=latin1'><p>x</p>").charset, "UTF-8");
  EXPECT_EQ(Extract("<!-- <meta charset=latin1> --><p>x</p>").charset, "UTF-8");
  // A meta saying UTF-16 means UTF-8 (the bytes are ASCII-compatible if it was read).
  EXPECT_EQ(Extract("<meta charset=utf-16><p>x</p>").charset, "UTF-8");
  // Only the first 1024 bytes are scanned.
  const std::string late = "<p>" + std::string(1100, 'x') + "</p><meta charset=latin1>";
  EXPECT_EQ(Extract(late).charset, "UTF-8");
}

TEST(HtmlCharset, ByteOrderMarkWins) {
  const uint64_t cafe = Hash("caf\xC3\xA9");
  const HtmlPage bom = Extract("\xEF\xBB\xBF<p>caf\xC3\xA9</p>", {}, "text/html; charset=latin1");
  EXPECT_EQ(bom.charset, "UTF-8");
  EXPECT_EQ(bom.content_hash, cafe);
  // UTF-16LE: each ASCII byte followed by 0; é is U+00E9.
  std::string utf16le = "\xFF\xFE";
  for (char c : std::string_view("<p>caf")) {
    utf16le += c;
    utf16le += '\0';
  }
  utf16le += "\xE9";
  utf16le += '\0';
  const HtmlPage le = Extract(utf16le);
  EXPECT_EQ(le.charset, "UTF-16LE");
  EXPECT_EQ(le.content_hash, cafe);
}

TEST(HtmlCharset, IconvEncodings) {
  // Shift_JIS 日本 is 93 FA 96 7B; UTF-8 E6 97 A5 E6 9C AC.
  const HtmlPage sjis = Extract("<p>\x93\xFA\x96\x7B</p>", {}, "text/html; charset=Shift_JIS");
  EXPECT_EQ(sjis.charset, "Shift_JIS");
  EXPECT_EQ(sjis.content_hash, Hash("\xE6\x97\xA5\xE6\x9C\xAC"));
  // A byte that is no Shift_JIS lead byte (0xA0) becomes U+FFFD.
  EXPECT_EQ(Extract("<p>a\xA0</p>", {}, "text/html; charset=sjis").content_hash,
            Hash("a\xEF\xBF\xBD"));
}

TEST(HtmlCharset, InvalidUtf8IsReplaced) {
  // 0xFF is no UTF-8 byte; E2 82 is a 3-byte sequence cut short: one U+FFFD each (WHATWG's
  // decoder replaces a maximal invalid subpart once).
  const HtmlPage page = Extract(
      "<p>a\xFF"
      "b\xE2\x82"
      "c</p>");
  EXPECT_EQ(page.content_hash, Hash("a\xEF\xBF\xBD"
                                    "b\xEF\xBF\xBD"
                                    "c"));
  EXPECT_EQ(page.text_bytes, 9u);
  EXPECT_EQ(page.charset, "UTF-8");
}

TEST(HtmlCharset, LabelsAndParameters) {
  using crawl_internal::FindEncoding;
  ASSERT_NE(FindEncoding(" LATIN1 "), nullptr);
  EXPECT_STREQ(FindEncoding(" LATIN1 ")->name, "windows-1252");
  EXPECT_STREQ(FindEncoding("ascii")->name, "windows-1252");
  EXPECT_STREQ(FindEncoding("x-sjis")->name, "Shift_JIS");
  EXPECT_STREQ(FindEncoding("utf-16")->name, "UTF-16LE");
  EXPECT_EQ(FindEncoding("utf-7"), nullptr);
  EXPECT_EQ(crawl_internal::CharsetParameter("text/html; Charset = 'koi8-r' ; x"), "koi8-r");
  EXPECT_EQ(crawl_internal::CharsetParameter("text/html; charset=utf-8;q=1"), "utf-8");
  EXPECT_EQ(crawl_internal::CharsetParameter("text/html; charsetx; charset=gbk"), "gbk");
  EXPECT_EQ(crawl_internal::CharsetParameter("text/html"), "");
}

// ---------------------------------------------------------------------------------------
// Errors

TEST(HtmlErrors, PageUrlMustBeAbsoluteHttp) {
  for (const char* url : {"not a url", "/relative", "ftp://example.com/", ""}) {
    const Result<HtmlPage> page = ExtractHtml("<p>x</p>", url, "", {});
    ASSERT_FALSE(page.ok()) << url;
    EXPECT_EQ(page.status().code(), StatusCode::kInvalidArgument);
  }
}

// ---------------------------------------------------------------------------------------
// Keywords

TEST(KeywordScorer, WordsAreLowerCasedRunsOfWordCharacters) {
  const KeywordScorer scorer({"asyncio", "Event Loop", "coroutine", "  ", "event"});
  EXPECT_EQ(scorer.words(), (Strings{"asyncio", "coroutine", "event", "loop"}));
  EXPECT_DOUBLE_EQ(scorer.Share("The EVENT loop runs."), 0.5);
  EXPECT_DOUBLE_EQ(scorer.Share("asyncio, asyncio"), 0.25);
  EXPECT_DOUBLE_EQ(scorer.Share("eventloop async_io"), 0.0);
  EXPECT_DOUBLE_EQ(scorer.Share(""), 0.0);
  EXPECT_DOUBLE_EQ(scorer.Share("coroutine-event/loop:asyncio"), 1.0);
  EXPECT_TRUE(KeywordScorer({}).empty());
  EXPECT_DOUBLE_EQ(KeywordScorer({"!!"}).Share("!!"), 0.0);
}

TEST(KeywordScorer, NonAsciiWordsAsPythonSplitsThem) {
  // re.findall(r"\w+", "Café_au-lait ÉTÉ naïve—über") == ["Café_au", "lait", "ÉTÉ", "naïve",
  // "über"]: the em dash separates, accented letters do not; lower() maps É to é.
  std::vector<std::string> words;
  crawl_internal::ForEachWord(
      "Caf\xC3\xA9_au-lait \xC3\x89T\xC3\x89 na\xC3\xAFve\xE2\x80\x94\xC3\xBC"
      "ber",
      [&](std::string_view w, size_t, size_t) { words.emplace_back(w); });
  EXPECT_EQ(words, (Strings{"caf\xC3\xA9_au", "lait", "\xC3\xA9t\xC3\xA9", "na\xC3\xAFve",
                            "\xC3\xBC"
                            "ber"}));
  const KeywordScorer scorer({"\xC3\x89T\xC3\x89",
                              "\xC3\x9C"
                              "BER",
                              "\xD0\x9C\xD0\x98\xD0\xA0"});
  // Lower-cased: été, über, мир (Cyrillic МИР lower-cased).
  EXPECT_DOUBLE_EQ(scorer.Share("l'\xC3\xA9t\xC3\xA9 \xC3\xBC"
                                "ber alles, \xD0\xBC\xD0\xB8\xD1\x80"),
                   1.0);
}

TEST(KeywordScorer, FromFile) {
  testing::TempDir dir;
  const std::string path = dir.Sub("keywords.txt");
  std::ofstream(path) << "# topical crawl\nasyncio\n\nevent loop  # the loop\n";
  Result<KeywordScorer> scorer = KeywordScorer::FromFile(path);
  ASSERT_TRUE(scorer.ok()) << scorer.status().ToString();
  EXPECT_EQ(scorer->words(), (Strings{"asyncio", "event", "loop"}));

  const Result<KeywordScorer> missing = KeywordScorer::FromFile(dir.Sub("missing.txt"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("missing.txt"), std::string::npos);

  const std::string empty = dir.Sub("empty.txt");
  std::ofstream(empty) << "# nothing\n\n";
  const Result<KeywordScorer> none = KeywordScorer::FromFile(empty);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("empty.txt"), std::string::npos);
}

TEST(KeywordScorer, ContentScoreCountsTitleAndVisibleText) {
  const KeywordScorer scorer({"asyncio", "coroutine", "event", "loop"});
  // Title: asyncio; text: event, loop; coroutine only in a script: 3 of 4.
  const HtmlPage page =
      Extract("<title>Asyncio guide</title><p>The event loop.</p><script>coroutine()</script>",
              {.keywords = &scorer});
  EXPECT_FLOAT_EQ(page.content_score, 0.75f);
  EXPECT_FLOAT_EQ(Extract("<p>asyncio</p>").content_score, 0.f);  // no keywords: 0
}

TEST(KeywordScorer, LinkScoreCountsAnchorAndContextWords) {
  const KeywordScorer scorer({"asyncio", "coroutine", "event", "loop"});
  const std::string body =
      "<p>one two event three <a href=/l>loop here</a> four asyncio five coroutine</p>";
  // Two words each side: "event three" [loop here] "four asyncio": event, loop, asyncio.
  const HtmlPage two = Extract(body, {.keywords = &scorer, .link_context_words = 2});
  ASSERT_EQ(two.links.size(), 1u);
  EXPECT_FLOAT_EQ(two.links[0].score, 0.75f);
  EXPECT_EQ(two.links[0].anchor_text, "loop here");
  // The anchor alone: loop.
  EXPECT_FLOAT_EQ(Extract(body, {.keywords = &scorer, .link_context_words = 0}).links[0].score,
                  0.25f);
  // Ten words (the default) reach coroutine too: all 4.
  EXPECT_FLOAT_EQ(Extract(body, {.keywords = &scorer}).links[0].score, 1.f);
  // Without keywords, 0.
  EXPECT_FLOAT_EQ(Extract(body).links[0].score, 0.f);
}

TEST(KeywordScorer, RepeatedLinkKeepsTheHigherScoreAndFirstAnchor) {
  const KeywordScorer scorer({"asyncio", "coroutine", "event", "loop"});
  const HtmlPage page = Extract(
      "<a href=/x>asyncio</a> filler <a href=/x>event loop coroutine</a>"
      "<map><area href=/m alt='Event loop'></map>",
      {.keywords = &scorer, .link_context_words = 0});
  ASSERT_EQ(page.links.size(), 2u);
  EXPECT_EQ(page.links[0].anchor_text, "asyncio");
  EXPECT_FLOAT_EQ(page.links[0].score, 0.75f);
  EXPECT_FLOAT_EQ(page.links[1].score, 0.5f);  // the area's alt: event, loop
}

}  // namespace
}  // namespace crawlrank
