// Content decoding: a body as a server sent it (Content-Encoding: gzip, br, ...) turned
// into the bytes it stands for. libcurl decodes on its own; the crawler decodes here
// instead when it keeps bodies as received (crawlrank crawl --warc), so that the WARC
// holds the wire bytes and the parser the decoded ones.
//
// Codings (RFC 9110 §8.4.1, the IANA registry): identity, gzip and x-gzip (one member or
// several), deflate (the zlib format, or the raw DEFLATE some servers send instead), br
// (RFC 7932) and zstd (RFC 8878). A header naming several was applied in order, so they are
// undone last first. Case and blanks around names do not matter; empty names are skipped.
//
// Hostile input: the output is capped (a 10 KB gzip can stand for 10 GB); past the cap
// decoding stops with ResourceExhausted. An unknown coding, corrupt or truncated data, or
// bytes after a complete stream (zlib, br, zstd) is InvalidArgument naming the coding.
#ifndef CRAWLRANK_SRC_CRAWL_CONTENT_DECODING_H_
#define CRAWLRANK_SRC_CRAWL_CONTENT_DECODING_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "crawlrank/status.h"

namespace crawlrank {

// The codings this build decodes, as an Accept-Encoding value: "gzip, deflate, br, zstd".
std::string_view AcceptedContentCodings();

// `body` with the codings of `content_encoding` (a Content-Encoding header's value, or the
// values of several such headers joined by commas) undone, at most max_bytes long.
Result<std::string> DecodeContent(std::string_view content_encoding, std::string_view body,
                                  uint64_t max_bytes);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_CONTENT_DECODING_H_
