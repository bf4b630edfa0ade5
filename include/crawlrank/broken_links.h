// crawlrank/broken_links.h: the broken links of a crawl (`crawlrank broken`, the
// dashboard's /broken): every page that answered 4xx or 5xx, crawled (a 404 answered, so
// neither the failures nor the summary list it) or failed for good after its retries
// (429, 5xx), with the crawled pages that link to it.
//
// No reverse index is stored: the referrers come from one pass over every link of the
// snapshot. Thread safety: a plain function over a snapshot.
#ifndef CRAWLRANK_BROKEN_LINKS_H_
#define CRAWLRANK_BROKEN_LINKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct BrokenPage {
  uint32_t id = 0;
  std::string url;
  uint16_t http_status = 0;
  bool failed = false;              // failed for good; else crawled (its answer was 4xx/5xx)
  std::vector<uint32_t> referrers;  // the pages linking to it, in id order
};

// Every broken page of `snapshot` (of `db`), most linked first, then by URL.
Result<std::vector<BrokenPage>> FindBrokenPages(const PageDb& db, const Snapshot& snapshot);

}  // namespace crawlrank

#endif  // CRAWLRANK_BROKEN_LINKS_H_
