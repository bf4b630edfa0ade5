// HtmlTokenizer (html_tokenizer.h): the standard's tokenization states, folded into one
// loop per kind of token; text is scanned a byte at a time against a table of the bytes
// that need a look (markup, references, CR, invalid code points).
#include "crawl/html_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_set>

#include "base/ascii.h"
#include "crawl/utf8.h"

namespace crawlrank::crawl_internal {
namespace {

struct NamedReference {
  std::string_view name;  // without '&'; ends with ';' unless legacy
  std::string_view characters;
};

constexpr NamedReference kNamedReferences[] = {
#include "crawl/html_entities.inc"
};
constexpr size_t kLongestReferenceName = 32;

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool IsTagSpace(char c) { return c == '\t' || c == '\n' || c == '\f' || c == ' ' || c == '\r'; }

// Bytes a text scan stops at in the data state (kMarkup) and in the others (kRaw): those
// that start markup or a reference, CR, NUL, and the lead bytes of the code points
// Gumbo replaces.
constexpr uint8_t kRaw = 1, kMarkup = 2;
constexpr std::array<uint8_t, 256> kStops = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 0x20; ++c) {
    if (c != '\t' && c != '\n' && c != '\f') t[c] = kRaw | kMarkup;
  }
  t[0x7F] = t[0xC2] = t[0xEF] = kRaw | kMarkup;
  for (int c = 0xF0; c <= 0xF4; ++c) t[c] = kRaw | kMarkup;
  t['<'] = kRaw | kMarkup;
  t['&'] = kMarkup;
  return t;
}();

// The length of the sequence at text[i] that Gumbo replaces by U+FFFD (a control, DEL, a
// C1 control, a non-character), or 0.
size_t InvalidLength(std::string_view text, size_t i) {
  const auto b = [&](size_t k) {
    return i + k < text.size() ? static_cast<uint8_t>(text[i + k]) : uint8_t{0};
  };
  const uint8_t c = b(0);
  if (c < 0x20) return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == 0 ? 0 : 1;
  if (c == 0x7F) return 1;
  if (c == 0xC2) return b(1) >= 0x80 && b(1) <= 0x9F ? 2 : 0;
  if (c == 0xEF) {
    if (b(1) == 0xB7 && b(2) >= 0x90 && b(2) <= 0xAF) return 3;  // U+FDD0..U+FDEF
    if (b(1) == 0xBF && (b(2) == 0xBE || b(2) == 0xBF)) return 3;  // U+FFFE, U+FFFF
    return 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {  // U+nFFFE, U+nFFFF
    return (b(1) & 0x0F) == 0x0F && b(2) == 0xBF && (b(3) == 0xBE || b(3) == 0xBF) ? 4 : 0;
  }
  return 0;
}

// A numeric reference's code point as Gumbo maps it: windows-1252 for 0x80-0x9F, U+FFFD
// for 0, surrogates and past U+10FFFF; other invalid ones are kept.
uint32_t NumericReferenceCodePoint(uint32_t cp) {
  static constexpr uint16_t kC1[32] = {
      0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
      0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
      0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};
  if (cp == 0) return 0xFFFD;
  if (cp >= 0x80 && cp <= 0x9F) return kC1[cp - 0x80];
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0xFFFD;
  return cp;
}

// The longest named reference that `text` starts with, or null.
const NamedReference* LongestNamedReference(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && n < kLongestReferenceName && IsAsciiAlnum(text[n])) ++n;
  if (n < text.size() && text[n] == ';') ++n;
  const auto less = [](const NamedReference& r, std::string_view name) { return r.name < name; };
  for (size_t len = n; len > 0; --len) {
    const std::string_view name = text.substr(0, len);
    const auto* it = std::lower_bound(std::begin(kNamedReferences), std::end(kNamedReferences),
                                      name, less);
    if (it != std::end(kNamedReferences) && it->name == name) return it;
  }
  return nullptr;
}

}  // namespace

HtmlTokenizer::HtmlTokenizer(std::string_view input) : input_(input) {}

void HtmlTokenizer::SetTextState(HtmlTextState state, std::string_view name) {
  state_ = state;
  raw_end_name_.assign(name);
}

