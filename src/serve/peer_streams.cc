#include "serve/peer_streams.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <unordered_map>
#include <utility>

namespace crawlrank {
namespace {

using urlfrontier::AckMessage;
using Metadata = std::vector<std::pair<std::string, std::string>>;

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

// (A named namespace: the lanes are members of PeerStreams::Peer, which has linkage.)
namespace peer_lanes {

// One stream kind to one peer: `Out` messages carry an ID the peer's `In` answers name.
// One stream at a time, opened when a message comes and none is live; the messages sent on
// it wait for their answer. Each message gets one answer: the peer's `In`, or nullptr when
// none came (the stream ended, or was cancelled past the deadline).
template <typename Out, typename In>
class Lane {
 public:
  using Stream = grpc::ClientReaderWriter<Out, In>;
  using Open = std::unique_ptr<Stream> (*)(urlfrontier::URLFrontier::Stub&, grpc::ClientContext*);
  using Answer = std::function<void(const In*)>;

  Lane(const std::string& address, const char* what, Open open,
       urlfrontier::URLFrontier::Stub& stub, const Metadata& metadata, int64_t deadline_ms)
      : address_(address), what_(what), open_(open), stub_(stub), metadata_(metadata),
        deadline_ms_(deadline_ms) {}

  ~Lane() {
    {
      std::lock_guard write(write_mu_);
      if (live_) context_->TryCancel();
    }
    if (reader_.joinable()) reader_.join();  // it answers what waits
  }

  void Send(Out message, Answer answer) {
    // A message's wait counts from here: time spent waiting for write_mu_ (behind a stream
    // that is being opened) counts against its deadline too.
    const int64_t arrived = NowMs();
    bool down = false;
    {
      std::lock_guard lock(mu_);
      down = arrived < down_until_ms_;
    }
    if (down) {  // the owner was just found down: no answer, no new stream yet
      answer(nullptr);
      return;
    }
    std::lock_guard write(write_mu_);
    const bool open = !live_;
    if (open) Prepare();
    std::string id = "p" + std::to_string(++next_id_);
    message.set_id(id);
    {
      std::lock_guard lock(mu_);
      waiting_.emplace(std::move(id), Waiting{std::move(answer), arrived, generation_});
    }
    // Started once the message waits, so that the sweeper cancels a start that waits for
    // an owner which does not answer past the deadline.
    if (open) Start();
    // A write that fails ends the stream: its reader answers everything on it.
    if (!stream_->Write(message)) context_->TryCancel();
  }

  // Cancels the live stream when its oldest message has waited past the deadline.
  void CancelIfLate(int64_t now) {
    std::lock_guard lock(mu_);
    if (cancel_ == nullptr) return;
    for (const auto& [id, waiting] : waiting_) {
      if (waiting.generation == generation_ && now - waiting.sent_ms >= deadline_ms_) {
        std::fprintf(stderr, "crawlrank_serve: peer %s: no answer in %lld ms: its %s stream "
                     "is cancelled, what it carried answered FAIL\n",
                     address_.c_str(), static_cast<long long>(deadline_ms_), what_);
        cancel_->TryCancel();
        cancel_ = nullptr;
        return;
      }
    }
  }

 private:
  struct Waiting {
    Answer answer;
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
    stream_ = open_(stub_, context_.get());
    live_ = true;
    uint64_t generation = 0;
    {
      std::lock_guard lock(mu_);
      generation = generation_;
    }
    reader_ = std::thread([this, stream = stream_.get(), generation] {
      ReadAnswers(stream, generation);
    });
  }

