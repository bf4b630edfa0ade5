// ExtractHtml (html_extract.h): decode, read the markup (the streaming scan of html_scan.h,
// or Gumbo's DOM and one iterative walk of it), then resolve and score the links.
#include "crawlrank/html_extract.h"

#include <gumbo.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "crawl/charset.h"
#include "crawl/html_elements.h"
#include "crawl/html_scan.h"
#include "crawl/words.h"

namespace crawlrank {
namespace {

using crawl_internal::AppendCollapsed;
using crawl_internal::CollapsedText;
using crawl_internal::HasToken;
using crawl_internal::IsHiddenTag;
using crawl_internal::IsInlineTag;
using crawl_internal::LinkSite;
using crawl_internal::PageMarkup;

// Gumbo's memory comes from this arena and goes back all at once. It spares
// gumbo_destroy_output, which recurses once per level of the DOM (100 000 nested elements
// overflow a 512 KiB stack), and a free() per node. Freed blocks are not reused: the
// arena holds about what malloc would peak at plus Gumbo's freed temporary buffers.
class GumboArena {
 public:
  GumboArena() = default;
  GumboArena(const GumboArena&) = delete;
  GumboArena& operator=(const GumboArena&) = delete;

  static void* Allocate(void* arena, size_t size) {
    return static_cast<GumboArena*>(arena)->Get(size);
  }
  static void Deallocate(void*, void*) {}

 private:
  static constexpr size_t kAlign = alignof(std::max_align_t);
  static constexpr size_t kMinBlock = size_t{64} << 10;
  static constexpr size_t kMaxBlock = size_t{8} << 20;

  void* Get(size_t size) {
    size = (size + kAlign - 1) & ~(kAlign - 1);
    if (size > left_) {
      const size_t block = std::max(size, next_block_);
      next_block_ = std::min(next_block_ * 2, kMaxBlock);
      // operator new[] aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (>= max_align_t).
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(block));
      next_ = blocks_.back().get();
      left_ = block;
    }
    void* p = next_;
    next_ += size;
    left_ -= size;
    return p;
  }

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
  size_t next_block_ = kMinBlock;
};

const char* Attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* attribute = gumbo_get_attribute(&element.attributes, name);
  return attribute == nullptr ? nullptr : attribute->value;
}

// Cuts `text` to at most `max_bytes` at a UTF-8 character boundary.
void CapUtf8(std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  while (!text.empty() && text.back() == ' ') text.pop_back();
}

// Gumbo's DOM, walked once into a PageMarkup.
class Walker {
 public:
  explicit Walker(PageMarkup& out) : out_(out) {}
  void Walk(const GumboNode* root);

 private:
  struct Frame {
    const GumboNode* node;
    unsigned next_child;
    uint32_t site;  // index in sites of the <a> this frame opened, or kNoSite
    bool hidden;    // this element made the text hidden
    bool breaks;    // this element's end counts as whitespace
  };
  static constexpr uint32_t kNoSite = UINT32_MAX;

  // Records what the element says; returns whether to walk its children.
  bool Enter(const GumboNode* node, Frame& frame);
  void Leave(const Frame& frame);
  void Break() { pending_space_ = pending_space_ || !out_.text.empty(); }

  PageMarkup& out_;
  int hidden_depth_ = 0;
  bool pending_space_ = false;
};

