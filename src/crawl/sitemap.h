// Sitemaps (sitemaps.org protocol 0.9): the URLs a sitemap or a sitemap index lists.
#ifndef CRAWLRANK_SRC_CRAWL_SITEMAP_H_
#define CRAWLRANK_SRC_CRAWL_SITEMAP_H_

#include <string>
#include <string_view>
#include <vector>

namespace crawlrank {

struct SitemapUrls {
  std::vector<std::string> pages;     // <urlset><url><loc>
  std::vector<std::string> sitemaps;  // <sitemapindex><sitemap><loc>
};

// Reads the <loc> elements of an XML sitemap or sitemap index, or the lines of a text
// sitemap (one URL a line). Lenient: no XML validation; the five predefined entities and
// numeric character references are decoded, CDATA is taken as it is; at most `max_urls`
// URLs (50 000, the protocol's limit per file) are returned.
SitemapUrls ParseSitemap(std::string_view body, size_t max_urls = 50'000);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_SITEMAP_H_