  // The reader of one stream: passes each answer to its message, then, once the stream
  // ends, answers every message still waiting on it with nothing.
  void ReadAnswers(Stream* stream, uint64_t generation) {
    In in;
    bool answered = false;  // the owner answered something on this stream
    while (stream->Read(&in)) {
      answered = true;
      Answer answer;
      {
        std::lock_guard lock(mu_);
        const auto found = waiting_.find(in.id());
        if (found == waiting_.end()) continue;  // answered FAIL already
        answer = std::move(found->second.answer);
        waiting_.erase(found);
      }
      answer(&in);
    }
    grpc::Status ended;
    {
      std::lock_guard write(write_mu_);  // no write runs on the stream now
      ended = stream->Finish();
      live_ = false;
    }
    std::vector<Answer> failed;
    {
      std::lock_guard lock(mu_);
      if (generation == generation_) cancel_ = nullptr;
      // An owner that could not be reached is taken as down for a moment: what comes for
      // it FAILs at once rather than each opening a stream of its own.
      if (!answered && ended.error_code() == grpc::StatusCode::UNAVAILABLE) {
        down_until_ms_ = NowMs() + kDownMs;
      }
      for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->second.generation != generation) {
          ++it;
          continue;
        }
        failed.push_back(std::move(it->second.answer));
        it = waiting_.erase(it);
      }
    }
    // A stream that ends with nothing waiting (a peer stopping cancels it) needs no line:
    // the next message opens another.
    if (!failed.empty()) {
      std::fprintf(stderr, "crawlrank_serve: peer %s: %s stream ended (%s%s), %zu messages "
                   "answered FAIL\n",
                   address_.c_str(), what_, ended.ok() ? "OK" : "error: ",
                   ended.error_message().c_str(), failed.size());
    }
    for (Answer& answer : failed) answer(nullptr);
  }

  const std::string& address_;
  const char* const what_;
  const Open open_;
  urlfrontier::URLFrontier::Stub& stub_;
  const Metadata& metadata_;
  const int64_t deadline_ms_;

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

using ItemLane = Lane<urlfrontier::URLItem, AckMessage>;
using BatchLane = Lane<urlfrontier::DiscoveredBatch, urlfrontier::BatchAck>;

std::unique_ptr<ItemLane::Stream> OpenItems(urlfrontier::URLFrontier::Stub& stub,
                                            grpc::ClientContext* context) {
  return stub.PutURLs(context);
}

std::unique_ptr<BatchLane::Stream> OpenBatches(urlfrontier::URLFrontier::Stub& stub,
                                               grpc::ClientContext* context) {
  return stub.PutDiscovered(context);
}

}  // namespace peer_lanes

// One peer: its channel, and a lane for single items and one for each hop of batches.
class PeerStreams::Peer {
 public:
  Peer(std::string address, std::shared_ptr<grpc::Channel> channel, Metadata metadata,
       int64_t deadline_ms)
      : address_(std::move(address)),
        stub_(urlfrontier::URLFrontier::NewStub(std::move(channel))),
        metadata_(std::move(metadata)),
        items_(address_, "PutURLs", peer_lanes::OpenItems, *stub_, metadata_, 2 * deadline_ms),
        first_hops_(address_, "PutDiscovered (first hops)", peer_lanes::OpenBatches, *stub_,
                    metadata_, 2 * deadline_ms),
        last_hops_(address_, "PutDiscovered (last hops)", peer_lanes::OpenBatches, *stub_,
                   metadata_, deadline_ms) {}

  // A unary call's context: the peer metadata and a deadline.
  void PrepareCall(grpc::ClientContext& context, int64_t deadline_ms) const {
    for (const auto& [key, value] : metadata_) context.AddMetadata(key, value);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::milliseconds(deadline_ms));
  }
  urlfrontier::URLFrontier::Stub& stub() const { return *stub_; }
  const std::string& address() const { return address_; }
  peer_lanes::ItemLane& items() { return items_; }
  peer_lanes::BatchLane& batches(PeerLane lane) {
    return lane == PeerLane::kFirstHop ? first_hops_ : last_hops_;
  }
  void CancelIfLate(int64_t now) {
    items_.CancelIfLate(now);
    first_hops_.CancelIfLate(now);
    last_hops_.CancelIfLate(now);
  }

