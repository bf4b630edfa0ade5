// Uses the installed headers and library: adds a page with two links (one of them found by
// ExtractHtml, so that Gumbo must be linked too) to a new PageDB and prints what it reads
// back.
#include <crawlrank/html_extract.h>
#include <crawlrank/page_db.h>
#include <crawlrank/url.h>
#include <crawlrank/version.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer DB_DIR\n");
    return 2;
  }
  auto db = crawlrank::PageDb::Open(argv[1]);
  if (!db.ok()) {
    std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
    return 1;
  }
  crawlrank::CrawledPage page;
  page.url = "HTTP://Example.COM:80/a/../index.html#top";
  auto html = crawlrank::ExtractHtml("<p><a href='../b#x'>B</a>", page.url, "text/html", {});
  if (!html.ok() || html->links.size() != 1) {
    std::fprintf(stderr, "ExtractHtml: %s\n", html.status().ToString().c_str());
    return 1;
  }
  page.links = {{html->links[0].url, 0.5f}, {"https://other.example/", 0.25f}};
  if (auto status = (*db)->Add(page); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  auto record = (*db)->FindUrl("http://example.com/index.html");
  auto info = (*db)->Info();
  if (!record.ok() || !info.ok()) return 1;
  std::printf("crawlrank %s: %s crawled %u time(s); %llu pages, %llu links\n",
              CRAWLRANK_VERSION_STRING, record->url.c_str(), record->n_crawls,
              static_cast<unsigned long long>(info->counters.pages),
              static_cast<unsigned long long>(info->counters.edges));
  return 0;
}
