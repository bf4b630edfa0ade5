// Encoding sniffing and decoding (charset.h).
#include "crawl/charset.h"

#include <iconv.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "base/ascii.h"
#include "crawl/utf8.h"

namespace crawlrank::crawl_internal {
namespace {

using Kind = Encoding::Kind;

constexpr Encoding kUtf8{"UTF-8", "UTF-8", Kind::kUtf8};
constexpr Encoding kUtf16Le{"UTF-16LE", "UTF-16LE", Kind::kUtf16Le};
constexpr Encoding kUtf16Be{"UTF-16BE", "UTF-16BE", Kind::kUtf16Be};
constexpr Encoding kWindows1252{"windows-1252", "CP1252", Kind::kWindows1252};
constexpr Encoding kUserDefined{"x-user-defined", "", Kind::kUserDefined};
constexpr Encoding kReplacement{"replacement", "", Kind::kReplacement};

#define CRAWLRANK_ICONV_ENCODING(var, name, iconv_name) \
  constexpr Encoding var{name, iconv_name, Kind::kIconv};
CRAWLRANK_ICONV_ENCODING(kIbm866, "IBM866", "IBM866")
CRAWLRANK_ICONV_ENCODING(kIso2, "ISO-8859-2", "ISO-8859-2")
CRAWLRANK_ICONV_ENCODING(kIso3, "ISO-8859-3", "ISO-8859-3")
CRAWLRANK_ICONV_ENCODING(kIso4, "ISO-8859-4", "ISO-8859-4")
CRAWLRANK_ICONV_ENCODING(kIso5, "ISO-8859-5", "ISO-8859-5")
CRAWLRANK_ICONV_ENCODING(kIso6, "ISO-8859-6", "ISO-8859-6")
CRAWLRANK_ICONV_ENCODING(kIso7, "ISO-8859-7", "ISO-8859-7")
CRAWLRANK_ICONV_ENCODING(kIso8, "ISO-8859-8", "ISO-8859-8")
CRAWLRANK_ICONV_ENCODING(kIso8I, "ISO-8859-8-I", "ISO-8859-8")
CRAWLRANK_ICONV_ENCODING(kIso10, "ISO-8859-10", "ISO-8859-10")
CRAWLRANK_ICONV_ENCODING(kIso13, "ISO-8859-13", "ISO-8859-13")
CRAWLRANK_ICONV_ENCODING(kIso14, "ISO-8859-14", "ISO-8859-14")
CRAWLRANK_ICONV_ENCODING(kIso15, "ISO-8859-15", "ISO-8859-15")
CRAWLRANK_ICONV_ENCODING(kIso16, "ISO-8859-16", "ISO-8859-16")
CRAWLRANK_ICONV_ENCODING(kKoi8R, "KOI8-R", "KOI8-R")
CRAWLRANK_ICONV_ENCODING(kKoi8U, "KOI8-U", "KOI8-RU")
CRAWLRANK_ICONV_ENCODING(kMacintosh, "macintosh", "MACINTOSH")
CRAWLRANK_ICONV_ENCODING(kWindows874, "windows-874", "CP874")
CRAWLRANK_ICONV_ENCODING(kWindows1250, "windows-1250", "CP1250")
CRAWLRANK_ICONV_ENCODING(kWindows1251, "windows-1251", "CP1251")
CRAWLRANK_ICONV_ENCODING(kWindows1253, "windows-1253", "CP1253")
CRAWLRANK_ICONV_ENCODING(kWindows1254, "windows-1254", "CP1254")
CRAWLRANK_ICONV_ENCODING(kWindows1255, "windows-1255", "CP1255")
CRAWLRANK_ICONV_ENCODING(kWindows1256, "windows-1256", "CP1256")
CRAWLRANK_ICONV_ENCODING(kWindows1257, "windows-1257", "CP1257")
CRAWLRANK_ICONV_ENCODING(kWindows1258, "windows-1258", "CP1258")
CRAWLRANK_ICONV_ENCODING(kMacCyrillic, "x-mac-cyrillic", "MAC-CYRILLIC")
CRAWLRANK_ICONV_ENCODING(kGbk, "GBK", "GBK")
CRAWLRANK_ICONV_ENCODING(kGb18030, "gb18030", "GB18030")
CRAWLRANK_ICONV_ENCODING(kBig5, "Big5", "BIG5-HKSCS")
CRAWLRANK_ICONV_ENCODING(kEucJp, "EUC-JP", "EUC-JP")
CRAWLRANK_ICONV_ENCODING(kIso2022Jp, "ISO-2022-JP", "ISO-2022-JP")
CRAWLRANK_ICONV_ENCODING(kShiftJis, "Shift_JIS", "WINDOWS-31J")
CRAWLRANK_ICONV_ENCODING(kEucKr, "EUC-KR", "CP949")
#undef CRAWLRANK_ICONV_ENCODING

struct Label {
  std::string_view label;
  const Encoding* encoding;
};

// The Encoding Standard's label table (§4.2, "Names and labels"), lower case.
constexpr Label kLabels[] = {
    {"unicode-1-1-utf-8", &kUtf8},
    {"unicode11utf8", &kUtf8},
    {"unicode20utf8", &kUtf8},
    {"utf-8", &kUtf8},
    {"utf8", &kUtf8},
    {"x-unicode20utf8", &kUtf8},
    {"866", &kIbm866},
    {"cp866", &kIbm866},
    {"csibm866", &kIbm866},
    {"ibm866", &kIbm866},
    {"csisolatin2", &kIso2},
    {"iso-8859-2", &kIso2},
    {"iso-ir-101", &kIso2},
    {"iso8859-2", &kIso2},
    {"iso88592", &kIso2},
    {"iso_8859-2", &kIso2},
    {"iso_8859-2:1987", &kIso2},
    {"l2", &kIso2},
    {"latin2", &kIso2},
    {"csisolatin3", &kIso3},
    {"iso-8859-3", &kIso3},
    {"iso-ir-109", &kIso3},
    {"iso8859-3", &kIso3},
    {"iso88593", &kIso3},
    {"iso_8859-3", &kIso3},
    {"iso_8859-3:1988", &kIso3},
    {"l3", &kIso3},
    {"latin3", &kIso3},
    {"csisolatin4", &kIso4},
    {"iso-8859-4", &kIso4},
    {"iso-ir-110", &kIso4},
    {"iso8859-4", &kIso4},
    {"iso88594", &kIso4},
    {"iso_8859-4", &kIso4},
    {"iso_8859-4:1988", &kIso4},
    {"l4", &kIso4},
    {"latin4", &kIso4},
    {"csisolatincyrillic", &kIso5},
    {"cyrillic", &kIso5},
    {"iso-8859-5", &kIso5},
    {"iso-ir-144", &kIso5},
    {"iso8859-5", &kIso5},
    {"iso88595", &kIso5},
    {"iso_8859-5", &kIso5},
    {"iso_8859-5:1988", &kIso5},
    {"arabic", &kIso6},
    {"asmo-708", &kIso6},
    {"csiso88596e", &kIso6},
    {"csiso88596i", &kIso6},
    {"csisolatinarabic", &kIso6},
    {"ecma-114", &kIso6},
    {"iso-8859-6", &kIso6},
    {"iso-8859-6-e", &kIso6},
    {"iso-8859-6-i", &kIso6},
    {"iso-ir-127", &kIso6},
    {"iso8859-6", &kIso6},
    {"iso88596", &kIso6},
    {"iso_8859-6", &kIso6},
    {"iso_8859-6:1987", &kIso6},
    {"csisolatingreek", &kIso7},
    {"ecma-118", &kIso7},
    {"elot_928", &kIso7},
    {"greek", &kIso7},
    {"greek8", &kIso7},
    {"iso-8859-7", &kIso7},
    {"iso-ir-126", &kIso7},
    {"iso8859-7", &kIso7},
    {"iso88597", &kIso7},
    {"iso_8859-7", &kIso7},
    {"iso_8859-7:1987", &kIso7},
    {"sun_eu_greek", &kIso7},
    {"csiso88598e", &kIso8},
    {"csisolatinhebrew", &kIso8},
    {"hebrew", &kIso8},
    {"iso-8859-8", &kIso8},
    {"iso-8859-8-e", &kIso8},
    {"iso-ir-138", &kIso8},
    {"iso8859-8", &kIso8},
    {"iso88598", &kIso8},
    {"iso_8859-8", &kIso8},
    {"iso_8859-8:1988", &kIso8},
    {"visual", &kIso8},
    {"csiso88598i", &kIso8I},
    {"iso-8859-8-i", &kIso8I},
    {"logical", &kIso8I},
    {"csisolatin6", &kIso10},
    {"iso-8859-10", &kIso10},
    {"iso-ir-157", &kIso10},
    {"iso8859-10", &kIso10},
    {"iso885910", &kIso10},
    {"l6", &kIso10},
    {"latin6", &kIso10},
    {"iso-8859-13", &kIso13},
    {"iso8859-13", &kIso13},
    {"iso885913", &kIso13},
    {"iso-8859-14", &kIso14},
    {"iso8859-14", &kIso14},
    {"iso885914", &kIso14},
    {"csisolatin9", &kIso15},
    {"iso-8859-15", &kIso15},
    {"iso8859-15", &kIso15},
    {"iso885915", &kIso15},
    {"iso_8859-15", &kIso15},
    {"l9", &kIso15},
    {"iso-8859-16", &kIso16},
    {"cskoi8r", &kKoi8R},
    {"koi", &kKoi8R},
    {"koi8", &kKoi8R},
    {"koi8-r", &kKoi8R},
    {"koi8_r", &kKoi8R},
    {"koi8-ru", &kKoi8U},
    {"koi8-u", &kKoi8U},
    {"csmacintosh", &kMacintosh},
    {"mac", &kMacintosh},
    {"macintosh", &kMacintosh},
    {"x-mac-roman", &kMacintosh},
    {"dos-874", &kWindows874},
    {"iso-8859-11", &kWindows874},
    {"iso8859-11", &kWindows874},
    {"iso885911", &kWindows874},
    {"tis-620", &kWindows874},
    {"windows-874", &kWindows874},
    {"cp1250", &kWindows1250},
    {"windows-1250", &kWindows1250},
    {"x-cp1250", &kWindows1250},
    {"cp1251", &kWindows1251},
    {"windows-1251", &kWindows1251},
    {"x-cp1251", &kWindows1251},
    {"ansi_x3.4-1968", &kWindows1252},
    {"ascii", &kWindows1252},
    {"cp1252", &kWindows1252},
    {"cp819", &kWindows1252},
    {"csisolatin1", &kWindows1252},
    {"ibm819", &kWindows1252},
    {"iso-8859-1", &kWindows1252},
    {"iso-ir-100", &kWindows1252},
    {"iso8859-1", &kWindows1252},
    {"iso88591", &kWindows1252},
    {"iso_8859-1", &kWindows1252},
    {"iso_8859-1:1987", &kWindows1252},
    {"l1", &kWindows1252},
    {"latin1", &kWindows1252},
    {"us-ascii", &kWindows1252},
    {"windows-1252", &kWindows1252},
    {"x-cp1252", &kWindows1252},
    {"cp1253", &kWindows1253},
    {"windows-1253", &kWindows1253},
    {"x-cp1253", &kWindows1253},
    {"cp1254", &kWindows1254},
    {"csisolatin5", &kWindows1254},
    {"iso-8859-9", &kWindows1254},
    {"iso-ir-148", &kWindows1254},
    {"iso8859-9", &kWindows1254},
    {"iso88599", &kWindows1254},
    {"iso_8859-9", &kWindows1254},
    {"iso_8859-9:1989", &kWindows1254},
    {"l5", &kWindows1254},
    {"latin5", &kWindows1254},
    {"windows-1254", &kWindows1254},
    {"x-cp1254", &kWindows1254},
    {"cp1255", &kWindows1255},
    {"windows-1255", &kWindows1255},
    {"x-cp1255", &kWindows1255},
    {"cp1256", &kWindows1256},
    {"windows-1256", &kWindows1256},
    {"x-cp1256", &kWindows1256},
    {"cp1257", &kWindows1257},
    {"windows-1257", &kWindows1257},
    {"x-cp1257", &kWindows1257},
    {"cp1258", &kWindows1258},
    {"windows-1258", &kWindows1258},
    {"x-cp1258", &kWindows1258},
    {"x-mac-cyrillic", &kMacCyrillic},
    {"x-mac-ukrainian", &kMacCyrillic},
    {"chinese", &kGbk},
    {"csgb2312", &kGbk},
    {"csiso58gb231280", &kGbk},
    {"gb2312", &kGbk},
    {"gb_2312", &kGbk},
    {"gb_2312-80", &kGbk},
    {"gbk", &kGbk},
    {"iso-ir-58", &kGbk},
    {"x-gbk", &kGbk},
    {"gb18030", &kGb18030},
    {"big5", &kBig5},
    {"big5-hkscs", &kBig5},
    {"cn-big5", &kBig5},
    {"csbig5", &kBig5},
    {"x-x-big5", &kBig5},
    {"cseucpkdfmtjapanese", &kEucJp},
    {"euc-jp", &kEucJp},
    {"x-euc-jp", &kEucJp},
    {"csiso2022jp", &kIso2022Jp},
    {"iso-2022-jp", &kIso2022Jp},
    {"csshiftjis", &kShiftJis},
    {"ms932", &kShiftJis},
    {"ms_kanji", &kShiftJis},
    {"shift-jis", &kShiftJis},
    {"shift_jis", &kShiftJis},
    {"sjis", &kShiftJis},
    {"windows-31j", &kShiftJis},
    {"x-sjis", &kShiftJis},
    {"cseuckr", &kEucKr},
    {"csksc56011987", &kEucKr},
    {"euc-kr", &kEucKr},
    {"iso-ir-149", &kEucKr},
    {"korean", &kEucKr},
    {"ks_c_5601-1987", &kEucKr},
    {"ks_c_5601-1989", &kEucKr},
    {"ksc5601", &kEucKr},
    {"ksc_5601", &kEucKr},
    {"windows-949", &kEucKr},
    {"csiso2022kr", &kReplacement},
    {"hz-gb-2312", &kReplacement},
    {"iso-2022-cn", &kReplacement},
    {"iso-2022-cn-ext", &kReplacement},
    {"iso-2022-kr", &kReplacement},
    {"replacement", &kReplacement},
    {"unicodefffe", &kUtf16Be},
    {"utf-16be", &kUtf16Be},
    {"csunicode", &kUtf16Le},
    {"iso-10646-ucs-2", &kUtf16Le},
    {"ucs-2", &kUtf16Le},
    {"unicode", &kUtf16Le},
    {"unicodefeff", &kUtf16Le},
    {"utf-16", &kUtf16Le},
    {"utf-16le", &kUtf16Le},
    {"x-user-defined", &kUserDefined},
};

// windows-1252 bytes 0x80-0x9F (the Encoding Standard's index-windows-1252); the rest are
// Latin-1.
constexpr uint16_t kWindows1252High[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

bool StartsWithNoCase(std::string_view text, size_t at, std::string_view prefix) {
  if (text.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiToLower(text[at + i]) != prefix[i]) return false;
  }
  return true;
}

// The length of the valid UTF-8 sequence at text[i], or 0 when it is invalid; `bad` is then
// the length of its maximal invalid subpart (at least 1).
size_t Utf8SequenceAt(std::string_view text, size_t i, size_t& bad) {
  const auto c = static_cast<unsigned char>(text[i]);
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte (Unicode Table 3-7)
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    bad = 1;
    return 0;
  }
  for (size_t k = 1; k < len; ++k) {
    if (i + k >= text.size()) {
      bad = k;
      return 0;
    }
    const auto b = static_cast<unsigned char>(text[i + k]);
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) {
      bad = k;
      return 0;
    }
  }
  return len;
}

