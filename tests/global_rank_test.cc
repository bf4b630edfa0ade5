// Global ranks over a cluster's shards (crawlrank/global_rank.h): a seeded multi-host
// graph in one PageDB, resharded over N = 1..4 nodes, ranked by N participants (threads
// joined by a LocalShardGroup) must give, page by page by fingerprint, what RankPageDb
// gives on the one PageDB: L1 within 1e-9 for every algorithm. Each shard also gets links
// to pages whose owner has not stored them (written after the reshard), on the shard and
// on the whole PageDB alike. The same runs' files, the refusals and the save's meeting
// are checked too.
#include "crawlrank/global_rank.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <chrono>
#include <thread>

#include "crawlrank/db_rank.h"
#include "crawlrank/page_db_reshard.h"
#include "rank/shard_rank.h"
#include "crawlrank/scheduler.h"
#include "schedule/cluster_membership.h"
#include "schedule/reranker.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

constexpr uint32_t kHosts = 16;
constexpr uint32_t kCrawledPerHost = 30;
constexpr uint32_t kPagesPerHost = 45;  // the rest are only linked to: dangling

std::string HostPage(uint32_t host, uint32_t page) {
  return "http://h" + std::to_string(host) + ".example/p" + std::to_string(page);
}

// The graph: every host's first page crawled first (a seed, depth 0), then the others;
// about half of the links leave their host; pages of hosts 0-3 carry content scores.
std::vector<CrawledPage> MakeGraph(uint32_t seed, uint64_t* cross, uint64_t* links) {
  std::mt19937 random(seed);
  std::vector<CrawledPage> pages;
  for (uint32_t round = 0; round < 2; ++round) {
    for (uint32_t h = 0; h < kHosts; ++h) {
      for (uint32_t p = round == 0 ? 0 : 1; p < (round == 0 ? 1 : kCrawledPerHost); ++p) {
        CrawledPage page;
        page.url = HostPage(h, p);
        page.crawl_time_ms = 1'000'000 + pages.size();
        page.content_score = h < 4 ? float(1 + (p % 5)) / 5.f : 0.f;
        const uint32_t out = random() % 10 == 0 ? 0 : 1 + random() % 8;
        for (uint32_t k = 0; k < out; ++k) {
          const bool leaves = random() % 2 == 0;
          const uint32_t host = leaves ? (h + 1 + random() % (kHosts - 1)) % kHosts : h;
          // Round 0 links within its host only, so every seed stays at depth 0.
          if (round == 0 && host != h) continue;
          const uint32_t target = 1 + random() % (kPagesPerHost - 1);
          page.links.push_back({HostPage(host, target), 0.f});
        }
        pages.push_back(std::move(page));
      }
    }
  }
  for (const CrawledPage& page : pages) {
    for (const Link& link : page.links) {
      *links += 1;
      *cross += link.url.substr(0, link.url.find('/', 8)) != page.url.substr(0, page.url.find('/', 8));
    }
  }
  return pages;
}

std::string NodeListOf(uint32_t n) {
  std::string list;
  for (uint32_t i = 0; i < n; ++i) list += (i ? "," : "") + ("127.0.0.1:" + std::to_string(7101 + i));
  return list;
}

// Pages added after the reshard: on each node, a page of a host it owns linking to pages
// of a host another node owns that no node stores yet, and to an existing page.
std::vector<std::pair<uint32_t, CrawledPage>> LatePages(uint32_t n) {
  std::vector<std::pair<uint32_t, CrawledPage>> late;
  if (n < 2) return late;
  const NodeList nodes = NodeList::Parse(NodeListOf(n), "127.0.0.1:7101").value();
  const auto owner = [&](uint32_t host) {
    return uint32_t(OwnerOfUrl(nodes, HostKeyMode::kHost, HostPage(host, 0)));
  };
  for (uint32_t node = 0; node < n; ++node) {
    uint32_t mine = kHosts, other = kHosts;
    for (uint32_t h = 0; h < kHosts; ++h) {
      if (owner(h) == node && mine == kHosts) mine = h;
      if (owner(h) != node && other == kHosts) other = h;
    }
    if (mine == kHosts || other == kHosts) continue;
    CrawledPage page;
    page.url = HostPage(mine, 1000 + node);
    page.crawl_time_ms = 2'000'000;
    for (uint32_t k = 0; k < 3; ++k) page.links.push_back({HostPage(other, 2000 + k), 0.f});
    page.links.push_back({HostPage(other, 1), 0.f});
    late.emplace_back(node, std::move(page));
  }
  return late;
}

