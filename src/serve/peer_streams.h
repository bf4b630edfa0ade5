// The streams a node of a cluster keeps open to the other nodes (docs/frontier.md, "A
// cluster"): an item a node does not own goes to its owner on one long-lived PutURLs
// stream per peer, and the client's ack waits for the owner's.
//
//   PeerStreams peers(nodes, options);
//   peers.Forward(owner, item, [](AckMessage::Status s) { ... ack the client ... });
//
// - Every forwarded item gets exactly one answer: the owner's ack (after its commit), or
//   FAIL when the owner cannot be reached, its stream breaks, or no ack comes within
//   `ack_deadline_ms` (then the stream is cancelled, failing every item it carried, and the
//   next item opens a new one). FAIL tells the client to send the item again; an item the
//   owner committed before its ack was lost is then SKIPPED or recorded twice (a report),
//   never lost.
// - The calls carry the token (authorization: Bearer), this node's entry and the node list
//   (kPeerFromHeader, kPeerNodesHeader): the owner refuses a peer with another list, and
//   never forwards a peer's item again.
// - Threads: Forward may be called from any thread. `done` runs on a reader thread of the
//   peer (or on the caller's, for an item that failed at once): it must not block for long
//   and must not call Forward.
// - Ownership: the destructor cancels every stream and answers what is still waiting
//   FAIL before it returns.
#ifndef CRAWLRANK_SRC_SERVE_PEER_STREAMS_H_
#define CRAWLRANK_SRC_SERVE_PEER_STREAMS_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "crawlrank/node_list.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank {

// The metadata a node's calls to its peers carry: its entry, and the node list it has.
inline constexpr char kPeerFromHeader[] = "crawlrank-peer";
inline constexpr char kPeerNodesHeader[] = "crawlrank-nodes";

struct PeerOptions {
  // Sent to peers as the client's token is (empty: none).
  std::string token;
  // TLS to the peers: the CA that signed their certificates (empty: plain text), and this
  // node's certificate chain and key, shown as a client certificate when not empty.
  std::string tls_ca_pem, tls_cert_pem, tls_key_pem;
  // How long an item waits for its owner's ack before it is answered FAIL.
  int64_t ack_deadline_ms = 10'000;
};

class PeerStreams {
 public:
  using Done = std::function<void(urlfrontier::AckMessage::Status)>;

  PeerStreams(const NodeList& nodes, PeerOptions options);
  ~PeerStreams();
  PeerStreams(const PeerStreams&) = delete;
  PeerStreams& operator=(const PeerStreams&) = delete;

  // Sends `item` (its ID replaced by one of this stream's) to node `owner` (an index in
  // the node list, not this node's) and calls `done` once with the answer.
  void Forward(size_t owner, urlfrontier::URLItem item, Done done);

  // One call to node `node` (not this one): `call` runs with the peer's stub and a context
  // carrying the token, this node's entry and list, and a deadline `deadline_ms` from now.
  // Its status, with the node named in the message when it is an error.
  using Call = std::function<grpc::Status(urlfrontier::URLFrontier::Stub&, grpc::ClientContext&)>;
  grpc::Status CallNode(size_t node, int64_t deadline_ms, const Call& call) const;
  // The deadline of an item's ack, which unary calls to peers use too.
  int64_t deadline_ms() const { return deadline_ms_; }

 private:
  class Peer;

  std::vector<std::unique_ptr<Peer>> peers_;  // by node index; none for this node
  const int64_t deadline_ms_;
  // The sweeper: every 100 ms, cancels the stream of a peer whose oldest item has waited
  // past the deadline.
  std::mutex sweep_mu_;
  std::condition_variable stop_sweeping_;
  bool stopping_ = false;  // guarded by sweep_mu_
  std::thread sweeper_;    // last: started once peers_ is whole
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_PEER_STREAMS_H_
