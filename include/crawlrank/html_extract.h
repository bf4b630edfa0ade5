// crawlrank/html_extract.h: links, text hash and keyword scores of a fetched HTML page.
//
// ExtractHtml decodes a response body to UTF-8, reads it as HTML5 (the way a browser
// builds its DOM, so malformed HTML is never an error) and returns what the built-in
// crawler stores about the page: its out-links (canonical, with anchor text and keyword
// scores), its <link rel=canonical>, its title, its robots directives and a hash of its
// visible text that markup-only changes leave alone. By default no DOM is built: a
// streaming tokenizer and a model of the tree builder read the page, and hand the few
// pages whose tree they cannot predict to Gumbo (HtmlParser). docs/crawler.md ("HTML
// extraction") says the same with examples, and lists where Gumbo 0.10, which both
// parsers follow, departs from today's standard.
//
// Words, for KeywordScorer and the link context: a word is a maximal run of word
// characters, lower-cased; as Python's `\w+` of crawlrank.scrapy.scoring, whose scores
// these match on ASCII text. Word characters are ASCII letters, digits and '_', and every
// non-ASCII code point except whitespace, punctuation and symbol blocks (Latin-1's
// punctuation and signs, U+2000-U+2BFF but super- and subscripts, U+2E00-U+2E7F, CJK
// punctuation U+3000-U+3003 and U+3008-U+301F, fullwidth ASCII punctuation, U+FEFF and
// U+FFFD); rare symbols outside those blocks count as word characters here though
// Python's `\w` rejects them.
// Lower-casing covers ASCII, Latin-1, Latin Extended-A, Greek and basic Cyrillic capitals;
// any other code point is kept as it is.
//
// Caveats:
//   - Deep documents: a page is read only up to the start tag that would open more than
//     kMaxHtmlNesting elements (HtmlPage::nesting_cut). The streaming scan counts its
//     stack of open elements; before Gumbo parses a page, a quick scan of its tags counts
//     them (void elements, self-closed tags and elements whose end tag HTML lets one omit,
//     such as <p> and <li>, do not count), because Gumbo's tree construction is quadratic
//     in the nesting depth of some elements (alone, 53 s over 100 000 nested unclosed
//     <div>). Everything from that tag on is dropped: its links, its text (content_hash
//     and the scores cover the text before), and a title, base, canonical or robots meta
//     found only after it. No real page comes near; a hostile one costs at most 0.15 s
//     with Gumbo (docs/crawler.md).
//   - Memory: Gumbo's DOM takes a few times the body's size, the streaming scan about the
//     body's size; cap the bodies you fetch.
//   - Nothing here runs scripts or reads CSS: text hidden by a style counts as visible,
//     links written by scripts are not found.
//
// Thread safety: ExtractHtml is thread-safe; a KeywordScorer is immutable once built and
// may be shared by threads.
#ifndef CRAWLRANK_HTML_EXTRACT_H_
#define CRAWLRANK_HTML_EXTRACT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"
#include "crawlrank/url.h"

namespace crawlrank {

// The keywords of a topical crawl (Aduana's keyword example): scores text by the share of
// the keyword words it contains. A keyword phrase ("event loop") counts as its words.
class KeywordScorer {
 public:
  // Reads keywords from a text file, one keyword or phrase a line; text from '#' to the end
  // of a line is a comment, blank lines are skipped.
  // Errors: IoError when the file cannot be read, InvalidArgument when it holds no word;
  // both name the file.
  static Result<KeywordScorer> FromFile(const std::string& path);

  // Builds a scorer from keywords or phrases (each split into its words). With no word at
  // all, the scorer is empty() and every share is 0.
  explicit KeywordScorer(const std::vector<std::string>& keywords);

  // Returns the share of the keyword words that occur in `text` (each counted once): 0..1.
  double Share(std::string_view text) const;

  // Returns the index in words() of `lower_word`, a word already lower-cased as above, or
  // -1 when it is no keyword.
  int Find(std::string_view lower_word) const;

  // Returns the distinct keyword words, sorted.
  const std::vector<std::string>& words() const { return words_; }
  size_t size() const { return words_.size(); }
  bool empty() const { return words_.empty(); }