struct Cluster {
  std::string whole;
  std::vector<std::string> shards;
  uint64_t late_links = 0;
};

// The whole PageDB and its N shards, both with the late pages.
Cluster MakeCluster(const TempDir& dir, uint32_t n, const std::vector<CrawledPage>& graph) {
  Cluster cluster;
  cluster.whole = dir.Sub("whole" + std::to_string(n));
  {
    auto db = PageDb::Open(cluster.whole, Fast());
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_OK((*db)->AddBatch(graph));
    std::vector<const PageDb*> sources = {db->get()};
    ReshardReport report;
    EXPECT_OK(ReshardPageDbs(sources, NodeListOf(n), dir.Sub("shard" + std::to_string(n)),
                             Fast(), &report));
    for (const auto& node : report.nodes) cluster.shards.push_back(node.path);
    for (const auto& [node, page] : LatePages(n)) {
      EXPECT_OK((*db)->Add(page));
      auto shard = PageDb::Open(cluster.shards[node], Fast());
      EXPECT_TRUE(shard.ok()) << shard.status().ToString();
      EXPECT_OK((*shard)->Add(page));
      cluster.late_links += page.links.size();
    }
  }
  return cluster;
}

// Scores (authorities) and hubs by fingerprint.
struct ByPage {
  std::map<uint64_t, double> scores, hubs;
};

ByPage ReadByPage(const std::string& path, const RankResult& r) {
  ByPage out;
  PageDbOptions reading = Fast();
  reading.read_only = true;
  auto db = PageDb::Open(path, reading);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  auto snapshot = (*db)->NewSnapshot();
  EXPECT_OK(snapshot->ForEachPage([&](const PageRecord& page) {
    out.scores[page.fingerprint] = r.scores.at(page.id);
    if (!r.hubs.empty()) out.hubs[page.fingerprint] = r.hubs.at(page.id);
    return Status::Ok();
  }));
  return out;
}

RankOptions Tight(double damping = 0.85) {
  RankOptions o;
  o.damping = damping;
  o.tolerance = 1e-13;
  o.max_iterations = 5000;
  o.mode = RankMode::kCsr;
  return o;
}

// Runs RankGlobally on every shard at once, one thread each.
std::vector<Result<GlobalRankReport>> RankAll(const std::vector<std::string>& shards,
                                              RankAlgorithm algorithm,
                                              const GlobalRankOptions& options) {
  std::vector<std::unique_ptr<PageDb>> dbs;
  for (const std::string& path : shards) {
    PageDbOptions reading = Fast();
    reading.read_only = true;
    auto db = PageDb::Open(path, reading);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return {};
    dbs.push_back(std::move(db).value());
  }
  LocalShardGroup group(static_cast<uint32_t>(shards.size()));
  std::vector<Result<GlobalRankReport>> reports(shards.size(), InternalError("not run"));
  std::vector<std::jthread> threads;
  for (uint32_t i = 0; i < shards.size(); ++i) {
    threads.emplace_back(
        [&, i] { reports[i] = RankGlobally(*dbs[i], group.member(i), algorithm, options); });
  }
  threads.clear();  // joins
  return reports;
}

double L1(const std::map<uint64_t, double>& a, const std::map<uint64_t, double>& b) {
  double sum = 0;
  for (const auto& [fp, x] : a) sum += std::abs(x - (b.contains(fp) ? b.at(fp) : 0.0));
  return sum;
}

class GlobalRankTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    seed_ = std::random_device()();
    uint64_t cross = 0, links = 0;
    graph_ = MakeGraph(seed_, &cross, &links);
    std::printf("GlobalRankTest seed %u: %zu crawled pages, %llu links, %llu across hosts\n",
                seed_, graph_.size(), static_cast<unsigned long long>(links),
                static_cast<unsigned long long>(cross));
  }
  static uint32_t seed_;
  static std::vector<CrawledPage> graph_;
  TempDir dir_;
};
uint32_t GlobalRankTest::seed_ = 0;
std::vector<CrawledPage> GlobalRankTest::graph_;

struct Case {
  RankAlgorithm algorithm;
  double damping;
};

TEST_F(GlobalRankTest, EveryShardCountGivesTheOnePageDbsRanks) {
  const Case cases[] = {{RankAlgorithm::kPageRank, 0.85},   {RankAlgorithm::kPersonalized, 0.85},
                        {RankAlgorithm::kTrustRank, 0.85},  {RankAlgorithm::kHits, 0.85},
                        {RankAlgorithm::kHits, 1.0},        {RankAlgorithm::kTopicHits, 0.85},
                        {RankAlgorithm::kWeightedPageRank, 0.85}};
  for (uint32_t n = 1; n <= 4; ++n) {
    const Cluster cluster = MakeCluster(dir_, n, graph_);
    ASSERT_EQ(cluster.shards.size(), n);
    if (n >= 2) {
      EXPECT_GE(cluster.late_links, 8u) << "late pages on too few nodes";
      // At least a fifth of the links join pages of two nodes.
      const NodeList nodes = NodeList::Parse(NodeListOf(n), "127.0.0.1:7101").value();
      uint64_t links = 0, across = 0;
      for (const CrawledPage& page : graph_) {
        const size_t from = OwnerOfUrl(nodes, HostKeyMode::kHost, page.url);
        for (const Link& link : page.links) {
          ++links;
          across += OwnerOfUrl(nodes, HostKeyMode::kHost, link.url) != from;
        }
      }
      EXPECT_GE(double(across), 0.2 * double(links)) << across << " of " << links;
    }
    for (const Case& c : cases) {
      SCOPED_TRACE("seed " + std::to_string(seed_) + ", " + std::to_string(n) + " shards, " +
                   std::string(RankAlgorithmName(c.algorithm)) + " damping " +
                   std::to_string(c.damping));
      PageDbOptions reading = Fast();
      reading.read_only = true;
      ASSERT_OK_AND_ASSIGN(auto whole, PageDb::Open(cluster.whole, reading));
      DbRankOptions single;
      single.rank = Tight(c.damping);
      single.rank.extrapolation_period = 0;
      single.save = false;
      ASSERT_OK_AND_ASSIGN(StoredRank reference, RankPageDb(*whole, c.algorithm, single));
      ASSERT_TRUE(reference.rank.report.converged);
      const ByPage expected = ReadByPage(cluster.whole, reference.rank);
      GlobalRankOptions options;
      options.rank = Tight(c.damping);
      options.save = false;
      auto reports = RankAll(cluster.shards, c.algorithm, options);
      ByPage got;
      uint64_t ghosts = 0, extras = 0;
      for (uint32_t i = 0; i < n; ++i) {
        ASSERT_TRUE(reports[i].ok()) << reports[i].status().ToString();
        ghosts += reports[i]->ghosts;
        extras += reports[i]->extras;
        const StoredRank& part = reports[i]->stored;
        EXPECT_TRUE(part.rank.report.converged);
        EXPECT_EQ(part.global->total.pages, expected.scores.size());
        EXPECT_EQ(part.global->total.edges, whole->Info().value().counters.edges);
        EXPECT_EQ(part.global->run_id, reports[0]->stored.global->run_id);
        const ByPage mine = ReadByPage(cluster.shards[i], part.rank);
        for (const auto& [fp, x] : mine.scores) {
          // A ghost holds exactly its owner's value.
          if (got.scores.contains(fp)) {
            EXPECT_EQ(got.scores[fp], x) << fp;
          }
          got.scores[fp] = x;
        }
        for (const auto& [fp, x] : mine.hubs) got.hubs[fp] = x;
      }
      if (n >= 2) {
        // Links across nodes, and ghosts whose owner stores no page for them.
        EXPECT_GE(ghosts, 50u);
        EXPECT_GE(extras, 6u);
      }
      EXPECT_EQ(got.scores.size(), expected.scores.size());
      EXPECT_LE(L1(expected.scores, got.scores), 1e-9);
      EXPECT_LE(L1(expected.hubs, got.hubs), 1e-9);
    }
  }
}

}  // namespace
}  // namespace crawlrank