// Converts with iconv; undecodable input becomes U+FFFD, skipping `unit` bytes.
bool ConvertWithIconv(std::string_view body, const Encoding& encoding, size_t unit,
                      std::string& out) {
  iconv_t cd = iconv_open("UTF-8", encoding.iconv);
  if (cd == reinterpret_cast<iconv_t>(-1)) return false;
  out.clear();
  out.resize(body.size() * 2 + 16);
  char* in = const_cast<char*>(body.data());  // iconv's signature; it does not write
  size_t in_left = body.size();
  size_t written = 0;
  while (true) {
    char* dst = out.data() + written;
    size_t dst_left = out.size() - written;
    const size_t rc = in_left == 0 ? iconv(cd, nullptr, nullptr, &dst, &dst_left)  // flush
                                   : iconv(cd, &in, &in_left, &dst, &dst_left);
    written = out.size() - dst_left;
    if (rc != static_cast<size_t>(-1)) {
      if (in_left == 0) break;
      continue;
    }
    if (errno == E2BIG) {
      out.resize(out.size() * 2);
      continue;
    }
    // EILSEQ (an invalid sequence) or EINVAL (one cut short at the end): U+FFFD for it.
    if (out.size() - written < kReplacementChar.size()) out.resize(out.size() * 2);
    std::memcpy(out.data() + written, kReplacementChar.data(), kReplacementChar.size());
    written += kReplacementChar.size();
    if (errno != EILSEQ) {
      in_left = 0;  // EINVAL: the rest is an incomplete sequence
    } else {
      const size_t skip = std::min(unit, in_left);
      in += skip;
      in_left -= skip;
    }
    if (in_left == 0) {
      char* flush_dst = out.data() + written;
      size_t flush_left = out.size() - written;
      iconv(cd, nullptr, nullptr, &flush_dst, &flush_left);
      written = out.size() - flush_left;
      break;
    }
  }
  iconv_close(cd);
  out.resize(written);
  return true;
}

}  // namespace

