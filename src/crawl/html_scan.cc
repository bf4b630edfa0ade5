// ScanHtml (html_scan.h): the tokenizer's tokens through a small model of the HTML tree
// builder (§13.2.6) that keeps a stack of open elements and the few insertion modes that
// change what is visible or linked: before <body>, in <body>, tables, <select>, foreign
// content (SVG, MathML) and raw-text elements. Where the real tree builder would move
// nodes, the scan gives up and Gumbo parses the page.
#include "crawl/html_scan.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "base/ascii.h"
#include "crawl/html_elements.h"
#include "crawl/html_scanner.h"

namespace crawlrank::crawl_internal {

void AppendCollapsed(std::string_view text, std::string& out, bool& pending) {
  size_t i = 0;
  while (i < text.size()) {
    if (IsAsciiSpace(text[i])) {
      pending = pending || !out.empty();
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && !IsAsciiSpace(text[end])) ++end;
    if (pending) {
      out += ' ';
      pending = false;
    }
    out.append(text.data() + i, end - i);
    i = end;
  }
}

bool HasToken(std::string_view list, std::string_view token) {
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (IsAsciiSpace(list[i]) || list[i] == ',')) ++i;
    size_t end = i;
    while (end < list.size() && !IsAsciiSpace(list[end]) && list[end] != ',') ++end;
    if (end > i && AsciiEqualsIgnoreCase(list.substr(i, end - i), token)) return true;
    i = end;
  }
  return false;
}

bool IsRobotsMetaName(std::string_view name) {
  const std::string_view n = TrimAsciiSpace(name);
  return AsciiEqualsIgnoreCase(n, "robots") || AsciiEqualsIgnoreCase(n, "crawlrank");
}

std::string CollapsedText(std::string_view text) {
  std::string out;
  bool pending = false;
  AppendCollapsed(text, out, pending);
  return out;
}

const std::string_view* FindAttribute(const HtmlToken& token, std::string_view name) {
  for (const HtmlAttribute& a : token.attributes) {
    if (a.name == name) return &a.value;
  }
  return nullptr;
}

