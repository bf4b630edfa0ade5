#include "serve/cluster_frontier.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "crawlrank/node_list.h"
#include "crawlrank/url.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank {
namespace {

// A node as the client sees one: hands out the URLs queued on it (one per GetURLs item,
// keyed by host), keeps every item it is sent (or acks them FAIL while `fail_puts`), and
// answers GetStats with what it has left and ListNodes with `listed`.
class FakeNode final : public urlfrontier::URLFrontier::Service {
 public:
  std::mutex mu;
  std::deque<std::string> queue;
  std::vector<std::pair<std::string, std::string>> received;  // (kind, url): "seen", "page"
  std::vector<std::string> sources;                           // of the discovered items
  std::vector<std::string> listed;
  bool fail_puts = false;
  std::string refuse;  // acks FAIL the items of URLs holding it (a real node, its owner down)
  bool local_asked = false;

  grpc::Status GetURLs(grpc::ServerContext*, const urlfrontier::GetParams* params,
                       grpc::ServerWriter<urlfrontier::URLInfo>* writer) override {
    std::lock_guard lock(mu);
    for (uint32_t i = 0; i < params->max_queues() && !queue.empty(); ++i) {
      urlfrontier::URLInfo info;
      info.set_url(queue.front());
      info.set_key(*HostKey(queue.front()));
      queue.pop_front();
      writer->Write(info);
    }
    return grpc::Status::OK;
  }
  grpc::Status PutURLs(grpc::ServerContext*,
                       grpc::ServerReaderWriter<urlfrontier::AckMessage, urlfrontier::URLItem>*
                           stream) override {
    urlfrontier::URLItem item;
    while (stream->Read(&item)) {
      urlfrontier::AckMessage ack;
      std::lock_guard lock(mu);
      const auto& info = item.has_known() ? item.known().info() : item.discovered().info();
      const bool fail = fail_puts || (!refuse.empty() && info.url().find(refuse) != std::string::npos);
      ack.set_status(fail ? urlfrontier::AckMessage::FAIL : urlfrontier::AckMessage::OK);
      if (!fail) {
        received.emplace_back(item.has_known() ? "page" : "seen", info.url());
        const auto source = info.metadata().find("crawlrank.source");
        if (source != info.metadata().end()) sources.push_back(source->second.values(0));
      }
      stream->Write(ack);
    }
    return grpc::Status::OK;
  }
  grpc::Status GetStats(grpc::ServerContext*, const urlfrontier::QueueWithinCrawlParams* params,
                        urlfrontier::Stats* stats) override {
    std::lock_guard lock(mu);
    local_asked = params->local();
    stats->set_size(queue.size());
    (*stats->mutable_counts())["queued"] = queue.size();
    (*stats->mutable_counts())["crawled"] = Count("page");
    return grpc::Status::OK;
  }
  grpc::Status ListNodes(grpc::ServerContext*, const urlfrontier::Empty*,
                         urlfrontier::StringList* nodes) override {
    std::lock_guard lock(mu);
    for (const std::string& node : listed) nodes->add_values(node);
    return grpc::Status::OK;
  }
  size_t Count(const std::string& kind) {  // mu held
    size_t n = 0;
    for (const auto& item : received) n += item.first == kind;
    return n;
  }
  std::vector<std::string> Pages() {
    std::lock_guard lock(mu);
    std::vector<std::string> pages;
    for (const auto& [kind, url] : received) {
      if (kind == "page") pages.push_back(url);
    }
    return pages;
  }
};

// FakeNodes on 127.0.0.1, each with its port, which a restart binds again.
struct Cluster {
  std::vector<std::unique_ptr<FakeNode>> services;
  std::vector<std::unique_ptr<grpc::Server>> servers;
  std::vector<int> ports;

