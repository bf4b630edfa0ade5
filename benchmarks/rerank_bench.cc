// rerank_bench: a re-rank after a crawl grew by 1%, kept in memory (LiveRank) against a
// cold rank of the PageDB (RankPageDb, what the scheduler did before) and a rebuild with a
// warm start.
//
// The crawl: the generator's pages are crawled in id order (a crawl that takes each site's
// pages as it finds them), and numbered as the crawl first sees them. "Before" is the crawl
// after --crawled of the pages, with the pages it found; "after" goes on until it knows
// --growth more pages. The pages crawled in between get their out-links (they were known
// and dangling before) and the pages they find are new. The PageDB holds "after"; "before"
// is read from it without the links of the pages crawled in between.
//
// Accuracy is the L1 distance to a fixed point of "after" computed to 1e-13. Each timed
// configuration runs --repeats times, alternating; medians. Prints `key value` lines.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "graph_db.h"
#include "crawlrank/db_rank.h"
#include "crawlrank/live_rank.h"
#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "web_graph.h"

namespace crawlrank::bench {
namespace {

struct GrownCrawl {
  std::vector<uint32_t> page_of;  // by crawl id: the generator's page
  // Out-rows by crawl id of the pages crawled; crawled_before of them before.
  std::vector<uint32_t> sources;
  std::vector<std::vector<uint32_t>> rows;
  uint32_t crawled_before = 0;
  uint32_t pages_before = 0;
};

GrownCrawl Grow(const WebGraph& graph, double crawled, double growth) {
  GrownCrawl crawl;
  std::vector<uint32_t> id(graph.pages(), UINT32_MAX);
  const auto label = [&](uint32_t page) {
    if (id[page] == UINT32_MAX) {
      id[page] = static_cast<uint32_t>(crawl.page_of.size());
      crawl.page_of.push_back(page);
    }
    return id[page];
  };
  const auto k0 = static_cast<uint32_t>(graph.pages() * crawled);
  std::vector<uint32_t> out;
  for (uint32_t page = 0; page < graph.pages(); ++page) {
    if (page == k0) {
      crawl.crawled_before = page;
      crawl.pages_before = static_cast<uint32_t>(crawl.page_of.size());
    }
    if (page >= k0 && crawl.page_of.size() >= crawl.pages_before * (1 + growth)) break;
    const uint32_t source = label(page);
    graph.OutLinks(page, out);
    std::vector<uint32_t> row;
    for (uint32_t t : out) {
      if (t != page) row.push_back(label(t));
    }
    std::sort(row.begin(), row.end());
    crawl.sources.push_back(source);
    crawl.rows.push_back(std::move(row));
  }
  return crawl;
}

// `inner` as it was before: `pages` pages, and no links from the pages in `later`.
class BeforeSource final : public EdgeSource {
 public:
  BeforeSource(EdgeSource& inner, uint32_t pages, std::vector<bool> later, uint64_t links)
      : inner_(inner), pages_(pages), later_(std::move(later)), links_(links) {}
  uint32_t num_pages() const override { return pages_; }
  uint64_t num_links() const override { return links_; }
  Status Scan(const EdgeChunkSink& sink) override {
    return inner_.Scan([&](EdgeChunk& chunk) {
      kept_.Clear();
      for (size_t i = 0; i < chunk.size(); ++i) {
        if (later_[chunk.sources[i]]) continue;
        const auto row = chunk.TargetsOf(i);
        kept_.sources.push_back(chunk.sources[i]);
        kept_.targets.insert(kept_.targets.end(), row.begin(), row.end());
        kept_.ends.push_back(static_cast<uint32_t>(kept_.targets.size()));
      }
      return kept_.size() == 0 ? Status::Ok() : sink(kept_);
    });
  }

