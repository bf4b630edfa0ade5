// The cluster of `crawlrank serve` nodes a PageDB belongs to (URLFrontier 2.6's distributed
// mode, docs/frontier.md "A cluster"), as its stored configuration keeps it, and the check
// that a node restarts as the node it was.
//
// A node stores three keys (crawl_config.h): `nodes`, the list in Java String order,
// comma separated; `node`, its own entry; `partition`, the rule that maps a URL to its
// owner. The rule is URLFrontier's formula over crawlrank's host key (node_list.h), so it
// names the host key mode too: changing --host-key on a node would move queues between
// nodes, and is refused like another list.
//
// Thread safety: plain functions over values.
#ifndef CRAWLRANK_SRC_SERVE_CLUSTER_MEMBERSHIP_H_
#define CRAWLRANK_SRC_SERVE_CLUSTER_MEMBERSHIP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "crawlrank/node_list.h"
#include "crawlrank/page_db.h"
#include "crawlrank/status.h"
#include "crawlrank/url.h"

namespace crawlrank {

// The crawl ID a cluster's owners are computed with: a PageDB is one crawl, URLFrontier's
// "DEFAULT" (serve/frontier_items.h).
inline constexpr std::string_view kClusterCrawlId = "DEFAULT";

// The partition rule of a cluster whose queues are keyed by `host_key` ("host" or
// "domain", the stored host_key): "urlfrontier-2.6 host" names the owner
// abs(javaHash("DEFAULT_" + host key) % N).
std::string PartitionRule(std::string_view host_key);

// The membership a node runs with, resolved from what `stored` holds and what this run was
// `given` (--nodes and --node):
//   - both: they must be the same list, entry and rule, or FailedPrecondition names the
//     stored and the given ones (a node never remaps its hosts silently);
//   - stored only: the stored membership (a restart may leave the flags out);
//   - given only: a new member, refused with FailedPrecondition when the PageDB holds
//     pages already (`pages` > 0) and the list has more than one node, since they were
//     crawled as one frontier and other nodes own some of their hosts;
//   - neither: nullopt, one frontier alone.
// `host_key` is the host key mode this run uses; `db_path` names the DB in messages.
// InvalidArgument when the stored keys do not make a node list.
Result<std::optional<NodeList>> ResolveMembership(const StoredConfig& stored,
                                                  const std::optional<NodeList>& given,
                                                  std::string_view host_key, uint64_t pages,
                                                  std::string_view db_path);

// A node's share of a crawl-wide page limit `max_pages` (0: none) over the cluster's
// `nodes`: equal shares, the remainder one page each to the first nodes in list order, so
// that the shares add up to the limit; 0 for a node with no share (a limit below the
// number of nodes), which then hands nothing out. A node whose hosts run dry leaves the
// rest of its share unused: the limit is never passed, and may be fallen short of.
uint64_t PageShare(uint64_t max_pages, const NodeList& nodes);

// The keys a member stores: nodes, node and partition.
StoredConfig MembershipConfig(const NodeList& nodes, std::string_view host_key);

// The index in `nodes` of the node that owns canonical `url`: the owner of its host key
// (`mode`) in the crawl; this node's for a URL without one.
size_t OwnerOfUrl(const NodeList& nodes, HostKeyMode mode, std::string_view url);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_CLUSTER_MEMBERSHIP_H_