void HtmlTokenizer::AppendPreprocessed(std::string_view part, std::string& out,
                                       std::string_view nul) {
  size_t from = 0;
  for (size_t i = 0; i < part.size();) {
    const char c = part[i];
    size_t skip = 0;
    std::string_view with;
    if (c == '\r') {
      skip = i + 1 < part.size() && part[i + 1] == '\n' ? 2 : 1;
      with = "\n";
    } else if (c == '\0') {
      skip = 1;
      with = nul;
    } else if (kStops[static_cast<uint8_t>(c)] != 0 && (skip = InvalidLength(part, i)) > 0) {
      with = kReplacement;
    }
    if (skip == 0) {
      ++i;
      continue;
    }
    out.append(part.data() + from, i - from);
    out.append(with);
    i += skip;
    from = i;
  }
  out.append(part.data() + from, part.size() - from);
}

size_t HtmlTokenizer::DecodeReference(size_t at, char quote, std::string& out) const {
  const size_t next = at + 1;
  if (next >= input_.size()) return at;
  const char c = input_[next];
  if (c == '\t' || c == '\n' || c == '\f' || c == ' ' || c == '<' || c == '&' || c == '\r' ||
      (quote != 0 && c == quote)) {
    return at;
  }
  if (c == '#') {
    size_t i = next + 1;
    const bool hex = i < input_.size() && (input_[i] == 'x' || input_[i] == 'X');
    if (hex) ++i;
    const size_t digits = i;
    uint32_t cp = 0;
    for (; i < input_.size(); ++i) {
      const char digit = input_[i];
      const int d = hex ? (IsAsciiHexDigit(digit) ? AsciiHexValue(digit) : -1)
                        : (IsAsciiDigit(digit) ? digit - '0' : -1);
      if (d < 0) break;
      cp = std::min<uint32_t>(cp * (hex ? 16 : 10) + static_cast<uint32_t>(d), 0x110000);
    }
    if (i == digits) return at;  // "&#" or "&#x" without digits: text
    if (i < input_.size() && input_[i] == ';') ++i;
    AppendUtf8(NumericReferenceCodePoint(cp), out);
    return i;
  }
  const NamedReference* ref = LongestNamedReference(input_.substr(next));
  if (ref == nullptr) return at;
  const size_t end = next + ref->name.size();
  if (quote != 0 && ref->name.back() != ';' && end < input_.size() &&
      (input_[end] == '=' || IsAsciiAlnum(input_[end]))) {
    return at;  // "&copy=" in a URL's query stays as written
  }
  out.append(ref->characters);
  return end;
}

void HtmlTokenizer::EmitText(size_t begin, size_t end, bool references, std::string_view nul) {
  // The usual run needs no change: a view of the input. Else the characters go to text_.
  text_.clear();
  bool copied = false;
  size_t from = begin;
  for (size_t i = begin; i < end;) {
    const auto c = static_cast<uint8_t>(input_[i]);
    if (kStops[c] == 0 || c == '<' || (c == '&' && !references)) {
      ++i;
      continue;
    }
    if (c == '&') {
      std::string decoded;
      const size_t past = DecodeReference(i, 0, decoded);
      if (past == i) {
        ++i;
        continue;
      }
      AppendPreprocessed(input_.substr(from, i - from), text_, nul);
      text_ += decoded;
      copied = true;
      i = from = past;
      continue;
    }
    if (c == '\r' || c == 0 || InvalidLength(input_, i) > 0) copied = true;
    ++i;
  }
  StartToken(HtmlTokenKind::kText, begin);
  source_begin_ = std::string_view::npos;
  if (!copied) {
    token_.text = input_.substr(begin, end - begin);
    return;
  }
  AppendPreprocessed(input_.substr(from, end - from), text_, nul);
  token_.text = text_;
}

void HtmlTokenizer::StartToken(HtmlTokenKind kind, size_t begin) {
  token_ = HtmlToken{};
  token_.kind = kind;
  token_.offset = begin;
}

void HtmlTokenizer::EmitEnd() {
  token_ = HtmlToken{};
  token_.offset = input_.size();
  pos_ = input_.size();
}

