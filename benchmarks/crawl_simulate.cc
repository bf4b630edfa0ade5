// crawlrank_simulate: how well each score mode guides a crawl, on a known link graph.
//
// Reads a link graph, computes PageRank of the whole graph (the "truth" no crawler has),
// then replays a crawl of it once per score mode through the real Scheduler over a fresh
// PageDb: Next(batch) hands out pages, each is "fetched" by looking up its out-links in the
// graph and reported with CrawledBatch, and a ManualClock moves a fixed step per batch.
// Then it replays the orders of sim_orders.h (--replay: the oracle and the literature's
// baselines that are not score modes) without a Scheduler. For each mode and order it
// prints how many pages were fetched before 50%, 80% and 90% of the hot pages (the top 10%
// of the whole graph by PageRank) were, and the share of the whole graph's PageRank fetched
// after the first 1, 5, 10 and 25% of its pages; the JSON also keeps that share after each
// 1% (the curve). docs/benchmarks.md, "Crawl guidance quality" and "Crawl order on the
// graph suite", explains the choices; `--help` lists the options.
//
// Input: one link a line, `src dst`, fields separated by spaces or tabs; blank lines and
// lines starting with '#' are skipped (only whole lines: a URL may hold a '#'). The first
// link decides how the whole file is read:
//   - URLs (`http://a.example/ http://b.example/x`), canonicalised with the PageDb's
//     default profile (rfc3986/1); two spellings of one canonical URL are one page;
//   - non-negative integer ids (`17 42`): page <id> becomes http://h<id % hosts>.sim/<id>,
//     so pages spread round-robin over --hosts hosts (politeness keys), whatever the ids.
// A page that is no link's source has no out-links. web_graph_gen writes either form.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "kendall.h"
#include "sim_orders.h"
#include "sim_topic.h"
#include "crawlrank/clock.h"
#include "crawlrank/edge_source.h"
#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "crawlrank/scheduler.h"
#include "crawlrank/url.h"

namespace crawlrank::bench {
namespace {

// The simulated clock starts here (2023-11-14 22:13:20 UTC), not at 0, so that crawl
// times look like times.
constexpr int64_t kStartMs = 1'700'000'000'000;

// The hot pages: this share of the graph, by PageRank. And the points of the crawl at which
// the PageRank share is read: these shares of the graph's pages fetched (PR@1% ...).
constexpr double kHotShare = 0.10;
constexpr std::array<double, 4> kShareAt = {0.01, 0.05, 0.10, 0.25};
constexpr size_t kShareAt10 = 2;  // kShareAt[2]: 10%
constexpr std::array<double, 3> kHotTargets = {0.5, 0.8, 0.9};
// The PageRank curve kept in the JSON: the share fetched after each 1% of the pages.
constexpr int kCurvePoints = 100;

// The score modes a guided crawl is compared with (the crawl-ordering literature's
// baselines: Cho et al. 1998 for breadth-first and in-degree, Abiteboul et al. 2003 for
// OPIC); every replayed order but the oracle is a baseline too (sim_orders.h: larger sites
// first, RankMass, partial PageRank at fixed cadences). Random is no contender; the rank
// modes are what is measured.
constexpr std::array<ScoreMode, 3> kBaselines = {ScoreMode::kBreadthFirst, ScoreMode::kInDegree,
                                                 ScoreMode::kOpic};

// ---------------------------------------------------------------------------------------
// The link graph.

struct LinkGraph {
  std::string path;
  bool ids = false;  // read as integer ids (else URLs)
  uint64_t lines = 0;
  uint64_t link_lines = 0;
  std::vector<std::string> urls;  // canonical URL by node, nodes in order of first mention
  std::unordered_map<uint64_t, uint32_t> node_of_fingerprint;
  std::unordered_map<uint64_t, uint32_t> node_of_id;  // id input only
  std::vector<uint64_t> offsets;                      // out-links as CSR, targets sorted
  std::vector<uint32_t> targets;
  uint32_t sources = 0;  // nodes with at least one out-link
  std::optional<uint32_t> first_source;
  std::vector<uint32_t> host;  // each node's host (HostKey), numbered in order of first mention

  uint32_t pages() const { return static_cast<uint32_t>(urls.size()); }
  uint64_t links() const { return targets.size(); }
  std::span<const uint32_t> OutLinks(uint32_t node) const {
    return {targets.data() + offsets[node], targets.data() + offsets[node + 1]};
  }
};

bool IsId(std::string_view field) {
  return !field.empty() &&
         std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Builds a LinkGraph from its file, one line at a time.
class GraphReader {
 public:
  GraphReader(std::string path, uint32_t hosts) : hosts_(hosts) { graph_.path = std::move(path); }

  Result<LinkGraph> Read() {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (graph_.path != "-") {
      file.open(graph_.path);
      if (!file) return NotFoundError("read graph \"" + graph_.path + "\": cannot open it");
      in = &file;
    }
    std::string line;
    while (std::getline(*in, line)) {
      ++graph_.lines;
      CRAWLRANK_RETURN_IF_ERROR(ReadLine(line));
    }
    if (in->bad()) return IoError("read graph \"" + graph_.path + "\": read error");
    if (graph_.link_lines == 0) {
      return InvalidArgumentError("read graph \"" + graph_.path + "\": no links in it");
    }
    BuildCsr();
    return std::move(graph_);
  }

 private:
  Status LineError(std::string cause) const {
    return InvalidArgumentError("read graph \"" + graph_.path + "\": line " +
                                std::to_string(graph_.lines) + ": " + std::move(cause));
  }

  Status ReadLine(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::array<std::string_view, 2> fields;
    size_t count = 0;
    size_t pos = 0;
    for (;;) {
      pos = line.find_first_not_of(" \t", pos);
      if (pos == std::string_view::npos) break;
      const size_t end = std::min(line.size(), line.find_first_of(" \t", pos));
      if (count == 0 && line[pos] == '#') return Status::Ok();
      if (count < 2) fields[count] = line.substr(pos, end - pos);
      ++count;
      pos = end;
    }
    if (count == 0) return Status::Ok();
    if (count != 2) {
      return LineError("expected two fields (src dst), found " + std::to_string(count));
    }
    if (graph_.link_lines++ == 0) graph_.ids = IsId(fields[0]) && IsId(fields[1]);
    CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t src, NodeOf(fields[0]));
    CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t dst, NodeOf(fields[1]));
    if (!graph_.first_source) graph_.first_source = src;
    edges_.emplace_back(src, dst);
    return Status::Ok();
  }

  Result<uint32_t> NodeOf(std::string_view field) {
    if (graph_.ids) {
      uint64_t id = 0;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), id);
      if (!IsId(field) || ec != std::errc() || end != field.data() + field.size()) {
        return LineError("\"" + std::string(field) +
                         "\" is not a page id (the file's first link has ids, so every "
                         "field must be one, below 2^64)");
      }
      if (auto it = graph_.node_of_id.find(id); it != graph_.node_of_id.end()) return it->second;
      CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t node, AddUrl(SyntheticUrl(id)));
      graph_.node_of_id.emplace(id, node);
      return node;
    }
    const std::string raw(field);
    if (auto it = node_of_raw_.find(raw); it != node_of_raw_.end()) return it->second;
    CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t node, AddUrl(raw));
    node_of_raw_.emplace(raw, node);
    return node;
  }

  std::string SyntheticUrl(uint64_t id) const {
    return "http://h" + std::to_string(id % hosts_) + ".sim/" + std::to_string(id);
  }

  // The node of `url`'s canonical form, created when new.
  Result<uint32_t> AddUrl(const std::string& url) {
    Result<std::string> canonical = CanonicalizeUrl(url);
    if (!canonical.ok()) return LineError(canonical.status().message());
    const uint64_t fingerprint = UrlFingerprint(*canonical);
    const auto [it, inserted] = graph_.node_of_fingerprint.try_emplace(fingerprint, 0);
    if (!inserted) {
      if (graph_.urls[it->second] != *canonical) {
        return LineError("\"" + *canonical + "\" has the fingerprint of \"" +
                         graph_.urls[it->second] + "\", which a PageDb cannot hold both of");
      }
      return it->second;
    }
    if (graph_.urls.size() == UINT32_MAX) return LineError("more than 2^32 - 1 pages");
    Result<std::string> host = HostKey(*canonical);
    if (!host.ok()) return LineError(host.status().message());
    graph_.host.push_back(
        host_number_.try_emplace(*std::move(host), static_cast<uint32_t>(host_number_.size()))
            .first->second);
    it->second = static_cast<uint32_t>(graph_.urls.size());
    graph_.urls.push_back(*std::move(canonical));
    return it->second;
  }

  void BuildCsr() {
    std::sort(edges_.begin(), edges_.end());
    edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
    graph_.offsets.assign(uint64_t{graph_.pages()} + 1, 0);
    graph_.targets.reserve(edges_.size());
    for (const auto& [src, dst] : edges_) {
      ++graph_.offsets[uint64_t{src} + 1];
      graph_.targets.push_back(dst);
    }
    for (size_t i = 1; i < graph_.offsets.size(); ++i) {
      if (graph_.offsets[i] != 0) ++graph_.sources;
      graph_.offsets[i] += graph_.offsets[i - 1];
    }
    edges_ = {};
  }

  uint32_t hosts_;
  LinkGraph graph_;
  std::unordered_map<std::string, uint32_t> node_of_raw_;
  std::unordered_map<std::string, uint32_t> host_number_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
};