namespace crawlrank {
namespace {

TEST_F(GlobalRankTest, APageDbOpenedAsAnotherNodeIsRefusedOnEveryNode) {
  const Cluster cluster = MakeCluster(dir_, 2, graph_);
  const auto reports =
      RankAll({cluster.shards[1], cluster.shards[0]}, RankAlgorithm::kPageRank, {});
  ASSERT_EQ(reports.size(), 2u);
  for (const auto& report : reports) {
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(report.status().message().find("but this job opens it as node"), std::string::npos)
        << report.status().ToString();
  }
  EXPECT_FALSE(std::filesystem::exists(cluster.shards[0] + "/ranks/global"));
}

// Every node's file is written before any is renamed into place: a node that cannot write
// its file leaves every node's previous run where it was, and no temp file behind.
TEST_F(GlobalRankTest, ASaveThatFailsOnOneNodeCommitsOnNone) {
  const Cluster cluster = MakeCluster(dir_, 3, graph_);
  GlobalRankOptions options;
  const auto first = RankAll(cluster.shards, RankAlgorithm::kPageRank, options);
  for (const auto& report : first) ASSERT_TRUE(report.ok()) << report.status().ToString();
  const uint64_t run = first[0]->stored.global->run_id;
  // Node 1's folder for global ranks becomes a file: its next save cannot be written.
  const std::string blocked = cluster.shards[1] + "/ranks/global";
  std::filesystem::remove_all(blocked);
  std::ofstream(blocked) << "in the way";
  const auto second = RankAll(cluster.shards, RankAlgorithm::kPageRank, options);
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_FALSE(second[i].ok()) << i;
    if (i != 1) {
      EXPECT_NE(second[i].status().message().find("shard 1: "), std::string::npos)
          << second[i].status().ToString();
      ASSERT_OK_AND_ASSIGN(StoredRank kept,
                           LoadGlobalRank(cluster.shards[i], RankAlgorithm::kPageRank));
      EXPECT_EQ(kept.global->run_id, run) << i;
      for (const auto& entry : std::filesystem::directory_iterator(cluster.shards[i] +
                                                                   "/ranks/global")) {
        EXPECT_EQ(entry.path().extension(), ".rank") << entry.path();
      }
    }
  }
  std::filesystem::remove(blocked);
  const auto third = RankAll(cluster.shards, RankAlgorithm::kPageRank, options);
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(third[i].ok()) << third[i].status().ToString();
    ASSERT_OK_AND_ASSIGN(StoredRank now, LoadGlobalRank(cluster.shards[i], RankAlgorithm::kPageRank));
    EXPECT_EQ(now.global->run_id, third[0]->stored.global->run_id);
    EXPECT_NE(now.global->run_id, run);
    EXPECT_EQ(now.global->shard, i);
    EXPECT_EQ(now.rank.scores, third[i]->stored.rank.scores);
  }
}

}  // namespace
}  // namespace crawlrank