  explicit Cluster(size_t n) : services(n), servers(n), ports(n, 0) {
    for (size_t i = 0; i < n; ++i) {
      services[i] = std::make_unique<FakeNode>();
      Start(i);
    }
    // Numbered as the cluster numbers them (Java String order): node i is nodes()[i].
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return JavaStringLess(Address(a), Address(b)); });
    std::vector<std::unique_ptr<FakeNode>> s(n);
    std::vector<std::unique_ptr<grpc::Server>> v(n);
    std::vector<int> p(n);
    for (size_t i = 0; i < n; ++i) {
      s[i] = std::move(services[order[i]]);
      v[i] = std::move(servers[order[i]]);
      p[i] = ports[order[i]];
    }
    services = std::move(s), servers = std::move(v), ports = std::move(p);
    for (auto& service : services) service->listed = Addresses();
  }
  ~Cluster() {
    for (size_t i = 0; i < servers.size(); ++i) Stop(i);
  }
  void Start(size_t i) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:" + std::to_string(ports[i]),
                             grpc::InsecureServerCredentials(), &ports[i]);
    builder.RegisterService(services[i].get());
    servers[i] = builder.BuildAndStart();
    ASSERT_NE(servers[i], nullptr);
  }
  void Stop(size_t i) {
    if (servers[i] == nullptr) return;
    servers[i]->Shutdown(std::chrono::system_clock::now());
    servers[i]->Wait();
    servers[i].reset();
  }
  std::string Address(size_t i) const { return "127.0.0.1:" + std::to_string(ports[i]); }
  std::vector<std::string> Addresses() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < ports.size(); ++i) out.push_back(Address(i));
    return out;
  }
  std::unique_ptr<ClusterFrontier> Client(int64_t give_up_ms = 60'000) const {
    // Given in reverse: the client numbers them itself.
    std::vector<std::string> given = Addresses();
    std::reverse(given.begin(), given.end());
    ClusterFrontierOptions options{.nodes = given, .remote = {}};
    options.remote.wait_ms = 2'000;
    options.remote.give_up_ms = give_up_ms;
    auto made = ClusterFrontier::Make(options);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return std::move(*made);
  }
};

// A host whose queue node `i` of `nodes` owns (URLFrontier's formula, node_list.h).
std::string HostOwnedBy(const std::vector<std::string>& nodes, size_t i, int skip = 0) {
  const NodeList list = *NodeList::Make(nodes, nodes.front());
  for (int k = 0;; ++k) {
    std::string host = "h" + std::to_string(k) + ".test";
    if (list.OwnerOf("DEFAULT", host) == i && skip-- == 0) return host;
  }
}

CrawlReport ReportOf(const Request& request, std::vector<std::string> links) {
  CrawlReport report;
  report.page.url = request.url;
  report.page.http_status = 200;
  report.lease = request.lease;
  for (std::string& link : links) report.page.links.push_back({std::move(link), 0.f});
  return report;
}

template <typename Done>
bool WaitFor(Done done, int64_t ms = 10'000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST(ClusterFrontierTest, NextReadsTheNodesInTurnAndEachReportGoesToTheNodeThatHandedItOut) {
  Cluster cluster(3);
  // Each node queues two pages of hosts another node owns: the client reports a page to
  // the node that handed it out, whatever the formula says of its host.
  for (size_t i = 0; i < 3; ++i) {
    for (int k = 0; k < 2; ++k) {
      cluster.services[i]->queue.push_back(
          "http://" + HostOwnedBy(cluster.Addresses(), (i + 1) % 3, k) + "/p" + std::to_string(i));
    }
  }
  auto client = cluster.Client();
  ASSERT_TRUE(client->Probe().ok());
  EXPECT_EQ(client->nodes(), cluster.Addresses());
  std::vector<Request> handed;
  for (int call = 0; call < 6; ++call) {
    auto got = client->Next(1);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), 1u);
    handed.push_back((*got)[0]);
  }
  for (int call = 0; call < 6; ++call) {  // round robin: 0 1 2 0 1 2
    EXPECT_NE(handed[call].url.find("/p" + std::to_string(call % 3)), std::string::npos)
        << call << " " << handed[call].url;
  }
  std::vector<CrawlReport> reports;
  for (const Request& r : handed) reports.push_back(ReportOf(r, {r.url + "/link"}));
  ASSERT_TRUE(client->CrawledBatch(reports).ok());
  EXPECT_EQ(client->Unsent(), 0u);
  for (size_t i = 0; i < 3; ++i) {
    FakeNode& node = *cluster.services[i];
    std::lock_guard lock(node.mu);
    ASSERT_EQ(node.received.size(), 4u) << i;  // two pages, each its link first
    for (size_t k = 0; k < 4; k += 2) {
      EXPECT_EQ(node.received[k].first, "seen");
      EXPECT_EQ(node.received[k + 1].first, "page");
      EXPECT_EQ(node.received[k].second, node.received[k + 1].second + "/link");
      EXPECT_NE(node.received[k + 1].second.find("/p" + std::to_string(i)), std::string::npos);
    }
  }
  const SchedulerStats stats = client->GetStats();
  EXPECT_TRUE(stats.finished);
  EXPECT_EQ(stats.crawled, 6u);  // the nodes' own counts, summed
  EXPECT_TRUE(cluster.services[0]->local_asked);
}