bool Walker::Enter(const GumboNode* node, Frame& frame) {
  const GumboElement& element = node->v.element;
  const GumboTag tag = node->type == GUMBO_NODE_TEMPLATE ? GUMBO_TAG_TEMPLATE : element.tag;
  frame = Frame{node, 0, kNoSite, false, false};
  switch (tag) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_AREA:
      if (const char* href = Attribute(element, "href")) {
        LinkSite site;
        out_.SetHref(site, href);
        site.is_area = tag == GUMBO_TAG_AREA;
        site.text_begin = site.text_end = out_.text.size();
        if (const char* rel = Attribute(element, "rel")) site.nofollow = HasToken(rel, "nofollow");
        if (site.is_area) {
          if (const char* alt = Attribute(element, "alt")) site.alt = CollapsedText(alt);
        } else {
          frame.site = static_cast<uint32_t>(out_.sites.size());
        }
        out_.sites.push_back(std::move(site));
      }
      break;
    case GUMBO_TAG_BASE:
      if (!out_.has_base) {
        if (const char* href = Attribute(element, "href")) {
          out_.has_base = true;
          out_.base_href = href;
        }
      }
      break;
    case GUMBO_TAG_LINK:
      if (!out_.has_canonical) {
        const char* rel = Attribute(element, "rel");
        const char* href = Attribute(element, "href");
        if (rel != nullptr && href != nullptr && HasToken(rel, "canonical")) {
          out_.has_canonical = true;
          out_.canonical_href = href;
        }
      }
      break;
    case GUMBO_TAG_META:
      if (const char* name = Attribute(element, "name")) {
        if (crawl_internal::IsRobotsMetaName(name)) {
          if (const char* content = Attribute(element, "content")) {
            const bool none = HasToken(content, "none");
            out_.noindex = out_.noindex || none || HasToken(content, "noindex");
            out_.nofollow = out_.nofollow || none || HasToken(content, "nofollow");
          }
        }
      }
      break;
    case GUMBO_TAG_TITLE:
      if (!out_.has_title && element.tag_namespace == GUMBO_NAMESPACE_HTML) {
        out_.has_title = true;
        std::string raw;
        for (unsigned i = 0; i < element.children.length; ++i) {
          const auto* child = static_cast<const GumboNode*>(element.children.data[i]);
          if (child->type == GUMBO_NODE_TEXT || child->type == GUMBO_NODE_WHITESPACE) {
            raw += child->v.text.text;
          }
        }
        out_.title = CollapsedText(raw);
      }
      break;
    default: break;
  }
  if (IsHiddenTag(tag)) {
    frame.hidden = true;
    ++hidden_depth_;
  }
  if (!IsInlineTag(tag)) {
    frame.breaks = true;
    Break();
  }
  return element.children.length > 0;
}

void Walker::Leave(const Frame& frame) {
  if (frame.site != kNoSite) out_.sites[frame.site].text_end = out_.text.size();
  if (frame.hidden) --hidden_depth_;
  if (frame.breaks) Break();
}

void Walker::Walk(const GumboNode* root) {
  // Depth-first with an explicit stack: hostile nesting cannot overflow the call stack.
  std::vector<Frame> stack;
  stack.push_back(Frame{root, 0, kNoSite, false, false});
  while (!stack.empty()) {
    const GumboNode* node = stack.back().node;
    const GumboVector& children =
        node->type == GUMBO_NODE_DOCUMENT ? node->v.document.children : node->v.element.children;
    if (stack.back().next_child < children.length) {
      const auto* child = static_cast<const GumboNode*>(children.data[stack.back().next_child++]);
      switch (child->type) {
        case GUMBO_NODE_TEXT:
        case GUMBO_NODE_CDATA:
        case GUMBO_NODE_WHITESPACE:
          if (hidden_depth_ == 0) {
            AppendCollapsed(child->v.text.text, out_.text, pending_space_);
          }
          break;
        case GUMBO_NODE_ELEMENT:
        case GUMBO_NODE_TEMPLATE: {
          Frame frame;
          if (Enter(child, frame)) {
            stack.push_back(frame);
          } else {
            Leave(frame);
          }
          break;
        }
        default:  // comments; a document has no document children
          break;
      }
      continue;
    }
    if (stack.size() > 1) Leave(stack.back());
    stack.pop_back();
  }
}

// Whether `href` starts with a scheme other than http or https ("javascript:", "mailto:");
// tabs and newlines are ignored inside it and spaces before it, as browsers do.
bool HasOtherScheme(std::string_view href) {
  std::string scheme;
  for (const char c : href) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    if (scheme.empty() && static_cast<unsigned char>(c) <= 0x20) continue;
    if (c == ':') {
      if (scheme.empty()) return false;
      return !(scheme == "http" || scheme == "https");
    }
    const bool other = IsAsciiDigit(c) || c == '+' || c == '-' || c == '.';
    if (!(IsAsciiAlpha(c) || (!scheme.empty() && other))) return false;
    scheme += AsciiToLower(c);
  }
  return false;
}

// The visible text's words as keyword ids, for the scores.
struct WordIds {
  std::vector<uint32_t> begin;  // byte offset in the visible text of each word
  std::vector<int> id;          // KeywordScorer::Find of each word
};

}  // namespace