 private:
  const std::string address_;
  const std::unique_ptr<urlfrontier::URLFrontier::Stub> stub_;
  const Metadata metadata_;
  // Last: each cancels its stream and answers what waits before the rest goes.
  peer_lanes::ItemLane items_;
  peer_lanes::BatchLane first_hops_;
  peer_lanes::BatchLane last_hops_;
};

PeerStreams::PeerStreams(const NodeList& nodes, PeerOptions options)
    : deadline_ms_(options.ack_deadline_ms) {
  Metadata metadata = {{kPeerFromHeader, nodes.self()}, {kPeerNodesHeader, nodes.Joined()}};
  if (!options.token.empty()) metadata.emplace_back("authorization", "Bearer " + options.token);
  const std::shared_ptr<grpc::ChannelCredentials> credentials = Credentials(options);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i == nodes.self_index()) {
      peers_.emplace_back();
      continue;
    }
    const std::string& address = nodes.nodes()[i];
    // A peer is a node of the cluster, not a stranger: after it went away, try it again
    // at least every second (gRPC's default back-off grows to two minutes). The minimum
    // back-off is also how long one attempt to connect may take: a busy peer's handshake
    // can take more than a few hundred milliseconds, and one cut short fails what waits.
    grpc::ChannelArguments arguments;
    arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 2000);
    arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    peers_.push_back(std::make_unique<Peer>(
        address, grpc::CreateCustomChannel(address, credentials, arguments), metadata,
        options.ack_deadline_ms));
  }
  sweeper_ = std::thread([this] {
    std::unique_lock lock(sweep_mu_);
    while (!stop_sweeping_.wait_for(lock, std::chrono::milliseconds(100),
                                    [this] { return stopping_; })) {
      const int64_t now = NowMs();
      for (const auto& peer : peers_) {
        if (peer != nullptr) peer->CancelIfLate(now);
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
  peers_.clear();  // each cancels its streams and answers what waits FAIL
}

void PeerStreams::Forward(size_t owner, urlfrontier::URLItem item, Done done) {
  if (owner >= peers_.size() || peers_[owner] == nullptr) {
    done(AckMessage::FAIL);  // not a peer: a caller's mistake, never a silent drop
    return;
  }
  peers_[owner]->items().Send(std::move(item), [done = std::move(done)](const AckMessage* ack) {
    // A status this build does not know (a newer peer) is no answer it can pass on.
    done(ack != nullptr && AckMessage::Status_IsValid(ack->status()) ? ack->status()
                                                                     : AckMessage::FAIL);
  });
}

void PeerStreams::ForwardBatch(size_t owner, PeerLane lane, std::vector<urlfrontier::URLInfo> urls,
                               BatchDone done) {
  const size_t count = urls.size();
  const auto fail_all = [count](const BatchDone& answer) {
    const std::vector<AckMessage::Status> failed(count, AckMessage::FAIL);
    answer(failed);
  };
  if (owner >= peers_.size() || peers_[owner] == nullptr) {
    fail_all(done);
    return;
  }
  urlfrontier::DiscoveredBatch batch;
  batch.mutable_items()->Reserve(static_cast<int>(count));
  for (urlfrontier::URLInfo& url : urls) *batch.add_items() = std::move(url);
  peers_[owner]->batches(lane).Send(
      std::move(batch),
      [count, fail_all, done = std::move(done)](const urlfrontier::BatchAck* ack) {
        if (ack == nullptr || static_cast<size_t>(ack->statuses_size()) != count) {
          fail_all(done);  // none, or one that does not answer this batch URL for URL
          return;
        }
        std::vector<AckMessage::Status> statuses(count, AckMessage::FAIL);
        for (size_t i = 0; i < count; ++i) {
          const int status = ack->statuses(static_cast<int>(i));
          if (AckMessage::Status_IsValid(status)) {
            statuses[i] = static_cast<AckMessage::Status>(status);
          }
        }
        done(statuses);
      });
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