TEST(ClusterFrontierTest, SeedsAndFailuresOfPagesNotHandedOutGoToTheirOwner) {
  Cluster cluster(3);
  auto client = cluster.Client();
  std::vector<std::string> seeds;
  for (size_t i = 0; i < 3; ++i) {
    seeds.push_back("http://" + HostOwnedBy(cluster.Addresses(), i) + "/");
    seeds.push_back("HTTP://" + HostOwnedBy(cluster.Addresses(), i, 1) + "/x");  // not canonical
  }
  ASSERT_TRUE(client->AddSeeds(seeds).ok());
  FailureReport refused;
  refused.url = "http://" + HostOwnedBy(cluster.Addresses(), 2, 2) + "/no";
  ASSERT_TRUE(client->Failed(refused).ok());
  for (size_t i = 0; i < 3; ++i) {
    FakeNode& node = *cluster.services[i];
    std::lock_guard lock(node.mu);
    ASSERT_EQ(node.received.size(), i == 2 ? 3u : 2u) << i;
    EXPECT_EQ(node.received[0].second, seeds[2 * i]);
    EXPECT_EQ(node.received[1].second, seeds[2 * i + 1]);
  }
  EXPECT_EQ(cluster.services[2]->received[2], std::make_pair(std::string("page"), refused.url));
}

TEST(ClusterFrontierTest, ANodeDownIsSkippedAndWhatItIsOwedIsSentWhenItIsBack) {
  Cluster cluster(2);
  const std::string a = "http://" + HostOwnedBy(cluster.Addresses(), 0) + "/";
  const std::string b = "http://" + HostOwnedBy(cluster.Addresses(), 1) + "/";
  cluster.services[0]->queue = {a + "1", a + "2", a + "3"};
  cluster.services[1]->queue = {b + "1"};
  cluster.services[0]->refuse = b;  // as a node does while the owner is down
  auto client = cluster.Client();
  auto first = client->Next(1);
  auto second = client->Next(1);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ((*second)[0].url, b + "1");
  cluster.Stop(1);
  // Its report waits; the client goes on with node 0, and the crawl is not over.
  ASSERT_TRUE(client->CrawledBatch({ReportOf((*second)[0], {b + "2"})}).ok());
  EXPECT_EQ(client->Unsent(), 1u);
  for (const std::string& url : {a + "2", a + "3"}) {
    auto next = client->Next(1);
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    ASSERT_EQ(next->size(), 1u);
    EXPECT_EQ((*next)[0].url, url);
  }
  ASSERT_TRUE(client->CrawledBatch({ReportOf((*first)[0], {})}).ok());  // node 0: at once
  EXPECT_EQ(cluster.services[0]->Pages(), std::vector<std::string>{a + "1"});
  EXPECT_FALSE(client->GetStats().finished);
  cluster.Start(1);
  ASSERT_TRUE(WaitFor([&] { return client->Unsent() == 0; }));
  EXPECT_EQ(cluster.services[1]->Pages(), std::vector<std::string>{b + "1"});
  EXPECT_EQ(cluster.services[1]->sources, std::vector<std::string>{b + "1"});
  EXPECT_TRUE(WaitFor([&] { return client->GetStats().finished; }));
}