 private:
  std::vector<std::string> words_;  // sorted, distinct
};

// How a page's markup is read. Both give the same HtmlPage for the documents
// docs/crawler.md ("HTML extraction") lists, and the differences it names otherwise.
enum class HtmlParser {
  // A streaming HTML5 tokenizer and a model of the tree builder's decisions that matter
  // to links and text: no DOM, several times faster. A document the model cannot answer
  // as the DOM would (a <frameset>, text a <table> moves out of itself, misnested tags
  // the tree builder re-parents) is parsed with Gumbo instead (HtmlPage::tree_parsed).
  kStreaming,
  // Gumbo's DOM, for every page (the parser before 2026-11; the oracle of the tests).
  kGumbo,
};

struct HtmlExtractOptions {
  // Default: kStreaming.
  HtmlParser parser = HtmlParser::kStreaming;
  // Return the links a page asks robots not to follow: those with rel=nofollow, and every
  // link of a page whose robots meta says nofollow. Default: false, they are only counted
  // (HtmlPage::nofollow_links).
  bool follow_nofollow = false;
  // At most this many distinct links are returned; the rest are counted
  // (HtmlPage::dropped_links). Default: 10000.
  size_t max_links = 10000;
  // The canonicalisation profile of the DB the links go to (url.h).
  UrlProfile profile = UrlProfile::kRfc3986;
  // When set, pages get a content score and links a score by these keywords; the scorer
  // must outlive the call. Default: none (scores stay 0).
  const KeywordScorer* keywords = nullptr;
  // How many words of visible text before and after a link count for its score, besides
  // its anchor text. Default: 10.
  size_t link_context_words = 10;
};

// Longest anchor text kept, in bytes (cut at a UTF-8 character boundary).
inline constexpr size_t kMaxAnchorTextBytes = 256;
// Open elements past which a body is not parsed (Caveats).
inline constexpr size_t kMaxHtmlNesting = 8192;

struct ExtractedLink {
  std::string url;          // canonical, with the options' profile
  std::string anchor_text;  // visible text of the <a>, or an <area>'s alt; collapsed
  float score = 0.f;        // KeywordScorer share of anchor and context words; 0 without
};

struct HtmlPage {
  // Targets of a[href] and area[href], in document order, resolved against the first
  // <base href> (itself resolved against the page URL) or the page URL, canonical. A URL
  // found twice is kept once: the first one's anchor text, the higher score. Links to the
  // page itself (href="#top") are kept.
  std::vector<ExtractedLink> links;
  std::string canonical;  // the first <link rel=canonical href>, resolved; empty if none
  std::string title;      // the first <title>'s text, collapsed
  bool noindex = false;   // <meta name=robots|crawlrank content=noindex|none>
  bool nofollow = false;  // <meta name=robots|crawlrank content=nofollow|none>
  // XXH3-64 (seed 0) of the visible text: the text nodes outside <head>, <title>,
  // <script>, <style>, <noscript>, <template>, <iframe>, <noembed> and <noframes>, where the
  // start and end of each element that is not inline (<p>, <div>, <br>, <td>; not <b>,
  // <span>, <a>) count as whitespace, each run of ASCII whitespace is one space, and
  // leading and trailing ones are dropped. Attributes, comments and inline tags do not
  // change it.
  uint64_t content_hash = 0;
  float content_score = 0.f;        // KeywordScorer share of the title and visible text
  size_t text_bytes = 0;            // bytes of the visible text that content_hash hashes
  uint32_t nofollow_links = 0;      // links not returned because of nofollow
  uint32_t dropped_links = 0;       // distinct links past max_links
  uint32_t bad_links = 0;           // hrefs that resolve to no URL the profile accepts
  uint32_t other_scheme_links = 0;  // javascript:, mailto:, tel:, data:, ftp:, ... hrefs
  // The body nests elements deeper than kMaxHtmlNesting: only the part before the start
  // tag that went past it was parsed, and nothing here comes from the rest (see Caveats).
  bool nesting_cut = false;
  // The page was parsed with Gumbo's tree: HtmlParser::kGumbo, or a document the
  // streaming scan handed over.
  bool tree_parsed = false;
  std::string charset;  // WHATWG name of the encoding the body was decoded from: "UTF-8"
};

// Decodes `body`, parses it and extracts an HtmlPage (see above).
//
// The encoding is, first match wins (the WHATWG encoding sniffing algorithm, HTML §13.2.3.2):
// a byte order mark (UTF-8, UTF-16LE/BE); the charset= parameter of `content_type_header`
// (the Content-Type value, may be empty); a <meta charset> or <meta http-equiv=Content-Type
// content="...charset=..."> in the first 1024 bytes (the "prescan"; UTF-16 there means
// UTF-8); else UTF-8. Labels are the WHATWG Encoding Standard's ("latin1", "iso-8859-1" and
// "ascii" all mean windows-1252); an unknown label is ignored. Bytes are converted with
// glibc's iconv; whatever does not decode becomes U+FFFD, never an error.
//
// Errors: InvalidArgument when `page_url` is not an absolute http(s) URL the profile
// accepts. Nothing in the body is an error.
Result<HtmlPage> ExtractHtml(std::string_view body, std::string_view page_url,
                             std::string_view content_type_header,
                             const HtmlExtractOptions& options = {});

// Whether an answer is HTML the crawler parses: a Content-Type of text/html or
// application/xhtml+xml (any case, parameters ignored), or none and a body whose first
// byte past white space is '<' (as browsers sniff).
bool IsHtmlResponse(std::string_view content_type_header, std::string_view body);

}  // namespace crawlrank

#endif  // CRAWLRANK_HTML_EXTRACT_H_
