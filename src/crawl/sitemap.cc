#include "crawl/sitemap.h"

#include <libxml/xmlreader.h>
#include <zlib.h>

#include <cstring>
#include <memory>

#include "base/ascii.h"

namespace crawlrank {
namespace {

// The gzip stream `body` inflated, at most `max_bytes` of it; what a cut or damaged stream
// gave up to the damage (a sitemap cut short keeps its whole <loc> elements).
std::string Gunzip(std::string_view body, size_t max_bytes) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return {};  // 16: gzip framing
  std::string out;
  char chunk[64 << 10];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  stream.avail_in = static_cast<uInt>(body.size());
  int rc = Z_OK;
  while (rc == Z_OK && out.size() < max_bytes) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof chunk;
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - stream.avail_out);
    if (rc == Z_BUF_ERROR && stream.avail_in == 0) break;  // cut short
  }
  inflateEnd(&stream);
  if (out.size() > max_bytes) out.resize(max_bytes);
  return out;
}

SitemapUrls ParseTextSitemap(std::string_view body, size_t max_urls) {
  SitemapUrls result;
  while (!body.empty() && result.pages.size() < max_urls) {
    const size_t end = body.find('\n');
    const std::string_view line = TrimAsciiSpace(body.substr(0, end));
    if ((line.starts_with("http://") || line.starts_with("https://")) &&
        line.size() <= kMaxSitemapUrlBytes) {
      result.pages.emplace_back(line);
    }
    if (end == std::string_view::npos) break;
    body.remove_prefix(end + 1);
  }
  return result;
}

struct ReaderFree {
  void operator()(xmlTextReader* reader) const { xmlFreeTextReader(reader); }
};

std::string_view View(const xmlChar* text) {
  return text == nullptr ? std::string_view() : reinterpret_cast<const char*>(text);
}

// The <loc> children of <url> (a sitemap) or <sitemap> (an index) elements, in the
// namespace of their parent, read with libxml2's streaming reader.
SitemapUrls ParseXmlSitemap(std::string_view body, size_t max_urls) {
  SitemapUrls result;
  xmlInitParser();
  // No network, no DTD loading, no entity substitution (no XXE, no entity expansion), no
  // messages on stderr; CDATA comes as text; a broken document yields what came before.
  const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                      XML_PARSE_NOCDATA | XML_PARSE_NOBLANKS | XML_PARSE_RECOVER;
  std::unique_ptr<xmlTextReader, ReaderFree> reader(xmlReaderForMemory(
      body.data(), static_cast<int>(body.size()), "sitemap.xml", nullptr, options));
  if (reader == nullptr) return result;
  xmlTextReader* r = reader.get();
  std::string parent_ns;   // namespace of the <url> or <sitemap> being read
  int parent_depth = -1;   // its depth; -1: not inside one
  bool parent_is_index = false, in_loc = false;
  std::string loc;
  while (xmlTextReaderRead(r) == 1) {
    const int type = xmlTextReaderNodeType(r);
    const int depth = xmlTextReaderDepth(r);
    const std::string_view name = View(xmlTextReaderConstLocalName(r));
    const std::string_view ns = View(xmlTextReaderConstNamespaceUri(r));
    if (type == XML_READER_TYPE_ELEMENT) {
      if (parent_depth < 0 && (name == "url" || name == "sitemap")) {
        if (xmlTextReaderIsEmptyElement(r)) continue;
        parent_depth = depth;
        parent_ns = ns;
        parent_is_index = name == "sitemap";
      } else if (parent_depth >= 0 && depth == parent_depth + 1 && name == "loc" &&
                 ns == parent_ns && !xmlTextReaderIsEmptyElement(r)) {
        in_loc = true;
        loc.clear();
      }
    } else if (in_loc && (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_CDATA ||
                          type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE)) {
      if (loc.size() < kMaxSitemapUrlBytes) loc += View(xmlTextReaderConstValue(r));
    } else if (type == XML_READER_TYPE_END_ELEMENT) {
      if (in_loc && name == "loc") {
        in_loc = false;
        const std::string_view url = TrimAsciiSpace(loc);
        auto& out = parent_is_index ? result.sitemaps : result.pages;
        // Full before this one only with max_urls 0 (the check below stops at the cap).
        if (result.pages.size() + result.sitemaps.size() >= max_urls) break;
        if (!url.empty() && url.size() <= kMaxSitemapUrlBytes) out.emplace_back(url);
        if (result.pages.size() + result.sitemaps.size() >= max_urls) break;
      } else if (depth == parent_depth) {
        parent_depth = -1;
        in_loc = false;
      }
    }
  }
  return result;
}

}  // namespace

SitemapUrls ParseSitemap(std::string_view body, size_t max_urls) {
  std::string inflated;
  if (body.size() >= 2 && static_cast<unsigned char>(body[0]) == 0x1f &&
      static_cast<unsigned char>(body[1]) == 0x8b) {
    inflated = Gunzip(body, kMaxSitemapBytes);
    body = inflated;
  }
  if (!TrimAsciiSpace(body).starts_with("<")) return ParseTextSitemap(body, max_urls);
  return ParseXmlSitemap(body, max_urls);
}

}  // namespace crawlrank