namespace crawlrank {
namespace {

std::string OwnedHost(const NodeList& nodes, uint32_t node) {
  for (int i = 0;; ++i) {
    const std::string host = "x" + std::to_string(i) + ".example";
    if (OwnerOfUrl(nodes, HostKeyMode::kHost, "http://" + host + "/") == node) return host;
  }
}

// A node's scheduler in a rank mode keys the pages a newer global run covers by it (scaled
// to its own ranks' mean) and the pages added since by its own re-ranks. Node 0's page b
// has no links on node 0 but eight from node 1's pages; its page a has three from node 0:
// node 0 alone ranks a first, the global rank b.
TEST(GlobalRankSchedulerTest, ANodeKeysItsPagesByTheNewestGlobalRun) {
  TempDir dir;
  const std::string list = "127.0.0.1:7101,127.0.0.1:7102";
  const NodeList nodes = NodeList::Parse(list, "127.0.0.1:7101").value();
  const std::string x = "http://" + OwnedHost(nodes, 0), y = "http://" + OwnedHost(nodes, 1);
  std::vector<CrawledPage> graph;
  for (int i = 0; i < 3; ++i) graph.push_back({.url = x + "/s" + std::to_string(i), .links = {{x + "/a"}}});
  for (int i = 0; i < 8; ++i) graph.push_back({.url = y + "/p" + std::to_string(i), .links = {{x + "/b"}}});
  {
    ASSERT_OK_AND_ASSIGN(auto whole, PageDb::Open(dir.Sub("whole"), Fast()));
    ASSERT_OK(whole->AddBatch(graph));
    std::vector<const PageDb*> sources = {whole.get()};
    ReshardReport report;
    ASSERT_OK(ReshardPageDbs(sources, list, dir.Sub("node"), Fast(), &report));
  }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("node.0"), Fast()));
  SchedulerOptions options;
  options.score = ScoreMode::kPageRank;
  options.background_rerank = false;
  options.rerank_min_new_pages = 1'000'000;
  options.rerank_graph_growth = 0;
  ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
  uint32_t a = 0, b = 0;
  {
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    a = snapshot.FindUrl(x + "/a")->id;
    b = snapshot.FindUrl(x + "/b")->id;
  }
  ASSERT_OK(scheduler->Rerank());
  std::vector<float> keys = scheduler->Scores();
  EXPECT_GT(keys[a], keys[b]);
  EXPECT_EQ(scheduler->GetStats().global_rekeys, 0u);

  // The global job: node 0 through the scheduler's own PageDB, node 1 opened to read.
  const auto rank_globally = [&] {
    PageDbOptions reading = Fast();
    reading.read_only = true;
    auto other = PageDb::Open(dir.Sub("node.1"), reading);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    LocalShardGroup group(2);
    Result<GlobalRankReport> mine = InternalError("not run");
    std::jthread helper([&] { (void)RankGlobally(**other, group.member(1), RankAlgorithm::kPageRank, {}); });
    mine = RankGlobally(*db, group.member(0), RankAlgorithm::kPageRank, {});
    ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  };
  rank_globally();
  ASSERT_OK_AND_ASSIGN(StoredRank global, LoadGlobalRank(db->path(), RankAlgorithm::kPageRank));
  ASSERT_GT(global.rank.scores[b], global.rank.scores[a]);
  ASSERT_OK(scheduler->Rerank());
  keys = scheduler->Scores();
  EXPECT_GT(keys[b], keys[a]);
  EXPECT_NEAR(keys[b] / keys[a], global.rank.scores[b] / global.rank.scores[a], 1e-4);
  SchedulerStats stats = scheduler->GetStats();
  EXPECT_EQ(stats.global_rekeys, 1u);
  EXPECT_EQ(stats.global_ranked_pages, global.rank.scores.size());

  // A page added since: keyed by the node's own re-rank; the covered pages keep the global
  // order, and the run is not counted again.
  ASSERT_OK(db->Add(CrawledPage{.url = x + "/s0", .links = {{x + "/a"}, {x + "/c"}}}));
  ASSERT_OK(scheduler->Rerank());
  keys = scheduler->Scores();
  const uint32_t c = db->NewSnapshot()->FindUrl(x + "/c")->id;
  EXPECT_GT(keys[c], 0.f);
  EXPECT_NEAR(keys[b] / keys[a], global.rank.scores[b] / global.rank.scores[a], 1e-4);
  EXPECT_EQ(scheduler->GetStats().global_rekeys, 1u);