 private:
  EdgeSource& inner_;
  uint32_t pages_;
  std::vector<bool> later_;
  uint64_t links_;
  EdgeChunk kept_;
};

double L1(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += std::abs(a[i] - b[i]);
  return d;
}

int Main(int argc, char** argv) {
  CLI::App app{"Re-rank after a crawl grew: kept in memory against cold and rebuilt"};
  WebGraphOptions graph_options;
  graph_options.pages = 4'850'000;
  graph_options.mean_out_degree = 21.2;
  double crawled = 0.9, growth = 0.01;
  std::string dir = "rerank-bench";
  int repeats = 3;
  unsigned threads = 2;
  double tolerance = 1e-6;
  app.add_option("--pages", graph_options.pages, "pages of the generated graph")
      ->capture_default_str();
  app.add_option("--degree", graph_options.mean_out_degree, "mean out-degree")
      ->capture_default_str();
  app.add_option("--crawled", crawled, "share of the pages crawled before")->capture_default_str();
  app.add_option("--growth", growth, "share of pages the crawl finds since")->capture_default_str();
  app.add_option("--dir", dir, "where to build the PageDB (reused)")->capture_default_str();
  app.add_option("--repeats", repeats, "timed runs per configuration")->capture_default_str();
  app.add_option("--threads", threads, "rank threads")->capture_default_str();
  app.add_option("--tolerance", tolerance, "tolerance of every solve")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const WebGraph graph(graph_options);
  const GrownCrawl crawl = Grow(graph, crawled, growth);
  const auto pages = static_cast<uint32_t>(crawl.page_of.size());
  const std::string path = dir + "/db-" + std::to_string(graph_options.pages) + "-" +
                           std::to_string(graph_options.mean_out_degree) + "-" +
                           std::to_string(crawled) + "-" + std::to_string(growth);
  if (!std::filesystem::exists(path + "/data.mdb")) {
    const auto started = Clock::now();
    std::vector<uint32_t> row_of(pages, UINT32_MAX);  // crawl id -> index of its row
    for (size_t i = 0; i < crawl.sources.size(); ++i) row_of[crawl.sources[i]] = uint32_t(i);
    WriteGraphDb(
        path, pages, [&](uint32_t p) { return graph.Url(crawl.page_of[p]); },
        [&](uint32_t p, std::vector<uint32_t>& targets) {
          targets.clear();
          if (row_of[p] != UINT32_MAX) targets = crawl.rows[row_of[p]];
        });
    std::printf("db_build_seconds %.1f\n", Seconds(started));
  }
  PageDbOptions read_only;
  read_only.read_only = true;
  auto db = Check(PageDb::Open(path, read_only));
  Snapshot snapshot = Check(db->NewSnapshot());
  SnapshotEdgeSource after(snapshot);
  std::vector<bool> later(pages, false);
  std::vector<uint32_t> changed;
  uint64_t links_before = 0;
  for (size_t i = 0; i < crawl.rows.size(); ++i) {
    if (i >= crawl.crawled_before) {
      later[crawl.sources[i]] = true;
      changed.push_back(crawl.sources[i]);
    } else {
      links_before += crawl.rows[i].size();
    }
  }
  BeforeSource before(after, crawl.pages_before, later, links_before);
  std::printf("pages_before %u\npages_after %u\nlinks_before %llu\nlinks_after %llu\n"
              "pages_crawled_since %zu\n",
              crawl.pages_before, pages, static_cast<unsigned long long>(links_before),
              static_cast<unsigned long long>(after.num_links()), changed.size());

  RankOptions options;
  options.threads = threads;
  options.mode = RankMode::kCsr;
  options.tolerance = 1e-13;
  options.max_iterations = 1000;
  const std::vector<double> truth =
      Check(ComputeRank(after, RankAlgorithm::kPageRank, options)).scores;
  options.tolerance = tolerance;
  options.max_iterations = 100;
  const std::vector<double> before_scores =
      Check(ComputeRank(before, RankAlgorithm::kPageRank, options)).scores;
  std::printf("warm_start_error %.3g\n", [&] {
    std::vector<double> padded = before_scores;
    padded.resize(pages, 1.0 / pages);
    double sum = 0;
    for (double x : padded) sum += x;
    for (double& x : padded) x /= sum;
    return L1(padded, truth);
  }());

  struct Figures {
    std::vector<double> seconds, error, iterations;
    void Add(double s, double e, double i) {
      seconds.push_back(s);
      error.push_back(e);
      iterations.push_back(i);
    }
    void Print(const char* name) const {
      std::printf("%s_seconds %.3f\n%s_error %.3g\n%s_iterations %.0f\n", name, Median(seconds),
                  name, Median(error), name, Median(iterations));
    }
  } cold, rebuilt, live;
  std::vector<double> apply_seconds;  // of live: reading the changed rows and taking them
  for (int round = 0; round < repeats; ++round) {
    {  // what a re-rank cost before: read every link again, start from the teleport vector
      DbRankOptions db_options;
      db_options.rank = options;
      db_options.save = false;
      const auto started = Clock::now();
      const StoredRank rank = Check(RankPageDb(*db, RankAlgorithm::kPageRank, db_options));
      cold.Add(Seconds(started), L1(rank.rank.scores, truth), rank.rank.report.iterations);
    }
    {  // read every link again, start from the last scores
      RankInput input;
      input.start = before_scores;
      const auto started = Clock::now();
      SnapshotEdgeSource links(snapshot);
      const RankResult rank = Check(ComputeRank(links, RankAlgorithm::kPageRank, options, input));
      rebuilt.Add(Seconds(started), L1(rank.scores, truth), rank.report.iterations);
    }
    {  // kept in memory: read the out-links of the pages crawled since, and solve warm
      LiveRank kept = Check(LiveRank::Build(before, RankAlgorithm::kPageRank, options));
      Check(kept.Solve().status());
      const auto started = Clock::now();
      Check(kept.Grow(pages));
      for (uint32_t page : changed) Check(kept.SetLinks(page, Check(snapshot.Links(page))));
      apply_seconds.push_back(Seconds(started));
      const RankResult rank = Check(kept.Solve());
      live.Add(Seconds(started), L1(rank.scores, truth), rank.report.iterations);
    }
  }
  cold.Print("cold");
  rebuilt.Print("rebuilt_warm");
  live.Print("live");
  std::printf("live_apply_seconds %.3f\n", Median(apply_seconds));
  std::printf("live_over_cold %.3f\nrebuilt_warm_over_cold %.3f\n",
              Median(live.seconds) / Median(cold.seconds),
              Median(rebuilt.seconds) / Median(cold.seconds));
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) { return crawlrank::bench::Main(argc, argv); }
