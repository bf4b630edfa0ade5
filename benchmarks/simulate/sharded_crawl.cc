// The simulated crawl of a cluster (crawl.h, Simulator::CrawlSharded): N PageDbs, each a
// node that owns the hosts URLFrontier's partition gives it, each with its own Scheduler;
// fetchers reading the nodes in turn; links to another node's pages stored as ghosts and
// sent on to their owner, as `crawlrank serve` sends them; and the nodes' global ranks
// (global_rank.h) every options_.global_every pages.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "bench_util.h"
#include "crawl.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/global_rank.h"
#include "crawlrank/node_list.h"
#include "crawlrank/score_mode.h"
#include "schedule/cluster_membership.h"
#include "schedule/score_policy.h"

namespace crawlrank::bench {
namespace {

constexpr int64_t kClusterStartMs = 1'700'000'000'000;

struct ClusterNode {
  std::unique_ptr<PageDb> db;
  std::unique_ptr<Scheduler> scheduler;
};

// The list "127.0.0.1:9101,...": n entries, in Java String order as every node sorts it.
std::string SimulatedNodes(uint32_t n) {
  std::vector<std::string> entries;
  for (uint32_t i = 0; i < n; ++i) entries.push_back("127.0.0.1:" + std::to_string(9101 + i));
  const NodeList sorted = NodeList::Make(entries, entries[0]).value();
  return sorted.Joined();
}

}  // namespace

struct Simulator::Cluster {
  NodeList nodes;
  std::vector<ClusterNode> members;
  ManualClock clock{kClusterStartMs};
  uint64_t next_global = 0;  // fetched pages at which the next global rank runs
  uint64_t global_runs = 0;
  double global_seconds = 0;
};

// Opens node i's PageDb with its membership and its Scheduler.
Status Simulator::OpenNode(Cluster& cluster, uint32_t i, ScoreMode mode,
                           const std::filesystem::path& dir) const {
  PageDbOptions db_options;
  db_options.error_if_exists = true;
  db_options.durability = Durability::kNone;
  ClusterNode& node = cluster.members[i];
  CRAWLRANK_ASSIGN_OR_RETURN(node.db, PageDb::Open((dir / ("node" + std::to_string(i))).string(),
                                                   db_options));
  CRAWLRANK_ASSIGN_OR_RETURN(
      const NodeList self, NodeList::Parse(cluster.nodes.Joined(), cluster.nodes.nodes()[i]));
  CRAWLRANK_RETURN_IF_ERROR(node.db->WriteConfig(MembershipConfig(self, "host")));
  SchedulerOptions options = options_.ForMode(mode, &cluster.clock);
  options.elsewhere = [self](std::string_view url) {
    return OwnerOfUrl(self, HostKeyMode::kHost, url) != self.self_index();
  };
  CRAWLRANK_ASSIGN_OR_RETURN(node.scheduler, Scheduler::Open(*node.db, options));
  return Status::Ok();
}

// Sends the links of node k's last batch that another node owns to their owners, with the
// shares its push modes passed them, as crawlrank serve does (docs/frontier.md).
Status Simulator::Forward(Cluster& cluster, uint32_t k, const std::vector<CrawlReport>& reports,
                          const std::vector<uint32_t>& depths) const {
  const uint32_t n = static_cast<uint32_t>(cluster.members.size());
  std::vector<WriteBatch> batches(n);
  std::vector<std::vector<ReceivedShare>> shares(n);
  for (size_t r = 0; r < reports.size(); ++r) {
    for (const Link& link : reports[r].page.links) {
      const auto owner = static_cast<uint32_t>(OwnerOfUrl(cluster.nodes, HostKeyMode::kHost, link.url));
      if (owner != k) batches[owner].AddDiscovered(link.url, depths[r] + 1, link.score);
    }
  }
  const std::vector<PassedShare> passed = cluster.members[k].scheduler->TakePassedShares();
  if (!passed.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, cluster.members[k].db->NewSnapshot());
    for (const PassedShare& share : passed) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord page, snapshot.FindId(share.page));
      const auto owner = static_cast<uint32_t>(OwnerOfUrl(cluster.nodes, HostKeyMode::kHost, page.url));
      shares[owner].push_back({page.url, share.share});
    }
  }
  for (uint32_t o = 0; o < n; ++o) {
    if (batches[o].size() == 0 && shares[o].empty()) continue;
    CRAWLRANK_RETURN_IF_ERROR(cluster.members[o].scheduler->Write(batches[o], {}, {}, shares[o]));
  }
  return Status::Ok();
}

// Every node's global rank of the mode's algorithm, the nodes ranking together.
Status Simulator::RankCluster(Cluster& cluster, ScoreMode mode) const {
  const std::optional<RankAlgorithm> algorithm = RankAlgorithmOf(mode);
  if (!algorithm.has_value()) return Status::Ok();
  const bench::Clock::time_point start = bench::Clock::now();
  const uint32_t n = static_cast<uint32_t>(cluster.members.size());
  LocalShardGroup group(n);
  GlobalRankOptions options;
  options.rank = options_.ForMode(mode, &cluster.clock).rank;
  options.rank.threads = 1;
  std::vector<Status> statuses(n);
  {
    std::vector<std::jthread> threads;
    for (uint32_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        statuses[i] =
            RankGlobally(*cluster.members[i].db, group.member(i), *algorithm, options).status();
      });
    }
  }
  for (const Status& status : statuses) CRAWLRANK_RETURN_IF_ERROR(status);
  ++cluster.global_runs;
  cluster.global_seconds += Seconds(start);
  return Status::Ok();
}

