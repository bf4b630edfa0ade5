// The replayed crawl orders of crawlrank_simulate (sim_orders.h): the oracles, larger sites
// first, RankMass, partial PageRank and the blends.
#include "sim_orders.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <queue>
#include <unordered_set>
#include <utility>

#include "crawlrank/edge_source.h"
#include "crawlrank/rank.h"

namespace crawlrank::bench {
namespace {

constexpr double kDamping = 0.85;
constexpr uint64_t kUnseen = std::numeric_limits<uint64_t>::max();

// A page waiting in a priority order: higher priority first, then earlier discovery.
struct Entry {
  double priority;
  uint64_t seq;
  uint32_t node;
  bool operator<(const Entry& o) const {
    return priority != o.priority ? priority < o.priority : seq > o.seq;
  }
};

// A host waiting in larger-sites-first: more pending pages first, then the host whose
// oldest pending page was discovered first.
struct HostEntry {
  uint64_t pending;
  uint64_t front_seq;
  uint32_t host;
  bool operator<(const HostEntry& o) const {
    return pending != o.pending ? pending < o.pending : front_seq > o.front_seq;
  }
};

class Replayer {
 public:
  Replayer(const OrderGraph& graph, const ReplayOrder& order, std::span<const double> oracle_scores)
      : graph_(graph),
        order_(order),
        oracle_scores_(oracle_scores),
        seq_(graph.pages(), kUnseen),
        fetched_(graph.pages(), false),
        priority_(graph.pages(), 0) {
    if (order.kind == ReplayOrder::Kind::kRankMass || Blend()) mass_.assign(graph.pages(), 0);
    if (Blend()) rank_.assign(graph.pages(), 0);
    for (uint32_t h : graph.host) host_count_ = std::max(host_count_, h + 1);
  }

  Result<ReplayResult> Run(std::span<const uint32_t> seeds, size_t batch, uint64_t max_pages,
                           std::span<const uint64_t> checkpoints) {
    for (uint32_t seed : seeds) {
      if (!mass_.empty() && seq_[seed] == kUnseen) {
        mass_[seed] = (1 - kDamping) / static_cast<double>(seeds.size());
      }
      Discover(seed);
    }
    ReplayResult result;
    std::vector<uint32_t>& order = result.order;
    std::vector<uint32_t> picked;
    size_t next_checkpoint = 0;
    uint64_t ranked_at = 0;
    for (;;) {
      picked.clear();
      while (picked.size() < batch && (max_pages == 0 || order.size() < max_pages)) {
        const std::optional<uint32_t> next = Pop();
        if (!next) break;
        fetched_[*next] = true;
        picked.push_back(*next);
        order.push_back(*next);
      }
      EndBatch();
      if (picked.empty()) break;
      for (uint32_t node : picked) Follow(node);
      if (order_.kind == ReplayOrder::Kind::kPartialPageRank &&
          order.size() - ranked_at >= order_.rerank_every) {
        CRAWLRANK_RETURN_IF_ERROR(Rerank());
        ranked_at = order.size();
      }
      if (Blend() && BlendDue(order.size(), ranked_at)) {
        CRAWLRANK_RETURN_IF_ERROR(Rerank());
        ranked_at = order.size();
        known_at_ = node_of_seq_.size();
      }
      while (next_checkpoint < checkpoints.size() && order.size() >= checkpoints[next_checkpoint]) {
        result.held.push_back(Held(order.size()));
        ++next_checkpoint;
      }
    }
    return result;
  }

 private:
  void Discover(uint32_t node) {
    if (seq_[node] != kUnseen) return;
    seq_[node] = node_of_seq_.size();
    node_of_seq_.push_back(node);
    switch (order_.kind) {
      case ReplayOrder::Kind::kOracle:
      case ReplayOrder::Kind::kTopicOracle: Push(node, oracle_scores_[node]); break;
      case ReplayOrder::Kind::kRankMass: Push(node, mass_[node]); break;
      case ReplayOrder::Kind::kPartialPageRank: Push(node, 0); break;  // behind ranked pages
      case ReplayOrder::Kind::kBlend: Push(node, Blended(node)); break;
      case ReplayOrder::Kind::kLargerSitesFirst: {
        const uint32_t host = graph_.host[node];
        if (host >= host_pending_.size()) host_pending_.resize(host + 1);
        host_pending_[host].push_back(node);
        PushHost(host);
        break;
      }
    }
  }