const HtmlToken& HtmlTokenizer::Next() {
  if (pos_ >= input_.size()) {
    EmitEnd();
    return token_;
  }
  switch (state_) {
    case HtmlTextState::kData: ReadText(); break;
    case HtmlTextState::kRcdata: ReadRawText(true, false); break;
    case HtmlTextState::kRawtext: ReadRawText(false, false); break;
    case HtmlTextState::kScriptData: ReadRawText(false, true); break;
    case HtmlTextState::kPlaintext: ReadPlaintext(); break;
  }
  return token_;
}

void HtmlTokenizer::ReadPlaintext() {
  EmitText(pos_, input_.size(), false, kReplacement);
  pos_ = input_.size();
}

void HtmlTokenizer::ReadText() {
  const size_t begin = pos_;
  if (input_[begin] == '<' && ReadMarkup()) return;
  // Text up to the next '<' that starts markup (as ReadMarkup decides; a lone '<' is text).
  size_t i = begin + (input_[begin] == '<' ? 1 : 0);
  while (true) {
    const void* lt = std::memchr(input_.data() + i, '<', input_.size() - i);
    if (lt == nullptr) {
      i = input_.size();
      break;
    }
    i = static_cast<size_t>(static_cast<const char*>(lt) - input_.data());
    if (i + 1 < input_.size()) {
      const char c = input_[i + 1];
      if (IsAsciiAlpha(c) || c == '!' || c == '?' || (c == '/' && i + 2 < input_.size())) break;
    }
    ++i;
  }
  EmitText(begin, i, true, std::string_view("\0", 1));
  pos_ = i;
}

bool HtmlTokenizer::ReadMarkup() {
  const size_t begin = pos_;
  if (begin + 1 >= input_.size()) return false;
  const char c = input_[begin + 1];
  if (IsAsciiAlpha(c)) {
    pos_ = begin + 1;
    if (!ReadTag(false, begin)) EmitEnd();  // end of input in a tag: dropped
    return true;
  }
  if (c == '/') {
    if (begin + 2 >= input_.size()) return false;  // "</" at the end: text
    const char d = input_[begin + 2];
    if (IsAsciiAlpha(d)) {
      pos_ = begin + 2;
      if (!ReadTag(true, begin)) EmitEnd();
      return true;
    }
    if (d == '>') {  // "</>": nothing
      pos_ = begin + 3;
      StartToken(HtmlTokenKind::kComment, begin);
      // Gumbo emits no token for it and so counts it in the next tag's text.
      if (source_begin_ == std::string_view::npos) source_begin_ = begin;
      return true;
    }
    ReadBogusComment(begin, begin + 2);
    return true;
  }
  if (c == '?') {
    ReadBogusComment(begin, begin + 1);
    return true;
  }
  if (c == '!') {
    const std::string_view rest = input_.substr(begin + 2);
    if (rest.starts_with("--")) {
      ReadComment(begin);
    } else if (rest.size() >= 7 && AsciiEqualsIgnoreCase(rest.substr(0, 7), "doctype")) {
      ReadDoctype(begin);
    } else if (cdata_allowed_ && rest.starts_with("[CDATA[")) {
      ReadCdata(begin);
    } else {
      ReadBogusComment(begin, begin + 2);
    }
    return true;
  }
  return false;
}

void HtmlTokenizer::ReadBogusComment(size_t begin, size_t from) {
  source_begin_ = std::string_view::npos;
  const size_t close = input_.find('>', from);
  StartToken(HtmlTokenKind::kComment, begin);
  pos_ = close == std::string_view::npos ? input_.size() : close + 1;
}

void HtmlTokenizer::ReadComment(size_t begin) {
  source_begin_ = std::string_view::npos;
  // "<!--" seen. Ends at "-->", "--!>", or right away at "<!-->" and "<!--->".
  size_t i = begin + 4;
  StartToken(HtmlTokenKind::kComment, begin);
  if (input_.substr(i).starts_with(">")) {
    pos_ = i + 1;
    return;
  }
  if (input_.substr(i).starts_with("->")) {
    pos_ = i + 2;
    return;
  }
  while (true) {
    const size_t dashes = input_.find("--", i);
    if (dashes == std::string_view::npos) {
      pos_ = input_.size();
      return;
    }
    size_t k = dashes + 2;
    while (k < input_.size() && input_[k] == '-') ++k;  // "--->" ends it too
    if (k < input_.size() && input_[k] == '>') {
      pos_ = k + 1;
      return;
    }
    if (k + 1 < input_.size() && input_[k] == '!' && input_[k + 1] == '>') {
      pos_ = k + 2;
      return;
    }
    i = k;
  }
}

