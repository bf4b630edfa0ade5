// What CrawlerOptions become: the options of the crawler's own Scheduler (politeness,
// limits, filters, revisits, the scope) and of its Fetcher, each copied
// in one place. Checked first (CheckCrawlerOptions), so that a bad option fails Open
// before anything is opened.
#ifndef CRAWLRANK_SRC_CRAWL_CRAWL_OPTIONS_H_
#define CRAWLRANK_SRC_CRAWL_CRAWL_OPTIONS_H_

#include <string>
#include <vector>

#include "crawl/fetcher.h"
#include "crawlrank/crawler.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"

namespace crawlrank {

// The options' seeds, canonical with `profile`; InvalidArgument naming a seed that is not.
Result<std::vector<std::string>> CanonicalSeeds(const CrawlerOptions& options, UrlProfile profile);

// InvalidArgument ("crawl: ...") naming the first option out of range.
Status CheckCrawlerOptions(const CrawlerOptions& options);

// The crawler's Scheduler options; the scope's hosts are options.scope_hosts (ScopeHosts
// completes them).
SchedulerOptions SchedulerOptionsFor(const CrawlerOptions& options);

// The scope's hosts (or registered domains, for same-domain) a scoped crawl keeps to:
// those of `seeds` (canonical) and options.scope_hosts (stored by earlier runs), or with
// none stored, those of the DB's depth-0 pages. InvalidArgument when there are none;
// empty for CrawlScope::kAny.
Result<std::vector<std::string>> ScopeHosts(const CrawlerOptions& options,
                                            const std::vector<std::string>& seeds,
                                            const PageDb& db);

FetcherOptions FetcherOptionsFor(const CrawlerOptions& options);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_CRAWL_OPTIONS_H_