// Nodes reachable from `seeds` by out-links (the seeds included).
std::vector<bool> Reachable(const LinkGraph& graph, const std::vector<uint32_t>& seeds) {
  std::vector<bool> seen(graph.pages(), false);
  std::vector<uint32_t> stack;
  for (uint32_t seed : seeds) {
    if (!seen[seed]) stack.push_back(seed);
    seen[seed] = true;
  }
  while (!stack.empty()) {
    const uint32_t node = stack.back();
    stack.pop_back();
    for (uint32_t next : graph.OutLinks(node)) {
      if (!seen[next]) stack.push_back(next);
      seen[next] = true;
    }
  }
  return seen;
}

// The truth a crawler does not have: PageRank of the whole graph, and its hot pages.
struct Truth {
  std::vector<double> rank;  // sums to 1
  std::vector<bool> hot;
  uint32_t hot_pages = 0;
  RankReport report;
};

// `template_links`: the hot pages by PageRank without the graph's template links
// (RankOptions::template_links, each node's host from its URL).
Result<Truth> ComputeTruth(const LinkGraph& graph, bool template_links) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(graph.links());
  for (uint32_t node = 0; node < graph.pages(); ++node) {
    for (uint32_t target : graph.OutLinks(node)) edges.emplace_back(node, target);
  }
  VectorEdgeSource source(graph.pages(), std::move(edges));
  RankOptions options;
  options.damping = 0.85;
  // Tighter than the default 1e-6, so that the order at the hot set's edge is settled.
  options.tolerance = 1e-10;
  options.max_iterations = 1000;
  options.template_links.drop = template_links;
  std::vector<uint32_t> hosts;
  if (template_links) {
    std::unordered_map<std::string, uint32_t> number;
    for (const std::string& url : graph.urls) {
      CRAWLRANK_ASSIGN_OR_RETURN(std::string host, HostKey(url));
      hosts.push_back(number.try_emplace(host, static_cast<uint32_t>(number.size())).first->second);
    }
  }
  RankInput input;
  input.hosts = hosts;
  CRAWLRANK_ASSIGN_OR_RETURN(RankResult result,
                             ComputeRank(source, RankAlgorithm::kPageRank, options, input));
  Truth truth;
  truth.rank = std::move(result.scores);
  truth.report = result.report;
  // Top kHotShare of the pages (rounded up), ties by node (order of first mention).
  truth.hot_pages = static_cast<uint32_t>(std::ceil(graph.pages() * kHotShare));
  std::vector<uint32_t> order(graph.pages());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return truth.rank[a] > truth.rank[b]; });
  truth.hot.assign(graph.pages(), false);
  for (uint32_t i = 0; i < truth.hot_pages; ++i) truth.hot[order[i]] = true;
  return truth;
}

// ---------------------------------------------------------------------------------------
// The crawl.

enum class LinkScoreRule : uint8_t { kInverseDegree, kConstant };

struct SimulationOptions {
  size_t batch = 0;  // 0: a thousandth of the graph's pages, at least 1 and at most 1000
  int64_t step_ms = 1000;
  uint64_t max_pages = 0;  // 0: none
  bool polite = false;
  LinkScoreRule link_score = LinkScoreRule::kInverseDegree;
  double rerank_growth = SchedulerOptions().rerank_growth;
  uint64_t rerank_min_new_pages = SchedulerOptions().rerank_min_new_pages;
  double rerank_graph_growth = SchedulerOptions().rerank_graph_growth;
  uint64_t rerank_min_graph_growth = SchedulerOptions().rerank_min_graph_growth;
  unsigned rank_threads = 1;
  // Re-rank in the Scheduler's background thread, as a real crawl does, instead of inside
  // Next; each batch then also waits pace_us of wall time (the fetches it stands for), so
  // that the ranks lag the crawl as they would. The counts then vary from run to run.
  bool background_rerank = false;
  int64_t pace_us = 0;
  bool template_links = false;      // the crawl's re-ranks drop template links
  bool hot_template_links = false;  // so does the PageRank that picks the hot pages
  double uniform_teleport = 0;      // RankOptions::uniform_teleport of the crawl's ranks
  // A topic (sim_topic.h): the scores the fetches report, and the pages relevant to it.
  const TopicScores* topic_scores = nullptr;
  const std::vector<bool>* relevant = nullptr;

  // The score of the link from `src` (with `out_degree` links) to `dst`: the topic's, or
  // by the rule.
  float LinkScoreOf(uint32_t src, uint32_t dst, size_t out_degree) const {
    return topic_scores != nullptr ? topic_scores->Link(src, dst) : LinkScore(out_degree);
  }
  // The score of each link of a page with `out_degree` links.
  float LinkScore(size_t out_degree) const {
    if (link_score == LinkScoreRule::kConstant) return 0.5f;
    return 1.0f / static_cast<float>(std::max<size_t>(1, out_degree));
  }

  // The Scheduler's options for a crawl in `mode` on `clock`.
  SchedulerOptions ForMode(ScoreMode mode, const crawlrank::Clock* clock) const {
    SchedulerOptions options;
    options.score = mode;
    options.clock = clock;
    options.background_rerank = background_rerank;  // false: inside Next, deterministic
    options.rerank_growth = rerank_growth;
    options.rerank_min_new_pages = rerank_min_new_pages;
    options.rerank_graph_growth = rerank_graph_growth;
    options.rerank_min_graph_growth = rerank_min_graph_growth;
    options.rank.threads = rank_threads;
    options.rank.template_links.drop = template_links;
    options.rank.uniform_teleport = uniform_teleport;
    if (!polite) {
      // A simulation has no servers to spare: every page may go out as soon as it is the
      // best, whatever its host.
      options.delay_ms = 0;
      options.per_host = UINT32_MAX;
    }
    return options;
  }
};

// What one crawl of the graph in one mode gave. The counts are deterministic.
struct CrawlOutcome {
  uint64_t fetched = 0;
  uint64_t hot_fetched = 0;
  std::array<std::optional<uint64_t>, kHotTargets.size()> pages_to_hot;
  // PageRank fetched with kShareAt of the graph's pages (none when the crawl ended first).
  std::array<std::optional<double>, kShareAt.size()> rank_share_at;
  double rank_share_end = 0;
  std::vector<double> curve;  // PageRank fetched after each 1% of the pages (kCurvePoints)
  // With a topic: the harvest rate after each 1% of the reachable pages (sim_topic.h).
  std::vector<double> harvest;
  // Kendall's tau-b, over the pages discovered, between the scores the order held and the
  // whole graph's PageRank, at the end of the first batch at or past each kShareAt.
  std::array<std::optional<double>, kShareAt.size()> tau_at;
  uint64_t refetched = 0;  // pages handed out again after they were fetched (should be 0)
  // What disagrees with the crawl (should be nothing): GetStats at the end, and the
  // hand-out order against an independent replay (CheckOrder).
  std::vector<std::string> anomalies;
  uint64_t batches = 0;
  uint64_t reranks = 0;
  uint64_t rerank_ms = 0;  // SchedulerStats::rerank_ms: the re-ranks' time
  int64_t simulated_ms = 0;
  double seconds = 0;
  std::vector<uint32_t> order;  // the pages (nodes) in the order Next handed them out

