// The simulated crawl: the graph crawled once in one score mode through the real Scheduler
// over a fresh PageDb. Next(batch) hands out pages, each is "fetched" by looking up its
// out-links in the graph and reported with CrawledBatch, and a ManualClock moves a fixed
// step per batch.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_CRAWL_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_CRAWL_H_

#include <cstdint>
#include <filesystem>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "crawlrank/status.h"
#include "link_graph.h"
#include "measures.h"
#include "sim_orders.h"
#include "simulation_options.h"

namespace crawlrank::bench {

class Simulator {
 public:
  Simulator(const LinkGraph& graph, const Truth& truth, const std::vector<uint32_t>& seeds,
            uint64_t reachable, const SimulationOptions& options)
      : graph_(graph), truth_(truth), seeds_(seeds), reachable_(reachable), options_(options) {}

  // A crawl, or why the Scheduler would not run the mode.
  struct Attempt {
    Status refused;  // what Scheduler::Open said, when it refused
    CrawlOutcome outcome;
  };

  // Crawls the graph from the seeds in a fresh PageDb at `dir` (options_.shards of them,
  // a cluster, when asked: CrawlSharded).
  Result<Attempt> Crawl(ScoreMode mode, const std::filesystem::path& dir) const;
  // The same crawl over options_.shards PageDbs in `dir`, each a node of a cluster with
  // a Scheduler over the hosts it owns (URLFrontier's partition): the fetchers read the
  // nodes in turn (each batch from the first node from the last one's next on that hands
  // pages out); a link to another node's page is kept there as a ghost and sent on to its
  // owner with the shares the push modes passed it; every options_.global_every pages the
  // nodes compute their global rank together (global_rank.h), which their re-ranks then
  // use.
  Result<Attempt> CrawlSharded(ScoreMode mode, const std::filesystem::path& dir) const;

 private:
  struct Cluster;  // a cluster's crawl under way (sharded_crawl.cc)
  Status OpenNode(Cluster& cluster, uint32_t i, ScoreMode mode,
                  const std::filesystem::path& dir) const;
  Status Forward(Cluster& cluster, uint32_t k, const std::vector<CrawlReport>& reports,
                 const std::vector<uint32_t>& depths) const;
  Status RankCluster(Cluster& cluster, ScoreMode mode) const;
  Result<bool> StepCluster(Cluster& cluster, ScoreMode mode, uint32_t& turn, CrawlOutcome& out,
                           std::vector<bool>& fetched) const;
  struct Progress;  // a crawl under way (crawl.cc)

  // One batch: asks Next for pages, fetches them, and moves the clock (or, when Next has
  // nothing yet, moves it to the next host ready). False when the crawl is over.
  Result<bool> Step(Progress& crawl) const;
  // Fetches the pages Next handed out, reports them in one CrawledBatch, and reads the
  // scores held at each checkpoint the crawl passed.
  Status FetchBatch(Progress& crawl, std::vector<Request>& requests) const;
  // The re-ranks GetStats counts at the end, and what it says that disagrees with the crawl.
  void CheckStats(Progress& crawl) const;
  // The scores the Scheduler holds for every page of its DB (each a page discovered).
  Result<HeldScores> HeldBy(const Scheduler& scheduler, const PageDb& db, uint64_t fetched) const;
  // The report of a fetch of `node`: its out-links in the graph.
  CrawlReport Fetch(uint32_t node, Request request, int64_t now_ms) const;

  const LinkGraph& graph_;
  const Truth& truth_;
  const std::vector<uint32_t>& seeds_;
  uint64_t reachable_;
  const SimulationOptions& options_;
};

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_CRAWL_H_