const Encoding* FindEncoding(std::string_view label) {
  while (!label.empty() && IsAsciiSpace(label.front())) label.remove_prefix(1);
  while (!label.empty() && IsAsciiSpace(label.back())) label.remove_suffix(1);
  if (label.empty() || label.size() > 24) return nullptr;
  char lower[24];
  for (size_t i = 0; i < label.size(); ++i) lower[i] = AsciiToLower(label[i]);
  const std::string_view key(lower, label.size());
  for (const Label& entry : kLabels) {
    if (entry.label == key) return entry.encoding;
  }
  return nullptr;
}

std::string_view CharsetParameter(std::string_view text) {
  // HTML §2.6.? "extract a character encoding from a meta element", on bytes.
  size_t pos = 0;
  while (true) {
    size_t at = std::string_view::npos;
    for (size_t i = pos; i + 7 <= text.size(); ++i) {
      if (StartsWithNoCase(text, i, "charset")) {
        at = i;
        break;
      }
    }
    if (at == std::string_view::npos) return {};
    pos = at + 7;
    while (pos < text.size() && IsAsciiSpace(text[pos])) ++pos;
    if (pos >= text.size() || text[pos] != '=') continue;  // look for the next "charset"
    ++pos;
    while (pos < text.size() && IsAsciiSpace(text[pos])) ++pos;
    if (pos >= text.size()) return {};
    const char quote = text[pos];
    if (quote == '"' || quote == '\'') {
      const size_t end = text.find(quote, pos + 1);
      if (end == std::string_view::npos) return {};
      return text.substr(pos + 1, end - pos - 1);
    }
    size_t end = pos;
    while (end < text.size() && !IsAsciiSpace(text[end]) && text[end] != ';') ++end;
    return text.substr(pos, end - pos);
  }
}

