#include "serve/peer_streams.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <unordered_map>
#include <utility>

namespace crawlrank {
namespace {

using urlfrontier::AckMessage;
using Stream = grpc::ClientReaderWriter<urlfrontier::URLItem, AckMessage>;

// How long an owner whose stream ended without an answer counts as down.
constexpr int64_t kDownMs = 250;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<grpc::ChannelCredentials> Credentials(const PeerOptions& options) {
  if (options.tls_ca_pem.empty()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = options.tls_ca_pem;
  ssl.pem_cert_chain = options.tls_cert_pem;
  ssl.pem_private_key = options.tls_key_pem;
  return grpc::SslCredentials(ssl);
}

}  // namespace

// One peer: its channel, the stream open to it (one at a time, opened when an item comes
// and none is live), and the items sent on it that wait for their ack.
class PeerStreams::Peer {
 public:
  // A unary call's context: the peer metadata and a deadline.
  void PrepareCall(grpc::ClientContext& context, int64_t deadline_ms) const {
    for (const auto& [key, value] : metadata_) context.AddMetadata(key, value);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::milliseconds(deadline_ms));
  }
  urlfrontier::URLFrontier::Stub& stub() const { return *stub_; }
  const std::string& address() const { return address_; }

  Peer(std::string address, std::shared_ptr<grpc::Channel> channel,
       std::vector<std::pair<std::string, std::string>> metadata)
      : address_(std::move(address)),
        stub_(urlfrontier::URLFrontier::NewStub(std::move(channel))),
        metadata_(std::move(metadata)) {}

  ~Peer() {
    {
      std::lock_guard write(write_mu_);
      if (live_) context_->TryCancel();
    }
    if (reader_.joinable()) reader_.join();  // it answers what waits FAIL
  }

  void Forward(urlfrontier::URLItem item, Done done) {
    // An item's wait counts from here: time spent waiting for write_mu_ (behind a stream
    // that is being opened) counts against its deadline too.
    const int64_t arrived = NowMs();
    bool down = false;
    {
      std::lock_guard lock(mu_);
      down = arrived < down_until_ms_;
    }
    if (down) {  // the owner was just found down: FAIL at once, no new stream yet
      done(AckMessage::FAIL);
      return;
    }
    std::lock_guard write(write_mu_);
    const bool open = !live_;
    if (open) Prepare();
    std::string id = "p" + std::to_string(++next_id_);
    item.set_id(id);
    {
      std::lock_guard lock(mu_);
      waiting_.emplace(std::move(id), Waiting{std::move(done), arrived, generation_});
    }
    // Started once the item waits, so that the sweeper cancels a start that waits for an
    // owner which does not answer past the deadline.
    if (open) Start();
    // A write that fails ends the stream: its reader answers every item on it FAIL.
    if (!stream_->Write(item)) context_->TryCancel();
  }

  // Cancels the live stream when its oldest item has waited `deadline_ms` or more.
  void CancelIfLate(int64_t now, int64_t deadline_ms) {
    std::lock_guard lock(mu_);
    if (cancel_ == nullptr) return;
    for (const auto& [id, waiting] : waiting_) {
      if (waiting.generation == generation_ && now - waiting.sent_ms >= deadline_ms) {
        std::fprintf(stderr, "crawlrank_serve: peer %s: no ack in %lld ms: its stream is "
                     "cancelled, its items answered FAIL\n",
                     address_.c_str(), static_cast<long long>(deadline_ms));
        cancel_->TryCancel();
        cancel_ = nullptr;
        return;
      }
    }
  }

 private:
  struct Waiting {
    Done done;
    int64_t sent_ms = 0;
    uint64_t generation = 0;  // the stream it went on
  };

  // A new stream's context, which the sweeper may cancel from now on. REQUIRES: write_mu_
  // held, no stream live.
  void Prepare() {
    if (reader_.joinable()) reader_.join();  // the last stream's reader has let it go
    auto context = std::make_unique<grpc::ClientContext>();
    for (const auto& [key, value] : metadata_) context->AddMetadata(key, value);
    {
      std::lock_guard lock(mu_);
      cancel_ = context.get();
      ++generation_;
    }
    stream_.reset();                // the old stream goes before its context
    context_ = std::move(context);  // the old one is gone from cancel_ first
  }

  // Starts the call Prepare made ready, and its reader. REQUIRES: write_mu_ held.
  void Start() {
    stream_ = stub_->PutURLs(context_.get());
    live_ = true;
    uint64_t generation = 0;
    {
      std::lock_guard lock(mu_);
      generation = generation_;
    }
    reader_ = std::thread([this, stream = stream_.get(), generation] {
      ReadAcks(stream, generation);
    });
  }

