// crawlrank/page_db_reshard.h: a cluster's PageDBs rewritten for another list of nodes
// (page_db_reshard; docs/frontier.md, "A cluster").
//
// The sources are the PageDBs of every node of one cluster (or one PageDB crawled alone),
// opened by the caller, none being written to (stop the nodes first). The result is one
// new PageDB per node of the new list, at PREFIX.0, PREFIX.1, ... in the list's sorted
// order, each holding what its node owns under the cluster's partition rule: every page
// with its record, out-links, schedule state (failures, removals, priorities, dates;
// leases, which the node's next open returns to the queue), payload, fetch details and
// creation time; the politeness entry and counters of every host it owns; the crawl's
// stored settings, with its own membership (a list of one node writes a PageDB that runs
// alone). A link to a page another node owns keeps the page as a ghost (format version
// 9). Page ids are new. Not carried: progress samples (a new history starts) and rank
// files (rank again, or let the crawl).
//
// Each new PageDB is written in two transactions, so the disk needs room for it whole
// alongside the sources; nothing is written when a path exists already.
#ifndef CRAWLRANK_PAGE_DB_RESHARD_H_
#define CRAWLRANK_PAGE_DB_RESHARD_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank {

// What each new PageDB holds, in list order.
struct ReshardReport {
  struct Node {
    std::string path;
    std::string entry;    // its entry in the new list ("" for a PageDB that runs alone)
    uint64_t pages = 0;   // its own pages
    uint64_t ghosts = 0;  // pages other nodes own, kept for its links to them
    uint64_t links = 0;
  };
  std::vector<Node> nodes;
};

// Reshards `sources` over `nodes` ("h1:p1,h2:p2,...", as crawlrank serve --nodes) into
// PREFIX.i. FailedPrecondition when the sources are not one cluster's every node (another
// node list, a node missing or given twice, PageDBs of different crawls' host key modes)
// or not one PageDB crawled alone; InvalidArgument for a bad list; AlreadyExists for a
// PREFIX.i that exists. `options` opens the new PageDBs (the sources' URL profile is kept).
Status ReshardPageDbs(std::span<const PageDb* const> sources, std::string_view nodes,
                      std::string_view out_prefix, const PageDbOptions& options,
                      ReshardReport* report);

}  // namespace crawlrank

#endif  // CRAWLRANK_PAGE_DB_RESHARD_H_