namespace {

// HTML's "get an attribute" of the prescan. Returns false when there is none (or the input
// ends); `name` and `value` are lower-cased.
bool GetAttribute(std::string_view s, size_t& pos, std::string& name, std::string& value) {
  name.clear();
  value.clear();
  while (pos < s.size() && (IsAsciiSpace(s[pos]) || s[pos] == '/')) ++pos;
  if (pos >= s.size() || s[pos] == '>') return false;
  while (true) {  // the name
    if (pos >= s.size()) return false;
    const char c = s[pos];
    if (c == '=' && !name.empty()) {
      ++pos;
      break;
    }
    if (IsAsciiSpace(c)) {
      while (pos < s.size() && IsAsciiSpace(s[pos])) ++pos;
      if (pos >= s.size()) return false;
      if (s[pos] != '=') return true;
      ++pos;
      break;
    }
    if (c == '/' || c == '>') return true;
    name += AsciiToLower(c);
    ++pos;
  }
  while (pos < s.size() && IsAsciiSpace(s[pos])) ++pos;  // the value
  if (pos >= s.size()) return false;
  const char quote = s[pos];
  if (quote == '"' || quote == '\'') {
    ++pos;
    while (true) {
      if (pos >= s.size()) return false;
      if (s[pos] == quote) {
        ++pos;
        return true;
      }
      value += AsciiToLower(s[pos++]);
    }
  }
  if (quote == '>') return true;
  while (pos < s.size() && !IsAsciiSpace(s[pos]) && s[pos] != '>') value += AsciiToLower(s[pos++]);
  return pos < s.size();
}

}  // namespace

