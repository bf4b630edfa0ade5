#include "crawlrank/db_rank.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "crawlrank/clock.h"

namespace crawlrank {
namespace {

// Per-page inputs read from the records in one pass.
struct PageInputs {
  std::vector<double> teleport;  // empty when the algorithm needs none
  // Host number per page (HostKey of its URL, kHost); empty unless cross-host only or
  // template links are dropped.
  std::vector<uint32_t> hosts;
};

Result<PageInputs> ReadPageInputs(const Snapshot& snapshot, RankAlgorithm algorithm,
                                  const DbRankOptions& options) {
  const auto n = static_cast<uint32_t>(snapshot.counters().pages);
  const bool scores =
      algorithm == RankAlgorithm::kPersonalized || algorithm == RankAlgorithm::kTopicHits;
  const bool seeds = algorithm == RankAlgorithm::kTrustRank && options.trusted.empty();
  PageInputs inputs;
  if (scores || seeds) inputs.teleport.assign(n, 0.0);
  const bool hosts = options.cross_host_only || options.rank.template_links.drop;
  if (hosts) inputs.hosts.assign(n, 0);
  if (scores || seeds || hosts) {
    std::unordered_map<std::string, uint32_t> host_numbers;
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) -> Status {
      if (scores) {
        // Scores below zero carry no weight.
        inputs.teleport[page.id] =
            std::max(0.f, page.crawled() ? page.content_score : page.link_score);
      } else if (seeds) {
        inputs.teleport[page.id] = page.depth == 0 ? 1.0 : 0.0;
      }
      if (hosts) {
        CRAWLRANK_ASSIGN_OR_RETURN(std::string host, HostKey(page.url));
        inputs.hosts[page.id] =
            host_numbers.try_emplace(std::move(host), static_cast<uint32_t>(host_numbers.size()))
                .first->second;
      }
      return Status::Ok();
    }));
  }
  if (algorithm == RankAlgorithm::kTrustRank && !options.trusted.empty()) {
    inputs.teleport.assign(n, 0.0);
    for (uint64_t fingerprint : options.trusted) {
      Result<PageRecord> page = snapshot.Find(fingerprint);
      if (!page.ok())
        return page.status().WithContext("trusted page " + FormatFingerprint(fingerprint));
      inputs.teleport[page->id] = 1.0;
    }
  }
  return inputs;
}

// The stored rank to start from, when asked for and there is one.
Result<std::optional<StoredRank>> WarmStart(const PageDb& db, RankAlgorithm algorithm,
                                            const DbRankOptions& options) {
  if (!options.warm_start) return std::optional<StoredRank>();
  Result<StoredRank> loaded = LoadRank(db.path(), algorithm);
  if (loaded.ok()) return std::optional<StoredRank>(std::move(loaded).value());
  if (loaded.status().code() == StatusCode::kNotFound) return std::optional<StoredRank>();
  return loaded.status().WithContext("warm start");
}

}  // namespace

Result<StoredRank> RankPageDb(const PageDb& db, RankAlgorithm algorithm,
                              const DbRankOptions& options) {
  CRAWLRANK_ASSIGN_OR_RETURN(std::optional<StoredRank> previous, WarmStart(db, algorithm, options));
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(PageInputs inputs, ReadPageInputs(snapshot, algorithm, options));
  RankInput input;
  input.teleport = inputs.teleport;
  input.hosts = inputs.hosts;
  if (previous.has_value() && previous->cross_host_only == options.cross_host_only &&
      previous->rank.scores.size() <= snapshot.counters().pages) {
    input.start = previous->rank.scores;
    input.start_hubs = previous->rank.hubs;
  }
  SnapshotEdgeSource links(snapshot);
  std::optional<CrossGroupEdgeSource> cross_host;
  EdgeSource* source = &links;
  if (options.cross_host_only) source = &cross_host.emplace(links, inputs.hosts);
  Result<RankResult> rank = ComputeRank(*source, algorithm, options.rank, input);
  if (!rank.ok()) return rank.status().WithContext("ranking \"" + db.path() + "\"");
  StoredRank stored{std::move(rank).value(), options.cross_host_only, UnixNowMs(),
                    snapshot.counters(), std::nullopt};
  if (options.save) CRAWLRANK_RETURN_IF_ERROR(SaveRank(db.path(), stored));
  return stored;
}

