// Private helpers shared by the URL profiles (url.cc, url_w3lib.cc).
#ifndef CRAWLRANK_SRC_URL_INTERNAL_H_
#define CRAWLRANK_SRC_URL_INTERNAL_H_

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "crawlrank/status.h"

namespace crawlrank::url_internal {

// Returns InvalidArgument `URL "<url>": <why>`, the URL quoted by QuoteForMessage.
Status BadUrl(std::string_view url, std::string_view why);

// Applies the lenient input rules of url.h: trims spaces and C0 controls at both ends,
// removes tab/LF/CR anywhere, rejects any other control character or DEL.
Result<std::string> CleanInput(std::string_view url);

// Percent-encodes every byte outside the authority that may not appear raw in a URL
// (space, non-ASCII, "<>\"^`{|}" and a '%' not starting a valid escape), so libcurl,
// which rejects them, can parse what browsers accept. The authority is left alone.
std::string EncodeUnsafeBytes(std::string_view url);

// Appends "%XX" with upper-case hex.
void AppendEscape(std::string& out, unsigned char c);

// Returns true for RFC 3986 unreserved characters: ALPHA / DIGIT / "-" / "." / "_" / "~".
bool IsUnreserved(unsigned char c);

// Returns true when `url` starts with "scheme:" (RFC 3986 §3.1), i.e. is absolute.
bool HasScheme(std::string_view url);

enum class IdnaMode {
  kUts46,        // IDNA 2008 with UTS #46 non-transitional mapping, as browsers do.
  kTransitional  // IDNA 2003-like mapping (ß -> ss), as Python's "idna" codec does.
};

// Converts a host name to lower-case ASCII, punycoding non-ASCII labels with libidn2.
Result<std::string> HostToAscii(std::string_view host, IdnaMode mode, std::string_view context_url);

// Owns a libcurl URL handle (curl_url). Move-only.
class CurlUrl {
 public:
  CurlUrl();
  bool valid() const { return handle_ != nullptr; }
  // Sets a part; on error returns BadUrl(context_url, curl's reason).
  Status Set(CURLUPart part, const std::string& value, unsigned flags,
             std::string_view context_url);
  // Returns the part, or an empty optional-like NotFound when the URL lacks it.
  Result<std::string> Get(CURLUPart part, unsigned flags) const;

 private:
  struct Deleter {
    void operator()(CURLU* h) const { curl_url_cleanup(h); }
  };
  std::unique_ptr<CURLU, Deleter> handle_;
};

}  // namespace crawlrank::url_internal

namespace crawlrank {
// The w3lib/1 profile (url_w3lib.cc). `url` has passed CleanInput.
Result<std::string> CanonicalizeW3lib(std::string_view url);

// Returns what Python's urllib.parse.urljoin(base, reference) returns, less the fragment
// (url_w3lib.cc). `base` has passed CleanInput and has an http(s) scheme and a host;
// `reference` is the raw reference (urljoin's own stripping is applied here). The result
// still needs CleanInput and CanonicalizeW3lib.
std::string JoinLikeUrljoin(std::string_view base, std::string_view reference);
}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_URL_INTERNAL_H_