bool IsWhitespaceOnly(std::string_view text) {
  for (const char c : text) {
    if (!(c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r')) return false;
  }
  return true;
}

bool HtmlScanner::IsSpecial(const Open& o) {
  switch (o.ns) {
    case Ns::kHtml: return IsSpecialHtml(o.tag);
    case Ns::kMath: return IsMathTextIntegration(o.tag) || o.tag == GUMBO_TAG_ANNOTATION_XML;
    case Ns::kSvg: return o.tag == GUMBO_TAG_FOREIGNOBJECT || o.tag == GUMBO_TAG_DESC;
  }
  return false;
}

bool HtmlScanner::Run() {
  while (!gave_up_ && !out_.nesting_cut) {
    const HtmlToken& t = tokens_.Next();
    if (t.kind == HtmlTokenKind::kEnd) break;
    if (t.kind == HtmlTokenKind::kComment || t.kind == HtmlTokenKind::kDoctype) continue;
    if (raw_) {  // text up to the raw-text element's end tag
      if (t.kind == HtmlTokenKind::kText) {
        Text(t.text);
      } else {
        raw_ = false;
        Pop();
      }
    } else if (in_body_ || templates_ > 0) {
      InBody(t);
    } else {
      BeforeBody(t);
    }
    tokens_.set_cdata_allowed(ForeignTop());
  }
  if (gave_up_) return false;
  if (!stack_.empty()) PopTo(0);
  return true;
}

void HtmlScanner::Enter(Open& open, const HtmlToken& t) {
  switch (open.tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_AREA:
      if (const std::string_view* href = FindAttribute(t, "href")) {
        LinkSite site;
        out_.SetHref(site, *href);
        site.is_area = open.tag == GUMBO_TAG_AREA;
        site.text_begin = site.text_end = out_.text.size();
        if (const std::string_view* rel = FindAttribute(t, "rel")) {
          site.nofollow = HasToken(*rel, "nofollow");
        }
        if (site.is_area) {
          if (const std::string_view* alt = FindAttribute(t, "alt")) site.alt = CollapsedText(*alt);
        } else {
          open.site = static_cast<uint32_t>(out_.sites.size());
        }
        out_.sites.push_back(std::move(site));
      }
      break;
    case GUMBO_TAG_BASE:
      if (!out_.has_base) {
        if (const std::string_view* href = FindAttribute(t, "href")) {
          out_.has_base = true;
          out_.base_href.assign(*href);
        }
      }
      break;
    case GUMBO_TAG_LINK:
      if (!out_.has_canonical) {
        const std::string_view* rel = FindAttribute(t, "rel");
        const std::string_view* href = FindAttribute(t, "href");
        if (rel != nullptr && href != nullptr && HasToken(*rel, "canonical")) {
          out_.has_canonical = true;
          out_.canonical_href.assign(*href);
        }
      }
      break;
    case GUMBO_TAG_META:
      if (const std::string_view* name = FindAttribute(t, "name"); name && IsRobotsMetaName(*name)) {
        if (const std::string_view* content = FindAttribute(t, "content")) {
          const bool none = HasToken(*content, "none");
          out_.noindex = out_.noindex || none || HasToken(*content, "noindex");
          out_.nofollow = out_.nofollow || none || HasToken(*content, "nofollow");
        }
      }
      break;
    case GUMBO_TAG_TITLE:
      if (!out_.has_title && open.ns == Ns::kHtml) {
        out_.has_title = true;
        open.title = true;
        title_.clear();
      }
      break;
    default: break;
  }
  open.hidden = IsHiddenTag(open.tag);
  open.breaks = !IsInlineTag(open.tag);
  if (open.hidden) ++hidden_depth_;
  if (open.tag == GUMBO_TAG_TEMPLATE) ++templates_;
  if (open.breaks) Break();
}

void HtmlScanner::Leave(Open& open) {
  if (open.site != kNoSite) out_.sites[open.site].text_end = out_.text.size();
  if (open.title) out_.title = CollapsedText(title_);
  if (open.hidden) --hidden_depth_;
  if (open.tag == GUMBO_TAG_TEMPLATE) --templates_;
  if (open.breaks) Break();
}

void HtmlScanner::Text(std::string_view text) {
  // Whitespace moved past an element's end reads the same.
  text_since_flush_ = text_since_flush_ || !IsWhitespaceOnly(text);
  if (!stack_.empty() && stack_.back().title) title_.append(text);
  if (hidden_depth_ > 0 || !in_body_) return;
  if (text.find('\0') == std::string_view::npos) {
    AppendCollapsed(text, out_.text, pending_space_);
    return;
  }
  // NUL: dropped in HTML content, U+FFFD in foreign content.
  std::string clean;
  for (const char c : text) {
    if (c != '\0') {
      clean += c;
    } else if (ForeignTop()) {
      clean += "\xEF\xBF\xBD";
    }
  }
  AppendCollapsed(clean, out_.text, pending_space_);
}

void HtmlScanner::Push(const HtmlToken& t, GumboTag tag, Ns ns) {
  if (stack_.size() >= max_nesting_) {
    // As if the document ended before this tag: the caller stops reading.
    out_.nesting_cut = true;
    return;
  }
  text_since_flush_ = false;
  Open& open = stack_.emplace_back(Open{tag, ns, false, false, false, false, kNoSite, {}, kNone, {}});
  if (ns != Ns::kHtml && t.source.size() >= 3 && t.source[1] == '/') {
    // "</>" then the start tag: Gumbo reads the text as an end tag's ("></svg>" for
    // "</><svg>"), which no end tag matches.
    open.source_name.assign(t.source.substr(2, t.source.size() - 3));
  } else if (ns != Ns::kHtml && t.source.size() >= 2) {
    std::string_view name = t.source.substr(1, t.source.size() - 2);
    for (size_t i = 0; i < name.size(); ++i) {
      if (std::isspace(static_cast<unsigned char>(name[i])) || name[i] == '/') {
        name = name.substr(0, i);
        break;
      }
    }
    open.source_name.assign(name);
  }
  if (ns == Ns::kSvg && OneOf(tag, GUMBO_TAG_FOREIGNOBJECT, GUMBO_TAG_DESC, GUMBO_TAG_TITLE)) {
    open.integration = true;
  }
  if (ns == Ns::kMath && tag == GUMBO_TAG_ANNOTATION_XML) {
    const std::string_view* encoding = FindAttribute(t, "encoding");
    open.integration = encoding != nullptr && (AsciiEqualsIgnoreCase(*encoding, "text/html") ||
                                               AsciiEqualsIgnoreCase(*encoding,
                                                                     "application/xhtml+xml"));
  }
  if (ns == Ns::kHtml && (IsFormatting(tag) || IsMarker(tag))) {
    // Past a few thousand, Gumbo's list is the one to keep (it caps copies of equal ones).
    if (active_.size() >= kMaxActive) return GiveUp();
    active_.push_back(Active{tag, IsMarker(tag), true});
  }
  Index(open, stack_.size() - 1, true);
  Enter(open, t);
}

void HtmlScanner::Index(Open& open, size_t at, bool add) {
  const auto update = [&](uint32_t& top, uint32_t& below) {
    if (add) {
      below = top;
      top = static_cast<uint32_t>(at);
    } else {
      top = below;
    }
  };
  const auto kind = [&](Kind k) { update(positions_.top[k], open.below[k]); };
  const bool html = open.ns == Ns::kHtml;
  if (html) update(positions_.by_tag[open.tag], open.below_same_tag);
  if (IsSpecial(open)) {
    kind(kSpecial);
    if (!(html && OneOf(open.tag, GUMBO_TAG_ADDRESS, GUMBO_TAG_DIV, GUMBO_TAG_P))) kind(kItemStop);
  }
  if (html) {
    kind(kHtmlKind);
  } else {
    kind(kForeign);
    std::string key = open.source_name;
    AsciiStrToLower(key);
    std::vector<uint32_t>& named = positions_.foreign_names[key];
    if (add) {
      named.push_back(static_cast<uint32_t>(at));
    } else {
      named.pop_back();
    }
  }
  if (html && IsMarker(open.tag)) kind(kMarker);
  const bool boundary =
      html ? OneOf(open.tag, GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML, GUMBO_TAG_TABLE,
                   GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT,
                   GUMBO_TAG_TEMPLATE)
           : (open.ns == Ns::kMath
                  ? IsMathTextIntegration(open.tag) || open.tag == GUMBO_TAG_ANNOTATION_XML
                  : OneOf(open.tag, GUMBO_TAG_FOREIGNOBJECT, GUMBO_TAG_DESC, GUMBO_TAG_TITLE));
  if (boundary) kind(kBoundary);
  if (html && OneOf(open.tag, GUMBO_TAG_OL, GUMBO_TAG_UL)) kind(kList);
  if (html && open.tag == GUMBO_TAG_BUTTON) kind(kButton);
  if (html && OneOf(open.tag, GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TEMPLATE)) kind(kTable);
}

size_t HtmlScanner::InScope(std::initializer_list<GumboTag> tags, Scope scope) const {
  // The topmost of `tags`, unless a boundary of the scope is above it (the element being
  // a boundary itself does not hide it).
  size_t at = SIZE_MAX;
  for (const GumboTag tag : tags) at = Above(at, Topmost(tag));
  if (at == SIZE_MAX) return SIZE_MAX;
  size_t boundary = TopOf(kTable);
  if (scope != Scope::kTable) boundary = Above(boundary, TopOf(kBoundary));
  if (scope == Scope::kListItem) boundary = Above(boundary, TopOf(kList));
  if (scope == Scope::kButton) boundary = Above(boundary, TopOf(kButton));
  return boundary == SIZE_MAX || at >= boundary ? at : SIZE_MAX;
}

HtmlScanner::Active* HtmlScanner::LastActive(GumboTag tag) {
  for (size_t i = active_.size(); i-- > 0;) {
    if (active_[i].marker) return nullptr;
    if (active_[i].tag == tag) return &active_[i];
  }
  return nullptr;
}

void HtmlScanner::CloseFormatting(size_t index) {
  const GumboTag tag = stack_[index].tag;
  PopTo(index);
  for (size_t i = active_.size(); i-- > 0 && !active_[i].marker;) {
    if (active_[i].tag == tag && !active_[i].open) {
      --closed_;
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }
}

void HtmlScanner::Void(const HtmlToken& t, GumboTag tag, Ns ns) {
  Push(t, tag, ns);
  if (!out_.nesting_cut) Pop();
}

void HtmlScanner::PopTo(size_t index) {
  // A formatting element closed by another element's end stays active (Active); a copy of
  // an <a> would be a link of its own: Gumbo's to make. A marker closing ends the
  // formatting elements after it.
  bool open_a = false;
  if (stack_.size() > index) text_since_flush_ = false;
  while (stack_.size() > index) {
    Open& open = stack_.back();
    if (open.ns == Ns::kHtml && IsMarker(open.tag)) {
      while (!active_.empty() && !active_.back().marker) {
        closed_ -= active_.back().open ? 0 : 1;
        active_.pop_back();
      }
      if (!active_.empty()) active_.pop_back();
      closed_ = 0;
      for (size_t i = active_.size(); i-- > 0 && !active_[i].marker;) {
        closed_ += active_[i].open ? 0 : 1;
      }
      open_a = false;
    } else if (open.ns == Ns::kHtml && IsFormatting(open.tag)) {
      for (size_t i = active_.size(); i-- > 0 && !active_[i].marker;) {
        if (active_[i].tag == open.tag && active_[i].open) {
          active_[i].open = false;
          ++closed_;
          break;
        }
      }
      open_a = open_a || (open.tag == GUMBO_TAG_A && stack_.size() - 1 > index);
    }
    if (stack_.size() - 1 == select_) select_ = SIZE_MAX;
    Index(open, stack_.size() - 1, false);
    Leave(open);
    stack_.pop_back();
  }
  if (open_a) GiveUp();
}

void HtmlScanner::CloseP() {
  if (const size_t p = InScope(GUMBO_TAG_P, Scope::kButton); p != SIZE_MAX) PopTo(p);
}

bool HtmlScanner::TableContext() const {
  return !stack_.empty() && stack_.back().ns == Ns::kHtml &&
         OneOf(stack_.back().tag, GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD,
               GUMBO_TAG_TFOOT, GUMBO_TAG_TR);
}

void HtmlScanner::Raw(HtmlTextState state, const HtmlToken& t, GumboTag tag) {
  Push(t, tag, Ns::kHtml);
  tokens_.SetTextState(state, t.name);
  if (state != HtmlTextState::kPlaintext) raw_ = true;
}

void HtmlScanner::EnterBody() {
  if (!stack_.empty()) PopTo(0);  // an open <noscript> of the head
  in_body_ = true;
}

void HtmlScanner::HeadElement(const HtmlToken& t, GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_TITLE: Raw(HtmlTextState::kRcdata, t, tag); break;
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOFRAMES: Raw(HtmlTextState::kRawtext, t, tag); break;
    case GUMBO_TAG_SCRIPT: Raw(HtmlTextState::kScriptData, t, tag); break;
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NOSCRIPT: Push(t, tag, Ns::kHtml); break;
    default: Void(t, tag, Ns::kHtml); break;  // base, basefont, bgsound, link, meta, menuitem
  }
}

void HtmlScanner::BeforeBody(const HtmlToken& t) {
  // Initial, before html, before head, in head, in head noscript, after head: only
  // whitespace, comments and head elements keep the body from starting.
  const bool noscript = !stack_.empty() && stack_.back().tag == GUMBO_TAG_NOSCRIPT;
  if (t.kind == HtmlTokenKind::kText) {
    size_t i = 0;
    while (i < t.text.size() && IsWhitespaceOnly(t.text.substr(i, 1))) ++i;
    if (i == t.text.size()) return;
    EnterBody();
    InBody(t);  // the leading whitespace is the head's; the text is empty so far
    return;
  }
  GumboTag tag = gumbo_tagn_enum(t.name.data(), static_cast<unsigned>(t.name.size()));
  if (t.kind == HtmlTokenKind::kStartTag) {
    if (OneOf(tag, GUMBO_TAG_HTML, GUMBO_TAG_HEAD)) return;
    if (noscript && !OneOf(tag, GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND, GUMBO_TAG_LINK,
                           GUMBO_TAG_META, GUMBO_TAG_NOFRAMES, GUMBO_TAG_STYLE)) {
      if (tag == GUMBO_TAG_NOSCRIPT) return;
      Pop();
    }
    if (OneOf(tag, GUMBO_TAG_BASE, GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND, GUMBO_TAG_LINK,
              GUMBO_TAG_META, GUMBO_TAG_MENUITEM, GUMBO_TAG_TITLE, GUMBO_TAG_NOSCRIPT,
              GUMBO_TAG_NOFRAMES, GUMBO_TAG_STYLE, GUMBO_TAG_SCRIPT, GUMBO_TAG_TEMPLATE)) {
      HeadElement(t, tag);
      return;
    }
    if (tag == GUMBO_TAG_FRAMESET) return GiveUp();
    EnterBody();
    if (tag != GUMBO_TAG_BODY) InBody(t);
    return;
  }
  // End tags.
  if (noscript && tag == GUMBO_TAG_NOSCRIPT) return Pop();
  if (OneOf(tag, GUMBO_TAG_BODY, GUMBO_TAG_HTML, GUMBO_TAG_BR)) {
    EnterBody();
    InBody(t);
  }
}

void HtmlScanner::InBody(const HtmlToken& t) {
  GumboTag tag = t.kind == HtmlTokenKind::kText
                     ? GUMBO_TAG_UNKNOWN
                     : gumbo_tagn_enum(t.name.data(), static_cast<unsigned>(t.name.size()));
  if (closed_ > 0 && t.kind != HtmlTokenKind::kEndTag && ForeignTop()) {
    // Copies of formatting elements about to open: on HTML elements they change nothing
    // here (their end tags give up, EndFormatting); inside an integration point they
    // would make the current node HTML.
    return GiveUp();
  }
  if (ForeignTop() && Foreign(t, tag)) return;
  if (select_ != SIZE_MAX && InSelect(t, tag)) return;
  if (Top() == GUMBO_TAG_COLGROUP && ColumnGroup(t, tag)) return;
  if (t.kind == HtmlTokenKind::kText) {
    if (TableContext() && !IsWhitespaceOnly(t.text)) return GiveUp();  // foster parenting
    return Text(t.text);
  }
  if (TableContext() && (t.kind == HtmlTokenKind::kStartTag ? TableStart(t, tag) : TableEnd(tag))) {
    return;
  }
  if (TablePart(t, tag)) return;
  if (t.kind == HtmlTokenKind::kStartTag) {
    if (tag == GUMBO_TAG_IMAGE) tag = GUMBO_TAG_IMG;
    BodyStart(t, tag);
  } else {
    BodyEnd(tag);
  }
}


void HtmlScanner::BodyStart(const HtmlToken& t, GumboTag tag) {
  // "In body" start tags (§13.2.6.4.7).
  if (OneOf(tag, GUMBO_TAG_HTML, GUMBO_TAG_BODY, GUMBO_TAG_HEAD, GUMBO_TAG_FRAME,
            GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_TBODY,
            GUMBO_TAG_TD, GUMBO_TAG_TFOOT, GUMBO_TAG_TH, GUMBO_TAG_THEAD, GUMBO_TAG_TR)) {
    return;  // ignored (table parts outside a table too)
  }
  if (OneOf(tag, GUMBO_TAG_FRAMESET, GUMBO_TAG_ISINDEX)) return GiveUp();
  if (OneOf(tag, GUMBO_TAG_BASE, GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND, GUMBO_TAG_LINK,
            GUMBO_TAG_META, GUMBO_TAG_MENUITEM, GUMBO_TAG_TITLE, GUMBO_TAG_NOFRAMES,
            GUMBO_TAG_STYLE, GUMBO_TAG_SCRIPT, GUMBO_TAG_TEMPLATE)) {
    return HeadElement(t, tag);
  }
  if (ClosesP(tag) || OneOf(tag, GUMBO_TAG_PRE, GUMBO_TAG_LISTING, GUMBO_TAG_HR) ||
      IsHeading(tag)) {
    CloseP();
    if (IsHeading(tag) && IsHeading(Top())) Pop();
    return tag == GUMBO_TAG_HR ? Void(t, tag, Ns::kHtml) : Push(t, tag, Ns::kHtml);
  }
  switch (tag) {
    case GUMBO_TAG_FORM:
      if (form_ && templates_ == 0) return;
      CloseP();
      form_ = true;
      return Push(t, tag, Ns::kHtml);
    case GUMBO_TAG_LI:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DT:
      CloseListItem(tag);
      CloseP();
      return Push(t, tag, Ns::kHtml);
    case GUMBO_TAG_PLAINTEXT:
      CloseP();
      return Raw(HtmlTextState::kPlaintext, t, tag);
    case GUMBO_TAG_BUTTON:
      if (const size_t at = InScope(GUMBO_TAG_BUTTON, Scope::kDefault); at != SIZE_MAX) PopTo(at);
      return Push(t, tag, Ns::kHtml);
    case GUMBO_TAG_A:
      CloseOpenA();
      if (!gave_up_) Push(t, tag, Ns::kHtml);
      return;
    case GUMBO_TAG_NOBR:
      if (InScope(GUMBO_TAG_NOBR, Scope::kDefault) != SIZE_MAX) return GiveUp();
      return Push(t, tag, Ns::kHtml);
    case GUMBO_TAG_TABLE:
      CloseP();
      return Push(t, tag, Ns::kHtml);
    case GUMBO_TAG_TEXTAREA: return Raw(HtmlTextState::kRcdata, t, tag);
    case GUMBO_TAG_XMP:
      CloseP();
      return Raw(HtmlTextState::kRawtext, t, tag);
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_NOEMBED: return Raw(HtmlTextState::kRawtext, t, tag);
    case GUMBO_TAG_SELECT:
      Push(t, tag, Ns::kHtml);
      select_ = stack_.size() - 1;
      select_in_table_ = InScope(GUMBO_TAG_TABLE, Scope::kTable) != SIZE_MAX;
      return;
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_OPTGROUP:
      if (Top() == GUMBO_TAG_OPTION) Pop();
      return Push(t, tag, Ns::kHtml);
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_SVG:
      Push(t, tag, tag == GUMBO_TAG_SVG ? Ns::kSvg : Ns::kMath);
      if (t.self_closing && !out_.nesting_cut) Pop();
      return;
    default: break;
  }
  if (IsVoid(tag)) return Void(t, tag, Ns::kHtml);
  Push(t, tag, Ns::kHtml);  // "<div/>" opens a div: a slash means nothing on HTML elements
}

void HtmlScanner::CloseListItem(GumboTag tag) {
  // A new <li> closes the open one, a <dd> or <dt> the open <dd> or <dt>, unless a special
  // element other than address, div and p comes first.
  const size_t item = tag == GUMBO_TAG_LI
                          ? Topmost(GUMBO_TAG_LI)
                          : Above(Topmost(GUMBO_TAG_DD), Topmost(GUMBO_TAG_DT));
  const size_t stop = TopOf(kItemStop);
  if (item != SIZE_MAX && (stop == SIZE_MAX || item >= stop)) PopTo(item);
}

void HtmlScanner::CloseOpenA() {
  // An <a> still open (an active formatting element: above the last marker): the adoption
  // agency closes it before the new one opens; with a block open inside it, it would move
  // nodes.
  const size_t a = Topmost(GUMBO_TAG_A);
  const size_t marker = TopOf(kMarker);
  if (a == SIZE_MAX || (marker != SIZE_MAX && marker > a)) return;
  const size_t blocks = Above(TopOf(kSpecial), TopOf(kForeign));
  if (blocks != SIZE_MAX && blocks > a) return GiveUp();
  CloseFormatting(a);
}

void HtmlScanner::BodyEnd(GumboTag tag) {
  // "In body" end tags (§13.2.6.4.7).
  if (IsBlockEnd(tag)) {
    if (const size_t at = InScope(tag, Scope::kDefault); at != SIZE_MAX) PopTo(at);
    return;
  }
  switch (tag) {
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_HTML: return;  // after body: what follows is still the body's
    case GUMBO_TAG_P:
      if (const size_t at = InScope(GUMBO_TAG_P, Scope::kButton); at != SIZE_MAX) return PopTo(at);
      Break();  // an empty <p> of its own
      return;
    case GUMBO_TAG_BR: {
      HtmlToken br;
      br.kind = HtmlTokenKind::kStartTag;
      br.name = "br";
      return Void(br, GUMBO_TAG_BR, Ns::kHtml);
    }
    case GUMBO_TAG_LI:
      if (const size_t at = InScope(tag, Scope::kListItem); at != SIZE_MAX) PopTo(at);
      return;
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DT:
      if (const size_t at = InScope(tag, Scope::kDefault); at != SIZE_MAX) PopTo(at);
      return;
    case GUMBO_TAG_FORM: {
      form_ = false;
      const size_t at = InScope(tag, Scope::kDefault);
      if (at == SIZE_MAX) return;
      // The form alone is removed; elements still open inside it stay open. Gumbo moves
      // text it has not inserted yet (since the last element it opened or closed) after
      // the form: the tree is Gumbo's to build then.
      if (at + 1 == stack_.size() && text_since_flush_) return GiveUp();
      for (size_t k = at + 1; k < stack_.size(); ++k) {
        if (!OneOf(stack_[k].tag, GUMBO_TAG_DD, GUMBO_TAG_DT, GUMBO_TAG_LI, GUMBO_TAG_OPTION,
                   GUMBO_TAG_OPTGROUP, GUMBO_TAG_P, GUMBO_TAG_RB, GUMBO_TAG_RP, GUMBO_TAG_RT,
                   GUMBO_TAG_RTC)) {
          return GiveUp();
        }
      }
      return PopTo(at);
    }
    case GUMBO_TAG_TEMPLATE:
      for (size_t i = stack_.size(); i-- > 0;) {
        if (stack_[i].tag == GUMBO_TAG_TEMPLATE && stack_[i].ns == Ns::kHtml) return PopTo(i);
      }
      return;
    default: break;
  }
  if (IsHeading(tag)) {
    if (const size_t at = InScope({GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5,
                                       GUMBO_TAG_H6},
                                      Scope::kDefault); at != SIZE_MAX) PopTo(at);
    return;
  }
  if (IsFormatting(tag)) return EndFormatting(tag);
  EndOther(tag);
}

void HtmlScanner::EndFormatting(GumboTag tag) {
  // The adoption agency (§13.2.6.4.7, "adoption agency algorithm") when no block is open
  // inside the element: it pops the element and everything above it. An element closed
  // already and still active has copies in Gumbo's tree the scan does not keep.
  if (const Active* active = LastActive(tag); active != nullptr && !active->open) {
    return GiveUp();
  }
  const size_t at = Topmost(tag);
  const size_t marker = TopOf(kMarker);
  if (at == SIZE_MAX || (marker != SIZE_MAX && marker > at)) return EndOther(tag);
  if (InScope(tag, Scope::kDefault) != at) return;  // not in scope: ignored
  const size_t blocks = Above(TopOf(kSpecial), TopOf(kForeign));
  if (blocks != SIZE_MAX && blocks > at) return GiveUp();
  CloseFormatting(at);
}

void HtmlScanner::EndOther(GumboTag tag) {
  // "Any other end tag": the topmost element of that name, unless a special one comes
  // first. By tag id, as Gumbo 0.10 compares: an unknown element's end tag closes the
  // topmost unknown element, whatever its name.
  const size_t at = Topmost(tag);
  const size_t special = TopOf(kSpecial);
  if (at != SIZE_MAX && (special == SIZE_MAX || at >= special)) PopTo(at);
}


bool ScanHtml(std::string_view html, size_t max_nesting, PageMarkup& out) {
  HtmlScanner scanner(html, max_nesting, out);
  return scanner.Run();
}

}  // namespace crawlrank::crawl_internal