namespace {

// Whether the lower-cased tag name opens no element that stays open: void elements, and
// those whose end tag HTML lets one omit (the next sibling closes them).
bool LeavesNothingOpen(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "area", "base", "br",    "col",   "embed",    "hr",       "img",   "input", "link",
      "meta", "source", "track", "wbr", "param",   "keygen",   "p",     "li",    "dt",
      "dd",   "tr",   "td",    "th",    "option", "optgroup", "rb",    "rt",    "rp",
      "tbody", "thead", "tfoot", "colgroup", "caption", "html", "head", "body"};
  for (std::string_view n : kNames) {
    if (n == name) return true;
  }
  return false;
}

// The offset at which more than `max_depth` elements would be open, by a quick scan of the
// tags (comments, and script and style contents, skipped); npos when never.
size_t DeepNestingCut(std::string_view html, size_t max_depth) {
  size_t depth = 0;
  size_t i = 0;
  const auto skip_past = [&](std::string_view end) {
    const size_t at = html.find(end, i);
    i = at == std::string_view::npos ? html.size() : at + end.size();
  };
  while ((i = html.find('<', i)) != std::string_view::npos) {
    const size_t tag = i++;
    if (i >= html.size()) break;
    if (html[i] == '!') {
      if (html.substr(i, 3) == "!--") {
        skip_past("-->");
      } else {
        skip_past(">");
      }
      continue;
    }
    const bool end_tag = html[i] == '/';
    if (end_tag) ++i;
    if (i >= html.size() || !IsAsciiAlpha(html[i])) continue;
    std::string name;
    while (i < html.size() && name.size() < 16 && IsAsciiAlnum(html[i])) {
      name += AsciiToLower(html[i]);
      ++i;
    }
    const size_t close = html.find('>', i);
    if (close == std::string_view::npos) break;
    const bool self_closed = close > 0 && html[close - 1] == '/';
    i = close + 1;
    if (end_tag) {
      if (!LeavesNothingOpen(name) && depth > 0) --depth;
      continue;
    }
    if (name == "script" || name == "style") {  // raw text up to the end tag
      std::string end = "</" + name;
      for (size_t at = i;; ++at) {
        at = html.find("</", at);
        if (at == std::string_view::npos) {
          i = html.size();
          break;
        }
        size_t k = 0;
        while (k < end.size() && at + k < html.size() &&
               (html[at + k] | (k >= 2 ? 0x20 : 0)) == end[k]) {
          ++k;
        }
        if (k == end.size()) {
          i = at;
          break;
        }
      }
      continue;
    }
    if (self_closed || LeavesNothingOpen(name)) continue;
    if (++depth > max_depth) return tag;
  }
  return std::string_view::npos;
}

// Parses `html` with Gumbo, its memory from `arena`.
const GumboOutput* ParseHtml(std::string_view html, GumboArena& arena) {
  GumboOptions gumbo_options = kGumboDefaultOptions;
  gumbo_options.allocator = &GumboArena::Allocate;
  gumbo_options.deallocator = &GumboArena::Deallocate;
  gumbo_options.userdata = &arena;
  // No parse errors: Gumbo copies the stack of open elements into each one, which is
  // quadratic in time and memory for deep nesting (4 000 unclosed <span>: 130 MB).
  gumbo_options.max_errors = 0;
  // Not gumbo_destroy_output: the arena frees everything when it goes.
  return gumbo_parse_with_options(&gumbo_options, html.data(), html.size());
}

// The base URL: the first <base href>, resolved against the page URL, if it resolves.
std::string BaseUrl(std::string_view page_url, const PageMarkup& markup, UrlProfile profile) {
  std::string base(page_url);
  if (markup.has_base) {
    if (Result<std::string> resolved = ResolveUrl(page_url, markup.base_href, profile);
        resolved.ok()) {
      base = std::move(resolved).value();
    }
  }
  return base;
}

// Scores text by the share of the keywords it holds, each counted once: the page by its
// visible text and title, a link by the words in and around it.
class KeywordCounter {
 public:
  // Null `keywords`: nothing is scored.
  explicit KeywordCounter(const KeywordScorer* keywords) : keywords_(keywords) {}

