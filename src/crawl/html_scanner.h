// The streaming scan's model of the tree builder (html_scan.h): a stack of open elements
// and the insertion modes that change what is visible or linked. html_scan.cc holds the
// document's start and "in body"; html_scan_modes.cc tables, <select> and foreign content.
#ifndef CRAWLRANK_CRAWL_HTML_SCANNER_H_
#define CRAWLRANK_CRAWL_HTML_SCANNER_H_

#include <gumbo.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crawl/html_elements.h"
#include "crawl/html_scan.h"
#include "crawl/html_tokenizer.h"

namespace crawlrank::crawl_internal {

enum class Ns : uint8_t { kHtml, kSvg, kMath };

// The value of the attribute `name` of a start tag, or null.
const std::string_view* FindAttribute(const HtmlToken& token, std::string_view name);
// Whether `text` is only HTML whitespace.
bool IsWhitespaceOnly(std::string_view text);

// One document's scan into a PageMarkup; ScanHtml's whole work.
class HtmlScanner {
 public:
  HtmlScanner(std::string_view html, size_t max_nesting, PageMarkup& out)
      : tokens_(html), out_(out), max_nesting_(max_nesting) {}

  bool Run();

 private:
  // Kinds of elements whose topmost one the searches need (Positions).
  enum Kind : uint8_t {
    kSpecial,   // IsSpecial
    kItemStop,  // special but address, div, p (CloseListItem)
    kMarker,    // IsMarker (HTML)
    kForeign,   // SVG and MathML elements
    kHtmlKind,  // HTML elements
    kBoundary,  // the default scope's boundaries
    kList,      // ol, ul
    kButton,    // button
    kTable,     // html, table, template: the table scope's boundaries
    kKinds
  };
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Open {
    GumboTag tag;
    Ns ns;
    bool hidden;       // counted in hidden_depth_
    bool breaks;       // not an inline element: its start and end count as whitespace
    bool integration;  // an HTML integration point (foreignObject, desc, title in SVG;
                       // annotation-xml with an HTML encoding)
    bool title;        // the document's title: its text goes to out_.title
    uint32_t site;     // the <a> LinkSite this element opened, or kNoSite
    // A foreign element's name as written in its start tag, up to a space or '/' (Gumbo
    // matches foreign end tags by the text between "</" and ">", case ignored).
    std::string source_name;
    uint32_t below_same_tag = kNone;  // the next HTML element of this tag down the stack
    std::array<uint32_t, kKinds> below{};  // the next element of each kind it is of
  };
  // The list of active formatting elements (§13.2.4.3), as far as the scan needs it:
  // which formatting elements, and markers, in order; `open` while the element is on the
  // stack. One closed by another element's end tag stays active: the tree builder
  // re-opens a copy of it before the next text or inline element. `closed_` counts those
  // after the last marker.
  struct Active {
    GumboTag tag;
    bool marker;
    bool open;
  };
  static constexpr uint32_t kNoSite = UINT32_MAX;
  static constexpr size_t kMaxActive = 4096;  // entries of active_ before Gumbo takes over
  enum class Scope { kDefault, kListItem, kButton, kTable };

  // The modes.
  void BeforeBody(const HtmlToken& t);
  void InBody(const HtmlToken& t);
  void BodyStart(const HtmlToken& t, GumboTag tag);
  void BodyEnd(GumboTag tag);
  bool TableStart(const HtmlToken& t, GumboTag tag);
  bool TablePart(const HtmlToken& t, GumboTag tag);
  bool ColumnGroup(const HtmlToken& t, GumboTag tag);
  bool TableEnd(GumboTag tag);
  bool InSelect(const HtmlToken& t, GumboTag tag);
  bool Foreign(const HtmlToken& t, GumboTag tag);
  void HeadElement(const HtmlToken& t, GumboTag tag);
  void EndFormatting(GumboTag tag);
  void CloseListItem(GumboTag tag);
  void CloseOpenA();
  void EndOther(GumboTag tag);
  // The "special" category, foreign elements included, as Gumbo 0.10 lists it.
  static bool IsSpecial(const Open& o);

