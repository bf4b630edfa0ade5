// Base64 (RFC 4648 section 4, the standard alphabet, with '=' padding): how a client of
// crawlrank serve carries a page's opaque payload in URLFrontier's string metadata
// (crawlrank.payload, docs/frontier.md).
#ifndef CRAWLRANK_SRC_BASE_BASE64_H_
#define CRAWLRANK_SRC_BASE_BASE64_H_

#include <optional>
#include <string>
#include <string_view>

namespace crawlrank {

std::string EncodeBase64(std::string_view bytes);

// The bytes `text` encodes; nullopt unless it is canonical base64: a length that is a
// multiple of 4, only the alphabet, '=' only as the last one or two characters, and no
// bits set past the data in the last character (so that each byte string has one
// encoding). No white space.
std::optional<std::string> DecodeBase64(std::string_view text);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_BASE_BASE64_H_