// One turn: the first node from `turn` on that hands out pages fetches a batch. False when
// every node is done.
Result<bool> Simulator::StepCluster(Cluster& cluster, ScoreMode mode, uint32_t& turn,
                                    CrawlOutcome& out, std::vector<bool>& fetched) const {
  const uint32_t n = static_cast<uint32_t>(cluster.members.size());
  if (out.fetched == reachable_ || (options_.max_pages != 0 && out.fetched >= options_.max_pages)) {
    return false;
  }
  size_t want = options_.batch;
  if (options_.max_pages != 0) want = std::min<uint64_t>(want, options_.max_pages - out.fetched);
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t k = (turn + t) % n;
    Scheduler& scheduler = *cluster.members[k].scheduler;
    CRAWLRANK_ASSIGN_OR_RETURN(std::vector<Request> requests, scheduler.Next(want));
    if (requests.empty()) continue;
    turn = k + 1;
    ++out.batches;
    std::vector<CrawlReport> reports;
    std::vector<uint32_t> depths;
    for (Request& request : requests) {
      const uint32_t node = graph_.node_of_fingerprint.at(request.fingerprint);
      if (fetched[node]) {
        ++out.refetched;
      } else {
        fetched[node] = true;
        out.order.push_back(node);
        ++out.fetched;
      }
      depths.push_back(request.depth);
      reports.push_back(Fetch(node, std::move(request), cluster.clock.NowMs()));
    }
    CRAWLRANK_RETURN_IF_ERROR(scheduler.CrawledBatch(reports));
    CRAWLRANK_RETURN_IF_ERROR(Forward(cluster, k, reports, depths));
    if (options_.global_every > 0 && out.fetched >= cluster.next_global) {
      CRAWLRANK_RETURN_IF_ERROR(RankCluster(cluster, mode));
      cluster.next_global = out.fetched + options_.global_every;
    }
    cluster.clock.Advance(options_.step_ms);
    return true;
  }
  int64_t next = INT64_MAX;
  for (const ClusterNode& node : cluster.members) {
    const SchedulerStats stats = node.scheduler->GetStats();
    if (!stats.finished) next = std::min(next, stats.next_ready_ms);
  }
  if (next == INT64_MAX) return false;
  cluster.clock.Set(std::max(next, cluster.clock.NowMs() + 1));
  return true;
}

Result<Simulator::Attempt> Simulator::CrawlSharded(ScoreMode mode,
                                                   const std::filesystem::path& dir) const {
  const std::string context =
      "simulate " + std::string(ScoreModeName(mode)) + " over " + std::to_string(options_.shards) + " nodes";
  const auto fail = [&](const Status& status) { return status.WithContext(context); };
  Result<NodeList> nodes = NodeList::Parse(SimulatedNodes(options_.shards), "127.0.0.1:9101");
  if (!nodes.ok()) return fail(nodes.status());
  std::filesystem::create_directories(dir);
  Cluster cluster{*std::move(nodes), {}};
  cluster.members.resize(options_.shards);
  cluster.next_global = options_.global_every;
  for (uint32_t i = 0; i < options_.shards; ++i) {
    if (Status s = OpenNode(cluster, i, mode, dir); !s.ok()) return Attempt{s, {}};
  }
  const bench::Clock::time_point start = bench::Clock::now();
  std::vector<std::vector<std::string>> seeds(options_.shards);
  for (uint32_t seed : seeds_) {
    const std::string& url = graph_.urls[seed];
    seeds[OwnerOfUrl(cluster.nodes, HostKeyMode::kHost, url)].push_back(url);
  }
  for (uint32_t i = 0; i < options_.shards; ++i) {
    if (Status s = cluster.members[i].scheduler->AddSeeds(seeds[i]); !s.ok()) return fail(s);
  }
  CrawlOutcome out;
  std::vector<bool> fetched(graph_.pages(), false);
  uint32_t turn = 0;
  for (;;) {
    Result<bool> more = StepCluster(cluster, mode, turn, out, fetched);
    if (!more.ok()) return fail(more.status());
    if (!*more) break;
  }
  out.seconds = Seconds(start);
  Measure(out.order, truth_, graph_.pages(), out);
  for (const ClusterNode& node : cluster.members) {
    const SchedulerStats stats = node.scheduler->GetStats();
    out.reranks += stats.reranks;
    out.rerank_ms += stats.rerank_ms;
  }
  out.global_runs = cluster.global_runs;
  out.global_seconds = cluster.global_seconds;
  out.simulated_ms = cluster.clock.NowMs() - kClusterStartMs;
  return Attempt{Status::Ok(), std::move(out)};
}

}  // namespace crawlrank::bench
