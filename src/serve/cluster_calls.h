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

// `request` as a peer is sent it: `local` set, where the message has the field.
template <typename Request>
Request ForPeer(const Request& request) {
  Request copy = request;
  if constexpr (requires(Request& r) { r.set_local(true); }) copy.set_local(true);
  return copy;
}

// Asks node `node` `request` through `method` (ForPeer's copy), or, for this node, `here`.
template <typename Request, typename Response>
grpc::Status AskNode(const Cluster& cluster, size_t node, UnaryMethod<Request, Response> method,
                     const Request& request, Response* response,
                     const std::function<grpc::Status(Response*)>& here) {
  if (node == cluster.nodes.self_index()) return here(response);
  const Request sent = ForPeer(request);
  return cluster.peers.CallNode(
      node, cluster.peers.deadline_ms(),
      [&](urlfrontier::URLFrontier::Stub& stub, grpc::ClientContext& context) {
        return (stub.*method)(&context, sent, response);
      });
}

// Sends a call about a queue to its owner `node`, another node (the answer carries
// nothing).
template <typename Request>
grpc::Status SendToNode(const Cluster& cluster, size_t node,
                        UnaryMethod<Request, urlfrontier::Empty> method, const Request& request) {
  urlfrontier::Empty empty;
  return AskNode<Request, urlfrontier::Empty>(cluster, node, method, request, &empty, nullptr);
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

// This node's answers to the listings (frontier_queries.h), and where a listing's items
// go (false: the client went away, stop).
using QueuesHere =
    std::function<grpc::Status(const urlfrontier::Pagination&, urlfrontier::QueueList*)>;
using CountHere =
    std::function<grpc::Status(const urlfrontier::CountUrlParams&, urlfrontier::Long*)>;
using WriteItem = std::function<bool(const urlfrontier::URLItem&)>;
using ListHere = std::function<grpc::Status(const urlfrontier::ListUrlParams&, const WriteItem&)>;

// ListQueues over every node: each node's queues in its own order, the nodes in list
// order; `start` and `size` page through that sequence and `total` counts it all.
grpc::Status ListQueuesAcross(const Cluster& cluster, const urlfrontier::Pagination& request,
                              urlfrontier::QueueList* response, const QueuesHere& here);

// ListURLs over every node, paged through the nodes' listings in list order (each node's
// count first, with CountURLs, then the slices that fall in the page).
grpc::Status ListUrlsAcross(const Cluster& cluster, const urlfrontier::ListUrlParams& request,
                            const CountHere& count_here, const ListHere& list_here,
                            const WriteItem& write);

// ListURLs answered by node `node` (not this one; ForPeer's copy of `request`): its items
// streamed through `write`. Cut short by the peer, an error.
grpc::Status ListUrlsOfNode(const Cluster& cluster, size_t node,
                            const urlfrontier::ListUrlParams& request, const WriteItem& write);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_CLUSTER_CALLS_H_
