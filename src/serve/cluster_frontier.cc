#include "serve/cluster_frontier.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include "crawlrank/clock.h"
#include "crawlrank/node_list.h"
#include "crawlrank/url.h"
#include "schedule/cluster_membership.h"

namespace crawlrank {
namespace {

// The back-off of a node that is down (Next and GetStats skip it meanwhile), and of an
// outbox between two tries: from the first to the longest, doubling.
constexpr int64_t kFirstPauseMs = 250;
constexpr int64_t kMaxPauseMs = 5'000;
// When some node may have pages and none handed any out, ask again this soon.
constexpr int64_t kClusterPollMs = 200;

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct ClusterFrontier::Impl {
  // One call bound for a node that was down, kept until a node takes it.
  struct Outgoing {
    std::function<Status(RemoteFrontier&)> send;
    size_t items = 0;  // the reports, failures or seeds it carries
  };
  struct Node {
    std::string address;
    std::unique_ptr<RemoteFrontier> client;
    // The rest is guarded by Impl::mu.
    bool down = false;          // it did not answer: skipped until retry_at_ms
    int64_t down_since_ms = 0;  // steady clock
    int64_t retry_at_ms = 0;
    int64_t pause_ms = 0;
    std::string last_error;
    std::optional<SchedulerStats> stats;  // its last answer
    std::deque<Outgoing> outbox;  // only its sender pops it
    size_t outbox_items = 0;
    int64_t resend_at_ms = 0;  // the outbox's next try
    int64_t resend_pause_ms = 0;
    std::thread sender;
  };

  ClusterFrontierOptions options;
  NodeList list;
  std::vector<std::unique_ptr<Node>> nodes;
  mutable std::mutex mu;
  std::condition_variable cv;  // an outbox filled, a node up, stopping
  bool stopping = false;       // guarded by mu
  Status fatal;                // guarded by mu: a sender's failure another try would not change
  size_t cursor = 0;           // guarded by mu: the node Next asks first
  mutable std::mutex robots_mu;
  std::unordered_map<std::string, std::string> robots;  // by host; guarded by robots_mu

  explicit Impl(NodeList nodes_list) : list(std::move(nodes_list)) {}

  size_t OwnerOf(std::string_view url) const {
    Result<std::string> canonical = CanonicalizeUrl(url);
    return OwnerOfUrl(list, HostKeyMode::kHost, canonical.ok() ? *canonical : url);
  }

  static void Pause(int64_t* pause_ms, int64_t* at_ms) {
    *pause_ms = *pause_ms == 0 ? kFirstPauseMs : std::min(*pause_ms * 2, kMaxPauseMs);
    *at_ms = SteadyMs() + *pause_ms;
  }
  // mu held.
  void MarkDown(Node& node, const Status& why) {
    if (!node.down) {
      node.down = true;
      node.down_since_ms = SteadyMs();
      node.pause_ms = 0;
    }
    Pause(&node.pause_ms, &node.retry_at_ms);
    node.last_error = why.message();
  }
  void MarkUp(Node& node) {
    if (!node.down) return;
    node.down = false;
    cv.notify_all();
  }
  // A call node i did not take: into its outbox, the node marked down when it did not
  // answer (not when it answered but could not write some items: it hands out still).
  void Keep(Node& node, const Status& why, Outgoing out) {  // mu held
    if (why.code() == StatusCode::kUnavailable) MarkDown(node, why);
    if (node.outbox.empty()) Pause(&node.resend_pause_ms, &node.resend_at_ms);
    node.outbox_items += out.items;
    node.outbox.push_back(std::move(out));
    cv.notify_all();
  }
  static bool Retry(const Status& status) {
    return status.code() == StatusCode::kUnavailable || status.code() == StatusCode::kAborted;
  }
  static bool Resting(const Node& node, int64_t now) { return node.down && now < node.retry_at_ms; }

  // Sends to node i now when it is up and nothing waits for it; otherwise, or when the
  // call fails in a way another try may change, queues the call in its outbox. Fails only
  // for a reason another try would not change.
  Status Deliver(size_t i, Outgoing out) {
    Node& node = *nodes[i];
    {
      std::lock_guard lock(mu);
      if (!fatal.ok()) return fatal;
      if (node.down || !node.outbox.empty()) {
        Keep(node, Status::Ok(), std::move(out));
        return Status::Ok();
      }
    }
    Status sent = out.send(*node.client);
    if (!Retry(sent)) return sent;
    std::lock_guard lock(mu);
    Keep(node, sent, std::move(out));
    return Status::Ok();
  }

  // The node a report goes to: the one that handed the page out (`lease`, Next's
  // numbering), or the owner of `url` for a page no node handed out (lease 0).
  size_t NodeOf(uint64_t lease, std::string_view url) const {
    return lease != 0 ? lease % nodes.size() : OwnerOf(url);
  }

  // Delivers each node's group of `by_node` that is not empty as one call,
  // send(node's client, group).
  template <typename Item, typename Send>
  Status DeliverGroups(std::vector<std::vector<Item>> by_node, Send send) {
    for (size_t i = 0; i < by_node.size(); ++i) {
      if (by_node[i].empty()) continue;
      const size_t items = by_node[i].size();
      Outgoing out{[group = std::move(by_node[i]), send](RemoteFrontier& f) { return send(f, group); },
                   items};
      CRAWLRANK_RETURN_IF_ERROR(Deliver(i, std::move(out)));
    }
    return Status::Ok();
  }

  // Another node that is up, for a call its own node did not take; nullopt when none is.
  std::optional<size_t> Relay(size_t i) const {  // mu held
    for (size_t k = 1; k < nodes.size(); ++k) {
      const size_t j = (i + k) % nodes.size();
      if (!nodes[j]->down) return j;
    }
    return std::nullopt;
  }

  // Node i's sender: resends its outbox, oldest first, with the outbox's back-off.
  void SendLoop(size_t i) {
    Node& node = *nodes[i];
    std::unique_lock lock(mu);
    while (true) {
      cv.wait(lock, [&] { return stopping || !node.outbox.empty(); });
      if (stopping) return;
      const int64_t now = SteadyMs();
      if (now < node.resend_at_ms) {
        cv.wait_for(lock, std::chrono::milliseconds(node.resend_at_ms - now),
                    [&] { return stopping; });
        continue;
      }
      Outgoing& head = node.outbox.front();  // a reference: pushes at the back keep it
      const std::optional<size_t> relay = Relay(i);
      lock.unlock();
      const Status own = head.send(*node.client);
      Status sent = own;
      if (own.code() == StatusCode::kUnavailable && relay.has_value()) {
        sent = head.send(*nodes[*relay]->client);
      }
      lock.lock();
      if (Retry(sent)) {
        if (own.code() == StatusCode::kUnavailable) MarkDown(node, own);  // it names the node
        node.last_error = own.ok() ? sent.message() : own.message();
        Pause(&node.resend_pause_ms, &node.resend_at_ms);
        continue;
      }
      if (!sent.ok() && fatal.ok()) fatal = sent;
      node.outbox_items -= head.items;
      node.outbox.pop_front();
      node.resend_pause_ms = 0;
      if (own.ok()) MarkUp(node);
    }
  }

  // Asks every node that is not resting for its own stats; mu not held.
  void RefreshStats() {
    const int64_t now = SteadyMs();
    for (auto& owned : nodes) {
      Node& node = *owned;
      {
        std::lock_guard lock(mu);
        if (Resting(node, now)) continue;
      }
      Result<SchedulerStats> stats = node.client->ReadStats();
      std::lock_guard lock(mu);
      if (stats.ok()) {
        node.stats = *stats;
        MarkUp(node);
      } else if (stats.status().code() == StatusCode::kUnavailable) {
        MarkDown(node, stats.status());
      } else {
        node.last_error = stats.status().message();
      }
    }
  }

  // IoError when no node can hand anything out and some has been down for give_up_ms;
  // mu held.
  Status GiveUp() const {
    const int64_t now = SteadyMs();
    int64_t longest = -1;
    std::string why;
    for (const auto& node : nodes) {
      if (!node->down && !(node->stats.has_value() && node->stats->finished)) return Status::Ok();
      if (!node->down) continue;
      longest = std::max(longest, now - node->down_since_ms);
      why += (why.empty() ? "" : "; ") + QuoteForMessage(node->address) + " down for " +
             std::to_string((now - node->down_since_ms) / 1000) + " s (" + node->last_error +
             ", " + std::to_string(node->outbox_items) + " unsent)";
    }
    if (longest < options.remote.give_up_ms) return Status::Ok();
    return IoError("every node of the cluster is finished or down; gave up on " + why);
  }
};

Result<std::unique_ptr<ClusterFrontier>> ClusterFrontier::Make(const ClusterFrontierOptions& options) {
  if (options.nodes.empty()) return InvalidArgumentError("a cluster of no nodes");
  Result<NodeList> list = NodeList::Make(options.nodes, options.nodes.front());
  if (!list.ok()) return list.status();
  auto impl = std::make_unique<Impl>(*std::move(list));
  impl->options = options;
  for (const std::string& address : impl->list.nodes()) {
    auto node = std::make_unique<Impl::Node>();
    node->address = address;
    RemoteFrontierOptions remote = options.remote;
    remote.address = address;
    remote.fail_fast = true;
    remote.local_stats = true;
    node->client = std::make_unique<RemoteFrontier>(remote);
    impl->nodes.push_back(std::move(node));
  }
  for (size_t i = 0; i < impl->nodes.size(); ++i) {
    impl->nodes[i]->sender = std::thread([raw = impl.get(), i] { raw->SendLoop(i); });
  }
  return std::unique_ptr<ClusterFrontier>(new ClusterFrontier(std::move(impl)));
}

ClusterFrontier::ClusterFrontier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ClusterFrontier::~ClusterFrontier() {
  Cancel();
  for (auto& node : impl_->nodes) {
    if (node->sender.joinable()) node->sender.join();
  }
}

const std::vector<std::string>& ClusterFrontier::nodes() const { return impl_->list.nodes(); }

Status ClusterFrontier::AddSeeds(const std::vector<std::string>& urls) {
  std::vector<std::vector<std::string>> by_node(impl_->nodes.size());
  for (const std::string& url : urls) by_node[impl_->OwnerOf(url)].push_back(url);
  return impl_->DeliverGroups(std::move(by_node), [](RemoteFrontier& f, const auto& seeds) {
    return f.AddSeeds(seeds);
  });
}

Result<std::vector<Request>> ClusterFrontier::Next(size_t n) {
  const size_t count = impl_->nodes.size();
  size_t first = 0;
  {
    std::lock_guard lock(impl_->mu);
    if (!impl_->fatal.ok()) return impl_->fatal;
    if (impl_->stopping) return std::vector<Request>{};
    first = impl_->cursor;
  }
  for (size_t k = 0; k < count; ++k) {
    const size_t i = (first + k) % count;
    Impl::Node& node = *impl_->nodes[i];
    {
      std::lock_guard lock(impl_->mu);
      if (Impl::Resting(node, SteadyMs())) continue;
    }
    Result<std::vector<Request>> got = node.client->Next(n);
    std::lock_guard lock(impl_->mu);
    if (!got.ok()) {
      if (got.status().code() != StatusCode::kUnavailable) return got.status();
      impl_->MarkDown(node, got.status());
      continue;
    }
    impl_->MarkUp(node);  // its outbox keeps its own back-off
    if (got->empty()) continue;
    for (Request& r : *got) r.lease = r.lease * count + i;  // the node, for the report
    impl_->cursor = (i + 1) % count;
    return got;
  }
  impl_->RefreshStats();  // a node's "finished" may be old: links reach it from the others
  std::lock_guard lock(impl_->mu);
  CRAWLRANK_RETURN_IF_ERROR(impl_->GiveUp());
  return std::vector<Request>{};
}

Status ClusterFrontier::CrawledBatch(const std::vector<CrawlReport>& reports) {
  std::vector<std::vector<CrawlReport>> by_node(impl_->nodes.size());
  for (const CrawlReport& report : reports) {
    by_node[impl_->NodeOf(report.lease, report.page.url)].push_back(report);
  }
  return impl_->DeliverGroups(std::move(by_node), [](RemoteFrontier& f, const auto& batch) {
    return f.CrawledBatch(batch);
  });
}

Status ClusterFrontier::Failed(const FailureReport& report) {
  return impl_->Deliver(impl_->NodeOf(report.lease, report.url),
                        Impl::Outgoing{[report](RemoteFrontier& f) { return f.Failed(report); }, 1});
}

Status ClusterFrontier::SetCrawlDelay(std::string_view host, int64_t delay_ms) {
  const size_t i = impl_->list.OwnerOf(kClusterCrawlId, host);
  return impl_->Deliver(i, Impl::Outgoing{[host = std::string(host), delay_ms](RemoteFrontier& f) {
                                      return f.SetCrawlDelay(host, delay_ms);
                                    },
                                    1});
}

std::string ClusterFrontier::HostRobots(std::string_view host) const {
  std::lock_guard lock(impl_->robots_mu);
  const auto it = impl_->robots.find(std::string(host));
  return it == impl_->robots.end() ? std::string() : it->second;
}

Status ClusterFrontier::SetHostRobots(std::string_view host, std::string_view bytes) {
  std::lock_guard lock(impl_->robots_mu);
  impl_->robots[std::string(host)] = std::string(bytes);
  return Status::Ok();
}

SchedulerStats ClusterFrontier::GetStats() const {
  impl_->RefreshStats();
  std::lock_guard lock(impl_->mu);
  SchedulerStats sum;
  sum.finished = true;
  for (const auto& node : impl_->nodes) {
    if (node->down || !node->outbox.empty() || !node->stats.has_value() || !node->stats->finished) {
      sum.finished = false;
    }
    if (!node->stats.has_value()) continue;
    const SchedulerStats& stats = *node->stats;
    ForEachStatsField([&](const char*, auto field) {
      using Value = std::remove_cvref_t<decltype(sum.*field)>;
      if constexpr (std::is_same_v<Value, uint64_t>) sum.*field += stats.*field;
    });
    if (sum.rerank_error.empty()) sum.rerank_error = stats.rerank_error;
  }
  sum.next_ready_ms = sum.finished ? -1 : UnixNowMs() + kClusterPollMs;
  return sum;
}

Status ClusterFrontier::Probe() const {
  for (const auto& node : impl_->nodes) CRAWLRANK_RETURN_IF_ERROR(node->client->Probe());
  for (const auto& node : impl_->nodes) {
    Result<std::vector<std::string>> listed = node->client->ListNodes();
    if (!listed.ok()) continue;  // away: the next one may answer
    Result<NodeList> theirs = NodeList::Make(*listed, listed->empty() ? "" : listed->front());
    if (theirs.ok() && theirs->nodes() == impl_->list.nodes()) return Status::Ok();
    return FailedPreconditionError(
        "the frontier at " + QuoteForMessage(node->address) + " belongs to the cluster " +
        QuoteForMessage(theirs.ok() ? theirs->Joined() : "?") + ", not to the nodes given, " +
        QuoteForMessage(impl_->list.Joined()) + ": give the cluster's whole list (or --discover)");
  }
  return Status::Ok();  // none answers yet: the calls wait for them
}

size_t ClusterFrontier::Unsent() const {
  std::lock_guard lock(impl_->mu);
  size_t unsent = 0;
  for (const auto& node : impl_->nodes) unsent += node->outbox_items;
  return unsent;
}

void ClusterFrontier::Cancel() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  for (auto& node : impl_->nodes) node->client->Cancel();
}

Result<std::vector<std::string>> DiscoverNodes(const RemoteFrontierOptions& options) {
  RemoteFrontier server(options);
  Result<std::vector<std::string>> nodes = server.ListNodes();
  if (!nodes.ok()) return nodes.status().WithContext("--discover");
  if (nodes->empty()) {
    return FailedPreconditionError("--discover: the frontier at " +
                                   QuoteForMessage(options.address) + " lists no nodes");
  }
  return nodes;
}

}  // namespace crawlrank
