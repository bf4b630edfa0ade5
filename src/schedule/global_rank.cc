// RankGlobally (crawlrank/global_rank.h): one node's part of a rank over every node's
// PageDB: its membership checked against the job's, its snapshot read into a ShardGraph
// (rank/shard_rank.h) with its ghosts mapped to their owners, the ranks, and the save
// that every node commits together.
#include "crawlrank/global_rank.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "crawlrank/clock.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/edge_source.h"
#include "base/parallel.h"
#include "rank/shard_rank.h"
#include "schedule/cluster_membership.h"

namespace crawlrank {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Who owns each URL: the stored membership of a node, or nothing (a PageDB that ran
// alone owns every page).
struct Owners {
  std::optional<NodeList> nodes;
  HostKeyMode mode = HostKeyMode::kHost;
  uint32_t Of(std::string_view url) const {
    return nodes.has_value() ? static_cast<uint32_t>(OwnerOfUrl(*nodes, mode, url)) : 0;
  }
};

// The PageDB's membership, checked against this participant's place in the job and the
// other participants' lists.
Result<Owners> CheckMembership(const PageDb& db, ShardExchange& exchange) {
  Status status = Status::Ok();
  Owners owners;
  std::string list;
  Result<SchedulerOptions> options = StoredSchedulerOptions(db);
  Result<StoredConfig> config = db.ReadConfig();
  if (!options.ok() || !config.ok()) {
    status = (options.ok() ? config.status() : options.status()).WithContext(db.path());
  } else {
    owners.mode = options->host_key;
    Result<std::optional<NodeList>> nodes = ResolveMembership(
        *config, std::nullopt, owners.mode == HostKeyMode::kHost ? "host" : "domain", 0,
        db.path());
    if (!nodes.ok()) {
      status = nodes.status();
    } else {
      owners.nodes = *std::move(nodes);
      const uint32_t shards = owners.nodes.has_value() ? owners.nodes->size() : 1;
      const uint32_t shard = owners.nodes.has_value() ? owners.nodes->self_index() : 0;
      list = owners.nodes.has_value() ? owners.nodes->Joined() : "(alone)";
      if (shards != exchange.shards() || shard != exchange.shard()) {
        status = FailedPreconditionError(
            "PageDB " + QuoteForMessage(db.path()) + " is node " + std::to_string(shard) +
            " of " + std::to_string(shards) + " (" + list + "), but this job opens it as node " +
            std::to_string(exchange.shard()) + " of " + std::to_string(exchange.shards()));
      }
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(AgreeOverShards(exchange, status));
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<std::string> lists, exchange.AllGather(list));
  for (size_t j = 0; j < lists.size(); ++j) {
    if (lists[j] != list) {
      return FailedPreconditionError("node " + std::to_string(exchange.shard()) + "'s PageDB " +
                                     QuoteForMessage(db.path()) + " is of " + list +
                                     ", node " + std::to_string(j) + "'s of " + lists[j]);
    }
  }
  return owners;
}

// What one pass over the pages gives: each page's weight for the teleport (or topic)
// vector, which pages are ghosts, and the ghosts by owner with their fingerprints.
struct PagesRead {
  std::vector<double> weights;  // by page id; empty when the algorithm needs none
  std::vector<uint8_t> ghost;
  std::vector<std::vector<uint32_t>> ghosts;   // [owner]: ids, ascending
  std::vector<std::vector<uint64_t>> offered;  // [owner]: fingerprint, weight bits per ghost
  uint64_t crawled = 0;                        // of the pages owned here
};

Result<PagesRead> ReadPages(const Snapshot& snapshot, const Owners& owners, uint32_t shard,
                            uint32_t shards, RankAlgorithm algorithm,
                            const std::unordered_set<uint64_t>& trusted) {
  const auto n = static_cast<uint32_t>(snapshot.counters().pages);
  const bool scores =
      algorithm == RankAlgorithm::kPersonalized || algorithm == RankAlgorithm::kTopicHits;
  const bool trust = algorithm == RankAlgorithm::kTrustRank;
  PagesRead read;
  if (scores || trust) read.weights.assign(n, 0.0);
  read.ghost.assign(n, 0);
  read.ghosts.resize(shards);
  read.offered.resize(shards);
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) -> Status {
    double weight = 0;
    if (scores) weight = std::max(0.f, page.crawled() ? page.content_score : page.link_score);
    if (trust) weight = (trusted.empty() ? page.depth == 0 : trusted.contains(page.fingerprint));
    if (!read.weights.empty()) read.weights[page.id] = weight;
    const uint32_t owner = owners.Of(page.url);
    if (owner == shard) {
      read.crawled += page.crawled() ? 1 : 0;
      return Status::Ok();
    }
    read.ghost[page.id] = 1;
    read.ghosts[owner].push_back(page.id);
    read.offered[owner].push_back(page.fingerprint);
    read.offered[owner].push_back(std::bit_cast<uint64_t>(weight));
    return Status::Ok();
  }));
  return read;
}