void HtmlTokenizer::ReadDoctype(size_t begin) {
  source_begin_ = std::string_view::npos;
  // Whatever the identifiers, the first '>' ends a doctype (in a quoted one it is an
  // "abrupt" end).
  const size_t close = input_.find('>', begin + 9);
  StartToken(HtmlTokenKind::kDoctype, begin);
  pos_ = close == std::string_view::npos ? input_.size() : close + 1;
}

void HtmlTokenizer::ReadCdata(size_t begin) {
  source_begin_ = std::string_view::npos;
  const size_t from = begin + 9;  // past "<![CDATA["
  const size_t close = input_.find("]]>", from);
  const size_t end = close == std::string_view::npos ? input_.size() : close;
  text_.clear();
  AppendPreprocessed(input_.substr(from, end - from), text_, kReplacement);
  StartToken(HtmlTokenKind::kText, begin);
  token_.text = text_;
  pos_ = close == std::string_view::npos ? input_.size() : close + 3;
}

bool HtmlTokenizer::AtRawTextEnd(size_t at) const {
  const size_t n = raw_end_name_.size();
  if (at + n > input_.size()) return false;
  if (!AsciiEqualsIgnoreCase(input_.substr(at, n), raw_end_name_)) return false;
  if (at + n == input_.size()) return false;
  const char c = input_[at + n];
  return IsTagSpace(c) || c == '/' || c == '>';
}

void HtmlTokenizer::ReadRawText(bool references, bool script) {
  const size_t begin = pos_;
  // Script data's escaped states: "<!--" escapes, "<script" inside doubles the escape
  // (a "</script>" there does not end the script), "-->" ends both.
  enum class Escape { kNone, kEscaped, kDouble } escape = Escape::kNone;
  size_t i = begin;
  size_t end_tag = std::string_view::npos;
  while (i < input_.size()) {
    const char c = input_[i];
    if (script && c == '-' && escape != Escape::kNone && input_.substr(i).starts_with("-->")) {
      escape = Escape::kNone;
      i += 3;
      continue;
    }
    if (c != '<') {
      ++i;
      continue;
    }
    if (script && escape == Escape::kNone && input_.substr(i).starts_with("<!--")) {
      escape = Escape::kEscaped;
      i += 4;
      // "<!--" then "-" or "->": the dashes may close it again at once ("<!-->").
      if (input_.substr(i).starts_with("->")) {
        escape = Escape::kNone;
        i += 2;
      } else if (input_.substr(i).starts_with(">")) {
        escape = Escape::kNone;
        i += 1;
      }
      continue;
    }
    const bool slash = i + 1 < input_.size() && input_[i + 1] == '/';
    if (script && escape != Escape::kNone) {
      // "<script" or "</script" followed by space, '/' or '>' toggles the double escape.
      const size_t name = i + (slash ? 2 : 1);
      const bool is_script = name + 6 < input_.size() &&
                             AsciiEqualsIgnoreCase(input_.substr(name, 6), "script") &&
                             (IsTagSpace(input_[name + 6]) || input_[name + 6] == '/' ||
                              input_[name + 6] == '>');
      if (escape == Escape::kEscaped && slash && AtRawTextEnd(i + 2)) {
        end_tag = i;
        break;
      }
      if (is_script && !slash && escape == Escape::kEscaped) {
        escape = Escape::kDouble;
        i = name + 6;
        continue;
      }
      if (is_script && slash && escape == Escape::kDouble) {
        escape = Escape::kEscaped;
        i = name + 6;
        continue;
      }
      ++i;
      continue;
    }
    if (slash && AtRawTextEnd(i + 2)) {
      end_tag = i;
      break;
    }
    ++i;
  }
  const size_t text_end = end_tag == std::string_view::npos ? input_.size() : end_tag;
  if (text_end > begin) {
    // The text first; the end tag on the next call (state_ stays until then).
    EmitText(begin, text_end, references, kReplacement);
    // EmitText scans '&' only when references; '<' is plain text here.
    pos_ = text_end;
    return;
  }
  state_ = HtmlTextState::kData;
  pos_ = begin + 2;
  if (!ReadTag(true, begin)) EmitEnd();
}