const Encoding* PrescanForMetaCharset(std::string_view body) {
  const std::string_view s = body.substr(0, 1024);
  std::string name, value;
  size_t pos = 0;
  while (pos < s.size()) {
    if (s.compare(pos, 4, "<!--") == 0) {
      const size_t end = s.find("-->", pos + 2);
      if (end == std::string_view::npos) return nullptr;
      pos = end + 3;
      continue;
    }
    if (StartsWithNoCase(s, pos, "<meta") && pos + 5 < s.size() &&
        (IsAsciiSpace(s[pos + 5]) || s[pos + 5] == '/')) {
      pos += 6;
      std::string seen;  // names already met, '\0'-separated: later repeats are ignored
      bool got_pragma = false;
      int need_pragma = -1;  // -1: null, 0: false, 1: true
      const Encoding* charset = nullptr;
      while (GetAttribute(s, pos, name, value)) {
        const std::string key = '\0' + name + '\0';
        if (seen.find(key) != std::string::npos) continue;
        seen += key;
        if (name == "http-equiv") {
          if (value == "content-type") got_pragma = true;
        } else if (name == "content") {
          if (charset == nullptr) {
            const std::string_view label = CharsetParameter(value);
            if (!label.empty() && (charset = FindEncoding(label)) != nullptr) need_pragma = 1;
          }
        } else if (name == "charset") {
          charset = FindEncoding(value);
          need_pragma = 0;
        }
      }
      if (need_pragma == -1 || (need_pragma == 1 && !got_pragma) || charset == nullptr) {
        continue;  // "next byte": pos is past the attributes already
      }
      if (charset->kind == Kind::kUtf16Le || charset->kind == Kind::kUtf16Be) return &kUtf8;
      if (charset->kind == Kind::kUserDefined) return &kWindows1252;
      return charset;
    }
    if (s[pos] == '<' && pos + 1 < s.size() &&
        (IsAsciiAlpha(s[pos + 1]) ||
         (s[pos + 1] == '/' && pos + 2 < s.size() && IsAsciiAlpha(s[pos + 2])))) {
      while (pos < s.size() && !IsAsciiSpace(s[pos]) && s[pos] != '>') ++pos;
      while (GetAttribute(s, pos, name, value)) {
      }
      ++pos;
      continue;
    }
    if (s[pos] == '<' && pos + 1 < s.size() &&
        (s[pos + 1] == '!' || s[pos + 1] == '/' || s[pos + 1] == '?')) {
      const size_t end = s.find('>', pos + 2);
      if (end == std::string_view::npos) return nullptr;
      pos = end + 1;
      continue;
    }
    ++pos;
  }
  return nullptr;
}