// Sends each ghost's fingerprint (and weight) to its owner; returns what every other
// shard sent here, in shard order, with the number of words from each.
Status OfferGhosts(ShardExchange& exchange, const std::vector<std::vector<uint64_t>>& offered, std::vector<uint64_t>* got,
                   std::vector<uint64_t>* got_counts) {
  const uint32_t shards = exchange.shards();
  std::vector<uint64_t> counts, words, ones(shards, 1);
  for (const auto& list : offered) {
    counts.push_back(list.size());
    words.insert(words.end(), list.begin(), list.end());
  }
  got_counts->assign(shards, 0);
  CRAWLRANK_RETURN_IF_ERROR(exchange.AllToAll(counts, ones, *got_counts, ones));
  uint64_t total = 0;
  for (uint64_t c : *got_counts) total += c;
  got->assign(total, 0);
  return exchange.AllToAll(words, counts, *got, *got_counts);
}

// Maps the ghosts other shards offered to this shard's pages (by fingerprint, in the
// snapshot) or to extra vertices after them; fills graph.served and graph.extras, and
// `weights` with the extras' (the first shard's offer).
Status ServeGhosts(const Snapshot& snapshot, const std::vector<uint64_t>& got,
                   const std::vector<uint64_t>& got_counts, ShardGraph& graph,
                   std::vector<double>& weights,
                   std::unordered_map<uint64_t, uint32_t>& extra_ids) {
  graph.served.assign(got_counts.size(), {});
  size_t at = 0;
  for (size_t j = 0; j < got_counts.size(); ++j) {
    for (uint64_t k = 0; k < got_counts[j]; k += 2, at += 2) {
      const uint64_t fingerprint = got[at];
      Result<PageRecord> page = snapshot.Find(fingerprint);
      uint32_t id = 0;
      if (page.ok()) {
        if (graph.ghost[page->id] != 0) {
          return FailedPreconditionError("page " + QuoteForMessage(page->url) +
                                         " is a ghost on node " + std::to_string(j) +
                                         " and on its owner too");
        }
        id = page->id;
      } else if (page.status().code() == StatusCode::kNotFound) {
        const auto [it, added] = extra_ids.try_emplace(fingerprint, graph.pages + graph.extras);
        if (added) {
          ++graph.extras;
          if (!weights.empty()) weights.push_back(std::bit_cast<double>(got[at + 1]));
        }
        id = it->second;
      } else {
        return page.status();
      }
      graph.served[j].push_back(id);
    }
  }
  return Status::Ok();
}

// FailedPrecondition naming the first ghost with links (a crawl stores a link with its
// source's owner, so none has).
Status CheckGhostsHaveNoLinks(const Snapshot& snapshot, const ShardGraph& graph) {
  for (uint32_t id = 0; id < graph.pages; ++id) {
    if (graph.ghost[id] != 0 && graph.csr.out_degree[id] > 0) {
      Result<PageRecord> page = snapshot.FindId(id);
      return FailedPreconditionError(
          "page " + (page.ok() ? QuoteForMessage(page->url) : std::to_string(id)) +
          ", which another node owns, has links here: not a PageDB a cluster node wrote");
    }
  }
  return Status::Ok();
}