  // Everything but the time taken.
  bool SameCounts(const CrawlOutcome& o) const {
    return fetched == o.fetched && hot_fetched == o.hot_fetched && pages_to_hot == o.pages_to_hot &&
           rank_share_at == o.rank_share_at && tau_at == o.tau_at && refetched == o.refetched &&
           batches == o.batches && reranks == o.reranks && simulated_ms == o.simulated_ms &&
           order == o.order;
  }
};

// The pages fetched at each kShareAt of the graph's `pages` (at least 1).
std::array<uint64_t, kShareAt.size()> SharePages(uint32_t pages) {
  std::array<uint64_t, kShareAt.size()> at;
  for (size_t k = 0; k < kShareAt.size(); ++k) {
    at[k] = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(pages * kShareAt[k])));
  }
  return at;
}

// Tau-b between held scores and the true PageRank of the same pages.
std::optional<double> TauOf(const HeldScores& held, const Truth& truth) {
  std::vector<double> truth_of(held.nodes.size());
  for (size_t i = 0; i < held.nodes.size(); ++i) truth_of[i] = truth.rank[held.nodes[i]];
  return KendallTauB(held.scores, truth_of);
}

// The measures of a crawl that fetched `order` (each page once): hot pages, PageRank shares
// and the curve.
void Measure(const std::vector<uint32_t>& order, const Truth& truth, uint32_t pages,
             CrawlOutcome& out) {
  std::array<uint64_t, kHotTargets.size()> hot_needed;
  for (size_t t = 0; t < kHotTargets.size(); ++t) {
    hot_needed[t] = static_cast<uint64_t>(std::ceil(truth.hot_pages * kHotTargets[t]));
  }
  const std::array<uint64_t, kShareAt.size()> share_pages = SharePages(pages);
  out.fetched = order.size();
  out.hot_fetched = 0;
  out.pages_to_hot = {};
  out.rank_share_at = {};
  out.curve.clear();
  double rank = 0;
  for (uint64_t i = 0; i < order.size(); ++i) {
    const uint32_t node = order[i];
    rank += truth.rank[node];
    if (truth.hot[node]) {
      ++out.hot_fetched;
      for (size_t t = 0; t < kHotTargets.size(); ++t) {
        if (out.hot_fetched == hot_needed[t]) out.pages_to_hot[t] = i + 1;
      }
    }
    for (size_t k = 0; k < kShareAt.size(); ++k) {
      if (i + 1 == share_pages[k]) out.rank_share_at[k] = rank;
    }
    while (out.curve.size() < kCurvePoints &&
           i + 1 == static_cast<uint64_t>(std::llround(pages * (out.curve.size() + 1.0) / kCurvePoints))) {
      out.curve.push_back(rank);
    }
  }
  out.rank_share_end = rank;
}

// A directory removed with everything in it when this goes out of scope.
class TempDir {
 public:
  static Result<TempDir> Create(const std::filesystem::path& parent) {
    std::string pattern = (parent / "crawlrank-simulate-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return IoError("create a directory in \"" + parent.string() + "\": " + std::strerror(errno));
    }
    return TempDir(pattern);
  }
  TempDir(TempDir&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TempDir(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

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

  // Crawls the graph from the seeds in a fresh PageDb at `dir`.
  Result<Attempt> Crawl(ScoreMode mode, const std::filesystem::path& dir) const {
    const std::string context = "simulate " + std::string(ScoreModeName(mode));
    const auto fail = [&](const Status& status) { return status.WithContext(context); };
    PageDbOptions db_options;
    db_options.error_if_exists = true;
    db_options.durability = Durability::kNone;
    Result<std::unique_ptr<PageDb>> db = PageDb::Open(dir.string(), db_options);
    if (!db.ok()) return fail(db.status());
    ManualClock clock(kStartMs);
    Result<std::unique_ptr<Scheduler>> opened =
        Scheduler::Open(**db, options_.ForMode(mode, &clock));
    if (!opened.ok()) return Attempt{opened.status(), {}};
    Scheduler* scheduler = opened->get();

    const bench::Clock::time_point start = bench::Clock::now();
    std::vector<std::string> seed_urls;
    for (uint32_t seed : seeds_) seed_urls.push_back(graph_.urls[seed]);
    if (Status s = scheduler->AddSeeds(seed_urls); !s.ok()) return fail(s);

    CrawlOutcome out;
    const std::array<uint64_t, kShareAt.size()> checkpoints = SharePages(graph_.pages());
    size_t next_checkpoint = 0;
    std::vector<bool> fetched(graph_.pages(), false);
    std::vector<CrawlReport> reports;
    for (;;) {
      if (out.fetched == reachable_) break;
      size_t n = options_.batch;
      if (options_.max_pages != 0) {
        if (out.fetched >= options_.max_pages) break;
        n = std::min<uint64_t>(n, options_.max_pages - out.fetched);
      }
      Result<std::vector<Request>> requests = scheduler->Next(n);
      if (!requests.ok()) return fail(requests.status());
      if (requests->empty()) {
        const SchedulerStats stats = scheduler->GetStats();
        if (stats.finished) break;
        if (stats.next_ready_ms <= clock.NowMs()) {
          return fail(InternalError("Next(" + std::to_string(n) + ") gave nothing at " +
                                    std::to_string(clock.NowMs() - kStartMs) +
                                    " ms, though GetStats says a request is ready (queued " +
                                    std::to_string(stats.queued) + ", ready " +
                                    std::to_string(stats.ready) + ")"));
        }
        clock.Set(stats.next_ready_ms);  // nothing to do until a host's delay ends
        continue;
      }
      ++out.batches;
      reports.clear();
      for (Request& request : *requests) {
        const auto it = graph_.node_of_fingerprint.find(request.fingerprint);
        if (it == graph_.node_of_fingerprint.end() || graph_.urls[it->second] != request.url) {
          return fail(InternalError("Next handed out \"" + request.url +
                                    "\", which is not a page of the graph"));
        }
        const uint32_t node = it->second;
        if (fetched[node]) {
          ++out.refetched;
        } else {
          fetched[node] = true;
          out.order.push_back(node);
          ++out.fetched;
        }
        reports.push_back(Fetch(node, std::move(request), clock.NowMs()));
      }
      if (Status s = scheduler->CrawledBatch(reports); !s.ok()) return fail(s);
      while (next_checkpoint < checkpoints.size() && out.fetched >= checkpoints[next_checkpoint]) {
        Result<HeldScores> held = HeldBy(*scheduler, **db, out.fetched);
        if (!held.ok()) return fail(held.status());
        out.tau_at[next_checkpoint++] = TauOf(*held, truth_);
      }
      clock.Advance(options_.step_ms);
      if (options_.pace_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(options_.pace_us));
    }
    out.seconds = Seconds(start);
    Measure(out.order, truth_, graph_.pages(), out);
    if (options_.relevant != nullptr) out.harvest = HarvestCurve(out.order, *options_.relevant, reachable_, kCurvePoints);
    const SchedulerStats stats = scheduler->GetStats();
    out.reranks = stats.reranks;
    out.rerank_ms = stats.rerank_ms;
    const auto expect = [&](bool ok, std::string what) {
      if (!ok) out.anomalies.push_back(std::move(what));
    };
    expect(stats.crawled == out.fetched, "GetStats().crawled is " + std::to_string(stats.crawled) +
                                             " after " + std::to_string(out.fetched) + " pages");
    expect(stats.in_flight == 0, "GetStats().in_flight is " + std::to_string(stats.in_flight) +
                                     " with every lease ended");
    if (out.fetched == reachable_) {
      expect(stats.finished && stats.queued == 0,
             "every reachable page is crawled, but GetStats() says finished " +
                 std::to_string(stats.finished) + ", queued " + std::to_string(stats.queued));
    }
    out.simulated_ms = clock.NowMs() - kStartMs;
    return Attempt{Status::Ok(), std::move(out)};
  }

 private:
  // The scores the Scheduler holds for every page of its DB (each a page discovered).
  Result<HeldScores> HeldBy(const Scheduler& scheduler, const PageDb& db, uint64_t fetched) const {
    const std::vector<float> scores = scheduler.Scores();
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
    HeldScores held;
    held.fetched = fetched;
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) -> Status {
      const auto it = graph_.node_of_fingerprint.find(page.fingerprint);
      if (it == graph_.node_of_fingerprint.end() || page.id >= scores.size()) {
        return InternalError("page \"" + page.url + "\" of the PageDb is not in the graph");
      }
      held.nodes.push_back(it->second);
      held.scores.push_back(scores[page.id]);
      return Status::Ok();
    }));
    return held;
  }

  // The report of a fetch of `node`: its out-links in the graph.
  CrawlReport Fetch(uint32_t node, Request request, int64_t now_ms) const {
    CrawlReport report;
    report.lease = request.lease;
    report.page.url = std::move(request.url);
    report.page.crawl_time_ms = now_ms;
    report.page.http_status = 200;
    const std::span<const uint32_t> out = graph_.OutLinks(node);
    report.page.links.reserve(out.size());
    for (uint32_t target : out) {
      report.page.links.push_back({graph_.urls[target], options_.LinkScoreOf(node, target, out.size())});
    }
    if (options_.topic_scores != nullptr) report.page.content_score = options_.topic_scores->content[node];
    return report;
  }

  const LinkGraph& graph_;
  const Truth& truth_;
  const std::vector<uint32_t>& seeds_;
  uint64_t reachable_;
  const SimulationOptions& options_;
};

