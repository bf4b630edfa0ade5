// The score each page is queued by (SchedulerOptions::score): computed when a page joins
// the schedule, pushed along the out-links of a fetched page in the modes that grow as the
// crawl goes (OPIC's cash, in-degree, the rank modes' estimate for pages discovered since
// the last rank, and the blend's RankMass), and replaced by the ranks of a re-rank. It
// keeps the key of every page by id; the page state machine moves heap entries when a key
// changes.
//
// The blend (ScoreMode::kBlend) keeps two parts a page and keys it by
//   kBlendRankWeight x rank + (1 - kBlendRankWeight) x mass / seeds
// rank: the page's share of the last partial PageRank, or for a page discovered since, the
//   estimate the other rank modes give it (what its fetched linkers pass on);
// mass: RankMass (Cho and Schonfeld 2007), a lower bound on the page's PageRank
//   personalized to the seeds: each seed starts with 1 - d, and a page at its first fetch
//   sends d x its mass / out-degree along each out-link. Divided by the seeds, the mass
//   of a crawl sums to at most 1, as the ranks do.
#ifndef CRAWLRANK_SRC_SCHEDULE_SCORE_POLICY_H_
#define CRAWLRANK_SRC_SCHEDULE_SCORE_POLICY_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "crawlrank/score_mode.h"

namespace crawlrank {

// The ranking engine's algorithm behind a mode; nullopt for the online modes.
std::optional<RankAlgorithm> RankAlgorithmOf(ScoreMode mode);

class ScorePolicy {
 public:
  // The rank parts' weight in the blend, against the mass's (docs/scheduler.md, "The
  // default order", measures 0.25 to 0.75).
  static constexpr double kBlendRankWeight = 0.4;
  // The topical mode's mass weight: small, so that the link score decides and the mass
  // breaks ties (unless a page's mass outgrows a gap between link scores ÷ this).
  static constexpr double kTopicalMassWeight = 0.001;

  // `damping`: the blend's RankMass damping (RankOptions::damping).
  explicit ScorePolicy(ScoreMode mode, double damping = 0.85);

  ScoreMode mode() const { return mode_; }
  // A mode from the ranking engine: keys come from re-ranks.
  bool ranked() const { return ranked_; }
  // Modes whose scores grow as pages are fetched: a fetched page pushes score to its
  // out-links.
  bool Pushes() const;

  void Grow(size_t pages) {
    if (keys_.size() < pages) keys_.resize(pages, 0.f);
    if (blend() && rank_.size() < pages) rank_.resize(pages, 0.f);
    if ((blend() || topical()) && mass_.size() < pages) mass_.resize(pages, 0.f);
  }
  bool blend() const { return mode_ == ScoreMode::kBlend; }
  bool topical() const { return mode_ == ScoreMode::kTopical; }
  // The modes keyed by the best link score (link-score, topical): a raise changes the key.
  bool link_keyed() const { return mode_ == ScoreMode::kLinkScore || topical(); }
  // The link-score modes: the best link score of page `id` rose to `score`; returns its key.
  float LinkRaised(uint32_t id, float score) const {
    return topical() ? Topical(id, score) : score;
  }
  float key(uint32_t id) const { return keys_[id]; }
  void set_key(uint32_t id, float key) { keys_[id] = key; }

  // The key a page joining the queue gets.
  float KeyOf(uint32_t id, uint32_t depth, uint64_t fingerprint, float link_score);

  // Rank modes: the key of page `id` ranked `score`. A seed not fetched yet keeps a key of
  // at least 1, above every rank (ranks sum to 1), so that seeds go first after a re-rank
  // as before it; otherwise a seed of a host no fetched page links to took the rank of a
  // page nothing links to, and waited for every other host to be crawled
  // (docs/benchmarks.md, "Crawl order on the graph suite").
  // The blend keeps `score` as the page's rank part.
  float RankKey(uint32_t id, double score) {
    if (blend()) rank_[id] = static_cast<float>(score);
    return SeedFloor(id, blend() ? Blended(id) : static_cast<float>(score));
  }
  // Page `id` is at depth 0, queued or written already crawled: the blend gives a seed its
  // mass the first time.
  void AddSeed(uint32_t id);
  // Page `id` was fetched (a seed no longer waits).
  void Fetched(uint32_t id) {
    if (!waiting_seeds_.empty()) waiting_seeds_.erase(id);
  }