// The trusted pages found among this shard's vertices, as a 0/1 per fingerprint of
// `trusted` (to be summed over the shards).
std::vector<double> TrustedFound(const Snapshot& snapshot, const std::vector<uint64_t>& trusted,
                                 const ShardGraph& graph,
                                 const std::unordered_map<uint64_t, uint32_t>& extra_ids) {
  std::vector<double> found(trusted.size(), 0.0);
  for (size_t i = 0; i < trusted.size(); ++i) {
    Result<PageRecord> page = snapshot.Find(trusted[i]);
    found[i] = (page.ok() && graph.ghost[page->id] == 0) || extra_ids.contains(trusted[i]);
  }
  return found;
}

// One node's graph and inputs, read from one snapshot that is released on return.
struct ShardInput {
  ShardGraph graph;
  std::vector<double> weights;  // by local id (extras included), or empty
  PageDbCounters counters;      // the snapshot's
  double crawled = 0;           // pages owned here, crawled
  std::vector<std::vector<uint64_t>> offered;  // PagesRead::offered
};

Result<ShardInput> ReadShard(const PageDb& db, ShardExchange& exchange, const Owners& owners,
                             RankAlgorithm algorithm, const GlobalRankOptions& options) {
  ShardInput in;
  std::vector<uint64_t> got, got_counts;
  std::unordered_map<uint64_t, uint32_t> extra_ids;
  std::vector<double> found;
  Result<Snapshot> snapshot = db.NewSnapshot();
  Status status = snapshot.status();
  if (status.ok()) {
    in.counters = snapshot->counters();
    in.graph.pages = static_cast<uint32_t>(in.counters.pages);
    const std::unordered_set<uint64_t> trusted(options.trusted.begin(), options.trusted.end());
    Result<PagesRead> read = ReadPages(*snapshot, owners, exchange.shard(), exchange.shards(),
                                       algorithm, trusted);
    status = read.status();
    if (read.ok()) {
      in.weights = std::move(read->weights);
      in.graph.ghost = std::move(read->ghost);
      in.graph.ghosts = std::move(read->ghosts);
      in.offered = std::move(read->offered);
      in.crawled = double(read->crawled);
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(AgreeOverShards(exchange, status.WithContext(db.path())));
  CRAWLRANK_RETURN_IF_ERROR(OfferGhosts(exchange, in.offered, &got, &got_counts));
  status = ServeGhosts(*snapshot, got, got_counts, in.graph, in.weights, extra_ids);
  if (status.ok()) {
    const bool out_rows = algorithm == RankAlgorithm::kHits ||
                          algorithm == RankAlgorithm::kTopicHits ||
                          algorithm == RankAlgorithm::kWeightedPageRank;
    SnapshotEdgeSource links(*snapshot);
    // The PageRank family pulls over a split of the in-links by partitions (link_bins.h),
    // as the single-process kernel does; HITS and wpr need rows, and the links out.
    Result<CsrGraph> csr = BuildCsr(links, out_rows ? CsrShape::kInAndOutRows : CsrShape::kSplit,
                                    ResolveThreads(options.rank.threads));
    status = csr.status();
    if (csr.ok()) in.graph.csr = std::move(csr).value();
  }
  if (status.ok()) status = CheckGhostsHaveNoLinks(*snapshot, in.graph);
  if (status.ok()) found = TrustedFound(*snapshot, options.trusted, in.graph, extra_ids);
  CRAWLRANK_RETURN_IF_ERROR(AgreeOverShards(exchange, status.WithContext(db.path())));
  CRAWLRANK_RETURN_IF_ERROR(SumOverShards(exchange, found));
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i] == 0) {
      return NotFoundError("trusted page " + FormatFingerprint(options.trusted[i]) +
                           " is on no node");
    }
  }
  return in;
}

// A run id every participant shares: shard 0's random number.
Result<uint64_t> SharedRunId(ShardExchange& exchange) {
  std::random_device random;
  const uint64_t mine = (uint64_t{random()} << 32) ^ random() ^ static_cast<uint64_t>(UnixNowMs());
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<std::string> all,
                             exchange.AllGather(std::string(reinterpret_cast<const char*>(&mine),
                                                            sizeof mine)));
  uint64_t id = 0;
  std::memcpy(&id, all.front().data(), std::min(sizeof id, all.front().size()));
  return id;
}