  bool Blend() const { return order_.kind == ReplayOrder::Kind::kBlend; }
  // Blend: a rank when the pages fetched or the pages known grew by rerank_every, or by
  // `growth` of what they were at the last rank, whichever is more.
  bool BlendDue(uint64_t fetched, uint64_t fetched_at) const {
    const auto step = [&](uint64_t at) {
      return std::max<double>(static_cast<double>(order_.rerank_every), order_.growth * static_cast<double>(at));
    };
    return static_cast<double>(fetched - fetched_at) >= step(fetched_at) ||
           static_cast<double>(node_of_seq_.size() - known_at_) >= step(known_at_);
  }
  double Blended(uint32_t node) const {
    if (order_.geometric) {
      return order_.weight * std::log(std::max(rank_[node], 1e-300)) +
             (1 - order_.weight) * std::log(std::max(mass_[node], 1e-300));
    }
    return order_.weight * rank_[node] / rank_norm_ + (1 - order_.weight) * mass_[node] / mass_norm_;
  }

  void Push(uint32_t node, double priority) {
    priority_[node] = priority;
    heap_.push({priority, seq_[node], node});
  }

  void PushHost(uint32_t host) {
    const std::deque<uint32_t>& pending = host_pending_[host];
    if (!pending.empty()) hosts_.push({pending.size(), seq_[pending.front()], host});
  }

  // The score each page discovered holds now.
  HeldScores Held(uint64_t fetched) const {
    HeldScores held;
    held.fetched = fetched;
    for (const uint32_t node : node_of_seq_) {
      held.nodes.push_back(node);
      if (order_.kind == ReplayOrder::Kind::kLargerSitesFirst) {
        const uint32_t host = graph_.host[node];
        held.scores.push_back(static_cast<double>(host_pending_[host].size()));
      } else {
        held.scores.push_back(priority_[node]);
      }
    }
    return held;
  }

  // The next page to fetch, if any is left.
  // Polite: none of a host that already gave a page to this batch (those waiting are
  // skipped and put back by EndBatch).
  std::optional<uint32_t> Pop() {
    if (order_.kind == ReplayOrder::Kind::kLargerSitesFirst) {
      while (!hosts_.empty()) {
        const HostEntry top = hosts_.top();
        hosts_.pop();
        std::deque<uint32_t>& pending = host_pending_[top.host];
        if (pending.size() != top.pending || seq_[pending.front()] != top.front_seq) continue;
        if (Busy(top.host)) {
          skipped_hosts_.push_back(top);
          continue;
        }
        const uint32_t node = pending.front();
        pending.pop_front();
        PushHost(top.host);
        Take(top.host);
        return node;
      }
      return std::nullopt;
    }
    while (!heap_.empty()) {
      const Entry top = heap_.top();
      heap_.pop();
      if (fetched_[top.node] || top.priority != priority_[top.node]) continue;
      if (Busy(graph_.host[top.node])) {
        skipped_.push_back(top);
        continue;
      }
      Take(graph_.host[top.node]);
      return top.node;
    }
    return std::nullopt;
  }

  bool Busy(uint32_t host) const { return polite_ && batch_hosts_.contains(host); }
  void Take(uint32_t host) {
    if (polite_) batch_hosts_.insert(host);
  }
  // The batch is handed out: every host is free again, and what waited goes back.
  void EndBatch() {
    batch_hosts_.clear();
    for (const Entry& e : skipped_) heap_.push(e);
    for (const HostEntry& e : skipped_hosts_) hosts_.push(e);
    skipped_.clear();
    skipped_hosts_.clear();
  }