  // Page `source` was fetched for the first time with these out-links: passes its score
  // on, calling rekey(target) for each target whose key changed.
  // `content_score`: the source's (the topical mode's mass carries it).
  template <typename Rekey>
  void PushFrom(uint32_t source, std::span<const uint32_t> targets, Rekey&& rekey,
                float content_score = 0.f) {
    if (targets.empty()) return;
    if (blend() || topical()) {
      PushMass(source, targets, content_score);
      for (uint32_t t : targets) rekey(t);
      return;
    }
    const float share = Share(source, targets.size());
    for (uint32_t t : targets) {
      // Rank modes: only pages the last rank did not cover get an estimate.
      if (ranked_ && t < ranked_pages_) continue;
      keys_[t] += share;
      rekey(t);
    }
  }

  // A node of a cluster. What page `source`, fetched for the first time with `targets`
  // out-links, passes along each (call it before PushFrom, which spends OPIC's cash): the
  // cash of opic, 1 of indegree, the mass of blend and topical; 0 in the other modes,
  // whose scores another node does not take (the rank modes rank each node's graph).
  float ShareOut(uint32_t source, size_t targets, float content_score) const;
  // Page `id` received `share` from another node's page (ShareOut there): added to its
  // cash, in-degree or mass, and its key.
  void Receive(uint32_t id, float share);

  // The keys at open, with the arrays sized to `snapshot`: what the online modes had
  // accumulated (replayed from the DB, with the shares other nodes passed: format version
  // 9), or the ranks stored with the DB. Returns the time
  // the stored ranks were computed, when they were used.
  Result<std::optional<int64_t>> InitialKeys(const PageDb& db, const Snapshot& snapshot);

  // Ids below this have their key from the ranks.
  uint64_t ranked_pages() const { return ranked_pages_; }
  // The graph the stored ranks InitialKeys used were computed over, when it recorded it.
  const std::optional<PageDbCounters>& loaded_graph() const { return loaded_graph_; }
  void MarkRanked(uint64_t end) { ranked_pages_ = std::max(ranked_pages_, end); }

 private:
  // What a fetched page with `targets` out-links passes to each.
  float Share(uint32_t source, size_t targets);
  // The blend's and the topical mode's PushFrom: mass to every target (the topical mode's
  // with the source's content score), the blend's rank estimate to those the last rank did
  // not cover, and their keys.
  void PushMass(uint32_t source, std::span<const uint32_t> targets, float content_score);
  // The topical mode's key of page `id` with best link score `link` (the PageDB keeps it:
  // KeyOf and LinkRaised are given it). A page's key is above 0 exactly when its link
  // score is, so a push adds its share of mass to the keys above 0 only.
  float Topical(uint32_t id, float link) const {
    return link > 0 ? link + static_cast<float>(kTopicalMassWeight) * mass_[id] : link;
  }
  // The blend's key of page `id` from its two parts (SeedFloor not applied).
  float Blended(uint32_t id) const;
  // A seed not fetched yet keeps a key of at least 1 (RankKey).
  float SeedFloor(uint32_t id, float key) const {
    return waiting_seeds_.contains(id) ? std::max(key, 1.f) : key;
  }
  // The blend at open: the mass, replayed from the DB in the order of first crawls.
  Status ReplayMass(const Snapshot& snapshot, std::span<const float> received);

  ScoreMode mode_;
  bool ranked_;
  std::vector<float> keys_;  // by page id: the score it is queued by
  std::unordered_set<uint32_t> waiting_seeds_;  // rank modes: seeds not fetched yet
  double damping_;
  std::vector<float> rank_;  // blend: by page id, the rank part
  std::vector<float> mass_;  // blend: by page id, RankMass from the seeds (before / seeds)
  std::unordered_set<uint32_t> seeds_;  // blend: every page that was ever a seed
  uint64_t ranked_pages_ = 0;
  std::optional<PageDbCounters> loaded_graph_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_SCORE_POLICY_H_
