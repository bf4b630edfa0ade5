#include "schedule/score_policy.h"

#include <algorithm>
#include <utility>

#include "crawlrank/rank_store.h"

namespace crawlrank {

std::optional<RankAlgorithm> RankAlgorithmOf(ScoreMode mode) {
  switch (mode) {
    case ScoreMode::kPageRank: return RankAlgorithm::kPageRank;
    case ScoreMode::kPersonalized: return RankAlgorithm::kPersonalized;
    case ScoreMode::kTrustRank: return RankAlgorithm::kTrustRank;
    case ScoreMode::kHits: return RankAlgorithm::kHits;
    case ScoreMode::kTopicHits: return RankAlgorithm::kTopicHits;
    case ScoreMode::kWeightedPageRank: return RankAlgorithm::kWeightedPageRank;
    case ScoreMode::kBlend: return RankAlgorithm::kPageRank;
    default: return std::nullopt;
  }
}

ScorePolicy::ScorePolicy(ScoreMode mode, double damping)
    : mode_(mode), ranked_(RankAlgorithmOf(mode)), damping_(damping) {}

bool ScorePolicy::Pushes() const {
  return mode_ == ScoreMode::kOpic || mode_ == ScoreMode::kInDegree || topical() || ranked_;
}

float ScorePolicy::KeyOf(uint32_t id, uint32_t depth, uint64_t fingerprint, float link_score) {
  switch (mode_) {
    case ScoreMode::kLinkScore: return link_score;
    case ScoreMode::kTopical:
      if (depth == 0) AddSeed(id);
      return Topical(id, link_score);
    case ScoreMode::kBreadthFirst: return -static_cast<float>(depth);
    case ScoreMode::kRandom:
      return static_cast<float>((fingerprint * 0x9E3779B97F4A7C15ull) >> 40) / 16777216.f;
    default:
      // A seed (or a page fetched before anything linked to it) starts with the cash of
      // one, and goes before every ranked page.
      if (depth == 0 && ranked_) {
        waiting_seeds_.insert(id);
        AddSeed(id);
        keys_[id] = std::max(keys_[id], 1.f);  // above the stored ranks, if any
      } else if (depth == 0 && keys_[id] == 0) {
        keys_[id] = 1.f;
      }
      return keys_[id];
  }
}

float ScorePolicy::Share(uint32_t source, size_t targets) {
  switch (mode_) {
    case ScoreMode::kOpic: {
      const float share = keys_[source] / static_cast<float>(targets);
      keys_[source] = 0;  // its cash is passed on
      return share;
    }
    case ScoreMode::kInDegree: return 1;
    default: return keys_[source] / static_cast<float>(targets);
  }
}

float ScorePolicy::ShareOut(uint32_t source, size_t targets, float content_score) const {
  if (targets == 0) return 0;
  const auto n = static_cast<float>(targets);
  switch (mode_) {
    case ScoreMode::kOpic: return keys_[source] / n;
    case ScoreMode::kInDegree: return 1;
    case ScoreMode::kBlend: return static_cast<float>(damping_) * mass_[source] / n;
    case ScoreMode::kTopical:
      return static_cast<float>(damping_) * (mass_[source] + std::max(0.f, content_score)) / n;
    default: return 0;
  }
}

void ScorePolicy::Receive(uint32_t id, float share) {
  switch (mode_) {
    case ScoreMode::kOpic:
    case ScoreMode::kInDegree: keys_[id] += share; break;
    case ScoreMode::kBlend:
      mass_[id] += share;
      keys_[id] = SeedFloor(id, Blended(id));
      break;
    case ScoreMode::kTopical:
      mass_[id] += share;
      if (keys_[id] > 0) keys_[id] += static_cast<float>(kTopicalMassWeight) * share;
      break;
    default: break;
  }
}

void ScorePolicy::AddSeed(uint32_t id) {
  if ((!blend() && !topical()) || !seeds_.insert(id).second) return;
  mass_[id] += static_cast<float>(1 - damping_);
}

float ScorePolicy::Blended(uint32_t id) const {
  const double seeds = static_cast<double>(std::max<size_t>(1, seeds_.size()));
  return static_cast<float>(kBlendRankWeight * rank_[id] +
                            (1 - kBlendRankWeight) * mass_[id] / seeds);
}

void ScorePolicy::PushMass(uint32_t source, std::span<const uint32_t> targets,
                           float content_score) {
  const auto n = static_cast<float>(targets.size());
  if (topical()) {
    const float mass =
        static_cast<float>(damping_) * (mass_[source] + std::max(0.f, content_score)) / n;
    for (uint32_t t : targets) {
      mass_[t] += mass;
      if (keys_[t] > 0) keys_[t] += static_cast<float>(kTopicalMassWeight) * mass;
    }
    return;
  }
  const float mass = static_cast<float>(damping_) * mass_[source] / n;
  const float rank = rank_[source] / n;
  for (uint32_t t : targets) {
    mass_[t] += mass;
    if (t >= ranked_pages_) rank_[t] += rank;
    keys_[t] = SeedFloor(t, Blended(t));
  }
}

namespace {

// InitialKeys' answer when the keys did not come from stored ranks.
constexpr std::optional<int64_t> kNotRanked;

// Replays what the online modes push at a page's first crawl: visit(page) for each page,
// then push(id, out-links) for each crawled page with out-links, in the order of first
// crawls.
template <typename Visit, typename Push>
Status ReplayFirstCrawls(const Snapshot& snapshot, Visit&& visit, Push&& push) {
  std::vector<std::pair<int64_t, uint32_t>> order;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    visit(page);
    if (page.crawled()) order.emplace_back(page.first_crawl_ms, page.id);
    return Status::Ok();
  }));
  std::sort(order.begin(), order.end());
  for (const auto& [when, id] : order) {
    CRAWLRANK_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, snapshot.Links(id));
    if (!targets.empty()) push(id, targets);
  }
  return Status::Ok();
}

}  // namespace

