// Fuzzes content decoding (crawl/content_decoding.h): what a server sends under
// Content-Encoding, undone before the crawler parses it.
//
// Input: one byte choosing the codings (one of eight header values, several codings
// included), then the body.
//
// Properties:
//   - the output never passes the cap (64 KiB), whatever the input inflates to;
//   - a failure is InvalidArgument (corrupt, truncated, unknown) or ResourceExhausted (over
//     the cap), never another code;
//   - with no coding, the output is the input itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "crawl/content_decoding.h"
#include "fuzz_check.h"

namespace crawlrank {

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static constexpr std::string_view kCodings[] = {"gzip", "deflate", "br",       "zstd",
                                                  "",     "x-gzip",  "gzip, br", "zstd,deflate"};
  constexpr uint64_t kCap = 64 << 10;
  fuzz::Bytes in(data, size);
  const std::string_view coding = kCodings[in.U8() % std::size(kCodings)];
  const std::string body(in.rest());
  Result<std::string> decoded = DecodeContent(coding, body, kCap);
  if (decoded.ok()) {
    FUZZ_CHECK(decoded->size() <= kCap);
    if (coding.empty()) FUZZ_CHECK(*decoded == body);
  } else {
    const StatusCode code = decoded.status().code();
    FUZZ_CHECK(code == StatusCode::kInvalidArgument || code == StatusCode::kResourceExhausted);
    if (coding.empty()) FUZZ_CHECK(body.size() > kCap);
  }
  return 0;
}

}  // namespace crawlrank