  // The reader of one stream: answers each ack's item, then, once the stream ends, every
  // item still waiting on it FAIL.
  void ReadAcks(Stream* stream, uint64_t generation) {
    AckMessage ack;
    bool answered = false;  // the owner acked something on this stream
    while (stream->Read(&ack)) {
      answered = true;
      // A status this build does not know (a newer peer) is no answer it can pass on.
      if (!AckMessage::Status_IsValid(ack.status())) ack.set_status(AckMessage::FAIL);
      Done done;
      {
        std::lock_guard lock(mu_);
        const auto found = waiting_.find(ack.id());
        if (found == waiting_.end()) continue;  // answered FAIL already
        done = std::move(found->second.done);
        waiting_.erase(found);
      }
      done(ack.status());
    }
    grpc::Status ended;
    {
      std::lock_guard write(write_mu_);  // no write runs on the stream now
      ended = stream->Finish();
      live_ = false;
    }
    std::vector<Done> failed;
    {
      std::lock_guard lock(mu_);
      if (generation == generation_) cancel_ = nullptr;
      // An owner that could not be reached is taken as down for a moment: items for it
      // FAIL at once rather than each opening a stream of its own.
      if (!answered && ended.error_code() == grpc::StatusCode::UNAVAILABLE) {
        down_until_ms_ = NowMs() + kDownMs;
      }
      for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->second.generation != generation) {
          ++it;
          continue;
        }
        failed.push_back(std::move(it->second.done));
        it = waiting_.erase(it);
      }
    }
    // A stream that ends with nothing waiting (a peer stopping cancels it) needs no line:
    // the next item opens another.
    if (!failed.empty()) {
      std::fprintf(stderr, "crawlrank_serve: peer %s: stream ended (%s%s), %zu items "
                   "answered FAIL\n",
                   address_.c_str(), ended.ok() ? "OK" : "error: ",
                   ended.error_message().c_str(), failed.size());
    }
    for (Done& done : failed) done(AckMessage::FAIL);
  }

  const std::string address_;
  const std::unique_ptr<urlfrontier::URLFrontier::Stub> stub_;
  const std::vector<std::pair<std::string, std::string>> metadata_;

  // Held while a stream is opened, written to or finished: one writer at a time, and
  // Finish never beside a Write.
  std::mutex write_mu_;
  std::unique_ptr<grpc::ClientContext> context_;  // guarded by write_mu_
  std::unique_ptr<Stream> stream_;                // guarded by write_mu_
  std::thread reader_;                            // guarded by write_mu_
  bool live_ = false;                             // guarded by write_mu_
  uint64_t next_id_ = 0;                          // guarded by write_mu_

  std::mutex mu_;
  std::unordered_map<std::string, Waiting> waiting_;  // guarded by mu_
  uint64_t generation_ = 0;                           // guarded by mu_: the live stream's
  int64_t down_until_ms_ = 0;                         // guarded by mu_
  grpc::ClientContext* cancel_ = nullptr;             // guarded by mu_: the live context
};

PeerStreams::PeerStreams(const NodeList& nodes, PeerOptions options)
    : deadline_ms_(options.ack_deadline_ms) {
  std::vector<std::pair<std::string, std::string>> metadata = {
      {kPeerFromHeader, nodes.self()}, {kPeerNodesHeader, nodes.Joined()}};
  if (!options.token.empty()) metadata.emplace_back("authorization", "Bearer " + options.token);
  const std::shared_ptr<grpc::ChannelCredentials> credentials = Credentials(options);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i == nodes.self_index()) {
      peers_.emplace_back();
      continue;
    }
    const std::string& address = nodes.nodes()[i];
    // A peer is a node of the cluster, not a stranger: after it went away, try it again
    // at least every second (gRPC's default back-off grows to two minutes).
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    peers_.push_back(std::make_unique<Peer>(
        address, grpc::CreateCustomChannel(address, credentials, arguments), metadata));
  }
  sweeper_ = std::thread([this, deadline = options.ack_deadline_ms] {
    std::unique_lock lock(sweep_mu_);
    while (!stop_sweeping_.wait_for(lock, std::chrono::milliseconds(100),
                                    [this] { return stopping_; })) {
      const int64_t now = NowMs();
      for (const auto& peer : peers_) {
        if (peer != nullptr) peer->CancelIfLate(now, deadline);
      }
    }
  });
}

PeerStreams::~PeerStreams() {
  {
    std::lock_guard lock(sweep_mu_);
    stopping_ = true;
  }
  stop_sweeping_.notify_all();
  sweeper_.join();
  peers_.clear();  // each cancels its stream and answers what waits FAIL
}

void PeerStreams::Forward(size_t owner, urlfrontier::URLItem item, Done done) {
  if (owner >= peers_.size() || peers_[owner] == nullptr) {
    done(AckMessage::FAIL);  // not a peer: a caller's mistake, never a silent drop
    return;
  }
  peers_[owner]->Forward(std::move(item), std::move(done));
}

grpc::Status PeerStreams::CallNode(size_t node, int64_t deadline_ms, const Call& call) const {
  if (node >= peers_.size() || peers_[node] == nullptr) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "node " + std::to_string(node) +
                                                        " is not a peer of this node");
  }
  const Peer& peer = *peers_[node];
  grpc::ClientContext context;
  peer.PrepareCall(context, deadline_ms);
  const grpc::Status status = call(peer.stub(), context);
  if (status.ok()) return status;
  return grpc::Status(status.error_code(), "node " + peer.address() + ": " + status.error_message());
}

}  // namespace crawlrank