// The order two modes promise (scheduler.h: highest score first, ties by page id, the
// order of discovery), replayed without a PageDb or a Scheduler as a check on both:
//   breadth-first: the lowest depth at discovery;
//   link-score:    the best score of the links to the page from crawled pages (seeds 1).
// Pages go out `batch` at a time, as Next hands them out; the links of a batch's pages
// are then applied in order, discovering new pages in the order they are named.
// Empty for the other modes.
std::vector<uint32_t> ReferenceOrder(const LinkGraph& graph, const std::vector<uint32_t>& seeds,
                                     ScoreMode mode, const SimulationOptions& options) {
  if (mode != ScoreMode::kBreadthFirst && mode != ScoreMode::kLinkScore) return {};
  constexpr uint32_t kUnseen = UINT32_MAX;
  std::vector<uint32_t> discovered(graph.pages(), kUnseen);  // discovery number
  std::vector<uint32_t> depth(graph.pages(), 0);
  std::vector<float> key(graph.pages(), 0.f);
  std::vector<bool> out(graph.pages(), false);  // handed out
  struct Entry {
    float key;
    uint32_t discovered, node;
    bool operator<(const Entry& o) const {  // max-heap: highest key, then first discovered
      return key < o.key || (key == o.key && discovered > o.discovered);
    }
  };
  std::priority_queue<Entry> queue;  // stale entries (a key raised since) are skipped
  uint32_t next_number = 0;
  const auto offer = [&](uint32_t node, float score, uint32_t at_depth) {
    if (discovered[node] == kUnseen) {
      discovered[node] = next_number++;
      depth[node] = at_depth;
      key[node] = mode == ScoreMode::kBreadthFirst ? -static_cast<float>(at_depth) : score;
    } else if (mode == ScoreMode::kLinkScore && !out[node] && score > key[node]) {
      key[node] = score;
    } else {
      return;
    }
    queue.push({key[node], discovered[node], node});
  };
  for (uint32_t seed : seeds) offer(seed, 1.0f, 0);
  std::vector<uint32_t> order, batch;
  while (!queue.empty() && (options.max_pages == 0 || order.size() < options.max_pages)) {
    batch.clear();
    const size_t n = options.max_pages == 0
                         ? options.batch
                         : std::min<uint64_t>(options.batch, options.max_pages - order.size());
    while (!queue.empty() && batch.size() < n) {
      const Entry top = queue.top();
      queue.pop();
      if (out[top.node] || top.key != key[top.node]) continue;
      out[top.node] = true;
      batch.push_back(top.node);
    }
    for (uint32_t node : batch) {
      order.push_back(node);
      const std::span<const uint32_t> links = graph.OutLinks(node);
      for (uint32_t target : links) {
        offer(target, options.LinkScoreOf(node, target, links.size()), depth[node] + 1);
      }
    }
  }
  return order;
}

// ---------------------------------------------------------------------------------------
// Results.

struct ModeRun {
  ScoreMode mode = ScoreMode::kLinkScore;
  std::string skipped;         // why the mode did not run; empty when it ran
  bool unimplemented = false;  // skipped: the library does not implement the mode
  std::optional<ReplayOrder> replay;  // a replayed order (sim_orders.h), not a score mode
  CrawlOutcome outcome;
  std::vector<double> seconds;  // one per repeat
  std::optional<double> ratio;  // pages to 80% hot ÷ the best baseline's
  std::optional<double> pr_ratio;  // PR@10% ÷ the best baseline's (by PR@10%)
  bool order_checked = false;   // the hand-out order was compared with ReferenceOrder

  std::string Name() const { return replay ? replay->Name() : std::string(ScoreModeName(mode)); }
  bool IsOracle() const { return replay && replay->kind == ReplayOrder::Kind::kOracle; }
  bool IsBaseline() const {
    if (replay) return replay->baseline();
    return std::find(kBaselines.begin(), kBaselines.end(), mode) != kBaselines.end();
  }
};

constexpr size_t kRatioTarget = 1;  // kHotTargets[1]: 80%

// The baseline whose `measure` (none where it has none) is best: the lowest, or the
// highest with `highest`.
template <typename Measure>
const ModeRun* BestBaselineBy(const std::vector<ModeRun>& runs, Measure measure, bool highest) {
  const ModeRun* best = nullptr;
  for (const ModeRun& run : runs) {
    if (!run.skipped.empty() || !run.IsBaseline() || !measure(run)) continue;
    if (best == nullptr || (highest ? *measure(run) > *measure(*best) : *measure(run) < *measure(*best))) {
      best = &run;
    }
  }
  return best;
}

// The baseline that reached 80% of the hot pages with the fewest pages, if any did.
const ModeRun* BestBaseline(const std::vector<ModeRun>& runs) {
  return BestBaselineBy(runs, [](const ModeRun& r) { return r.outcome.pages_to_hot[kRatioTarget]; },
                        false);
}

// The baseline that fetched the most PageRank with 10% of the pages, if any got so far.
const ModeRun* BestBaselineByRank(const std::vector<ModeRun>& runs) {
  return BestBaselineBy(runs, [](const ModeRun& r) { return r.outcome.rank_share_at[kShareAt10]; },
                        true);
}

const ModeRun* Oracle(const std::vector<ModeRun>& runs) {
  for (const ModeRun& run : runs) {
    if (run.IsOracle() && run.skipped.empty()) return &run;
  }
  return nullptr;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

template <typename T>
std::string JsonOptional(const std::optional<T>& value) {
  if (!value) return "null";
  if constexpr (std::is_floating_point_v<T>) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", *value);
    return buffer;
  } else {
    return std::to_string(*value);
  }
}

// The area under a harvest curve of kCurvePoints points (the mean harvest rate over the
// crawl, each 1% of it weighing the same); none for a crawl that ended first.
std::optional<double> HarvestArea(const std::vector<double>& curve) {
  if (curve.size() != kCurvePoints) return std::nullopt;
  double sum = 0;
  for (double h : curve) sum += h;
  return sum / static_cast<double>(curve.size());
}

