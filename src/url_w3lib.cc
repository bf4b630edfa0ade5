// The w3lib/1 URL profile: matches Python's w3lib.url.canonicalize_url (w3lib 2.1).
#include "url_internal.h"

namespace crawlrank {

Result<std::string> CanonicalizeW3lib(std::string_view url) {
  return url_internal::BadUrl(url, "the w3lib profile is not implemented yet");
}

}  // namespace crawlrank
