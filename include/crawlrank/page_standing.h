// crawlrank/page_standing.h: where each page of a crawl stands, in one word, as the crawl
// itself judges it.
//
// The schedule's states (Scheduler::StatesOf: queued, leased, retrying, failed, crawled,
// removed) say what the scheduler does with a page it holds; a page that the crawl's scope
// or its filters keep out is never scheduled at all, and reads as "not crawled" in the
// page records alone. A standing puts both together, judged by the options a crawl runs
// with (its stored configuration: crawl_config.h, StoredSchedulerOptions), so that every
// view of a PageDB (page_db_dump's state column, PageDb.to_pandas()) agrees with
// page_db_stats and the dashboard: on a finished --same-host crawl nothing is pending.
//
// Thread safety: plain functions over a snapshot.
#ifndef CRAWLRANK_PAGE_STANDING_H_
#define CRAWLRANK_PAGE_STANDING_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "crawlrank/failure_kind.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"

namespace crawlrank {

enum class PageStanding : uint8_t {
  kPending,     // still to fetch: queued, handed out, or waiting for a retry
  kCrawled,     // fetched, whatever the answer (a 404 too)
  kFailed,      // failed for good (PageStandings::failures has the kind)
  kRemoved,     // taken out for good (Scheduler::Remove)
  kOutOfScope,  // on a host outside the crawl's scope: never fetched
  kFiltered,    // refused by an allow/deny pattern or the scheme, or deeper than max_depth
  kElsewhere,   // a ghost: another node of a cluster owns it (SchedulerOptions::elsewhere)
};

struct PageStandings {
  std::vector<PageStanding> by_id;                     // one per page of the snapshot
  std::unordered_map<uint32_t, FailureKind> failures;  // the kind of each failed page
  // Its name: "pending", "crawled", "failed:KIND", "removed", "out_of_scope", "filtered",
  // "elsewhere".
  std::string NameOf(uint32_t id) const;
};

// Every page of `snapshot` (of `db`) as a crawl with `options` stands it: crawled, then
// failed, then removed, then elsewhere, then out of scope, then filtered, else pending, in that order of
// precedence (a page crawled before its host left the scope stays crawled). One pass over
// the pages and over the schedule's table. InvalidArgument when `options`' patterns do not
// compile; the DB's errors as they come.
Result<PageStandings> ReadPageStandings(const PageDb& db, const Snapshot& snapshot,
                                        const SchedulerOptions& options);

}  // namespace crawlrank

#endif  // CRAWLRANK_PAGE_STANDING_H_