std::string Percent(double share) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", 100 * share);
  return buffer;
}

struct Report {
  std::string name;  // of the graph
  const LinkGraph& graph;
  const Truth& truth;
  const std::vector<uint32_t>& seeds;
  uint64_t reachable;
  uint32_t hot_reachable;
  const SimulationOptions& options;
  size_t repeats;
  const std::vector<ModeRun>& runs;

  // The topic's table: the harvest rate at every 5% of the crawl, and the area.
  void PrintHarvest() const {
    const uint64_t relevant = static_cast<uint64_t>(
        std::count(options.relevant->begin(), options.relevant->end(), true));
    std::printf("\nharvest rate (relevant pages among those fetched; %llu of the graph's %u pages "
                "are relevant) after each 5%% of the %llu reachable pages:\n%-24s",
                static_cast<unsigned long long>(relevant), graph.pages(),
                static_cast<unsigned long long>(reachable), "order");
    for (int k = 5; k <= 100; k += 5) std::printf(" %5d%%", k);
    std::printf("    area\n");
    for (const ModeRun& run : runs) {
      if (!run.skipped.empty()) continue;
      const std::vector<double>& h = run.outcome.harvest;
      std::printf("%-24s", run.Name().c_str());
      for (size_t k = 5; k <= 100; k += 5) {
        if (k <= h.size()) {
          std::printf(" %6.3f", h[k - 1]);
        } else {
          std::printf(" %6s", "-");
        }
      }
      const std::optional<double> area = HarvestArea(h);
      if (area) {
        std::printf(" %7.4f\n", *area);
      } else {
        std::printf(" %7s\n", "-");
      }
    }
  }

  void PrintText() const {
    const ModeRun* best = BestBaseline(runs);
    const SchedulerOptions scheduler = options.ForMode(ScoreMode::kLinkScore, nullptr);
    const std::string limit =
        options.max_pages == 0 ? "" : ", at most " + std::to_string(options.max_pages) + " pages";
    std::printf("graph \"%s\": %u pages, %llu links, %u with out-links; read as %s\n", name.c_str(),
                graph.pages(), static_cast<unsigned long long>(graph.links()), graph.sources,
                graph.ids ? "page ids" : "URLs");
    std::printf("seeds: %zu (%s%s); reachable from them: %llu pages (%s)\n", seeds.size(),
                graph.urls[seeds[0]].c_str(), seeds.size() > 1 ? ", ..." : "",
                static_cast<unsigned long long>(reachable),
                Percent(static_cast<double>(reachable) / graph.pages()).c_str());
    std::printf(
        "hot pages: %u, the top %s of the whole graph by PageRank%s (damping 0.85, %u "
        "iterations, residual %.1e); %u of them reachable\n",
        truth.hot_pages, Percent(kHotShare).c_str(),
        options.hot_template_links ? " without template links" : "", truth.report.iterations,
        truth.report.residual, hot_reachable);
    if (options.template_links) std::printf("re-ranks drop template links\n");
    std::printf(
        "crawl: Next(%zu), clock +%lld ms a batch, link score %s; politeness %s "
        "(delay_ms %lld, per_host %u)%s\n",
        options.batch, static_cast<long long>(options.step_ms),
        options.link_score == LinkScoreRule::kConstant ? "0.5 for every link"
                                                       : "1/out-degree of the linking page",
        options.polite ? "on, the library's defaults" : "off for simulation",
        static_cast<long long>(scheduler.delay_ms), scheduler.per_host,
        limit.c_str());
    std::printf("\n%-24s %8s %8s %8s %8s %7s %7s %7s %7s %9s %9s %8s %7s %7s %7s %8s\n", "order",
                "fetched", "50% hot", "80% hot", "90% hot", "PR@1%", "PR@5%", "PR@10%", "PR@25%",
                "80%/best", "PR10/best", "80%:orcl", "tau@10%", "reranks", "rank s",
                repeats > 1 ? "seconds*" : "seconds");
    const ModeRun* oracle = Oracle(runs);
    for (const ModeRun& run : runs) {
      if (!run.skipped.empty()) continue;
      const CrawlOutcome& o = run.outcome;
      const auto cell = [](const std::optional<uint64_t>& v) {
        return v ? std::to_string(*v) : std::string("never");
      };
      const auto share = [](const std::optional<double>& v) {
        return v ? Percent(*v) : std::string("n/a");
      };
      const auto ratio = [](const std::optional<double>& v) {
        char text[32] = "-";
        if (v) std::snprintf(text, sizeof text, "%.3f", *v);
        return std::string(text);
      };
      std::optional<double> of_oracle;
      if (oracle != nullptr && oracle->outcome.pages_to_hot[kRatioTarget] && o.pages_to_hot[kRatioTarget]) {
        of_oracle = static_cast<double>(*oracle->outcome.pages_to_hot[kRatioTarget]) /
                    static_cast<double>(*o.pages_to_hot[kRatioTarget]);
      }
      std::printf("%-24s %8llu %8s %8s %8s %7s %7s %7s %7s %9s %9s %8s %7s %7llu %7.2f %8.2f\n",
                  run.Name().c_str(), static_cast<unsigned long long>(o.fetched),
                  cell(o.pages_to_hot[0]).c_str(), cell(o.pages_to_hot[1]).c_str(),
                  cell(o.pages_to_hot[2]).c_str(), share(o.rank_share_at[0]).c_str(),
                  share(o.rank_share_at[1]).c_str(), share(o.rank_share_at[2]).c_str(),
                  share(o.rank_share_at[3]).c_str(), ratio(run.ratio).c_str(),
                  ratio(run.pr_ratio).c_str(), ratio(of_oracle).c_str(),
                  ratio(o.tau_at[kShareAt10]).c_str(), static_cast<unsigned long long>(o.reranks),
                  o.rerank_ms / 1000.0, Median(run.seconds));
    }
    std::printf(
        "\nN%% hot: pages fetched when N%% of the hot pages were; PR@N%%: share of the graph's "
        "PageRank fetched with its first N%% of pages; 80%%/best: 80%% hot over the best "
        "baseline's; PR10/best: PR@10%% over the best baseline's; 80%%:orcl: the oracle's pages "
        "to 80%% hot over the order's (1: as good as the oracle); tau@10%%: Kendall's tau-b, over "
        "the pages discovered, of the scores the order held against the graph's PageRank, "
        "after 10%% of the pages; rank s: the re-ranks' seconds (one rank thread, in Next or with --background-rerank in the "
        "Scheduler's thread)\n");
    if (options.relevant != nullptr) PrintHarvest();
    const ModeRun* best_rank = BestBaselineByRank(runs);
    if (best != nullptr) {
      std::printf(
          "best baseline (fewest pages to 80%% hot among breadth-first, indegree, opic and the "
          "replayed orders but the oracle): %s; by PR@10%%: %s\n",
          best->Name().c_str(), best_rank ? best_rank->Name().c_str() : "none");
    } else {
      std::printf("no baseline reached 80%% hot\n");
    }
    if (repeats > 1) {
      std::printf(
          "seconds*: median of %zu crawls, each from AddSeeds to the end (the counts "
          "were the same in every crawl)\n",
          repeats);
    }
    for (const ModeRun& run : runs) {
      const std::string name = run.Name();
      if (run.outcome.refetched != 0) {
        std::printf("note: %s handed out %llu pages again after they were crawled\n", name.c_str(),
                    static_cast<unsigned long long>(run.outcome.refetched));
      }
      for (const std::string& anomaly : run.outcome.anomalies) {
        std::printf("note: %s: %s\n", name.c_str(), anomaly.c_str());
      }
    }
    std::string unimplemented;
    for (const ModeRun& run : runs) {
      if (run.unimplemented) {
        unimplemented +=
            (unimplemented.empty() ? "" : ", ") + std::to_string(static_cast<int>(run.mode));
      } else if (!run.skipped.empty()) {
        std::printf("skipped: %s\n", run.skipped.c_str());
      }
      if (run.order_checked && run.outcome.anomalies.empty()) {
        std::printf(
            "checked: %s handed out the pages in the order an independent replay of "
            "the mode gives\n",
            run.Name().c_str());
      }
    }
    if (!unimplemented.empty()) {
      std::printf(
          "skipped: score modes %s (ScoreMode values): this build of crawlrank does "
          "not implement them\n",
          unimplemented.c_str());
    }
  }

