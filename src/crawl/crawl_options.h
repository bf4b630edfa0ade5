// What CrawlerOptions become: the options of the crawler's own Scheduler (politeness,
// limits, filters, revisits, the scope as a URL pattern) and of its Fetcher, each copied
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

// InvalidArgument ("crawl: ...") naming the first option out of range.
Status CheckCrawlerOptions(const CrawlerOptions& options);

// The crawler's Scheduler options, but the scope (ScopePattern adds it).
SchedulerOptions SchedulerOptionsFor(const CrawlerOptions& options);

// The deny pattern that keeps a scoped crawl (same host, same domain) on the hosts or
// domains of its seeds: `seeds` (canonical) and the seeds of earlier runs, the depth-0
// pages of `db`. InvalidArgument when there are none; empty for Scope::kAny.
Result<std::string> ScopePattern(CrawlerOptions::Scope scope, const std::vector<std::string>& seeds,
                                 const PageDb& db);

FetcherOptions FetcherOptionsFor(const CrawlerOptions& options);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_CRAWL_OPTIONS_H_