Result<StoredRank> RankForDisplay(const PageDb& db, DbRankOptions options) {
  options.rank.template_links.drop = true;
  options.cross_host_only = false;
  options.trusted.clear();
  options.warm_start = false;  // the stored pagerank keeps the template links
  const bool save = std::exchange(options.save, false);
  CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored, RankPageDb(db, RankAlgorithm::kPageRank, options));
  if (save) CRAWLRANK_RETURN_IF_ERROR(SaveRank(db.path(), stored, kDisplayRankName));
  return stored;
}

bool LiveDbRank::Supports(RankAlgorithm algorithm, const DbRankOptions& options) {
  return !options.cross_host_only && !options.rank.template_links.drop &&
         LiveRank::Supports(algorithm);
}

LiveDbRank::LiveDbRank(RankAlgorithm algorithm, DbRankOptions options)
    : algorithm_(algorithm), options_(std::move(options)) {}
LiveDbRank::LiveDbRank(LiveDbRank&&) noexcept = default;
LiveDbRank& LiveDbRank::operator=(LiveDbRank&&) noexcept = default;
LiveDbRank::~LiveDbRank() = default;

uint64_t LiveDbRank::Bytes() const {
  return live_ == nullptr ? 0 : live_->Bytes();
}

Result<StoredRank> LiveDbRank::Rank(const PageDb& db, const Snapshot& snapshot,
                                    std::span<const uint32_t> relinked) {
  Result<StoredRank> ranked = RankKept(db, snapshot, relinked);
  // Changes taken halfway, or none taken: either way the kept graph no longer matches what
  // the next caller will report, so the next Rank reads every link.
  if (!ranked.ok()) live_.reset();
  return ranked;
}

Result<StoredRank> LiveDbRank::RankKept(const PageDb& db, const Snapshot& snapshot,
                                        std::span<const uint32_t> relinked) {
  const auto where = [&] { return "ranking \"" + db.path() + "\" in memory"; };
  if (!Supports(algorithm_, options_)) {
    return InvalidArgumentError(where() + ": not for " +
                                std::string(RankAlgorithmName(algorithm_)) +
                                (options_.cross_host_only ? " across hosts" : ""));
  }
  const auto pages = static_cast<uint32_t>(snapshot.counters().pages);
  std::optional<StoredRank> previous;
  if (live_ != nullptr) {
    Status status = live_->Grow(pages);
    std::vector<uint32_t> ids(relinked.begin(), relinked.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (size_t i = 0; i < ids.size() && status.ok(); ++i) {
      Result<std::vector<uint32_t>> row = snapshot.Links(ids[i]);
      status = row.ok() ? live_->SetLinks(ids[i], *row) : row.status();
    }
    if (!status.ok()) return status.WithContext(where());
    if (live_->num_links() != snapshot.counters().edges) live_.reset();  // read them all again
  }
  if (live_ == nullptr) {
    CRAWLRANK_ASSIGN_OR_RETURN(previous, WarmStart(db, algorithm_, options_));
    SnapshotEdgeSource links(snapshot);
    Result<LiveRank> built = LiveRank::Build(links, algorithm_, options_.rank);
    if (!built.ok()) return built.status().WithContext(where());
    live_ = std::make_unique<LiveRank>(std::move(built).value());
    ++full_reads_;
  }
  CRAWLRANK_ASSIGN_OR_RETURN(PageInputs inputs, ReadPageInputs(snapshot, algorithm_, options_));
  RankInput input;
  input.teleport = inputs.teleport;
  if (previous.has_value() && !previous->cross_host_only && previous->rank.scores.size() <= pages) {
    input.start = previous->rank.scores;
  }
  Result<RankResult> rank = live_->Solve(input);
  if (!rank.ok()) return rank.status().WithContext(where());
  StoredRank stored{std::move(rank).value(), false, UnixNowMs(), snapshot.counters(), std::nullopt};
  if (options_.save) CRAWLRANK_RETURN_IF_ERROR(SaveRank(db.path(), stored));
  return stored;
}

}  // namespace crawlrank