Status ScorePolicy::ReplayMass(const Snapshot& snapshot, std::span<const float> received) {
  // The topical mode's mass carries each source's content score.
  std::vector<float> content(topical() ? keys_.size() : 0, 0.f);
  CRAWLRANK_RETURN_IF_ERROR(ReplayFirstCrawls(
      snapshot,
      [&](const PageRecord& page) {
        if (page.depth == 0) AddSeed(page.id);
        if (page.id < received.size()) mass_[page.id] += received[page.id];
        if (topical()) content[page.id] = std::max(0.f, page.content_score);
      },
      [&](uint32_t id, const std::vector<uint32_t>& targets) {
        const float from = mass_[id] + (topical() ? content[id] : 0.f);
        const float share = static_cast<float>(damping_) * from / static_cast<float>(targets.size());
        for (uint32_t t : targets) mass_[t] += share;
      }));
  if (topical()) return Status::Ok();  // the keys come with the link scores (KeyOf)
  for (size_t id = 0; id < keys_.size(); ++id) keys_[id] = Blended(static_cast<uint32_t>(id));
  return Status::Ok();
}

Result<std::optional<int64_t>> ScorePolicy::InitialKeys(const PageDb& db,
                                                        const Snapshot& snapshot) {
  // What other nodes of a cluster passed to this node's pages, counted first: the replay
  // adds what this node's own pages pass.
  std::vector<float> received;
  if (Pushes()) {
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachReceivedShare([&](uint32_t id, float share) {
      if (id < keys_.size()) {
        if (received.size() <= id) received.resize(keys_.size(), 0.f);
        received[id] = share;
      }
      return Status::Ok();
    }));
  }
  switch (mode_) {
    case ScoreMode::kInDegree:
      for (size_t id = 0; id < received.size(); ++id) keys_[id] += received[id];
      CRAWLRANK_RETURN_IF_ERROR(snapshot.ScanEdges([&](EdgeChunk& chunk) {
        for (uint32_t t : chunk.targets) keys_[t] += 1;
        return Status::Ok();
      }));
      return kNotRanked;
    case ScoreMode::kOpic: {
      // Replays the cash flow: seeds start with one, each crawled page passes its cash on
      // at its first crawl, in the order of first crawls.
      CRAWLRANK_RETURN_IF_ERROR(ReplayFirstCrawls(
          snapshot,
          [&](const PageRecord& page) {
            if (page.depth == 0) keys_[page.id] = 1;
            if (page.id < received.size()) keys_[page.id] += received[page.id];
          },
          [&](uint32_t id, const std::vector<uint32_t>& targets) {
            const float share = keys_[id] / static_cast<float>(targets.size());
            keys_[id] = 0;
            for (uint32_t t : targets) keys_[t] += share;
          }));
      return kNotRanked;
    }
    case ScoreMode::kBlend: CRAWLRANK_RETURN_IF_ERROR(ReplayMass(snapshot, received)); break;
    case ScoreMode::kTopical:
      CRAWLRANK_RETURN_IF_ERROR(ReplayMass(snapshot, received));
      return kNotRanked;
    default: break;
  }
  if (!ranked_) return kNotRanked;
  auto stored = LoadRank(db.path(), *RankAlgorithmOf(mode_));
  if (!stored.ok()) {
    // None yet: the first re-rank makes one. A damaged file is ranked again too.
    const StatusCode code = stored.status().code();
    if (code == StatusCode::kNotFound || code == StatusCode::kDataLoss) return kNotRanked;
    return stored.status();
  }
  const std::vector<double>& scores = stored->rank.scores;
  if (scores.size() > keys_.size()) return kNotRanked;  // not of this DB: rank again
  for (size_t id = 0; id < scores.size(); ++id) keys_[id] = RankKey(static_cast<uint32_t>(id), scores[id]);
  ranked_pages_ = scores.size();
  loaded_graph_ = stored->graph;
  return std::optional<int64_t>(stored->created_ms);
}

}  // namespace crawlrank