// This node's part of `ranked` as stored: its pages' entries, the snapshot's counters,
// the run.
StoredRank StoredPart(const ShardInput& in, ShardRank ranked, const GlobalRun& run) {
  StoredRank stored;
  stored.rank = std::move(ranked.result);
  stored.rank.scores.resize(in.graph.pages);
  if (!stored.rank.hubs.empty()) stored.rank.hubs.resize(in.graph.pages);
  stored.rank.report.pages = in.graph.pages;
  stored.created_ms = UnixNowMs();
  stored.graph = in.counters;
  stored.global = run;
  return stored;
}

}  // namespace

std::string GlobalRankName(RankAlgorithm algorithm) {
  return "global/" + std::string(RankAlgorithmName(algorithm));
}

Result<StoredRankName> ParseStoredRankName(std::string_view name) {
  constexpr std::string_view kGlobal = "global-";
  const bool global = name.starts_with(kGlobal);
  const std::string_view rest = global ? name.substr(kGlobal.size()) : name;
  if (!global && rest == kDisplayRankName) {
    return StoredRankName{std::string(kDisplayRankName), RankAlgorithm::kPageRank, false};
  }
  Result<RankAlgorithm> algorithm = ParseRankAlgorithm(rest);
  if (!algorithm.ok() || (global && *algorithm == RankAlgorithm::kInDegree)) {
    return InvalidArgumentError("no rank named " + QuoteForMessage(name) +
                                ": display, an algorithm (" +
                                (algorithm.ok() ? std::string("pagerank, ...")
                                                : algorithm.status().message()) +
                                "), or global- and an algorithm but indegree");
  }
  return StoredRankName{global ? GlobalRankName(*algorithm) : std::string(rest), *algorithm,
                        global};
}

Result<StoredRank> LoadGlobalRank(const std::string& db_path, RankAlgorithm algorithm) {
  return LoadRank(db_path, GlobalRankName(algorithm), algorithm);
}

Result<GlobalRankReport> RankGlobally(const PageDb& db, ShardExchange& exchange,
                                      RankAlgorithm algorithm, const GlobalRankOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CRAWLRANK_ASSIGN_OR_RETURN(const Owners owners, CheckMembership(db, exchange));
  CRAWLRANK_ASSIGN_OR_RETURN(ShardInput in, ReadShard(db, exchange, owners, algorithm, options));
  ShardGraph& graph = in.graph;
  uint64_t ghosts = 0;
  for (const auto& list : graph.ghosts) ghosts += list.size();
  // Sums of integers below 2^53: exact in doubles.
  double totals[3] = {double(graph.size() - ghosts), in.crawled, double(graph.csr.links)};
  CRAWLRANK_RETURN_IF_ERROR(SumOverShards(exchange, totals));
  graph.vertices = static_cast<uint64_t>(totals[0]);
  GlobalRankReport report;
  report.ghosts = ghosts;
  report.extras = graph.extras;
  report.setup_seconds = SecondsSince(start);
  CRAWLRANK_ASSIGN_OR_RETURN(ShardRank ranked,
                             RankShard(graph, exchange, algorithm, options.rank, in.weights));
  report.rank_seconds = ranked.result.report.seconds;
  report.words_per_iteration = ranked.words_per_iteration;
  CRAWLRANK_ASSIGN_OR_RETURN(const uint64_t run_id, SharedRunId(exchange));
  const GlobalRun run{run_id, exchange.shard(), exchange.shards(),
                      PageDbCounters{.pages = graph.vertices,
                                     .crawled_pages = static_cast<uint64_t>(totals[1]),
                                     .edges = static_cast<uint64_t>(totals[2])}};
  report.stored = StoredPart(in, std::move(ranked), run);
  if (!options.save) return report;
  Result<std::string> temp = SaveRankAside(db.path(), report.stored, GlobalRankName(algorithm));
  // Every node's file is written before any node's is renamed into place.
  if (Status agreed = AgreeOverShards(exchange, temp.status()); !agreed.ok()) {
    if (temp.ok()) ::unlink(temp->c_str());
    return agreed;
  }
  CRAWLRANK_RETURN_IF_ERROR(CommitRank(*temp, db.path(), GlobalRankName(algorithm)));
  return report;
}

}  // namespace crawlrank