  std::string Json() const {
    const ModeRun* best = BestBaseline(runs);
    const SchedulerOptions scheduler = options.ForMode(ScoreMode::kLinkScore, nullptr);
    std::string j = "{\n  \"graph\": {";
    j += "\"name\": " + JsonString(name);
    j += ", \"path\": " + JsonString(graph.path);
    j += ", \"input\": " + JsonString(graph.ids ? "ids" : "urls");
    j += ", \"pages\": " + std::to_string(graph.pages());
    j += ", \"links\": " + std::to_string(graph.links());
    j += ", \"sources\": " + std::to_string(graph.sources);
    j += ", \"seeds\": [";
    for (size_t i = 0; i < seeds.size(); ++i) {
      j += (i ? ", " : "") + JsonString(graph.urls[seeds[i]]);
    }
    j += "], \"reachable\": " + std::to_string(reachable);
    j += ", \"hot_pages\": " + std::to_string(truth.hot_pages);
    j += ", \"hot_reachable_share\": " + JsonOptional(std::optional(HotReachableShare()));
    j += ", \"pagerank_iterations\": " + std::to_string(truth.report.iterations);
    j += ", \"pagerank_converged\": " + std::string(truth.report.converged ? "true" : "false");
    j += "},\n  \"crawl\": {";
    j += "\"batch\": " + std::to_string(options.batch);
    j += ", \"step_ms\": " + std::to_string(options.step_ms);
    j += ", \"link_score\": " +
         JsonString(options.link_score == LinkScoreRule::kConstant ? "constant" : "inverse-degree");
    j += ", \"polite\": " + std::string(options.polite ? "true" : "false");
    j += ", \"template_links\": " + std::string(options.template_links ? "true" : "false");
    j += ", \"hot_template_links\": " + std::string(options.hot_template_links ? "true" : "false");
    j += ", \"delay_ms\": " + std::to_string(scheduler.delay_ms);
    j += ", \"per_host\": " + std::to_string(scheduler.per_host);
    j += ", \"max_pages\": " + std::to_string(options.max_pages);
    j += ", \"repeats\": " + std::to_string(repeats);
    const ModeRun* best_rank = BestBaselineByRank(runs);
    j += "},\n  \"best_baseline\": " + (best ? JsonString(best->Name()) : std::string("null"));
    j += ",\n  \"best_baseline_by_pr10\": " +
         (best_rank ? JsonString(best_rank->Name()) : std::string("null"));
    j += ",\n  \"modes\": [";
    for (size_t i = 0; i < runs.size(); ++i) {
      const ModeRun& run = runs[i];
      const CrawlOutcome& o = run.outcome;
      j += i ? ",\n    {" : "\n    {";
      j += "\"mode\": " + JsonString(run.Name());
      j += ", \"replayed\": " + std::string(run.replay ? "true" : "false");
      if (!run.skipped.empty()) {
        j += ", \"skipped\": " + JsonString(run.skipped) + "}";
        continue;
      }
      j += ", \"fetched\": " + std::to_string(o.fetched);
      j += ", \"hot_fetched\": " + std::to_string(o.hot_fetched);
      j += ", \"pages_to_hot\": {";
      for (size_t t = 0; t < kHotTargets.size(); ++t) {
        j += (t ? ", \"" : "\"") + std::to_string(std::lround(kHotTargets[t] * 100)) +
             "\": " + JsonOptional(o.pages_to_hot[t]);
      }
      j += "}, \"pagerank_share_at\": {";
      for (size_t k = 0; k < kShareAt.size(); ++k) {
        j += (k ? ", \"" : "\"") + std::to_string(std::lround(kShareAt[k] * 100)) +
             "\": " + JsonOptional(o.rank_share_at[k]);
      }
      j += "}, \"kendall_tau_b_at\": {";
      for (size_t k = 0; k < kShareAt.size(); ++k) {
        j += (k ? ", \"" : "\"") + std::to_string(std::lround(kShareAt[k] * 100)) +
             "\": " + JsonOptional(o.tau_at[k]);
      }
      j += "}, \"pagerank_share_at_10pct\": " + JsonOptional(o.rank_share_at[kShareAt10]);
      j += ", \"pagerank_curve\": [";
      for (size_t c = 0; c < o.curve.size(); ++c) {
        j += (c ? ", " : "") + JsonOptional(std::optional(o.curve[c]));
      }
      j += "]";
      j += ", \"pagerank_share_at_end\": " + JsonOptional(std::optional(o.rank_share_end));
      if (options.relevant != nullptr) {
        j += ", \"harvest_curve\": [";
        for (size_t c = 0; c < o.harvest.size(); ++c) {
          j += (c ? ", " : "") + JsonOptional(std::optional(o.harvest[c]));
        }
        j += "], \"harvest_auc\": " + JsonOptional(HarvestArea(o.harvest));
      }
      j += ", \"ratio_80_to_best_baseline\": " + JsonOptional(run.ratio);
      j += ", \"ratio_pr10_to_best_baseline\": " + JsonOptional(run.pr_ratio);
      j += ", \"reranks\": " + std::to_string(o.reranks);
      j += ", \"rerank_seconds\": " + JsonOptional(std::optional(o.rerank_ms / 1000.0));
      j += ", \"batches\": " + std::to_string(o.batches);
      j += ", \"simulated_ms\": " + std::to_string(o.simulated_ms);
      j += ", \"refetched\": " + std::to_string(o.refetched);
      j += ", \"anomalies\": [";
      for (size_t a = 0; a < o.anomalies.size(); ++a) {
        j += (a ? ", " : "") + JsonString(o.anomalies[a]);
      }
      j += "]";
      j += ", \"seconds\": [";
      for (size_t r = 0; r < run.seconds.size(); ++r) {
        j += (r ? ", " : "") + JsonOptional(std::optional(run.seconds[r]));
      }
      j += "], \"seconds_median\": " + JsonOptional(std::optional(Median(run.seconds))) + "}";
    }
    j += "\n  ]\n}\n";
    return j;
  }

  double HotReachableShare() const { return static_cast<double>(hot_reachable) / truth.hot_pages; }
};

// ---------------------------------------------------------------------------------------

// Compares the crawl's hand-out order with ReferenceOrder, where the mode has one; a
// difference becomes an anomaly of the run.
void CheckOrder(const LinkGraph& graph, const std::vector<uint32_t>& seeds,
                const SimulationOptions& options, ModeRun& run) {
  if (options.polite) return;  // the replay has no hosts
  const std::vector<uint32_t> expected = ReferenceOrder(graph, seeds, run.mode, options);
  if (expected.empty()) return;
  run.order_checked = true;
  const std::vector<uint32_t>& got = run.outcome.order;
  const size_t n = std::min(expected.size(), got.size());
  const size_t first =
      std::mismatch(got.begin(), got.begin() + n, expected.begin()).first - got.begin();
  if (first < n) {
    run.outcome.anomalies.push_back(
        "page " + std::to_string(first + 1) + " handed out is " + graph.urls[got[first]] +
        ", where an independent replay of the mode has " + graph.urls[expected[first]]);
  } else if (expected.size() != got.size()) {
    run.outcome.anomalies.push_back("the crawl fetched " + std::to_string(got.size()) +
                                    " pages, an independent replay of the mode " +
                                    std::to_string(expected.size()));
  }
}