TEST(ClusterFrontierTest, WhatANodeDownIsOwedGoesThroughAnotherNodeThatTakesIt) {
  Cluster cluster(2);  // a client cut off from node 1, whose peers still reach it
  const std::string b = "http://" + HostOwnedBy(cluster.Addresses(), 1) + "/";
  cluster.services[1]->queue = {b + "1"};
  auto client = cluster.Client();
  auto got = client->Next(1);
  ASSERT_TRUE(got.ok() && got->size() == 1u);
  cluster.Stop(1);
  ASSERT_TRUE(client->CrawledBatch({ReportOf((*got)[0], {})}).ok());
  ASSERT_TRUE(WaitFor([&] { return client->Unsent() == 0; }));
  EXPECT_EQ(cluster.services[0]->Pages(), std::vector<std::string>{b + "1"});
}

TEST(ClusterFrontierTest, AFailAckKeepsTheBatchButNotTheNodeFromItsTurn) {
  Cluster cluster(2);
  const std::string b = "http://" + HostOwnedBy(cluster.Addresses(), 1) + "/";
  cluster.services[1]->queue = {b + "1", b + "2"};
  cluster.services[1]->fail_puts = true;
  auto client = cluster.Client();
  auto first = client->Next(1);
  ASSERT_TRUE(first.ok() && first->size() == 1u);
  ASSERT_TRUE(client->CrawledBatch({ReportOf((*first)[0], {})}).ok());
  EXPECT_EQ(client->Unsent(), 1u);
  auto again = client->Next(1);  // node 1 still hands out
  ASSERT_TRUE(again.ok() && again->size() == 1u);
  EXPECT_EQ((*again)[0].url, b + "2");
  {
    std::lock_guard lock(cluster.services[1]->mu);
    cluster.services[1]->fail_puts = false;
  }
  ASSERT_TRUE(WaitFor([&] { return client->Unsent() == 0; }));
  EXPECT_EQ(cluster.services[1]->Pages(), std::vector<std::string>{b + "1"});
}

TEST(ClusterFrontierTest, GivesUpOnceEveryNodeIsFinishedOrDownPastTheWait) {
  Cluster cluster(2);
  auto client = cluster.Client(/*give_up_ms=*/600);
  cluster.Stop(1);
  Status failed;
  ASSERT_TRUE(WaitFor([&] {
    auto next = client->Next(1);
    failed = next.status();
    return !next.ok();
  }));
  EXPECT_EQ(failed.code(), StatusCode::kIoError);
  EXPECT_NE(failed.message().find(cluster.Address(1)), std::string::npos) << failed.message();
  EXPECT_EQ(failed.message().find(cluster.Address(0) + "\" down"), std::string::npos);
}

TEST(ClusterFrontierTest, ProbeRefusesAListThatIsNotTheCluster) {
  Cluster cluster(2);
  cluster.services[0]->listed = {cluster.Address(0), "127.0.0.1:1"};
  cluster.services[1]->listed = cluster.services[0]->listed;
  auto client = cluster.Client();
  const Status probed = client->Probe();
  EXPECT_EQ(probed.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(probed.message().find("127.0.0.1:1"), std::string::npos) << probed.message();
  EXPECT_FALSE(ClusterFrontier::Make({.nodes = {"a:1", "a:1"}, .remote = {}}).ok());
}

TEST(ClusterFrontierTest, DiscoverAsksOneNodeForTheList) {
  Cluster cluster(3);
  RemoteFrontierOptions options;
  options.address = cluster.Address(2);
  auto nodes = DiscoverNodes(options);
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_EQ(*nodes, cluster.Addresses());
  cluster.Stop(2);
  EXPECT_FALSE(DiscoverNodes(options).ok());
}

}  // namespace
}  // namespace crawlrank
