// crawlrank/crawl_end.h: the ranks a crawl leaves in its PageDB when it ends, the same
// whichever front end ran it: `crawlrank crawl`, `crawlrank serve` at SIGTERM, the Scrapy
// scheduler and the Frontera backend at close.
//
//   Result<CrawlEndRanks> ranks = RankCrawlEnd(db, scheduler_options);
//
// Two ranks, each saved with the DB (rank_store.h):
// - the score mode's own rank, for a mode that ranks (pagerank, ppr, trustrank, hits,
//   topic-hits, wpr, and blend's partial PageRank: ranks/<algorithm>.rank), as the
//   scheduler's re-ranks compute it (SchedulerOptions::rank, warm start from the stored
//   one), so that a resumed crawl starts from the whole graph. An online mode (opic,
//   indegree, link-score, topical, breadth-first, random) keeps no rank file: none is
//   written.
// - the display rank (ranks/display.rank: PageRank without template links, with
//   SchedulerOptions::rank.template_links' thresholds), what the lists a person reads
//   show (best_pages.h).
// Before issue #42 `crawlrank crawl` and `crawlrank serve` wrote the display rank only,
// and the Python front ends re-ranked through their Scheduler (the same rank file).
//
// It reads one snapshot per rank and opens no write transaction: a read-only open of the
// DB is enough, beside a crawl or after it.
#ifndef CRAWLRANK_CRAWL_END_H_
#define CRAWLRANK_CRAWL_END_H_

#include <optional>

#include "crawlrank/page_db.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct CrawlEndRanks {
  std::optional<StoredRank> mode_rank;  // the score mode's; none for an online mode
  StoredRank display;
  double seconds = 0;  // wall time of both
};

// Computes and saves both ranks of `db` (a crawl run with `options`, the stored
// configuration applied: StoredSchedulerOptions). Errors: the ranks' (a damaged DB, a
// full disk), naming the DB.
Result<CrawlEndRanks> RankCrawlEnd(const PageDb& db, const SchedulerOptions& options);

}  // namespace crawlrank

#endif  // CRAWLRANK_CRAWL_END_H_