  // A newer run is found by the scheduler itself (its file looked at once a second): the
  // next Next re-keys.
  rank_globally();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_OK_AND_ASSIGN(auto handed, scheduler->Next(1));
  EXPECT_EQ(scheduler->GetStats().global_rekeys, 2u);
  ASSERT_EQ(handed.size(), 1u);
  EXPECT_EQ(handed[0].url, x + "/b");
}

// CombineRanks: the global scores where they reach, at the local scores' mean; the local
// ones past them.
TEST(GlobalRankSchedulerTest, CombinedRanksTakeTheLocalMeanOverTheGlobalPages) {
  const std::vector<double> local = {0.1, 0.2, 0.3, 0.4};
  const std::vector<double> global = {0.01, 0.03};
  const std::vector<double> got = Reranker::CombineRanks(local, global);
  ASSERT_EQ(got.size(), 4u);
  // Mean of the local scores 0.25: the two global ones scaled to mean 0.25.
  EXPECT_DOUBLE_EQ(got[0], 0.125);
  EXPECT_DOUBLE_EQ(got[1], 0.375);
  EXPECT_DOUBLE_EQ(got[2], 0.3);
  EXPECT_DOUBLE_EQ(got[3], 0.4);
  EXPECT_EQ(Reranker::CombineRanks(local, {}), local);
}

}  // namespace
}  // namespace crawlrank

namespace crawlrank {
namespace {

// Shards of more than one partition of 2^16 pages: the PageRank family pulls over the
// split (link_bins.h), its crossing links through the bins, its exact steps in two floats.
TEST(GlobalRankSplitTest, ShardsOfSeveralPartitionsRankAsTheOnePageDb) {
  const uint32_t seed = std::random_device()();
  std::printf("GlobalRankSplitTest seed %u\n", seed);
  std::mt19937 random(seed);
  TempDir dir;
  std::vector<CrawledPage> graph;
  constexpr uint32_t kHostsHere = 40, kPages = 3600;
  for (uint32_t h = 0; h < kHostsHere; ++h) {
    for (uint32_t p = 0; p < kPages; ++p) {
      CrawledPage page{.url = HostPage(h, p)};
      for (int k = 0; k < 3; ++k) {
        const uint32_t host = random() % 4 == 0 ? random() % kHostsHere : h;
        page.links.push_back({HostPage(host, random() % kPages)});
      }
      graph.push_back(std::move(page));
    }
  }
  {
    ASSERT_OK_AND_ASSIGN(auto whole, PageDb::Open(dir.Sub("whole"), Fast()));
    ASSERT_OK(whole->AddBatch(graph));
    std::vector<const PageDb*> sources = {whole.get()};
    ReshardReport report;
    ASSERT_OK(ReshardPageDbs(sources, NodeListOf(2), dir.Sub("shard"), Fast(), &report));
    for (const auto& node : report.nodes) ASSERT_GT(node.pages, 65536u) << node.path;
  }
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto whole, PageDb::Open(dir.Sub("whole"), reading));
  DbRankOptions single;
  single.rank = Tight();
  single.rank.extrapolation_period = 0;
  single.save = false;
  ASSERT_OK_AND_ASSIGN(StoredRank reference, RankPageDb(*whole, RankAlgorithm::kPageRank, single));
  const ByPage expected = ReadByPage(dir.Sub("whole"), reference.rank);
  GlobalRankOptions options;
  options.rank = Tight();
  options.rank.threads = 2;
  options.save = false;
  const auto reports = RankAll({dir.Sub("shard.0"), dir.Sub("shard.1")}, RankAlgorithm::kPageRank,
                               options);
  ByPage got;
  for (uint32_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(reports[i].ok()) << reports[i].status().ToString();
    for (const auto& [fp, x] : ReadByPage(dir.Sub("shard." + std::to_string(i)),
                                          reports[i]->stored.rank).scores) {
      got.scores[fp] = x;
    }
  }
  EXPECT_EQ(got.scores.size(), expected.scores.size());
  EXPECT_LE(L1(expected.scores, got.scores), 1e-9) << "seed " << seed;
}

}  // namespace
}  // namespace crawlrank