  // The links of a fetched page: new pages discovered, mass sent, the known graph grown.
  void Follow(uint32_t node) {
    const std::span<const uint32_t> out = graph_.OutLinks(node);
    const double share =
        out.empty() || mass_.empty() ? 0 : kDamping * mass_[node] / static_cast<double>(out.size());
    const double rank_share = out.empty() || rank_.empty() ? 0 : rank_[node] / static_cast<double>(out.size());
    for (uint32_t target : out) {
      Discover(target);
      if (Blend()) {
        mass_[target] += share;
        // A page the last rank did not cover: its estimate grows from its fetched linkers.
        if (seq_[target] >= ranked_count_) rank_[target] += rank_share;
        known_links_.emplace_back(static_cast<uint32_t>(seq_[node]),
                                  static_cast<uint32_t>(seq_[target]));
        if (!fetched_[target]) Push(target, Blended(target));
        continue;
      }
      if (order_.kind == ReplayOrder::Kind::kRankMass) {
        mass_[target] += share;
        if (!fetched_[target]) Push(target, mass_[target]);
      } else if (order_.kind == ReplayOrder::Kind::kPartialPageRank) {
        known_links_.emplace_back(static_cast<uint32_t>(seq_[node]),
                                  static_cast<uint32_t>(seq_[target]));
      }
    }
  }

  // PageRank of the known graph; every page waiting takes its score.
  Status Rerank() {
    VectorEdgeSource source(static_cast<uint32_t>(node_of_seq_.size()), known_links_);
    RankOptions options;
    options.damping = kDamping;
    RankInput input;
    std::vector<double> teleport;
    if (order_.host_teleport) {  // 1/(known pages of the page's host): each host the same
      std::vector<uint32_t> known(host_count_, 0);
      for (uint32_t node : node_of_seq_) ++known[graph_.host[node]];
      for (uint32_t node : node_of_seq_) teleport.push_back(1.0 / known[graph_.host[node]]);
      input.teleport = teleport;
    }
    CRAWLRANK_ASSIGN_OR_RETURN(
        RankResult rank,
        ComputeRank(source, order_.host_teleport ? RankAlgorithm::kPersonalized : RankAlgorithm::kPageRank,
                    options, input));
    std::vector<Entry> entries;
    ranked_count_ = node_of_seq_.size();
    if (Blend() && order_.normalize) {  // each part's sum over the pages waiting
      double r = 0, m = 0;
      for (uint64_t seq = 0; seq < node_of_seq_.size(); ++seq) {
        const uint32_t node = node_of_seq_[seq];
        if (fetched_[node]) continue;
        r += rank.scores[seq];
        m += mass_[node];
      }
      rank_norm_ = r > 0 ? r : 1;
      mass_norm_ = m > 0 ? m : 1;
    }
    for (uint64_t seq = 0; seq < node_of_seq_.size(); ++seq) {
      const uint32_t node = node_of_seq_[seq];
      if (Blend()) rank_[node] = rank.scores[seq];
      if (fetched_[node]) continue;
      priority_[node] = Blend() ? Blended(node) : rank.scores[seq];
      entries.push_back({priority_[node], seq, node});
    }
    heap_ = std::priority_queue<Entry>(std::less<Entry>(), std::move(entries));
    return Status::Ok();
  }

  const OrderGraph& graph_;
  const ReplayOrder order_;
  std::span<const double> oracle_scores_;
  std::vector<uint64_t> seq_;  // discovery number, kUnseen before
  std::vector<uint32_t> node_of_seq_;
  std::vector<bool> fetched_;
  std::vector<double> priority_;  // the current priority of each page (heap orders)
  std::priority_queue<Entry> heap_;
  std::vector<double> mass_;  // rankmass, blend
  std::vector<double> rank_;  // blend: the last rank, or an estimate for pages it did not cover
  uint64_t ranked_count_ = 0;  // pages (by discovery number) the last rank covered
  uint64_t known_at_ = 0;      // pages known at the last rank
  double rank_norm_ = 1, mass_norm_ = 1;
  std::vector<std::pair<uint32_t, uint32_t>> known_links_;  // partial PageRank, by seq
  std::vector<std::deque<uint32_t>> host_pending_;          // larger-sites-first
  std::priority_queue<HostEntry> hosts_;
  uint32_t host_count_ = 0;
  // Polite: a host gives at most one page to a batch (the Scheduler's defaults in the
  // simulation: 1 s between two requests to a host, a batch a simulated second).
  bool polite_ = false;
  std::unordered_set<uint32_t> batch_hosts_;
  std::vector<Entry> skipped_;
  std::vector<HostEntry> skipped_hosts_;