Result<std::vector<ScoreMode>> ParseModes(const std::string& list) {
  if (list == "all") return AllScoreModes();
  std::vector<ScoreMode> modes;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t end = std::min(list.size(), list.find(',', pos));
    CRAWLRANK_ASSIGN_OR_RETURN(const ScoreMode mode,
                               ParseScoreMode(std::string_view(list).substr(pos, end - pos)));
    modes.push_back(mode);
    pos = end + 1;
  }
  return modes;
}

Result<std::vector<uint32_t>> ParseSeeds(const LinkGraph& graph, const std::string& list) {
  if (list.empty()) return std::vector<uint32_t>{*graph.first_source};
  std::vector<uint32_t> seeds;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t end = std::min(list.size(), list.find(',', pos));
    const std::string seed = list.substr(pos, end - pos);
    pos = end + 1;
    const auto error = [&](const std::string& cause) {
      return InvalidArgumentError("seed \"" + seed + "\": " + cause);
    };
    if (graph.ids) {
      uint64_t id = 0;
      const auto [p, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), id);
      if (!IsId(seed) || ec != std::errc() || p != seed.data() + seed.size()) {
        return error("not a page id (graph \"" + graph.path + "\" has ids)");
      }
      const auto it = graph.node_of_id.find(id);
      if (it == graph.node_of_id.end()) return error("not in graph \"" + graph.path + "\"");
      seeds.push_back(it->second);
      continue;
    }
    Result<std::string> canonical = CanonicalizeUrl(seed);
    if (!canonical.ok()) return error(canonical.status().message());
    const auto it = graph.node_of_fingerprint.find(UrlFingerprint(*canonical));
    if (it == graph.node_of_fingerprint.end() || graph.urls[it->second] != *canonical) {
      return error("not in graph \"" + graph.path + "\"");
    }
    seeds.push_back(it->second);
  }
  return seeds;
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Replays a crawl of a link graph through crawlrank's Scheduler, once per score mode, and "
      "reports how soon each mode fetches the graph's hot pages (the top 10% by PageRank).",
      "crawlrank_simulate");
  std::string graph_path;
  std::string seeds_option;
  std::string modes_option = "all";
  std::string replay_option = "oracle,larger-sites-first,rankmass,pagerank-every-100";
  std::string link_score = "inverse-degree";
  std::string tmp = std::filesystem::temp_directory_path().string();
  uint32_t hosts = 1000;
  size_t repeats = 1;
  bool json = false;
  std::string json_file;
  std::string name;
  SimulationOptions options;
  app.add_option("graph", graph_path,
                 "link graph: `src dst` lines of URLs or of integer ids, '#' comment lines; "
                 "'-' reads standard input")
      ->required();
  app.add_option("--seeds", seeds_option,
                 "comma-separated seed URLs (or ids); default: the first link's source");
  app.add_option("--modes", modes_option,
                 "comma-separated score modes (link-score, breadth-first, random, opic, "
                 "indegree, pagerank, ppr, trustrank, hits, topic-hits, wpr) or 'all'")
      ->capture_default_str();
  app.add_option("--replay", replay_option,
                 "comma-separated orders replayed without the Scheduler (benchmarks/"
                 "sim_orders.h): oracle, larger-sites-first, rankmass, pagerank-every-N; "
                 "topic-oracle (with --relevant); "
                 "the experiments pagerank-hosts-every-N and blend[n|g]-W-every-N[-grow-G]; "
                 "'none' for none")
      ->capture_default_str();
  app.add_option("--hosts", hosts, "id input: page <id> is http://h<id % hosts>.sim/<id>")
      ->capture_default_str()
      ->check(CLI::Range(1u, UINT32_MAX));
  app.add_option("--batch", options.batch,
                 "pages asked of Next at a time; 0: a thousandth of the graph (1 to 1000)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{0}, size_t{1} << 20));
  app.add_option("--step-ms", options.step_ms, "simulated milliseconds a batch takes")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{86'400'000}));
  app.add_option("--max-pages", options.max_pages, "stop after this many pages (0: no limit)")
      ->capture_default_str();
  app.add_flag("--polite", options.polite,
               "keep the Scheduler's politeness defaults (1 s between requests to a host, one "
               "in flight); the clock jumps to the next ready host when none is");
  app.add_option("--link-score", link_score,
                 "score of each link: inverse-degree (1/out-degree of the linking page) or "
                 "constant (0.5)")
      ->capture_default_str()
      ->check(CLI::IsMember({"inverse-degree", "constant"}));
  app.add_option("--rerank-growth", options.rerank_growth, "SchedulerOptions::rerank_growth")
      ->capture_default_str();
  app.add_option("--rerank-min-new-pages", options.rerank_min_new_pages,
                 "SchedulerOptions::rerank_min_new_pages")
      ->capture_default_str();
  app.add_option("--rerank-graph-growth", options.rerank_graph_growth,
                 "SchedulerOptions::rerank_graph_growth")
      ->capture_default_str();
  app.add_option("--rerank-min-graph-growth", options.rerank_min_graph_growth,
                 "SchedulerOptions::rerank_min_graph_growth")
      ->capture_default_str();
  app.add_flag("--background-rerank", options.background_rerank,
               "re-rank in the Scheduler's background thread, as a crawl does (the counts vary "
               "between runs: with --repeats, each crawl's is printed and the last reported)");
  app.add_option("--pace-us", options.pace_us,
                 "wall-clock microseconds each batch waits, standing for its fetches (with "
                 "--background-rerank: how far the ranks can lag)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{10'000'000}));
  app.add_option("--rank-threads", options.rank_threads, "threads of each re-rank (0: all cores)")
      ->capture_default_str();
  app.add_flag("--template-links", options.template_links,
               "the rank modes' re-ranks drop template links (RankOptions::template_links)");
  app.add_option("--uniform-teleport", options.uniform_teleport,
                 "ppr and trustrank: this share of the teleport to every page alike "
                 "(RankOptions::uniform_teleport)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_flag("--hot-template-links", options.hot_template_links,
               "pick the hot pages by PageRank without template links");
  app.add_option("--repeats", repeats, "crawls per mode; seconds are their median")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{100}));
  app.add_option("--tmp", tmp, "where the PageDbs go (one at a time, removed after)")
      ->capture_default_str();
  app.add_option("--name", name, "the graph's name in the output (default: its path)");
  app.add_flag("--json", json, "print JSON instead of the table");
  app.add_option("--json-file", json_file, "also write the JSON to this file");
  std::string orders_dir;
  std::string scores_path, relevant_path;
  app.add_option("--orders-dir", orders_dir,
                 "write each mode's fetch order to DIR/MODE.txt, one URL a line (for analysis)");
  app.add_option("--scores", scores_path,
                 "a topic's page and link scores (benchmarks/doc_suite.py --keywords; "
                 "benchmarks/sim_topic.h): the fetches report them, and link scores replace "
                 "--link-score");
  app.add_option("--relevant", relevant_path,
                 "URL prefixes of the pages relevant to a topic, one a line: reports the "
                 "harvest rate at every 5% of the crawl");
  CLI11_PARSE(app, argc, argv);
  options.link_score =
      link_score == "constant" ? LinkScoreRule::kConstant : LinkScoreRule::kInverseDegree;

  const std::vector<ScoreMode> modes = Check(ParseModes(modes_option));
  std::vector<ReplayOrder> replays;
  for (size_t pos = 0; replay_option != "none" && pos <= replay_option.size();) {
    const size_t end = std::min(replay_option.size(), replay_option.find(',', pos));
    replays.push_back(Check(ParseReplayOrder(std::string_view(replay_option).substr(pos, end - pos))));
    pos = end + 1;
  }
  std::ios::sync_with_stdio(false);
  const LinkGraph graph = Check(GraphReader(graph_path, hosts).Read());
  const std::vector<uint32_t> seeds = Check(ParseSeeds(graph, seeds_option));
  std::optional<TopicScores> topic_scores;
  std::optional<std::vector<bool>> relevant;
  if (!scores_path.empty()) {
    const NodeLookup node_of = [&](std::string_view url) -> std::optional<uint32_t> {
      Result<std::string> canonical = CanonicalizeUrl(std::string(url));
      if (!canonical.ok()) return std::nullopt;
      const auto it = graph.node_of_fingerprint.find(UrlFingerprint(*canonical));
      if (it == graph.node_of_fingerprint.end() || graph.urls[it->second] != *canonical) return std::nullopt;
      return it->second;
    };
    topic_scores = Check(ReadTopicScores(scores_path, graph.pages(), node_of));
    options.topic_scores = &*topic_scores;
  }
  if (!relevant_path.empty()) {
    relevant = Check(ReadRelevant(relevant_path, graph.urls));
    options.relevant = &*relevant;
  }
  const std::vector<bool> reach = Reachable(graph, seeds);
  const auto reachable = static_cast<uint64_t>(std::count(reach.begin(), reach.end(), true));
  if (options.batch == 0) options.batch = std::clamp<size_t>(graph.pages() / 1000, 1, 1000);
  const Truth truth = Check(ComputeTruth(graph, options.hot_template_links));
  uint32_t hot_reachable = 0;
  for (uint32_t node = 0; node < graph.pages(); ++node)
    hot_reachable += truth.hot[node] && reach[node];
  const TempDir dir = Check(TempDir::Create(tmp));

  const Simulator simulator(graph, truth, seeds, reachable, options);
  std::vector<ModeRun> runs;
  for (const ScoreMode mode : modes) {
    ModeRun& run = runs.emplace_back();
    run.mode = mode;
    const std::string_view name = ScoreModeName(mode);
    // A library that declares a mode it does not implement yet names it "unknown".
    if (Result<ScoreMode> known = ParseScoreMode(name); !known.ok() || *known != mode) {
      run.unimplemented = true;
      run.skipped = "score mode " + std::to_string(static_cast<int>(mode)) +
                    ": this build of crawlrank does not implement it";
      std::fprintf(stderr, "crawlrank_simulate: %s\n", run.skipped.c_str());
      continue;
    }
    for (size_t r = 0; r < repeats; ++r) {
      const std::filesystem::path db = dir.path() / (std::string(name) + "-" + std::to_string(r));
      const Simulator::Attempt attempt = Check(simulator.Crawl(mode, db));
      std::filesystem::remove_all(db);
      if (!attempt.refused.ok()) {
        run.skipped = std::string(name) + ": " + attempt.refused.ToString();
        std::fprintf(stderr, "crawlrank_simulate: skipping %s\n", run.skipped.c_str());
        break;
      }
      const CrawlOutcome& outcome = attempt.outcome;
      std::fprintf(stderr, "crawlrank_simulate: %s, crawl %zu of %zu: %llu pages in %.2f s\n",
                   std::string(name).c_str(), r + 1, repeats,
                   static_cast<unsigned long long>(outcome.fetched), outcome.seconds);
      if (options.background_rerank) {
        const auto& hot80 = outcome.pages_to_hot[kRatioTarget];
        std::fprintf(stderr, "crawlrank_simulate: %s, crawl %zu: %s pages to 80%% hot, %llu re-ranks "
                     "in the background\n", std::string(name).c_str(), r + 1,
                     hot80 ? std::to_string(*hot80).c_str() : "-",
                     static_cast<unsigned long long>(outcome.reranks));
      } else if (r > 0 && !outcome.SameCounts(run.outcome)) {
        Die(InternalError("simulate " + std::string(name) + ": crawl " + std::to_string(r + 1) +
                          " fetched pages in another order than crawl 1 (the simulation "
                          "should be deterministic)"));
      }
      run.outcome = outcome;
      run.seconds.push_back(outcome.seconds);
      if (r == 0 && !options.background_rerank) CheckOrder(graph, seeds, options, run);
    }
  }
  const OrderGraph order_graph{graph.offsets, graph.targets, graph.host};
  std::vector<double> relevance;  // the topic oracle's priorities
  if (relevant) relevance.assign(relevant->begin(), relevant->end());
  for (const ReplayOrder& replay : replays) {
    ModeRun& run = runs.emplace_back();
    run.replay = replay;
    const bool topic_oracle = replay.kind == ReplayOrder::Kind::kTopicOracle;
    if (topic_oracle && !relevant) {
      run.skipped = "topic-oracle: needs --relevant";
      std::fprintf(stderr, "crawlrank_simulate: skipping %s\n", run.skipped.c_str());
      continue;
    }
    for (size_t r = 0; r < repeats; ++r) {
      const bench::Clock::time_point start = bench::Clock::now();
      CrawlOutcome outcome;
      const std::array<uint64_t, kShareAt.size()> checkpoints = SharePages(graph.pages());
      ReplayResult replayed = Check(Replay(order_graph, seeds, replay, options.batch,
                                           options.max_pages,
                                           topic_oracle ? std::span<const double>(relevance)
                                                        : std::span<const double>(truth.rank),
                                           checkpoints,
                                           options.polite));
      outcome.order = std::move(replayed.order);
      outcome.seconds = Seconds(start);
      Measure(outcome.order, truth, graph.pages(), outcome);
      if (options.relevant != nullptr) {
        outcome.harvest = HarvestCurve(outcome.order, *options.relevant, reachable, kCurvePoints);
      }
      for (size_t k = 0; k < replayed.held.size(); ++k) outcome.tau_at[k] = TauOf(replayed.held[k], truth);
      std::fprintf(stderr, "crawlrank_simulate: %s (replayed), run %zu of %zu: %llu pages in %.2f s\n",
                   replay.Name().c_str(), r + 1, repeats,
                   static_cast<unsigned long long>(outcome.fetched), outcome.seconds);
      if (r > 0 && !outcome.SameCounts(run.outcome)) {
        Die(InternalError("replay " + replay.Name() + " gave another order in run " + std::to_string(r + 1)));
      }
      if (outcome.fetched != reachable && options.max_pages == 0) {
        run.outcome.anomalies.push_back("fetched " + std::to_string(outcome.fetched) + " of " +
                                        std::to_string(reachable) + " reachable pages");
      }
      outcome.anomalies = run.outcome.anomalies;
      run.outcome = std::move(outcome);
      run.seconds.push_back(run.outcome.seconds);
    }
  }
  if (const ModeRun* best = BestBaseline(runs); best != nullptr) {
    const double base = static_cast<double>(*best->outcome.pages_to_hot[kRatioTarget]);
    for (ModeRun& run : runs) {
      if (run.skipped.empty() && run.outcome.pages_to_hot[kRatioTarget]) {
        run.ratio = *run.outcome.pages_to_hot[kRatioTarget] / base;
      }
    }
  }
  if (const ModeRun* best = BestBaselineByRank(runs); best != nullptr) {
    const double base = *best->outcome.rank_share_at[kShareAt10];
    for (ModeRun& run : runs) {
      if (run.skipped.empty() && run.outcome.rank_share_at[kShareAt10] && base > 0) {
        run.pr_ratio = *run.outcome.rank_share_at[kShareAt10] / base;
      }
    }
  }
  const Report report{name.empty() ? graph_path : name,
                      graph,
                      truth,
                      seeds,
                      reachable,
                      hot_reachable,
                      options,
                      repeats,
                      runs};
  if (!orders_dir.empty()) {
    std::filesystem::create_directories(orders_dir);
    for (const ModeRun& run : runs) {
      if (!run.skipped.empty()) continue;
      const std::string path = orders_dir + "/" + run.Name() + ".txt";
      std::ofstream file(path);
      for (uint32_t node : run.outcome.order) file << graph.urls[node] << '\n';
      if (!file.flush()) Die(IoError("write \"" + path + "\": " + std::strerror(errno)));
    }
  }
  const std::string json_text = report.Json();
  if (!json_file.empty()) {
    std::ofstream file(json_file);
    file << json_text;
    if (!file.flush()) Die(IoError("write \"" + json_file + "\": " + std::strerror(errno)));
  }
  if (json) {
    std::fputs(json_text.c_str(), stdout);
  } else {
    report.PrintText();
  }
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  return crawlrank::bench::Main(argc, argv);
}