  // The stack of open elements.
  void Push(const HtmlToken& t, GumboTag tag, Ns ns);
  void Void(const HtmlToken& t, GumboTag tag, Ns ns);
  void PopTo(size_t index);  // pops stack_[index] and everything above it
  // Pops stack_[index] (a formatting element its end tag or the adoption agency closes)
  // and everything above it, and takes it off the list of active formatting elements.
  void CloseFormatting(size_t index);
  // The entry of the last active `tag` after the last marker, or null.
  Active* LastActive(GumboTag tag);
  void Pop() { PopTo(stack_.size() - 1); }
  // The index of the topmost HTML `tag` in `scope`, or npos; InScope of several tags:
  // the topmost of them. Constant time, from the index below (Positions).
  size_t InScope(GumboTag tag, Scope scope) const { return InScope({tag}, scope); }
  size_t InScope(std::initializer_list<GumboTag> tags, Scope scope) const;
  // The index of the topmost open HTML `tag`, or npos.
  size_t Topmost(GumboTag tag) const {
    return positions_.by_tag[tag] == kNone ? SIZE_MAX : positions_.by_tag[tag];
  }
  void CloseP();
  bool ForeignTop() const { return !stack_.empty() && stack_.back().ns != Ns::kHtml; }
  bool TableContext() const;
  GumboTag Top() const { return stack_.empty() ? GUMBO_TAG_HTML : stack_.back().tag; }
  void Raw(HtmlTextState state, const HtmlToken& t, GumboTag tag);

  void Enter(Open& open, const HtmlToken& t);
  void Leave(Open& open);
  void Text(std::string_view text);
  void Break() { pending_space_ = pending_space_ || !out_.text.empty(); }
  void EnterBody();
  void GiveUp() { gave_up_ = true; }

  // Where elements of each kind are on the stack, so that the scope and "special"
  // searches take constant time whatever the nesting (a hostile page nests thousands of
  // elements and closes nothing): the topmost of each kind, and in each Open the one
  // below it (linked lists through the stack, nothing allocated).
  struct Positions {
    Positions() {
      by_tag.fill(kNone);
      top.fill(kNone);
    }
    std::array<uint32_t, GUMBO_TAG_LAST + 1> by_tag;  // HTML elements
    std::array<uint32_t, kKinds> top;
    // Foreign elements by their source_name, lower-cased.
    std::unordered_map<std::string, std::vector<uint32_t>> foreign_names;
  };
  void Index(Open& open, size_t at, bool add);
  // The index of the topmost element of `kind`, or npos.
  size_t TopOf(Kind kind) const {
    return positions_.top[kind] == kNone ? SIZE_MAX : positions_.top[kind];
  }
  static size_t Last(const std::vector<uint32_t>& at) { return at.empty() ? SIZE_MAX : at.back(); }
  // The greater of two indexes, npos counting as below every index.
  static size_t Above(size_t a, size_t b) {
    return a == SIZE_MAX ? b : (b == SIZE_MAX ? a : std::max(a, b));
  }

  HtmlTokenizer tokens_;
  PageMarkup& out_;
  size_t max_nesting_;
  std::vector<Open> stack_;
  Positions positions_;
  bool in_body_ = false;
  bool gave_up_ = false;
  bool raw_ = false;          // the top element is read as raw text; its end tag pops it
  bool form_ = false;         // the form element pointer is set
  size_t select_ = SIZE_MAX;  // the open <select>'s index
  bool select_in_table_ = false;
  int hidden_depth_ = 0;
  int templates_ = 0;
  // Text other than whitespace came since the last element was opened or closed (what
  // Gumbo holds in its text buffer until then).
  bool text_since_flush_ = false;
  std::vector<Active> active_;
  size_t closed_ = 0;
  bool pending_space_ = false;
  std::string title_;  // the title's text as read
};

}  // namespace crawlrank::crawl_internal

#endif  // CRAWLRANK_CRAWL_HTML_SCANNER_H_