bool IsValidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    // Eight ASCII bytes at a time.
    if (i + 8 <= text.size()) {
      uint64_t chunk;
      std::memcpy(&chunk, text.data() + i, 8);
      if ((chunk & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    size_t bad = 0;
    const size_t len = Utf8SequenceAt(text, i, bad);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

void AppendRepairedUtf8(std::string_view text, std::string& out) {
  size_t i = 0;
  size_t run = 0;  // start of the valid run not yet copied
  while (i < text.size()) {
    size_t bad = 0;
    const size_t len = Utf8SequenceAt(text, i, bad);
    if (len > 0) {
      i += len;
      continue;
    }
    out.append(text.substr(run, i - run));
    out.append(kReplacementChar);
    i += bad;
    run = i;
  }
  out.append(text.substr(run));
}

DecodedBody DecodeBody(std::string_view body, std::string_view content_type) {
  DecodedBody result;
  const Encoding* encoding = nullptr;
  if (body.starts_with("\xEF\xBB\xBF")) {
    encoding = &kUtf8;
    body.remove_prefix(3);
  } else if (body.starts_with("\xFE\xFF")) {
    encoding = &kUtf16Be;
    body.remove_prefix(2);
  } else if (body.starts_with("\xFF\xFE")) {
    encoding = &kUtf16Le;
    body.remove_prefix(2);
  }
  if (encoding == nullptr) {
    const std::string_view label = CharsetParameter(content_type);
    if (!label.empty()) encoding = FindEncoding(label);
  }
  if (encoding == nullptr) encoding = PrescanForMetaCharset(body);
  if (encoding == nullptr) encoding = &kUtf8;
  result.encoding = encoding;

  switch (encoding->kind) {
    case Kind::kUtf8:
      if (IsValidUtf8(body)) {
        result.text = body;
        return result;
      }
      result.storage.reserve(body.size() + 16);
      AppendRepairedUtf8(body, result.storage);
      result.text = result.storage;
      return result;
    case Kind::kWindows1252:
    case Kind::kUserDefined: {
      std::string& out = result.storage;
      out.reserve(body.size() + body.size() / 8);
      for (const char ch : body) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x80) {
          out += ch;
        } else if (encoding->kind == Kind::kUserDefined) {
          AppendUtf8(0xF780 + c - 0x80, out);
        } else {
          AppendUtf8(c < 0xA0 ? kWindows1252High[c - 0x80] : c, out);
        }
      }
      result.text = out;
      return result;
    }
    case Kind::kReplacement:
      // The Encoding Standard's "replacement" decoder: one U+FFFD for a non-empty input.
      if (!body.empty()) result.storage = kReplacementChar;
      result.text = result.storage;
      return result;
    case Kind::kUtf16Le:
    case Kind::kUtf16Be:
    case Kind::kIconv: {
      const size_t unit = encoding->kind == Kind::kIconv ? 1 : 2;
      std::string converted;
      if (!ConvertWithIconv(body, *encoding, unit, converted)) {
        // glibc without this converter (no gconv modules): read it as UTF-8.
        result.encoding = &kUtf8;
        converted.clear();
        AppendRepairedUtf8(body, converted);
      } else if (!IsValidUtf8(converted)) {
        std::string repaired;
        AppendRepairedUtf8(converted, repaired);
        converted.swap(repaired);
      }
      result.storage = std::move(converted);
      result.text = result.storage;
      return result;
    }
  }
  return result;
}

}  // namespace crawlrank::crawl_internal
