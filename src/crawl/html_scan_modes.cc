// The streaming scan's insertion modes besides "in body" (html_scanner.h): tables
// (§13.2.6.4.9-.15), <select> (§13.2.6.4.16-.17) and foreign content (§13.2.6.5).
#include <gumbo.h>

#include "base/ascii.h"
#include "crawl/html_elements.h"
#include "crawl/html_scanner.h"

namespace crawlrank::crawl_internal {

bool HtmlScanner::Foreign(const HtmlToken& t, GumboTag tag) {
  // Returns whether the token was handled as foreign content (§13.2.6.5).
  const Open& top = stack_.back();
  const bool start = t.kind == HtmlTokenKind::kStartTag;
  if (t.kind == HtmlTokenKind::kText || start) {
    if (top.ns == Ns::kMath && IsMathTextIntegration(top.tag) &&
        (!start || !OneOf(tag, GUMBO_TAG_MGLYPH, GUMBO_TAG_MALIGNMARK))) {
      return false;
    }
    if (top.ns == Ns::kMath && top.tag == GUMBO_TAG_ANNOTATION_XML && start &&
        tag == GUMBO_TAG_SVG) {
      return false;
    }
    if (top.integration) return false;
  }
  if (t.kind == HtmlTokenKind::kText) {
    Text(t.text);
    return true;
  }
  if (start) {
    if (BreaksOutOfForeign(tag, t.attributes)) {
      while (ForeignTop() && !stack_.back().integration &&
             !(stack_.back().ns == Ns::kMath && IsMathTextIntegration(stack_.back().tag))) {
        Pop();
      }
      return false;  // reprocessed as HTML
    }
    Push(t, tag, top.ns);
    if (t.self_closing && !out_.nesting_cut) Pop();
    return true;
  }
  // An end tag: the topmost element of that name, unless an HTML element (or the body)
  // comes first. Names are compared as Gumbo 0.10 does: the end tag's text between "</"
  // and ">" ("</g >" is "g ", which closes nothing), ASCII case ignored.
  std::string name(t.source.size() >= 3 ? t.source.substr(2, t.source.size() - 3) : "");
  AsciiStrToLower(name);
  const auto named = positions_.foreign_names.find(name);
  const size_t at = named == positions_.foreign_names.end() ? SIZE_MAX : Last(named->second);
  const size_t html = TopOf(kHtmlKind);
  if (at == SIZE_MAX || (html != SIZE_MAX && html > at)) return false;
  PopTo(at);
  return true;
}

bool HtmlScanner::InSelect(const HtmlToken& t, GumboTag tag) {
  // Returns whether the token was handled by "in select" (§13.2.6.4.16, .17).
  if (t.kind == HtmlTokenKind::kText) {
    Text(t.text);
    return true;
  }
  const bool table_tag = OneOf(tag, GUMBO_TAG_CAPTION, GUMBO_TAG_TABLE, GUMBO_TAG_TBODY,
                               GUMBO_TAG_TFOOT, GUMBO_TAG_THEAD, GUMBO_TAG_TR, GUMBO_TAG_TD,
                               GUMBO_TAG_TH);
  if (t.kind == HtmlTokenKind::kStartTag) {
    if (tag == GUMBO_TAG_OPTION || tag == GUMBO_TAG_OPTGROUP) {
      if (Top() == GUMBO_TAG_OPTION) Pop();
      if (tag == GUMBO_TAG_OPTGROUP && Top() == GUMBO_TAG_OPTGROUP) Pop();
      Push(t, tag, Ns::kHtml);
    } else if (tag == GUMBO_TAG_SELECT) {
      PopTo(select_);
    } else if (OneOf(tag, GUMBO_TAG_INPUT, GUMBO_TAG_KEYGEN, GUMBO_TAG_TEXTAREA) ||
               (table_tag && select_in_table_)) {
      PopTo(select_);
      return false;
    } else if (OneOf(tag, GUMBO_TAG_SCRIPT, GUMBO_TAG_TEMPLATE)) {
      HeadElement(t, tag);
    }
    return true;  // anything else is dropped
  }
  if (tag == GUMBO_TAG_OPTGROUP) {
    if (Top() == GUMBO_TAG_OPTION && stack_.size() >= 2 &&
        stack_[stack_.size() - 2].tag == GUMBO_TAG_OPTGROUP) {
      Pop();
    }
    if (Top() == GUMBO_TAG_OPTGROUP) Pop();
  } else if (tag == GUMBO_TAG_OPTION) {
    if (Top() == GUMBO_TAG_OPTION) Pop();
  } else if (tag == GUMBO_TAG_SELECT) {
    PopTo(select_);
  } else if (tag == GUMBO_TAG_TEMPLATE) {
    return false;
  } else if (table_tag && select_in_table_ && InScope(tag, Scope::kTable) != SIZE_MAX) {
    PopTo(select_);
    return false;
  }
  return true;
}

bool HtmlScanner::TableStart(const HtmlToken& t, GumboTag tag) {
  // "In table", "in table body", "in row" (§13.2.6.4.9, .13, .14); the current node is a
  // table, a row group or a row. Returns whether the token was handled.
  const auto pop_while = [&](auto keep_popping) {
    while (!stack_.empty() && keep_popping(Top())) Pop();
  };
  switch (tag) {
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_COLGROUP:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TFOOT:
      pop_while([](GumboTag top) { return top != GUMBO_TAG_TABLE; });
      Push(t, tag, Ns::kHtml);
      return true;
    case GUMBO_TAG_COL:
      pop_while([](GumboTag top) { return top != GUMBO_TAG_TABLE; });
      Void(t, tag, Ns::kHtml);  // in its implied <colgroup>, which breaks as it does
      return true;
    case GUMBO_TAG_TR:
      pop_while([](GumboTag top) {
        return !OneOf(top, GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT);
      });
      Push(t, tag, Ns::kHtml);
      return true;
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
      if (Top() != GUMBO_TAG_TR) {
        pop_while([](GumboTag top) {
          return !OneOf(top, GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT);
        });
        HtmlToken row;
        row.kind = HtmlTokenKind::kStartTag;
        row.name = "tr";
        Push(row, GUMBO_TAG_TR, Ns::kHtml);
      }
      Push(t, tag, Ns::kHtml);
      return true;
    case GUMBO_TAG_TABLE:
      PopTo(InScope(GUMBO_TAG_TABLE, Scope::kTable));
      return false;  // and the new table starts
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_TEMPLATE: HeadElement(t, tag); return true;
    case GUMBO_TAG_INPUT:
      if (const std::string_view* type = FindAttribute(t, "type");
          type != nullptr && AsciiEqualsIgnoreCase(*type, "hidden")) {
        Void(t, tag, Ns::kHtml);
        return true;
      }
      break;
    default: break;
  }
  GiveUp();  // moved before the table
  return true;
}

bool HtmlScanner::TablePart(const HtmlToken& t, GumboTag tag) {
  // "In cell" and "in caption" (§13.2.6.4.15, .11): a table part closes the open cell or
  // caption of its table. Returns whether the token was handled.
  if (!OneOf(tag, GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_TBODY,
             GUMBO_TAG_TD, GUMBO_TAG_TFOOT, GUMBO_TAG_TH, GUMBO_TAG_THEAD, GUMBO_TAG_TR,
             GUMBO_TAG_TABLE)) {
    return false;
  }
  if (t.kind == HtmlTokenKind::kEndTag) {
    if (OneOf(tag, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP)) return true;  // ignored
    if (const size_t at = InScope(tag, Scope::kTable); at != SIZE_MAX) PopTo(at);
    return true;  // not in table scope: ignored
  }
  if (tag == GUMBO_TAG_TABLE) return false;
  const size_t cell = InScope({GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_CAPTION}, Scope::kTable);
  if (cell == SIZE_MAX) return false;  // "in body" ignores them
  PopTo(cell);
  return TableContext() ? TableStart(t, tag) : true;
}

bool HtmlScanner::ColumnGroup(const HtmlToken& t, GumboTag tag) {
  // "In column group" (§13.2.6.4.12): <col> and whitespace; anything else closes the
  // group and goes to the table. Returns whether the token was handled.
  if (t.kind == HtmlTokenKind::kText) {
    if (!IsWhitespaceOnly(t.text)) {
      GiveUp();  // moved before the table
      return true;
    }
    Text(t.text);
    return true;
  }
  if (t.kind == HtmlTokenKind::kStartTag ? tag == GUMBO_TAG_COL : tag == GUMBO_TAG_COLGROUP) {
    t.kind == HtmlTokenKind::kStartTag ? Void(t, tag, Ns::kHtml) : Pop();
    return true;
  }
  if (tag == GUMBO_TAG_TEMPLATE || (t.kind == HtmlTokenKind::kEndTag && tag == GUMBO_TAG_COL)) {
    return tag == GUMBO_TAG_COL;
  }
  Pop();
  return false;
}

bool HtmlScanner::TableEnd(GumboTag tag) {
  if (OneOf(tag, GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT,
            GUMBO_TAG_TR)) {
    if (const size_t at = InScope(tag, Scope::kTable); at != SIZE_MAX) PopTo(at);
    return true;
  }
  if (OneOf(tag, GUMBO_TAG_BODY, GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP,
            GUMBO_TAG_HTML, GUMBO_TAG_TD, GUMBO_TAG_TH)) {
    return true;  // ignored
  }
  if (tag == GUMBO_TAG_TEMPLATE) return false;
  GiveUp();
  return true;
}


}  // namespace crawlrank::crawl_internal
