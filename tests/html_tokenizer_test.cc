// Tests of crawl/html_tokenizer.h, named after the HTML Living Standard's tokenization
// states and rules (§13.2.5) and the input stream preprocessing (§13.2.3.5). Expected
// tokens are worked out by hand from the standard; named references from its table (e.g.
// "&notin;" is U+2209, "&not" U+00AC); numeric ones from its windows-1252 table (0x80 is
// U+20AC); Gumbo 0.10's replacement of invalid code points from its utf8.c.
#include "crawl/html_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace crawlrank::crawl_internal {
namespace {

// The tokens as strings: T(text) S(name a=v ...) [/] E(name) C D; raw states by tag name
// as a tree builder would ask for them.
std::vector<std::string> Tokens(std::string_view html, bool cdata = false) {
  HtmlTokenizer tokenizer(html);
  tokenizer.set_cdata_allowed(cdata);
  std::vector<std::string> out;
  while (true) {
    const HtmlToken& t = tokenizer.Next();
    switch (t.kind) {
      case HtmlTokenKind::kEnd: return out;
      case HtmlTokenKind::kText: out.push_back("T(" + std::string(t.text) + ")"); break;
      case HtmlTokenKind::kComment: out.emplace_back("C"); break;
      case HtmlTokenKind::kDoctype: out.emplace_back("D"); break;
      case HtmlTokenKind::kEndTag: out.push_back("E(" + std::string(t.name) + ")"); break;
      case HtmlTokenKind::kStartTag: {
        std::string s = "S(" + std::string(t.name);
        for (const HtmlAttribute& a : t.attributes) {
          s += " " + std::string(a.name) + "=" + std::string(a.value);
        }
        s += t.self_closing ? ")/" : ")";
        out.push_back(s);
        if (t.name == "title" || t.name == "textarea") {
          tokenizer.SetTextState(HtmlTextState::kRcdata, t.name);
        } else if (t.name == "style" || t.name == "xmp") {
          tokenizer.SetTextState(HtmlTextState::kRawtext, t.name);
        } else if (t.name == "script") {
          tokenizer.SetTextState(HtmlTextState::kScriptData, t.name);
        } else if (t.name == "plaintext") {
          tokenizer.SetTextState(HtmlTextState::kPlaintext, t.name);
        }
        break;
      }
    }
  }
}

using V = std::vector<std::string>;

TEST(HtmlTokenizer, DataStateTextIsOneTokenPerRun) {
  EXPECT_EQ(Tokens("Hello, <b>big</b> world"),
            (V{"T(Hello, )", "S(b)", "T(big)", "E(b)", "T( world)"}));
}

TEST(HtmlTokenizer, ALessThanSignThatStartsNoTagIsText) {
  EXPECT_EQ(Tokens("a < b <3 c<"), (V{"T(a < b <3 c<)"}));
  EXPECT_EQ(Tokens("x</"), (V{"T(x</)"}));
}

TEST(HtmlTokenizer, TagNamesAndAttributeNamesAreLowerCased) {
  EXPECT_EQ(Tokens("<DiV CLASS=Big ID='X'>"), (V{"S(div class=Big id=X)"}));
}

TEST(HtmlTokenizer, AttributeValueStates) {
  EXPECT_EQ(Tokens("<a href=\"a b\" title='c\"d' x=e\"f y z = w>"),
            (V{"S(a href=a b title=c\"d x=e\"f y= z=w)"}));
  EXPECT_EQ(Tokens("<a href=>x"), (V{"S(a href=)", "T(x)"}));  // missing value
  EXPECT_EQ(Tokens("<a =b>"), (V{"S(a =b=)"}));  // a name may start with "="
}

TEST(HtmlTokenizer, TheFirstOfTwoAttributesWithOneNameCounts) {
  EXPECT_EQ(Tokens("<a href=1 HREF=2 rel=x href=3>"), (V{"S(a href=1 rel=x)"}));
}

TEST(HtmlTokenizer, ADroppedDuplicateWithoutAValueJoinsTheNextNameAsInGumbo) {
  // Gumbo 0.10 keeps a dropped duplicate's name in its buffer when no value follows: the
  // next attribute's name starts with it. The standard would keep href here; Gumbo, the
  // reference of the content hashes and links crawls have stored, does not.
  EXPECT_EQ(Tokens("<a x y x href=1>"), (V{"S(a x= y= xhref=1)"}));
  EXPECT_EQ(Tokens("<a x=1 x=2 href=3>"), (V{"S(a x=1 href=3)"}));
}

TEST(HtmlTokenizer, SelfClosingStartTagAndSlashesElsewhere) {
  EXPECT_EQ(Tokens("<br/><img / src=x/ >"), (V{"S(br)/", "S(img src=x/)"}));
}

TEST(HtmlTokenizer, EndOfInputInATagDropsTheTag) {
  EXPECT_EQ(Tokens("a<a href='x"), (V{"T(a)"}));
  EXPECT_EQ(Tokens("a<div"), (V{"T(a)"}));
}

TEST(HtmlTokenizer, EndTagOpenState) {
  EXPECT_EQ(Tokens("a</>b"), (V{"T(a)", "C", "T(b)"}));     // "</>" is nothing
  EXPECT_EQ(Tokens("a</ x>b"), (V{"T(a)", "C", "T(b)"}));   // a bogus comment
  EXPECT_EQ(Tokens("</P class=x>"), (V{"E(p)"}));
}

TEST(HtmlTokenizer, CommentStatesIncludingTheAbruptForms) {
  EXPECT_EQ(Tokens("<!-->a"), (V{"C", "T(a)"}));
  EXPECT_EQ(Tokens("<!--->a"), (V{"C", "T(a)"}));
  EXPECT_EQ(Tokens("<!-- x --!>a"), (V{"C", "T(a)"}));
  EXPECT_EQ(Tokens("<!-- x --->a"), (V{"C", "T(a)"}));
  EXPECT_EQ(Tokens("<!-----!>a"), (V{"C", "T(a)"}));  // "---!>": the comment end bang state
  EXPECT_EQ(Tokens("<!-- <a href=x> -- >still<!-- -->a"), (V{"C", "T(a)"}));
  EXPECT_EQ(Tokens("a<!-- never closed <b>"), (V{"T(a)", "C"}));
}

TEST(HtmlTokenizer, BogusCommentsAndDoctypes) {
  EXPECT_EQ(Tokens("<?xml version=1?>a<!x>b"), (V{"C", "T(a)", "C", "T(b)"}));
  EXPECT_EQ(Tokens("<!doctype html PUBLIC \"a>b\">c"), (V{"D", "T(b\">c)"}));
}

TEST(HtmlTokenizer, CdataSectionOnlyInForeignContent) {
  EXPECT_EQ(Tokens("<![CDATA[<a>]]>x", true), (V{"T(<a>)", "T(x)"}));
  EXPECT_EQ(Tokens("<![CDATA[<a>]]>x", false), (V{"C", "T(]]>x)"}));
}

TEST(HtmlTokenizer, NamedCharacterReferencesTakeTheLongestMatch) {
  EXPECT_EQ(Tokens("&amp;&lt;&notin;&notit;&AMP&ampx&zzz;&"),
            (V{"T(&<\xE2\x88\x89\xC2\xACit;&&x&zzz;&)"}));
  // Two code points: U+2242 U+0338.
  EXPECT_EQ(Tokens("&NotEqualTilde;"), (V{"T(\xE2\x89\x82\xCC\xB8)"}));
}

TEST(HtmlTokenizer, ALegacyReferenceInAnAttributeBeforeEqualsOrAlnumStaysAsWritten) {
  EXPECT_EQ(Tokens("<a href='?a=1&copy=2&amp=3&copy;&not'>"),
            (V{"S(a href=?a=1&copy=2&amp=3\xC2\xA9\xC2\xAC)"}));
}

TEST(HtmlTokenizer, NumericCharacterReferences) {
  EXPECT_EQ(Tokens("&#65;&#x42;&#X43&#x80;&#0;&#xD800;&#1114112;&#;&#x;&#99999999999999;"),
            (V{"T(ABC\xE2\x82\xAC\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD&#;&#x;\xEF\xBF\xBD)"}));
  EXPECT_EQ(Tokens("&#xnot;&#a1;"), (V{"T(&#xnot;&#a1;)"}));  // no digit: text
}

TEST(HtmlTokenizer, RcdataReadsTagsAsTextAndDecodesReferences) {
  EXPECT_EQ(Tokens("<title>a <b>&amp;</titlex></TITLE >z"),
            (V{"S(title)", "T(a <b>&</titlex>)", "E(title)", "T(z)"}));
  EXPECT_EQ(Tokens("<textarea></textarea"), (V{"S(textarea)", "T(</textarea)"}));
}

TEST(HtmlTokenizer, RawtextDecodesNoReferences) {
  EXPECT_EQ(Tokens("<style>a&amp;<p></style>"), (V{"S(style)", "T(a&amp;<p>)", "E(style)"}));
}

TEST(HtmlTokenizer, ScriptDataEscapedAndDoubleEscapedStates) {
  // An escaped end tag still ends the script.
  EXPECT_EQ(Tokens("<script><!-- x</script>a"),
            (V{"S(script)", "T(<!-- x)", "E(script)", "T(a)"}));
  // "<script" inside an escape doubles it: the first "</script>" does not end the script.
  EXPECT_EQ(Tokens("<script><!--<script>x</script>y--></script>a"),
            (V{"S(script)", "T(<!--<script>x</script>y-->)", "E(script)", "T(a)"}));
  // "-->" ends the escape; "<!-->" opens and closes it at once.
  EXPECT_EQ(Tokens("<script><!--><script></script>a"),
            (V{"S(script)", "T(<!--><script>)", "E(script)", "T(a)"}));
}

TEST(HtmlTokenizer, PlaintextReadsTheRestOfTheInput) {
  EXPECT_EQ(Tokens("<plaintext><a href=x>&amp;</plaintext>"),
            (V{"S(plaintext)", "T(<a href=x>&amp;</plaintext>)"}));
}

TEST(HtmlTokenizer, PreprocessingNewlinesAndInvalidCodePoints) {
  // CR LF and lone CR are LF; C0 controls (not TAB, LF, FF), DEL, C1 controls and
  // non-characters become U+FFFD, as Gumbo's input iterator does.
  EXPECT_EQ(Tokens("a\r\nb\rc\x01" "d\x7F" "e\xC2\x85" "f\xEF\xB7\x90" "g\xF0\x9F\xBF\xBF"),
            (V{"T(a\nb\nc\xEF\xBF\xBD" "d\xEF\xBF\xBD" "e\xEF\xBF\xBD" "f\xEF\xBF\xBD"
               "g\xEF\xBF\xBD)"}));
  EXPECT_EQ(Tokens("<a href='x\r\ny'>"), (V{"S(a href=x\ny)"}));
}

TEST(HtmlTokenizer, NulIsKeptInDataAndReplacedElsewhere) {
  using namespace std::string_literals;
  EXPECT_EQ(Tokens("a\0b"s), (V{"T(a\0b)"s}));
  EXPECT_EQ(Tokens("<title>a\0b</title>"s), (V{"S(title)", "T(a\xEF\xBF\xBD" "b)", "E(title)"}));
  EXPECT_EQ(Tokens("<a href='\0'>"s), (V{"S(a href=\xEF\xBF\xBD)"}));
  // Gumbo 0.10 drops a NUL that starts an attribute name (the standard: U+FFFD), and the
  // extractor keeps its links so.
  EXPECT_EQ(Tokens("<a \0href=x y\0=z>"s), (V{"S(a href=x y\xEF\xBF\xBD=z)"}));
}

}  // namespace
}  // namespace crawlrank::crawl_internal