  bool enabled() const { return keywords_ != nullptr; }

  // The page's score, from its visible `text` and its `title`; keeps the text's words
  // for ScoreLink. REQUIRES: enabled(), called once, before ScoreLink.
  float ScorePage(std::string_view text, std::string_view title) {
    stamp_.assign(keywords_->size(), 0);
    crawl_internal::ForEachWord(text, [&](std::string_view word, size_t begin, size_t) {
      words_.begin.push_back(static_cast<uint32_t>(begin));
      words_.id.push_back(keywords_->Find(word));
    });
    mark_ = 1;
    found_ = 0;
    for (const int id : words_.id) Count(id);
    crawl_internal::ForEachWord(
        title, [&](std::string_view word, size_t, size_t) { Count(keywords_->Find(word)); });
    return Share();
  }

  // A link's score, from the words of the visible text around it and an <area>'s alt
  // text. REQUIRES: enabled(), after ScorePage.
  float ScoreLink(const LinkSite& site, size_t context_words) {
    ++mark_;
    found_ = 0;
    const auto& b = words_.begin;
    // Words that start inside the link, then context_words on each side.
    const size_t first = std::lower_bound(b.begin(), b.end(), site.text_begin) - b.begin();
    const size_t last = std::lower_bound(b.begin(), b.end(), site.text_end) - b.begin();
    const size_t from = first - std::min(first, context_words);
    const size_t to = last + std::min(b.size() - last, context_words);
    for (size_t i = from; i < to; ++i) Count(words_.id[i]);
    if (site.is_area) {
      crawl_internal::ForEachWord(
          site.alt, [&](std::string_view word, size_t, size_t) { Count(keywords_->Find(word)); });
    }
    return Share();
  }

 private:
  void Count(int id) {
    if (id >= 0 && stamp_[id] != mark_) {
      stamp_[id] = mark_;
      ++found_;
    }
  }
  float Share() const {
    return static_cast<float>(static_cast<double>(found_) / static_cast<double>(keywords_->size()));
  }

  const KeywordScorer* keywords_;
  WordIds words_;                // of the visible text
  std::vector<uint32_t> stamp_;  // stamp_[id] == mark_: keyword id already counted
  uint32_t mark_ = 0;
  size_t found_ = 0;
};

// Resolves hrefs against the base URL. Pages repeat hrefs (navigation, "#fragment" links
// to themselves): each distinct one is resolved once. Both profiles' canonical forms drop
// the fragment, and resolution does not look at it (RFC 3986 §5.2.2): "x.html#a" and
// "x.html#b" are one URL, resolved once without their fragments, and a reference that is
// only a fragment is the base itself. (Checked over the 2.3 million hrefs of the four
// documentation sites of tests/html_differential_test.cc: the same URLs as resolving the
// hrefs whole.)
class HrefResolver {
 public:
  HrefResolver(const std::string& base, UrlProfile profile) : base_(base), profile_(profile) {}

  // The URL `href` resolves to, or null when it does not resolve. `href` must outlive
  // the resolver (it is a key).
  const std::string* Resolve(std::string_view href) {
    const std::string_view reference = href.substr(0, href.find('#'));
    auto [cached, fresh] = resolved_.try_emplace(reference);
    if (fresh) {
      if (reference.empty()) {
        cached->second = base_;
      } else if (Result<std::string> r = ResolveUrl(base_, reference, profile_); r.ok()) {
        cached->second = std::move(r).value();
      }
    }
    return cached->second ? &*cached->second : nullptr;
  }

 private:
  const std::string& base_;
  UrlProfile profile_;
  // href -> its resolved URL, or nullopt when it does not resolve.
  std::unordered_map<std::string_view, std::optional<std::string>> resolved_;
};

