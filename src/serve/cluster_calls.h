// The control and query calls of a cluster of `crawlrank serve` nodes: a call that names a
// queue goes to the queue's owner, one that names the whole crawl to every node, and the
// answers are merged (docs/frontier.md, "A cluster", has the table). A copy sent to a peer
// says `local` (where its message has the field), and a peer's call is answered by the
// node alone whatever it says (FrontierService::CheckPeer), so nothing is sent on twice.
// An aggregate with a node that does not answer fails naming the node: never a partial
// figure.
//
// Thread safety: plain functions; PeerStreams takes calls from any thread.
#ifndef CRAWLRANK_SRC_SERVE_CLUSTER_CALLS_H_
#define CRAWLRANK_SRC_SERVE_CLUSTER_CALLS_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>

#include "crawlrank/node_list.h"
#include "serve/peer_streams.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank {

// The nodes and the streams to them, as a call sees them.
struct Cluster {
  const NodeList& nodes;
  const PeerStreams& peers;
};

template <typename Request, typename Response>
using UnaryMethod = grpc::Status (urlfrontier::URLFrontier::Stub::*)(grpc::ClientContext*,
                                                                     const Request&, Response*);

// Whether a call is answered by this node alone: it says `local`, or comes from a peer, or
// there is no cluster.
inline bool AnswersAlone(const Cluster* cluster, bool local, bool from_peer) {
  return cluster == nullptr || local || from_peer;
}

// Asks node `node` `request` through `method` (this node: `here`).
template <typename Request, typename Response>
grpc::Status AskNode(const Cluster& cluster, size_t node, UnaryMethod<Request, Response> method,
                     const Request& request, Response* response,
                     const std::function<grpc::Status(Response*)>& here) {
  if (node == cluster.nodes.self_index()) return here(response);
  return cluster.peers.CallNode(
      node, cluster.peers.deadline_ms(),
      [&](urlfrontier::URLFrontier::Stub& stub, grpc::ClientContext& context) {
        return (stub.*method)(&context, request, response);
      });
}

// Asks every node in list order, `each` taking each answer; the first error ends it.
template <typename Request, typename Response>
grpc::Status AskEveryNode(const Cluster& cluster, UnaryMethod<Request, Response> method,
                          const Request& request,
                          const std::function<grpc::Status(Response*)>& here,
                          const std::function<void(size_t node, const Response&)>& each) {
  for (size_t node = 0; node < cluster.nodes.size(); ++node) {
    Response answer;
    if (grpc::Status status = AskNode(cluster, node, method, request, &answer, here);
        !status.ok()) {
      return status;
    }
    each(node, answer);
  }
  return grpc::Status::OK;
}

// `into` plus `stats`: every count summed.
void AddStats(const urlfrontier::Stats& stats, urlfrontier::Stats* into);

// ListQueues over every node: each node's queues in its own order, the nodes in list
// order; `start` and `size` page through that sequence and `total` counts it all.
// `request` is the client's (its `local` is set on the copies).
grpc::Status ListQueuesAcross(const Cluster& cluster, const urlfrontier::Pagination& request,
                              urlfrontier::QueueList* response,
                              const std::function<grpc::Status(const urlfrontier::Pagination&,
                                                               urlfrontier::QueueList*)>& here);

// ListURLs over every node, paged through the nodes' listings in list order (each node's
// count first, with CountURLs, then the slices that fall in the page). `write` sends one
// item; false stops.
grpc::Status ListUrlsAcross(
    const Cluster& cluster, const urlfrontier::ListUrlParams& request,
    const std::function<grpc::Status(const urlfrontier::CountUrlParams&, urlfrontier::Long*)>&
        count_here,
    const std::function<grpc::Status(const urlfrontier::ListUrlParams&,
                                     const std::function<bool(const urlfrontier::URLItem&)>&)>&
        list_here,
    const std::function<bool(const urlfrontier::URLItem&)>& write);

// ListURLs of one queue, answered by its owner `node` (not this one): its items streamed
// through `write`.
grpc::Status ListUrlsOfOwner(const Cluster& cluster, size_t node,
                             const urlfrontier::ListUrlParams& request,
                             const std::function<bool(const urlfrontier::URLItem&)>& write);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_CLUSTER_CALLS_H_
