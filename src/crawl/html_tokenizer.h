// A streaming HTML tokenizer after the HTML Living Standard's tokenization states (§13.2.5),
// for the extractor that needs no DOM tree (html_scan.h).
//
// It reads a whole UTF-8 document and returns tokens one at a time: runs of text (not one
// token a character), start and end tags with their attributes, comments and doctypes. The
// input is preprocessed as Gumbo 0.10 does it, so that both parsers see the same
// characters: CR LF and lone CR become LF, and the code points Gumbo counts as invalid
// (C0 controls but TAB, LF, FF and CR; DEL; C1 controls; non-characters) become U+FFFD.
// Character references are decoded in text and attribute values, named ones from the full
// HTML5 table (html_entities.inc), with the standard's rules for a missing ';'.
//
// The tokenizer does not know which element it is in: after a start tag, the caller (the
// tree-builder simulation) says how the text that follows is read with SetTextState, and
// whether `<![CDATA[` opens a CDATA section (foreign content).
//
// Views in a token stay valid until the next call to Next().
#ifndef CRAWLRANK_CRAWL_HTML_TOKENIZER_H_
#define CRAWLRANK_CRAWL_HTML_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace crawlrank::crawl_internal {

struct HtmlAttribute {
  std::string_view name;   // ASCII lower-cased
  std::string_view value;  // character references decoded
};

enum class HtmlTokenKind : uint8_t { kText, kStartTag, kEndTag, kComment, kDoctype, kEnd };

struct HtmlToken {
  HtmlTokenKind kind = HtmlTokenKind::kEnd;
  // kText: the characters, preprocessed and decoded. In the data state a U+0000 is kept
  // as a NUL byte (the tree builder drops it or replaces it, by insertion mode); in the
  // others it is U+FFFD already.
  std::string_view text;
  std::string_view name;  // tags: the name, ASCII lower-cased
  // Start tags: the attributes in order; of two with the same name the first is kept.
  std::span<const HtmlAttribute> attributes;
  bool self_closing = false;  // start tags: "<br/>"
  size_t offset = 0;          // where the token starts in the input
  // Tags: the tag as written, '<' to '>' (Gumbo compares foreign end tags by it), a
  // "</>" right before it included, as in Gumbo.
  std::string_view source;
};

// How the text after a start tag is read, up to the matching end tag (the standard's
// RCDATA, RAWTEXT, script data and PLAINTEXT states); kData is markup.
enum class HtmlTextState : uint8_t { kData, kRcdata, kRawtext, kScriptData, kPlaintext };

class HtmlTokenizer {
 public:
  // `input` is UTF-8 (ExtractHtml decodes bodies first); it must outlive the tokenizer.
  explicit HtmlTokenizer(std::string_view input);

  HtmlTokenizer(const HtmlTokenizer&) = delete;
  HtmlTokenizer& operator=(const HtmlTokenizer&) = delete;

  // The next token; kEnd at the end of the input, and on every call after it. A tag or
  // comment left open at the end of the input is dropped, as the standard says.
  const HtmlToken& Next();

  // Call right after the start tag `name` that switches the state: the text up to the
  // end tag </name> (ASCII case ignored) is read in `state`. kPlaintext reads the rest
  // of the input.
  void SetTextState(HtmlTextState state, std::string_view name);

  // Whether the adjusted current node is in foreign content (SVG, MathML), where
  // `<![CDATA[...]]>` is text; elsewhere it is a bogus comment. Default: false.
  void set_cdata_allowed(bool allowed) { cdata_allowed_ = allowed; }

 private:
  struct AttributeSpan {  // where an attribute's name and value lie until the tag is done
    uint32_t name_begin, name_size, value_begin, value_size;
    bool name_in_buffer, value_in_buffer;
    bool has_value = true;  // an '=' followed the name
  };

  void ReadText();
  void ReadRawText(bool references, bool script);
  void ReadPlaintext();
  // At '<' in the data state: reads a tag, comment or doctype into token_ and returns true,
  // or returns false when the '<' is text.
  bool ReadMarkup();
  // Reads a tag whose name starts at pos_; `end` for an end tag. False at end of input.
  bool ReadTag(bool end, size_t begin);
  void ReadAttributes();
  // Keeps the first of the attributes with one name (and Gumbo's quirk, see the .cc).
  void DropDuplicateAttributes();
  bool ReadAttributeValue(AttributeSpan& attribute);
  void ReadComment(size_t begin);
  void ReadBogusComment(size_t begin, size_t from);
  void ReadDoctype(size_t begin);
  void ReadCdata(size_t begin);
  // Whether the input at pos_ ("</" already seen at pos_ - 2) is the end tag that ends
  // the raw text: the name, then whitespace, '/' or '>'.
  bool AtRawTextEnd(size_t at) const;

  // Appends `part` to `out`, preprocessed: CR LF and CR as LF, invalid code points as
  // U+FFFD, NUL as `nul`.
  static void AppendPreprocessed(std::string_view part, std::string& out, std::string_view nul);
  // At input_[at] == '&': appends the reference's characters to `out` and returns the
  // index past it, or returns `at` when there is no reference there. `quote` is the
  // attribute value's quote ('"', '\'', '>' unquoted) or 0 in text.
  size_t DecodeReference(size_t at, char quote, std::string& out) const;

  // Makes token_ the text input_[begin, end), preprocessed, references decoded if asked.
  void EmitText(size_t begin, size_t end, bool references, std::string_view nul);
  // Makes token_ a fresh token of `kind` starting at input_[begin].
  void StartToken(HtmlTokenKind kind, size_t begin);
  // Makes token_ kEnd and moves to the end of the input.
  void EmitEnd();

  std::string_view input_;
  size_t pos_ = 0;
  HtmlTextState state_ = HtmlTextState::kData;
  std::string raw_end_name_;  // the end tag that ends kRcdata, kRawtext, kScriptData
  bool cdata_allowed_ = false;
  size_t source_begin_ = std::string_view::npos;  // a "</>" the next tag's source starts at
  HtmlToken token_;
  std::string text_;         // a text token's characters when they differ from the input
  std::string tag_buffer_;   // a tag's name and attributes when they differ from the input
  std::vector<AttributeSpan> spans_;
  std::vector<HtmlAttribute> attributes_;
  std::deque<std::string> joined_names_;  // names made of a dropped duplicate's and the next
};

}  // namespace crawlrank::crawl_internal

#endif  // CRAWLRANK_CRAWL_HTML_TOKENIZER_H_
