// The URLFrontier calls that read the crawl and change nothing: ListQueues, ListURLs,
// CountURLs and GetURLStatus. Each answers from one read snapshot of the PageDB, so it
// sees the crawl as of one moment while clients keep writing; each costs one pass over
// what it reads (the pages, or the schedule's tables): calls for a person or an occasional
// look-up, not for a loop. docs/frontier.md has the mapping they implement.
#ifndef CRAWLRANK_SRC_SERVE_FRONTIER_QUERIES_H_
#define CRAWLRANK_SRC_SERVE_FRONTIER_QUERIES_H_

#include <grpcpp/support/status.h>

#include <cstdint>
#include <functional>

#include "crawlrank/page_db.h"
#include "crawlrank/scheduler_options.h"
#include "urlfrontier.pb.h"

namespace crawlrank {

// `size` 0 in ListQueues and ListURLs: the API's default page.
inline constexpr uint32_t kDefaultListSize = 100;
// The most URLs one ListURLs call sends (a larger `size` gets this many).
inline constexpr uint32_t kMaxListSize = 10'000;

// The queues (host keys) with pages queued or handed out, most queued first, then by key;
// with include_inactive also the hosts held or given a delay of their own with nothing
// queued. `start` and `size` page through that order; `total` counts them all.
grpc::Status ListQueuesOf(const PageDb& db, const SchedulerOptions& options,
                          const urlfrontier::Pagination& request,
                          urlfrontier::QueueList* response);

// The pages of the crawl, or of one queue (`key`), whose URL contains `filter` (with
// ignoreCase, in ASCII letters of either case), in discovery order, as known items (see
// UrlStatusOf); `start` and `size` page through the matches. `write` sends one; false
// stops (the client went away).
grpc::Status ListUrlsOf(const PageDb& db, const SchedulerOptions& options,
                        const urlfrontier::ListUrlParams& request,
                        const std::function<bool(const urlfrontier::URLItem&)>& write);

// How many pages ListUrlsOf would list with no paging.
grpc::Status CountUrlsOf(const PageDb& db, const SchedulerOptions& options,
                         const urlfrontier::CountUrlParams& request, urlfrontier::Long* response);

// One page as a known item: refetchable_from_date 0 once it is done (crawled and not due
// again, or failed for good), else when it may be handed out (seconds; the time of the call
// for a page due now), and metadata crawlrank.state (queued, leased, retrying, failed,
// crawled). NOT_FOUND for a URL the crawl does not hold, or one outside the queue `key`
// names; INVALID_ARGUMENT for a URL that cannot be canonicalised.
grpc::Status UrlStatusOf(const PageDb& db, const SchedulerOptions& options,
                         const urlfrontier::URLStatusRequest& request,
                         urlfrontier::URLItem* response);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_FRONTIER_QUERIES_H_
