// crawlrank/page_types.h: what a crawler reports about a page and what a PageDB keeps
// about one; plain values, shared by the PageDB (page_db.h) and what builds on it.
#ifndef CRAWLRANK_PAGE_TYPES_H_
#define CRAWLRANK_PAGE_TYPES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank {

// An outgoing link of a crawled page.
struct Link {
  std::string url;    // absolute (resolve hrefs with ResolveUrl first)
  float score = 0.f;  // link score; a page's link score is the max over its in-links
};

// What a fetch of a page was like (format version 7): kept for its last fetch in the
// PageDB's `fetches` table, and summed into the crawl's counters (crawl_counters.h). All
// zero or empty when the crawler does not tell; then nothing is kept for the page.
// Longer text is cut at a UTF-8 character boundary to the caps below.
inline constexpr size_t kMaxContentTypeBytes = 256;
inline constexpr size_t kMaxTitleBytes = 512;
struct FetchInfo {
  std::string content_type;    // the Content-Type header as sent, e.g. "text/html; charset=utf-8"
  uint64_t wire_bytes = 0;     // bytes received: headers and the body as sent (compressed)
  uint64_t decoded_bytes = 0;  // the body after content decoding
  uint32_t fetch_ms = 0;       // from the request's start to the body's end
  std::string title;           // the HTML <title>, whitespace collapsed
  bool empty() const {
    return content_type.empty() && wire_bytes == 0 && decoded_bytes == 0 && fetch_ms == 0 &&
           title.empty();
  }
  friend bool operator==(const FetchInfo&, const FetchInfo&) = default;
};

// What a crawler reports about one fetched page.
struct CrawledPage {
  std::string url;             // absolute; canonicalised with the DB's profile
  int64_t crawl_time_ms = 0;   // Unix time of the fetch in ms; 0 means now
  float content_score = 0.f;   // the caller's relevance score of the content
  uint64_t content_hash = 0;   // hash of the content, to count changes on recrawl
  uint16_t http_status = 200;  // last HTTP status
  FetchInfo fetch{};           // optional details of the fetch (format version 7)
  std::vector<Link> links;     // out-links; repeats are stored once
};

// Everything the DB knows about one page.
struct PageRecord {
  uint64_t fingerprint = 0;      // UrlFingerprint(url)
  uint32_t id = 0;               // dense id, in discovery order
  std::string url;               // canonical URL
  uint32_t depth = 0;            // link distance from a crawled-first page at discovery
  uint64_t discovered_from = 0;  // fingerprint of the page that linked here first; 0: none
  int64_t first_crawl_ms = 0;    // 0 when never crawled
  int64_t last_crawl_ms = 0;
  uint32_t n_crawls = 0;
  uint32_t n_changes = 0;  // recrawls whose content hash differed from the last one
  float content_score = 0.f;
  float link_score = 0.f;  // max over in-links
  uint64_t content_hash = 0;
  uint16_t http_status = 0;  // 0 when never crawled
  uint32_t n_errors = 0;

  bool crawled() const { return n_crawls > 0; }
  // Crawled with a 2xx answer: one of the crawl's own pages, as the lists a person reads
  // show them (not a 404 others link to, nor a site never fetched).
  bool fetched_ok() const { return crawled() && http_status >= 200 && http_status < 300; }
  friend bool operator==(const PageRecord&, const PageRecord&) = default;
};

struct PageDbCounters {
  uint64_t pages = 0;          // known pages (crawled or only linked to)
  uint64_t crawled_pages = 0;  // pages crawled at least once
  uint64_t edges = 0;          // stored links
};

// Links of a page that could not be stored, and why; filled by PageDb::Add when asked.
struct AddReport {
  struct Rejected {
    std::string url;
    Status reason;
  };
  std::vector<Rejected> rejected_links;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_PAGE_TYPES_H_