// Adds the links the walk found to `result.links` in document order, each URL once with
// the best score of its sites, and counts those it leaves out.
void AddLinks(PageMarkup& markup, const std::string& base, const HtmlExtractOptions& options,
              KeywordCounter& keywords, HtmlPage& result) {
  const bool page_nofollow = markup.nofollow && !options.follow_nofollow;
  constexpr uint32_t kDropped = UINT32_MAX;
  HrefResolver resolver(base, options.profile);  // its keys view markup.sites
  // URL -> index in links, or kDropped; the keys view the resolver's URLs.
  std::unordered_map<std::string_view, uint32_t> seen;
  seen.reserve(markup.sites.size());
  for (LinkSite& site : markup.sites) {
    if (!options.follow_nofollow && (page_nofollow || site.nofollow)) {
      ++result.nofollow_links;
      continue;
    }
    const std::string_view href = markup.Href(site);
    if (HasOtherScheme(href)) {
      ++result.other_scheme_links;
      continue;
    }
    const std::string* url = resolver.Resolve(href);
    if (url == nullptr) {
      ++result.bad_links;
      continue;
    }
    const float score =
        keywords.enabled() ? keywords.ScoreLink(site, options.link_context_words) : 0.f;
    const auto [it, inserted] = seen.try_emplace(*url, kDropped);
    if (!inserted) {
      if (it->second != kDropped) {
        float& kept = result.links[it->second].score;
        kept = std::max(kept, score);
      }
      continue;
    }
    if (result.links.size() >= options.max_links) {
      ++result.dropped_links;
      continue;
    }
    it->second = static_cast<uint32_t>(result.links.size());
    ExtractedLink& link = result.links.emplace_back();
    link.url = *url;
    link.score = score;
    if (site.is_area) {
      link.anchor_text = std::move(site.alt);
    } else {
      link.anchor_text = TrimAsciiSpace(
          std::string_view(markup.text).substr(site.text_begin, site.text_end - site.text_begin));
    }
    CapUtf8(link.anchor_text, kMaxAnchorTextBytes);
  }
}

}  // namespace

bool IsHtmlResponse(std::string_view content_type_header, std::string_view body) {
  std::string type(content_type_header.substr(0, content_type_header.find(';')));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  if (type.empty()) {  // no Content-Type: sniff the first bytes, as browsers do
    const size_t first = body.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && body[first] == '<';
  }
  return type == "text/html" || type == "application/xhtml+xml";
}

Result<HtmlPage> ExtractHtml(std::string_view body, std::string_view page_url,
                             std::string_view content_type_header,
                             const HtmlExtractOptions& options) {
  if (Result<std::string> page = CanonicalizeUrl(page_url, options.profile); !page.ok()) {
    return page.status().WithContext("extract HTML");
  }
  HtmlPage result;
  const crawl_internal::DecodedBody decoded = crawl_internal::DecodeBody(body, content_type_header);
  result.charset = decoded.encoding->name;

  PageMarkup markup;
  markup.text.reserve(decoded.text.size() / 2);
  if (options.parser == HtmlParser::kStreaming &&
      crawl_internal::ScanHtml(decoded.text, kMaxHtmlNesting, markup)) {
    result.nesting_cut = markup.nesting_cut;
  } else {
    // Gumbo, on the part before the quick scan's cut (see Caveats).
    result.tree_parsed = true;
    markup = PageMarkup{};
    std::string_view html = decoded.text;
    if (const size_t cut = DeepNestingCut(html, kMaxHtmlNesting); cut != std::string_view::npos) {
      html = html.substr(0, cut);
      result.nesting_cut = true;
    }
    GumboArena arena;  // holds the DOM until the walk has copied what it needs
    Walker walker(markup);
    walker.Walk(ParseHtml(html, arena)->document);
  }

  result.title = std::move(markup.title);
  result.noindex = markup.noindex;
  result.nofollow = markup.nofollow;
  result.text_bytes = markup.text.size();
  result.content_hash = XXH3_64bits(markup.text.data(), markup.text.size());

  const std::string base = BaseUrl(page_url, markup, options.profile);
  if (markup.has_canonical) {
    if (Result<std::string> resolved = ResolveUrl(base, markup.canonical_href, options.profile);
        resolved.ok()) {
      result.canonical = std::move(resolved).value();
    }
  }

  // Keyword ids of the visible text's words, for the scores.
  KeywordCounter keywords(
      options.keywords != nullptr && !options.keywords->empty() ? options.keywords : nullptr);
  if (keywords.enabled()) result.content_score = keywords.ScorePage(markup.text, result.title);
  // The links, in document order.
  AddLinks(markup, base, options, keywords, result);
  return result;
}

}  // namespace crawlrank
