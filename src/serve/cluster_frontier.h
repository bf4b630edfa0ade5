// A Frontier over every node of a cluster of `crawlrank serve` nodes: what `crawlrank crawl
// --frontier H1:P1,H2:P2,...` (or one address and --discover) drives, so that one crawler
// reads from every node, as StormCrawler's spout tasks do together (docs/cluster.md, "One
// crawler over every node").
//
// Reading. Next asks the nodes in turn, round robin: each call starts at the node after
// the one that answered the last call with pages, and returns the first hand-out that is
// not empty. A node hands out only the queues it owns.
//
// Writing. A page's report (its links naming it as their source, then the page) goes to
// the node that handed the page out, which owns it. What no node handed out (seeds, the
// failure of a refused link, a crawl delay) goes to its owner by URLFrontier's formula
// over the URL's host (node_list.h); a node that keys otherwise sends it on itself.
//
// A node down. A call that a node does not answer (nothing listens, or it is away past
// wait_ms) marks the node down: Next and GetStats skip it until its back-off ends (0.25 s
// doubling up to 5 s). That call, and what is bound for the node while its outbox holds
// anything, waits in its outbox, in order; so does a call the node answered but could not
// write in full (an item acked FAIL: e.g. a link it could not send on to its owner, a
// node down), without marking it down. A thread per node resends the outbox with the same
// back-off, first to the node, then (when the node does not answer) through one other
// node that is up, for a client cut off from that node only; the crawler goes on with the
// other nodes meanwhile. Nothing in an outbox was acknowledged by any node: a client that
// dies loses it, and the node hands those pages out again when their leases end.
//
// Stats and the end. GetStats sums each node's own counts (URLFrontier's `local`); the
// crawl is finished when every node answered that it is, and no outbox holds anything.
// Next fails with IoError, naming each node and its last error, once no node can hand
// anything out (every one is down or finished) and some node has been down for
// give_up_ms: the crawl cannot end then, and a client waits no longer than that.
//
// Thread safety: every method may be called from any thread.
#ifndef CRAWLRANK_SRC_SERVE_CLUSTER_FRONTIER_H_
#define CRAWLRANK_SRC_SERVE_CLUSTER_FRONTIER_H_

#include <memory>
#include <string>
#include <vector>

#include "crawlrank/frontier.h"
#include "crawlrank/status.h"
#include "serve/remote_frontier.h"

namespace crawlrank {

struct ClusterFrontierOptions {
  // "host:port" of every node, in any order: numbered in the cluster's order (Java String
  // order, node_list.h) as the nodes number themselves.
  std::vector<std::string> nodes;
  // For every node (its address aside): the token, TLS, crawl, lease and give_up_ms as
  // above; wait_ms is each call's deadline (calls fail fast); retry_ms is unused.
  RemoteFrontierOptions remote;
};

class ClusterFrontier final : public Frontier {
 public:
  // InvalidArgument naming the entry for a list that is not host:port entries, or names
  // one twice. Starts one sender thread per node.
  static Result<std::unique_ptr<ClusterFrontier>> Make(const ClusterFrontierOptions& options);
  // Stops the senders; what the outboxes still hold is dropped (Unsent says how much).
  ~ClusterFrontier() override;
  ClusterFrontier(const ClusterFrontier&) = delete;
  ClusterFrontier& operator=(const ClusterFrontier&) = delete;

  Status AddSeeds(const std::vector<std::string>& urls) override;
  Result<std::vector<Request>> Next(size_t n) override;
  Status CrawledBatch(const std::vector<CrawlReport>& reports) override;
  Status Failed(const FailureReport& report) override;
  Status SetCrawlDelay(std::string_view host, int64_t delay_ms) override;
  std::string HostRobots(std::string_view host) const override;
  Status SetHostRobots(std::string_view host, std::string_view bytes) override;
  SchedulerStats GetStats() const override;

  // The nodes in the cluster's order.
  const std::vector<std::string>& nodes() const;
  // Probes every node (RemoteFrontier::Probe), then asks the first that answers for its
  // list (ListNodes): FailedPrecondition when that is not the list given, naming both (a
  // client that writes to the wrong owners would have every item sent on).
  Status Probe() const;
  // Reports, failures and seeds waiting in the outboxes: 0 after a finished crawl.
  size_t Unsent() const;
  // Ends the back-off waits and the senders' retries, now and later (stopping).
  void Cancel();

 private:
  struct Impl;
  explicit ClusterFrontier(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The nodes of the cluster that the server at `options.address` belongs to, as its
// ListNodes answers (one entry for a server alone). IoError naming the address when it
// does not answer within 5 s.
Result<std::vector<std::string>> DiscoverNodes(const RemoteFrontierOptions& options);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_CLUSTER_FRONTIER_H_
