// Writing the PageDBs of a new list of nodes from a cluster's (page_db_reshard; the
// public entry is crawlrank/page_db_reshard.h, which works out the owners and the
// configurations from the cluster's membership).
//
// The sources are every node's PageDB of one cluster (or one PageDB crawled alone), none
// being written to; the result is one new PageDB per node of the new list, each with the
// pages its node owns and what belongs to them: records, out-links, schedule entries
// (failures, removals, priorities, dates, leases, which the next writer returns to the
// queue), payloads, fetch details and creation times; the `hosts` entries and the counters
// of the hosts it owns; and the configuration the caller gives it. A link to a page
// another node owns keeps its target as a ghost there (format version 9). Page ids are
// new: each node numbers its pages in source order, its ghosts after. Not carried: the
// progress samples (a new history starts) and rank files (rank again).
//
// Each new PageDB is written in two transactions, so it needs room for the whole node's
// share; nothing is written to a path that exists.
#ifndef CRAWLRANK_SRC_PAGE_DB_RESHARD_WRITER_H_
#define CRAWLRANK_SRC_PAGE_DB_RESHARD_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank {

// Who owns what in the new list of `nodes` nodes (numbered 0 .. nodes - 1).
struct ReshardOwners {
  size_t nodes = 1;
  // The node that owns canonical `url` (its host's owner).
  std::function<size_t(std::string_view url)> of_url;
  // The node that owns the `hosts` entry of politeness key `key` (a host key).
  std::function<size_t(std::string_view key)> of_host_key;
};

// What one new PageDB holds.
struct ReshardedNode {
  uint64_t pages = 0;   // its own pages
  uint64_t ghosts = 0;  // pages other nodes own, kept for its links to them
  uint64_t links = 0;
};

// Writes the PageDB of node i of `owners` at `paths[i]` with `configs[i]` as its stored
// configuration (the caller's: the crawl's settings with the node's membership). The
// sources' profiles must agree; a page that two sources both hold as their own is
// InvalidArgument naming it and both (they are not one cluster's nodes). `options` opens
// the new PageDBs (create_if_missing is set; the sources' URL profile is used). Errors
// name the PageDB and the page.
Status WriteReshardedPageDbs(std::span<const PageDb* const> sources, const ReshardOwners& owners,
                             std::span<const std::string> paths,
                             std::span<const StoredConfig> configs, PageDbOptions options,
                             std::vector<ReshardedNode>* written);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_RESHARD_WRITER_H_
