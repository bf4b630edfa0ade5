#include "serve/peer_streams.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

namespace crawlrank {
namespace {

using urlfrontier::AckMessage;

// An owner: acks each item by its ID (OK for a discovered one, SKIPPED for a report), or
// reads and never acks while `stall` is set; keeps the peer metadata it was sent.
class FakeOwner final : public urlfrontier::URLFrontier::Service {
 public:
  std::atomic<bool> stall{false};
  std::atomic<int> received{0};

  grpc::Status PutURLs(grpc::ServerContext* context,
                       grpc::ServerReaderWriter<AckMessage, urlfrontier::URLItem>* stream) override {
    {
      std::lock_guard lock(mu_);
      for (const auto& [key, value] : context->client_metadata()) {
        metadata_[std::string(key.data(), key.size())] = std::string(value.data(), value.size());
      }
    }
    urlfrontier::URLItem item;
    while (stream->Read(&item)) {
      ++received;
      if (stall) continue;
      AckMessage ack;
      ack.set_id(item.id());
      ack.set_status(item.has_known() ? AckMessage::SKIPPED : AckMessage::OK);
      if (!stream->Write(ack)) break;
    }
    return grpc::Status::OK;
  }
  // A batch: OK for each URL, SKIPPED for one with "known" in it; a batch that names
  // "short" is answered with one status too few; one that names "hold" is answered only
  // once `held` is cleared, and its stream reads nothing meanwhile.
  std::atomic<bool> held{true};
  grpc::Status PutDiscovered(
      grpc::ServerContext*,
      grpc::ServerReaderWriter<urlfrontier::BatchAck, urlfrontier::DiscoveredBatch>* stream)
      override {
    urlfrontier::DiscoveredBatch batch;
    while (stream->Read(&batch)) {
      urlfrontier::BatchAck ack;
      ack.set_id(batch.id());
      bool hold = false, short_answer = false;
      for (const urlfrontier::URLInfo& info : batch.items()) {
        const bool known = info.url().find("known") != std::string::npos;
        hold = hold || info.url().find("hold") != std::string::npos;
        short_answer = short_answer || info.url().find("short") != std::string::npos;
        ack.add_statuses(known ? AckMessage::SKIPPED : AckMessage::OK);
      }
      if (short_answer) ack.mutable_statuses()->RemoveLast();
      while (hold && held) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (!stream->Write(ack)) break;
    }
    return grpc::Status::OK;
  }
  std::string Metadata(const std::string& key) {
    std::lock_guard lock(mu_);
    return metadata_.contains(key) ? metadata_[key] : std::string();
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> metadata_;
};

// A FakeOwner listening on 127.0.0.1.
struct Owner {
  FakeOwner service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  Owner() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service);
    server = builder.BuildAndStart();
  }
  ~Owner() { server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200)); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
};

// The answers `done` got, by the item's own name.
struct Answers {
  std::mutex mu;
  std::condition_variable changed;
  std::map<std::string, std::vector<AckMessage::Status>> got;
  PeerStreams::Done For(const std::string& name) {
    return [this, name](AckMessage::Status status) {
      std::lock_guard lock(mu);
      got[name].push_back(status);
      changed.notify_all();
    };
  }
  bool WaitFor(size_t count, std::chrono::milliseconds limit) {
    std::unique_lock lock(mu);
    return changed.wait_for(lock, limit, [&] { return got.size() >= count; });
  }
  std::vector<AckMessage::Status> Of(const std::string& name) {
    std::lock_guard lock(mu);
    return got.contains(name) ? got[name] : std::vector<AckMessage::Status>();
  }
};

urlfrontier::URLItem Discovered(const std::string& url) {
  urlfrontier::URLItem item;
  item.mutable_discovered()->mutable_info()->set_url(url);
  item.set_id("client-id");  // replaced on the way
  return item;
}

PeerOptions Options(int64_t deadline_ms, std::string token = "") {
  PeerOptions options;
  options.ack_deadline_ms = deadline_ms;
  options.token = std::move(token);
  return options;
}

NodeList TwoNodes(const std::string& owner) {
  Result<NodeList> nodes = NodeList::Make({owner, "127.0.0.1:1"}, "127.0.0.1:1");
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  return *std::move(nodes);
}

