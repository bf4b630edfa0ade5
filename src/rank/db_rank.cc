#include "crawlrank/db_rank.h"

#include <optional>
#include <string>
#include <unordered_map>

#include "crawlrank/clock.h"

namespace crawlrank {
namespace {

// Per-page inputs read from the records in one pass.
struct PageInputs {
  std::vector<double> teleport;  // empty when the algorithm needs none
  std::vector<uint32_t> hosts;   // host number per page; empty unless cross-host only
};

Result<PageInputs> ReadPageInputs(const Snapshot& snapshot, RankAlgorithm algorithm,
                                  const DbRankOptions& options) {
  const auto n = static_cast<uint32_t>(snapshot.counters().pages);
  const bool scores =
      algorithm == RankAlgorithm::kPersonalized || algorithm == RankAlgorithm::kTopicHits;
  const bool seeds = algorithm == RankAlgorithm::kTrustRank && options.trusted.empty();
  PageInputs inputs;
  if (scores || seeds) inputs.teleport.assign(n, 0.0);
  if (options.cross_host_only) inputs.hosts.assign(n, 0);
  if (scores || seeds || options.cross_host_only) {
    std::unordered_map<std::string, uint32_t> host_numbers;
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) -> Status {
      if (scores) {
        // Scores below zero carry no weight.
        inputs.teleport[page.id] =
            std::max(0.f, page.crawled() ? page.content_score : page.link_score);
      } else if (seeds) {
        inputs.teleport[page.id] = page.depth == 0 ? 1.0 : 0.0;
      }
      if (options.cross_host_only) {
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

}  // namespace

Result<StoredRank> RankPageDb(const PageDb& db, RankAlgorithm algorithm,
                              const DbRankOptions& options) {
  std::optional<StoredRank> previous;
  if (options.warm_start) {
    Result<StoredRank> loaded = LoadRank(db.path(), algorithm);
    if (loaded.ok()) {
      previous = std::move(loaded).value();
    } else if (loaded.status().code() != StatusCode::kNotFound) {
      return loaded.status().WithContext("warm start");
    }
  }
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(PageInputs inputs, ReadPageInputs(snapshot, algorithm, options));
  RankInput input;
  input.teleport = inputs.teleport;
  if (previous.has_value() && previous->cross_host_only == options.cross_host_only &&
      previous->rank.scores.size() <= snapshot.counters().pages) {
    input.start = previous->rank.scores;
    input.start_hubs = previous->rank.hubs;
  }
  SnapshotEdgeSource links(snapshot);
  std::optional<CrossGroupEdgeSource> cross_host;
  EdgeSource* source = &links;
  if (options.cross_host_only) source = &cross_host.emplace(links, std::move(inputs.hosts));
  Result<RankResult> rank = ComputeRank(*source, algorithm, options.rank, input);
  if (!rank.ok()) return rank.status().WithContext("ranking \"" + db.path() + "\"");
  StoredRank stored{std::move(rank).value(), options.cross_host_only, UnixNowMs()};
  if (options.save) CRAWLRANK_RETURN_IF_ERROR(SaveRank(db.path(), stored));
  return stored;
}

}  // namespace crawlrank
