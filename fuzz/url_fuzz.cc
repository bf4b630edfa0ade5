// Fuzzes URL canonicalisation (both profiles) and relative resolution (url.h).
//
// Input: text. The whole input is canonicalised under rfc3986/1 and w3lib/1; when it holds
// a newline, the part before the first one is also a base URL and the part after it a
// reference to resolve against it (CleanInput drops LF anywhere, so the split takes
// nothing a URL could keep).
//
// Properties, for each profile:
//   - a canonical URL is "http://" or "https://", a host, and printable ASCII only;
//   - rfc3986/1 is idempotent: the canonical form of a canonical URL is itself (w3lib/1 is
//     Python's canonicalize_url, which is not: "/%4%41" gives "/%4A", then "/J");
//   - the rfc3986/1 fast path agrees with the full parse (ResolveUrl(url, "") runs the
//     full canonicaliser on the base, skipping the fast path): same status, same result;
//   - a canonical URL has a host key in both modes;
//   - a resolved URL is canonical (and so satisfies the above).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "crawlrank/url.h"
#include "fuzz_check.h"
#include "url/url_fast_path.h"

namespace crawlrank {
namespace {

void CheckCanonical(const std::string& url, UrlProfile profile) {
  FUZZ_CHECK(url.starts_with("http://") || url.starts_with("https://"));
  for (char c : url) FUZZ_CHECK(c > 0x20 && c < 0x7F);
  if (profile == UrlProfile::kRfc3986) {
    const Result<std::string> again = CanonicalizeUrl(url, profile);
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(*again == url);
  }
  FUZZ_CHECK(HostKey(url, HostKeyMode::kHost).ok());
  FUZZ_CHECK(HostKey(url, HostKeyMode::kRegisteredDomain).ok());
  (void)UrlFingerprint(url);
}

void CheckCanonicalize(std::string_view text, UrlProfile profile) {
  const Result<std::string> canonical = CanonicalizeUrl(text, profile);
  const Result<std::string> full = ResolveUrl(text, "", profile);  // never the fast path
  FUZZ_CHECK(canonical.ok() == full.ok());
  if (!canonical.ok()) {
    FUZZ_CHECK(canonical.status().code() == StatusCode::kInvalidArgument);
    return;
  }
  FUZZ_CHECK(*canonical == *full);
  if (profile == UrlProfile::kRfc3986 && url_internal::IsCanonicalRfc3986(text)) {
    FUZZ_CHECK(*full == text);
  }
  CheckCanonical(*canonical, profile);
}

void CheckResolve(std::string_view base, std::string_view reference, UrlProfile profile) {
  const Result<std::string> resolved = ResolveUrl(base, reference, profile);
  if (!resolved.ok()) {
    FUZZ_CHECK(resolved.status().code() == StatusCode::kInvalidArgument);
    return;
  }
  CheckCanonical(*resolved, profile);
}

}  // namespace
}  // namespace crawlrank

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using crawlrank::UrlProfile;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (UrlProfile profile : {UrlProfile::kRfc3986, UrlProfile::kW3lib}) {
    crawlrank::CheckCanonicalize(text, profile);
    if (const size_t newline = text.find('\n'); newline != std::string_view::npos) {
      crawlrank::CheckResolve(text.substr(0, newline), text.substr(newline + 1), profile);
    }
  }
  return 0;
}