size_t IndexOf(const NodeList& nodes, const std::string& entry) {
  return static_cast<size_t>(std::find(nodes.nodes().begin(), nodes.nodes().end(), entry) -
                             nodes.nodes().begin());
}

TEST(PeerStreamsTest, EachItemGetsItsOwnAckOnceFromThreadsAtOnce) {
  Owner owner;
  const NodeList nodes = TwoNodes(owner.address());
  Answers answers;
  {
    PeerStreams peers(nodes, Options(10'000, "s3cret"));
    const size_t to = IndexOf(nodes, owner.address());
    std::vector<std::thread> senders;
    for (int t = 0; t < 4; ++t) {
      senders.emplace_back([&, t] {
        for (int i = 0; i < 250; ++i) {
          const std::string name = std::to_string(t) + "/" + std::to_string(i);
          urlfrontier::URLItem item = Discovered("http://a.test/" + name);
          if (i % 5 == 0) {  // a report: its info is copied before the oneof changes
            urlfrontier::URLInfo info = item.discovered().info();
            *item.mutable_known()->mutable_info() = std::move(info);
          }
          peers.Forward(to, std::move(item), answers.For(name));
        }
      });
    }
    for (std::thread& sender : senders) sender.join();
    ASSERT_TRUE(answers.WaitFor(1000, std::chrono::seconds(20)));
  }
  ASSERT_EQ(answers.got.size(), 1000u);
  for (const auto& [name, statuses] : answers.got) {
    const bool report = std::stoi(name.substr(name.find('/') + 1)) % 5 == 0;
    EXPECT_EQ(statuses, std::vector{report ? AckMessage::SKIPPED : AckMessage::OK}) << name;
  }
  EXPECT_EQ(owner.service.received.load(), 1000);
  EXPECT_EQ(owner.service.Metadata("authorization"), "Bearer s3cret");
  EXPECT_EQ(owner.service.Metadata(kPeerFromHeader), "127.0.0.1:1");
  EXPECT_EQ(owner.service.Metadata(kPeerNodesHeader), nodes.Joined());
}

TEST(PeerStreamsTest, AnOwnerThatDoesNotAckFailsItsItemsAtTheDeadlineAndTheNextStreamWorks) {
  Owner owner;
  owner.service.stall = true;
  const NodeList nodes = TwoNodes(owner.address());
  const size_t to = IndexOf(nodes, owner.address());
  Answers answers;
  // (A deadline long enough for a new stream to be answered on 2 busy cores under ASan.)
  PeerStreams peers(nodes, Options(1000));
  const auto start = std::chrono::steady_clock::now();
  peers.Forward(to, Discovered("http://a.test/1"), answers.For("1"));
  peers.Forward(to, Discovered("http://a.test/2"), answers.For("2"));
  ASSERT_TRUE(answers.WaitFor(2, std::chrono::seconds(10)));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(1000));
  EXPECT_EQ(answers.Of("1"), std::vector{AckMessage::FAIL});
  EXPECT_EQ(answers.Of("2"), std::vector{AckMessage::FAIL});
  owner.service.stall = false;  // it answers again: a new stream carries the next item
  peers.Forward(to, Discovered("http://a.test/3"), answers.For("3"));
  ASSERT_TRUE(answers.WaitFor(3, std::chrono::seconds(10)));
  EXPECT_EQ(answers.Of("3"), std::vector{AckMessage::OK});
}

TEST(PeerStreamsTest, AnOwnerNobodyListensOnFailsWithinTheDeadline) {
  int port = 0;
  {
    Owner gone;  // a port that was free a moment ago, closed again
    port = gone.port;
  }
  const std::string address = "127.0.0.1:" + std::to_string(port);
  const NodeList nodes = TwoNodes(address);
  Answers answers;
  PeerStreams peers(nodes, Options(300));
  const auto start = std::chrono::steady_clock::now();
  peers.Forward(IndexOf(nodes, address), Discovered("http://a.test/"), answers.For("x"));
  ASSERT_TRUE(answers.WaitFor(1, std::chrono::seconds(3)));  // the deadline, and some
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(answers.Of("x"), std::vector{AckMessage::FAIL});
  // Found down: the next item FAILs at once, without a stream of its own.
  peers.Forward(IndexOf(nodes, address), Discovered("http://a.test/2"), answers.For("y"));
  EXPECT_EQ(answers.Of("y"), std::vector{AckMessage::FAIL});
  // This node is no peer of itself: FAIL at once, never a silent drop.
  peers.Forward(nodes.self_index(), Discovered("http://a.test/"), answers.For("self"));
  EXPECT_EQ(answers.Of("self"), std::vector{AckMessage::FAIL});
}

// The statuses a batch's `done` got, once it has come.
struct BatchAnswer {
  std::mutex mu;
  std::condition_variable changed;
  std::optional<std::vector<AckMessage::Status>> got;
  int calls = 0;
  PeerStreams::BatchDone Done() {
    return [this](std::span<const AckMessage::Status> statuses) {
      std::lock_guard lock(mu);
      got.emplace(statuses.begin(), statuses.end());
      ++calls;
      changed.notify_all();
    };
  }
  std::optional<std::vector<AckMessage::Status>> Wait(std::chrono::milliseconds limit) {
    std::unique_lock lock(mu);
    changed.wait_for(lock, limit, [&] { return got.has_value(); });
    return got;
  }
};

std::vector<urlfrontier::URLInfo> Urls(std::initializer_list<std::string> urls) {
  std::vector<urlfrontier::URLInfo> infos;
  for (const std::string& url : urls) infos.emplace_back().set_url(url);
  return infos;
}

TEST(PeerStreamsTest, ABatchGetsAStatusPerUrlInItsOrderAndAShortAnswerFailsItWhole) {
  Owner owner;
  owner.service.held = false;
  const NodeList nodes = TwoNodes(owner.address());
  const size_t to = IndexOf(nodes, owner.address());
  PeerStreams peers(nodes, Options(10'000));
  BatchAnswer answer;
  peers.ForwardBatch(to, PeerLane::kFirstHop,
                     Urls({"http://a.test/1", "http://a.test/known", "http://a.test/3"}),
                     answer.Done());
  EXPECT_EQ(answer.Wait(std::chrono::seconds(10)),
            (std::vector{AckMessage::OK, AckMessage::SKIPPED, AckMessage::OK}));
  // An answer that does not match the batch URL for URL is no answer: every URL FAILs.
  BatchAnswer short_answer;
  peers.ForwardBatch(to, PeerLane::kLastHop, Urls({"http://a.test/short", "http://a.test/2"}),
                     short_answer.Done());
  EXPECT_EQ(short_answer.Wait(std::chrono::seconds(10)),
            (std::vector{AckMessage::FAIL, AckMessage::FAIL}));
  // This node is no peer of itself: FAIL at once.
  BatchAnswer self;
  peers.ForwardBatch(nodes.self_index(), PeerLane::kLastHop, Urls({"http://a.test/"}),
                     self.Done());
  EXPECT_EQ(self.got, std::vector{AckMessage::FAIL});
}

TEST(PeerStreamsTest, ALastHopIsAnsweredWhileAFirstHopWaitsAndAFirstHopHasTwiceTheDeadline) {
  Owner owner;  // holds a batch that names "hold", and reads nothing more on its stream
  const NodeList nodes = TwoNodes(owner.address());
  const size_t to = IndexOf(nodes, owner.address());
  PeerStreams peers(nodes, Options(400));
  const auto start = std::chrono::steady_clock::now();
  BatchAnswer first, last;
  peers.ForwardBatch(to, PeerLane::kFirstHop, Urls({"http://a.test/hold"}), first.Done());
  // On a stream of its own: answered although the first hop's stream is stuck.
  peers.ForwardBatch(to, PeerLane::kLastHop, Urls({"http://b.test/"}), last.Done());
  EXPECT_EQ(last.Wait(std::chrono::seconds(10)), std::vector{AckMessage::OK});
  EXPECT_EQ(first.Wait(std::chrono::seconds(10)), std::vector{AckMessage::FAIL});
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(800));
  EXPECT_EQ(first.calls, 1);
  owner.service.held = false;
}

TEST(PeerStreamsTest, ClosingAnswersWhatStillWaitsFail) {
  Owner owner;
  owner.service.stall = true;
  const NodeList nodes = TwoNodes(owner.address());
  Answers answers;
  {
    PeerStreams peers(nodes, Options(60'000));
    peers.Forward(IndexOf(nodes, owner.address()), Discovered("http://a.test/"),
                  answers.For("x"));
  }
  EXPECT_EQ(answers.Of("x"), std::vector{AckMessage::FAIL});
}

}  // namespace
}  // namespace crawlrank
