// crawlrank/best_pages.h: the best N pages of a PageDB by a score, the one list behind
// every "top pages" a person sees: `crawlrank crawl`'s summary, `crawlrank top`
// (page_db_top), the dashboard's top pages and Python's PageDb.top.
//
//   Result<StoredRank> rank = LoadRank(path, kDisplayRankName, RankAlgorithm::kPageRank);
//   Result<Snapshot> snapshot = db.NewSnapshot();
//   BestPagesFilter filter;
//   filter.pages = PagesShown::kFetchedOk;
//   Result<std::vector<BestPage>> best = BestPages(*snapshot, rank->rank.scores, 10, filter);
//
// Order: the higher score first, ties by the lower page id (discovery order), so two
// lists of one rank agree. A page the scores do not cover (created after the rank was
// computed) is never listed; a score that is not a number (NaN) sorts last.
//
// Cost: one pass over the snapshot's records when the filter needs them (anything but
// kAny without a host), else none; then a partial sort of the candidates and a look-up of
// the N listed.
//
// Thread safety: a plain function over a snapshot (snapshots are per thread: page_db.h).
#ifndef CRAWLRANK_BEST_PAGES_H_
#define CRAWLRANK_BEST_PAGES_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank {

// Which pages a list takes.
enum class PagesShown {
  kAny,        // every page the scores cover
  kFetchedOk,  // crawled with a 2xx answer (PageRecord::fetched_ok): what a person calls
               // the crawl's pages; the display rank's lists default to it
  kCrawled,    // crawled, any status
  kUncrawled,  // never crawled (discovered only)
};

struct BestPagesFilter {
  PagesShown pages = PagesShown::kAny;
  // Only pages of this host (the URL's HostKey; compared in lower case without a trailing
  // dot, so "WWW.Example.com." names www.example.com); empty: any host.
  std::string host;
  // Page ids left out, ascending: a cluster node's ghosts (Scheduler::GhostPages), which
  // their owners list.
  std::vector<uint32_t> excluded;
};

struct BestPage {
  double score = 0;
  PageRecord record;  // as the snapshot holds it (record.id is the page's id)
};

// Whether `filter` takes `page` (its host, and what PagesShown asks).
bool TakesPage(const BestPagesFilter& filter, const PageRecord& page);

// The `n` best pages of `snapshot` by scores[id] that `filter` takes, best first. Errors:
// the snapshot's (a damaged record names its page).
Result<std::vector<BestPage>> BestPages(const Snapshot& snapshot, std::span<const double> scores,
                                        size_t n, const BestPagesFilter& filter = {});

}  // namespace crawlrank

#endif  // CRAWLRANK_BEST_PAGES_H_