bool HtmlTokenizer::ReadTag(bool end, size_t begin) {
  // Tag name: up to whitespace, '/' or '>'.
  tag_buffer_.clear();
  spans_.clear();
  attributes_.clear();
  StartToken(end ? HtmlTokenKind::kEndTag : HtmlTokenKind::kStartTag, begin);
  const size_t name_begin = pos_;
  bool plain = true;  // the name is lower case already, nothing to replace
  size_t i = pos_;
  while (i < input_.size() && !IsTagSpace(input_[i]) && input_[i] != '/' && input_[i] != '>') {
    const auto c = static_cast<uint8_t>(input_[i]);
    if ((c >= 'A' && c <= 'Z') || c == 0 || kStops[c] != 0) plain = false;
    ++i;
  }
  if (i >= input_.size()) return false;
  std::string name_storage;
  if (plain) {
    token_.name = input_.substr(name_begin, i - name_begin);
  } else {
    AppendPreprocessed(input_.substr(name_begin, i - name_begin), name_storage, kReplacement);
    for (char& c : name_storage) c = AsciiToLower(c);
  }
  pos_ = i;
  ReadAttributes();
  if (pos_ > input_.size()) return false;  // end of input inside the tag
  if (!plain) {
    // The name goes to the buffer's end, after the attributes' text.
    const size_t at = tag_buffer_.size();
    tag_buffer_ += name_storage;
    token_.name = std::string_view(tag_buffer_).substr(at);
  }
  // Views of the buffer only now: it does not grow any more.
  for (const AttributeSpan& s : spans_) {
    const std::string_view n = s.name_in_buffer
                                   ? std::string_view(tag_buffer_).substr(s.name_begin, s.name_size)
                                   : input_.substr(s.name_begin, s.name_size);
    const std::string_view v =
        s.value_in_buffer ? std::string_view(tag_buffer_).substr(s.value_begin, s.value_size)
                          : input_.substr(s.value_begin, s.value_size);
    attributes_.push_back(HtmlAttribute{n, v});
  }
  DropDuplicateAttributes();
  if (!end) token_.attributes = attributes_;
  const size_t from = source_begin_ == std::string_view::npos ? begin : source_begin_;
  token_.source = input_.substr(from, pos_ - from);
  source_begin_ = std::string_view::npos;
  return true;
}

void HtmlTokenizer::DropDuplicateAttributes() {
  // Of two attributes with one name, the first counts. As in Gumbo 0.10, the name of a
  // dropped one without a value goes on to the front of the next one's name ("<a x x
  // href=1>" has the attributes x and xhref).
  if (attributes_.size() < 2) return;
  std::unordered_set<std::string_view> seen;
  const bool small = attributes_.size() <= 16;
  size_t kept = 0;
  std::string_view carry;
  joined_names_.clear();
  for (size_t k = 0; k < attributes_.size(); ++k) {
    HtmlAttribute attribute = attributes_[k];
    if (!carry.empty()) {
      joined_names_.push_back(std::string(carry) + std::string(attribute.name));
      attribute.name = joined_names_.back();
      carry = {};
    }
    bool duplicate = false;
    if (small) {
      for (size_t j = 0; j < kept && !duplicate; ++j) {
        duplicate = attributes_[j].name == attribute.name;
      }
    } else {
      duplicate = !seen.insert(attribute.name).second;
    }
    if (!duplicate) {
      attributes_[kept++] = attribute;
    } else if (!spans_[k].has_value) {
      carry = attribute.name;
    }
  }
  attributes_.resize(kept);
}

