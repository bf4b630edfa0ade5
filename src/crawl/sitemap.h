// Sitemaps (sitemaps.org protocol 0.9): the URLs a sitemap or a sitemap index lists.
#ifndef CRAWLRANK_SRC_CRAWL_SITEMAP_H_
#define CRAWLRANK_SRC_CRAWL_SITEMAP_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace crawlrank {

struct SitemapUrls {
  std::vector<std::string> pages;     // <urlset><url><loc>
  std::vector<std::string> sitemaps;  // <sitemapindex><sitemap><loc>
};

// Sitemaps past this many bytes (once inflated: the protocol's limit) are read that far.
inline constexpr size_t kMaxSitemapBytes = 50 << 20;
// A <loc> longer than this is not a URL the crawler would fetch: skipped.
inline constexpr size_t kMaxSitemapUrlBytes = 8192;

// Reads an XML sitemap or sitemap index with libxml2, or a text sitemap (one URL a line).
// A body starting with the gzip magic bytes (a .xml.gz sitemap served without a
// Content-Encoding) is inflated first, up to kMaxSitemapBytes.
//   XML: the <loc> children of <url> (pages) and of <sitemap> (sitemaps of an index), in
//   their parent's namespace (so an <image:loc> inside <url> is not a page); entities
//   (the predefined five, numeric references) are decoded, CDATA is text, namespaces
//   prefixed or not. External entities and DTDs are never loaded (no XXE) and entities a
//   DTD declares are not expanded (no entity bombs). A document cut short or broken gives
//   the <loc> elements completed before the break. Never an error.
// At most `max_urls` URLs (50 000, the protocol's limit per file) are returned.
SitemapUrls ParseSitemap(std::string_view body, size_t max_urls = 50'000);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_SITEMAP_H_
