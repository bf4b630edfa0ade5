// The streams a node of a cluster keeps open to the other nodes (docs/frontier.md, "A
// cluster"): an item or a batch a node does not own goes to its owner on a long-lived
// stream, and the client's ack waits for the owner's.
//
//   PeerStreams peers(nodes, options);
//   peers.Forward(owner, item, [](AckMessage::Status s) { ... ack the client ... });
//   peers.ForwardBatch(owner, PeerLane::kLastHop, infos,
//                      [](std::span<const AckMessage::Status> s) { ... });
//
// - Three streams a peer, each opened when something comes and none is live: one PutURLs
//   stream for single items, and two PutDiscovered streams for batches, one per lane
//   (below). A batch is one message and gets one BatchAck: what a batch of 50 costs between
//   nodes is two messages, not a hundred.
// - Lanes. A node that receives a first hop (a discovered URL with its source, or a report)
//   may send a second hop on (the linked URL, to its owner) and waits for its answer before
//   it answers; a second hop (a URL without source, a share) sends nothing on. Each lane has
//   streams of its own, so that a stream's reader never waits for an answer queued behind
//   its own messages: first hops wait on second hops, which wait on nothing (no cycle
//   across nodes). Single items are first hops.
// - Every forwarded item or batch gets exactly one answer: the owner's (after its commit),
//   or FAIL (for each URL of a batch) when the owner cannot be reached, its stream breaks,
//   its answer does not fit, or none comes within the lane's deadline: `ack_deadline_ms`
//   for the last hop, twice that for a first hop, which waits for its second (then the
//   stream is cancelled, failing everything on it, and the next item opens a new one).
//   FAIL tells the client to send the item again; one the owner committed before its ack
//   was lost is then SKIPPED or recorded twice (a report), never lost.
// - The calls carry the token (authorization: Bearer), this node's entry and the node list
//   (kPeerFromHeader, kPeerNodesHeader): the owner refuses a peer with another list, and
//   never forwards a peer's item again.
// - Threads: Forward and ForwardBatch may be called from any thread. `done` runs on a
//   reader thread of the peer (or on the caller's, for something that failed at once): it
//   must not block for long and must not call Forward or ForwardBatch.
// - Ownership: the destructor cancels every stream and answers what is still waiting
//   FAIL before it returns.
#ifndef CRAWLRANK_SRC_SERVE_PEER_STREAMS_H_
#define CRAWLRANK_SRC_SERVE_PEER_STREAMS_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
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
  // How long a last hop waits for its owner's answer before it is answered FAIL; a first
  // hop waits twice as long.
  int64_t ack_deadline_ms = 10'000;
};

// Which stream of a peer a batch goes on (the lanes above).
enum class PeerLane {
  kFirstHop,  // the owner may send its URLs on (they name their source)
  kLastHop,   // the owner keeps them: URLs without source, and shares
};

class PeerStreams {
 public:
  using Done = std::function<void(urlfrontier::AckMessage::Status)>;
  // A batch's answer: a status per URL, in the batch's order.
  using BatchDone = std::function<void(std::span<const urlfrontier::AckMessage::Status>)>;

  PeerStreams(const NodeList& nodes, PeerOptions options);
  ~PeerStreams();
  PeerStreams(const PeerStreams&) = delete;
  PeerStreams& operator=(const PeerStreams&) = delete;

  // Sends `item` (its ID replaced by one of this stream's) to node `owner` (an index in
  // the node list, not this node's) and calls `done` once with the answer.
  void Forward(size_t owner, urlfrontier::URLItem item, Done done);
  // Sends `urls` to node `owner` as one PutDiscovered batch on `lane`, and calls `done`
  // once with a status per URL (all FAIL when no whole answer comes).
  void ForwardBatch(size_t owner, PeerLane lane, std::vector<urlfrontier::URLInfo> urls,
                    BatchDone done);

  // One call to node `node` (not this one): `call` runs with the peer's stub and a context
  // carrying the token, this node's entry and list, and a deadline `deadline_ms` from now.
  // Its status, with the node named in the message when it is an error.
  using Call = std::function<grpc::Status(urlfrontier::URLFrontier::Stub&, grpc::ClientContext&)>;
  grpc::Status CallNode(size_t node, int64_t deadline_ms, const Call& call) const;
  // The deadline of a last hop's answer, which unary calls to peers use too.
  int64_t deadline_ms() const { return deadline_ms_; }

 private:
  class Peer;

  std::vector<std::unique_ptr<Peer>> peers_;  // by node index; none for this node
  const int64_t deadline_ms_;
  // The sweeper: every 100 ms, cancels each stream whose oldest message has waited past
  // its lane's deadline.
  std::mutex sweep_mu_;
  std::condition_variable stop_sweeping_;
  bool stopping_ = false;  // guarded by sweep_mu_
  std::thread sweeper_;    // last: started once peers_ is whole
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_PEER_STREAMS_H_