void HtmlTokenizer::ReadAttributes() {
  // From the end of the tag name to '>'. pos_ past the input's end: end of input.
  size_t& i = pos_;
  while (true) {
    while (i < input_.size() && IsTagSpace(input_[i])) ++i;
    if (i >= input_.size()) {
      i = input_.size() + 1;
      return;
    }
    const char c = input_[i];
    if (c == '>') {
      ++i;
      return;
    }
    if (c == '/') {
      ++i;
      if (i < input_.size() && input_[i] == '>') {
        token_.self_closing = true;
        ++i;
        return;
      }
      continue;  // a '/' elsewhere is a parse error and ignored
    }
    // An attribute name: its first character may be '='; then up to whitespace, '/',
    // '>' or '='. A NUL as the first character is dropped, as Gumbo 0.10 does (the
    // standard makes it U+FFFD).
    AttributeSpan span{};
    const bool nul_first = input_[i] == '\0';
    const size_t name_begin = nul_first ? i + 1 : i;
    bool plain = true;
    ++i;  // the first character, whatever it is
    while (i < input_.size() && !IsTagSpace(input_[i]) && input_[i] != '/' && input_[i] != '>' &&
           input_[i] != '=') {
      ++i;
    }
    for (size_t k = name_begin; k < i; ++k) {
      const auto b = static_cast<uint8_t>(input_[k]);
      if ((b >= 'A' && b <= 'Z') || b == 0 || kStops[b] != 0) plain = false;
    }
    if (plain) {
      span.name_begin = static_cast<uint32_t>(name_begin);
      span.name_size = static_cast<uint32_t>(i - name_begin);
    } else {
      span.name_in_buffer = true;
      span.name_begin = static_cast<uint32_t>(tag_buffer_.size());
      AppendPreprocessed(input_.substr(name_begin, i - name_begin), tag_buffer_, kReplacement);
      for (size_t k = span.name_begin; k < tag_buffer_.size(); ++k) {
        tag_buffer_[k] = AsciiToLower(tag_buffer_[k]);
      }
      span.name_size = static_cast<uint32_t>(tag_buffer_.size() - span.name_begin);
    }
    // After the name: spaces, then '=' and a value, or another attribute.
    size_t k = i;
    while (k < input_.size() && IsTagSpace(input_[k])) ++k;
    if (k < input_.size() && input_[k] == '=') {
      i = k + 1;
      if (!ReadAttributeValue(span)) {
        i = input_.size() + 1;
        return;
      }
    } else {
      span.value_begin = 0;
      span.value_size = 0;
      span.has_value = false;
      i = k;
    }
    spans_.push_back(span);
  }
}

bool HtmlTokenizer::ReadAttributeValue(AttributeSpan& span) {
  size_t& i = pos_;
  while (i < input_.size() && IsTagSpace(input_[i])) ++i;
  if (i >= input_.size()) return false;
  char quote = input_[i];
  size_t begin;
  size_t end;
  if (quote == '"' || quote == '\'') {
    begin = i + 1;
    const void* close = std::memchr(input_.data() + begin, quote, input_.size() - begin);
    if (close == nullptr) return false;
    end = static_cast<size_t>(static_cast<const char*>(close) - input_.data());
    i = end + 1;
  } else if (quote == '>') {  // "a=>": an empty value, and the tag ends
    span.value_begin = 0;
    span.value_size = 0;
    return true;
  } else {
    quote = '>';
    begin = i;
    while (i < input_.size() && !IsTagSpace(input_[i]) && input_[i] != '>') ++i;
    if (i >= input_.size()) return false;
    end = i;
  }
  // A value with no reference, CR or invalid code point is a view of the input.
  bool plain = true;
  for (size_t k = begin; k < end && plain; ++k) {
    const auto b = static_cast<uint8_t>(input_[k]);
    if (b == '&' || b == 0 || b == '\r' || (kStops[b] != 0 && b != '<' && InvalidLength(input_, k))) {
      plain = false;
    }
  }
  if (plain) {
    span.value_begin = static_cast<uint32_t>(begin);
    span.value_size = static_cast<uint32_t>(end - begin);
    return true;
  }
  span.value_in_buffer = true;
  span.value_begin = static_cast<uint32_t>(tag_buffer_.size());
  size_t from = begin;
  for (size_t k = begin; k < end;) {
    if (input_[k] != '&') {
      ++k;
      continue;
    }
    std::string decoded;
    // A reference may not run past the value's end: decode within the value.
    const size_t past = DecodeReference(k, quote, decoded);
    if (past == k) {
      ++k;
      continue;
    }
    AppendPreprocessed(input_.substr(from, k - from), tag_buffer_, kReplacement);
    tag_buffer_ += decoded;
    k = from = past;
  }
  AppendPreprocessed(input_.substr(from, end - from), tag_buffer_, kReplacement);
  span.value_size = static_cast<uint32_t>(tag_buffer_.size() - span.value_begin);
  return true;
}

}  // namespace crawlrank::crawl_internal