 public:
  void set_polite(bool polite) { polite_ = polite; }
};

}  // namespace

std::string ReplayOrder::Name() const {
  switch (kind) {
    case Kind::kOracle: return "oracle";
    case Kind::kTopicOracle: return "topic-oracle";
    case Kind::kLargerSitesFirst: return "larger-sites-first";
    case Kind::kRankMass: return "rankmass";
    case Kind::kBlend: {
      char w[32];
      std::snprintf(w, sizeof w, "%g", weight);
      char g[32];
      std::snprintf(g, sizeof g, "%g", growth);
      const char* prefix = host_teleport ? "blend-hosts-"
                           : normalize   ? "blendn-"
                           : geometric   ? "blendg-"
                                         : "blend-";
      return std::string(prefix) + std::string(w) + "-every-" + std::to_string(rerank_every) +
             (growth > 0 ? "-grow-" + std::string(g) : "");
    }
    case Kind::kPartialPageRank:
      return std::string(host_teleport ? "pagerank-hosts-every-" : "pagerank-every-") +
             std::to_string(rerank_every);
  }
  return "?";
}

Result<ReplayOrder> ParseReplayOrder(std::string_view name) {
  if (name == "oracle") return ReplayOrder{ReplayOrder::Kind::kOracle};
  if (name == "topic-oracle") return ReplayOrder{ReplayOrder::Kind::kTopicOracle};
  if (name == "larger-sites-first") return ReplayOrder{ReplayOrder::Kind::kLargerSitesFirst};
  if (name == "rankmass") return ReplayOrder{ReplayOrder::Kind::kRankMass};
  // blend[n|g|-hosts]-W-every-N[-grow-G]
  if (name.starts_with("blend-") || name.starts_with("blendn-") || name.starts_with("blendg-")) {
    const bool hosts = name.starts_with("blend-hosts-");
    const bool norm = name.starts_with("blendn-");
    const bool geo = name.starts_with("blendg-");
    const std::string rest(name.substr(hosts ? 12 : (norm || geo) ? 7 : 6));
    double w = 0;
    unsigned long long n = 0;
    double g = 0;
    const int got = std::sscanf(rest.c_str(), "%lf-every-%llu-grow-%lf", &w, &n, &g);
    if (got >= 2 && w >= 0 && w <= 1 && n > 0 && g >= 0) {
      ReplayOrder order{ReplayOrder::Kind::kBlend, n};
      order.weight = w;
      order.growth = g;
      order.host_teleport = hosts;
      order.normalize = norm;
      order.geometric = geo;
      return order;
    }
  }
  for (const bool hosts : {false, true}) {
    const std::string_view prefix = hosts ? "pagerank-hosts-every-" : "pagerank-every-";
    if (!name.starts_with(prefix)) continue;
    const std::string_view n = name.substr(prefix.size());
    uint64_t every = 0;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), every);
    if (ec == std::errc() && end == n.data() + n.size() && every > 0) {
      return ReplayOrder{ReplayOrder::Kind::kPartialPageRank, every, hosts};
    }
  }
  return InvalidArgumentError("replayed order \"" + std::string(name) +
                              "\": not oracle, topic-oracle, larger-sites-first, rankmass, "
                              "pagerank-every-N, pagerank-hosts-every-N (N at least 1) or "
                              "blend[n|g|-hosts]-W-every-N[-grow-G] (W from 0 to 1)");
}

Result<ReplayResult> Replay(const OrderGraph& graph, std::span<const uint32_t> seeds,
                            const ReplayOrder& order, size_t batch, uint64_t max_pages,
                            std::span<const double> oracle_scores,
                            std::span<const uint64_t> checkpoints, bool polite) {
  if (batch == 0) return InvalidArgumentError("replay: a batch of 0 pages");
  if (oracle_scores.size() != graph.pages() || graph.host.size() != graph.pages()) {
    return InvalidArgumentError("replay: the oracle scores and hosts must have one entry a page");
  }
  Replayer replayer(graph, order, oracle_scores);
  replayer.set_polite(polite);
  return replayer.Run(seeds, batch, max_pages, checkpoints);
}

}  // namespace crawlrank::bench
