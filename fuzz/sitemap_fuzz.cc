// Fuzzes the sitemap reader (src/crawl/sitemap.h): libxml2's streaming reader over hostile
// XML, gzip inflation, and text sitemaps.
//
// Input: a selector byte (bit 0: gzip the rest first, as a .xml.gz sitemap arrives; bits
// 1-7: max_urls, 0 to 127), then the body.
//
// Properties:
//   - never a crash, a leak or UB, whatever the bytes;
//   - at most max_urls URLs in all, none empty, none over kMaxSitemapUrlBytes, none with
//     surrounding white space;
//   - a text sitemap (a body not starting with '<' past white space) gives only http(s) URLs
//     and no sitemaps;
//   - the gzipped body reads the same as the body itself;
//   - reading twice gives the same answer.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "crawl/sitemap.h"
#include "fuzz_check.h"

namespace crawlrank {
namespace {

std::string Gzip(std::string_view text) {
  z_stream stream{};
  if (deflateInit2(&stream, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  std::string out(deflateBound(&stream, text.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  FUZZ_CHECK(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

bool Space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace
}  // namespace crawlrank

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace crawlrank;
  if (size < 1) return 0;
  const bool gzip = (data[0] & 1) != 0;
  const size_t max_urls = data[0] >> 1;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  const SitemapUrls urls = ParseSitemap(body, max_urls);
  FUZZ_CHECK(urls.pages.size() + urls.sitemaps.size() <= max_urls);
  for (const auto* list : {&urls.pages, &urls.sitemaps}) {
    for (const std::string& url : *list) {
      FUZZ_CHECK(!url.empty() && url.size() <= kMaxSitemapUrlBytes);
      FUZZ_CHECK(!Space(url.front()) && !Space(url.back()));
    }
  }
  size_t start = 0;
  while (start < body.size() && Space(body[start])) ++start;
  const bool gzipped_input = body.size() >= 2 && static_cast<unsigned char>(body[0]) == 0x1f &&
                             static_cast<unsigned char>(body[1]) == 0x8b;
  if (!gzipped_input && (start == body.size() || body[start] != '<')) {
    FUZZ_CHECK(urls.sitemaps.empty());
    for (const std::string& url : urls.pages) {
      FUZZ_CHECK(url.starts_with("http://") || url.starts_with("https://"));
    }
  }
  const SitemapUrls again = ParseSitemap(body, max_urls);
  FUZZ_CHECK(again.pages == urls.pages && again.sitemaps == urls.sitemaps);
  if (gzip && !gzipped_input) {
    const SitemapUrls inflated = ParseSitemap(Gzip(body), max_urls);
    FUZZ_CHECK(inflated.pages == urls.pages && inflated.sitemaps == urls.sitemaps);
  }
  return 0;
}
