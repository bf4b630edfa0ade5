// Decoding an HTML response body to UTF-8: the WHATWG encoding sniffing algorithm (HTML
// §13.2.3.2) over the WHATWG Encoding Standard's labels, converted with glibc's iconv.
#ifndef CRAWLRANK_CRAWL_CHARSET_H_
#define CRAWLRANK_CRAWL_CHARSET_H_

#include <string>
#include <string_view>

namespace crawlrank::crawl_internal {

// One encoding of the WHATWG Encoding Standard.
struct Encoding {
  enum class Kind { kUtf8, kUtf16Le, kUtf16Be, kWindows1252, kUserDefined, kReplacement, kIconv };
  const char* name;   // the standard's name: "UTF-8", "windows-1252", "Shift_JIS", ...
  const char* iconv;  // glibc's name for it, for kIconv (and UTF-16)
  Kind kind;
};

// Returns the encoding a label names (ASCII case and surrounding whitespace ignored), or
// nullptr for an unknown label.
const Encoding* FindEncoding(std::string_view label);

// Returns the value of the first "charset=" in `text` (a Content-Type value or a meta
// content attribute), quotes removed, per HTML's "extract a character encoding from a meta
// element"; empty when there is none.
std::string_view CharsetParameter(std::string_view text);

// Runs HTML's prescan over the first 1024 bytes of `body`: the encoding of the first
// <meta charset> or <meta http-equiv=content-type content=...charset=...> with a known
// label (UTF-16 read as UTF-8, x-user-defined as windows-1252), or nullptr.
const Encoding* PrescanForMetaCharset(std::string_view body);

struct DecodedBody {
  std::string storage;       // the converted text, when it is not `body` itself
  std::string_view text;     // valid UTF-8: a view of `storage` or of the body
  const Encoding* encoding;  // what the body was decoded from
};

// Picks the encoding (BOM, then the Content-Type's charset, then the prescan, then UTF-8)
// and decodes `body` to valid UTF-8, replacing what does not decode with U+FFFD. A BOM is
// not part of the text. The result may view `body`: keep it alive.
DecodedBody DecodeBody(std::string_view body, std::string_view content_type);

// Returns whether `text` is valid UTF-8.
bool IsValidUtf8(std::string_view text);

// Appends `text` to `out`, each maximal invalid subpart (WHATWG's UTF-8 decoder) replaced
// by U+FFFD.
void AppendRepairedUtf8(std::string_view text, std::string& out);

}  // namespace crawlrank::crawl_internal

#endif  // CRAWLRANK_CRAWL_CHARSET_H_
