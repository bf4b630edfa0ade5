#include "schedule/reranker.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <sys/stat.h>

#include "crawlrank/global_rank.h"
#include "crawlrank/rank_store.h"
#include "page_db/page_db_impl.h"
#include "page_db/write_txn.h"

namespace crawlrank {

Reranker::Reranker(PageDb& db, const SchedulerOptions& options, RankAlgorithm algorithm,
                   const Clock& clock, std::mutex& mu, RerankTarget& target)
    : db_(db), options_(options), algorithm_(algorithm), clock_(clock), mu_(mu), target_(target) {
  if (options.keep_rank_graph && LiveDbRank::Supports(algorithm, RankOptions())) {
    live_.emplace(algorithm, RankOptions());
  }
}

Reranker::~Reranker() {
  Stop();
}

void Reranker::Start() {
  thread_ = std::jthread([this](std::stop_token stop) { Loop(std::move(stop)); });
}

void Reranker::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

bool Reranker::GraphGrown() const {
  if (!(options_.rerank_graph_growth > 0)) return false;
  const uint64_t before = ranked_graph_.edges + ranked_graph_.crawled_pages;
  const uint64_t size = graph_.edges + graph_.crawled_pages;
  if (size <= before) return false;
  const auto grown =
      static_cast<uint64_t>(std::ceil(options_.rerank_graph_growth * static_cast<double>(before)));
  return size - before >= std::max<uint64_t>(options_.rerank_min_graph_growth, grown);
}

namespace {

// The stamp of the file at `path`; nullopt when there is none.
template <typename Stamp>
std::optional<Stamp> StampOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return Stamp{static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
               int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec};
}

constexpr int64_t kGlobalLookMs = 1000;

}  // namespace

bool Reranker::GlobalChanged(int64_t now) const {
  // INT64_MIN: never looked; compared before any arithmetic, which could overflow.
  if (global_checked_ms_ == INT64_MIN || now < global_checked_ms_ ||
      now - global_checked_ms_ >= kGlobalLookMs) {
    global_checked_ms_ = now;
    global_seen_ = StampOf<FileStamp>(RankFilePath(db_.path(), GlobalRankName(algorithm_)));
  }
  return global_seen_ != global_stamp_;
}

Status Reranker::LoadGlobal() {
  const std::string name = GlobalRankName(algorithm_);
  const std::optional<FileStamp> stamp = StampOf<FileStamp>(RankFilePath(db_.path(), name));
  {
    std::lock_guard lock(mu_);
    if (stamp == global_stamp_) return Status::Ok();
  }
  // A file that does not load is not looked at again until it changes: the re-ranks go on
  // with the node's own ranks alone, and say why.
  Status status = Status::Ok();
  std::vector<double> scores;
  if (stamp.has_value()) {
    Result<StoredRank> stored = LoadRank(db_.path(), name, algorithm_);
    if (stored.ok()) {
      scores = std::move(stored->rank.scores);
    } else if (stored.status().code() != StatusCode::kNotFound) {
      status = stored.status();
    }
  }
  global_scores_ = std::move(scores);
  std::lock_guard lock(mu_);
  global_stamp_ = stamp;
  return status;
}

std::vector<double> Reranker::CombineRanks(std::vector<double> local,
                                           std::span<const double> global) {
  const size_t covered = std::min(local.size(), global.size());
  double sum = 0;
  for (size_t i = 0; i < covered; ++i) sum += global[i];
  if (covered == 0 || !(sum > 0)) return local;
  double local_sum = 0;
  for (double x : local) local_sum += x;
  const double scale = local_sum / double(local.size()) * double(covered) / sum;
  for (size_t i = 0; i < covered; ++i) local[i] = global[i] * scale;
  return local;
}

bool Reranker::Due(int64_t now) const {
  if (GraphGrown() || GlobalChanged(now)) return true;
  const uint64_t pages = target_.KnownPages();
  const uint64_t ranked = target_.RankedPages();
  if (pages <= ranked) return false;
  const auto grown =
      static_cast<uint64_t>(std::ceil(options_.rerank_growth * static_cast<double>(ranked)));
  if (pages >= ranked + std::max<uint64_t>(options_.rerank_min_new_pages, grown)) return true;
  return options_.rerank_interval_ms > 0 && now - last_rank_ms_ >= options_.rerank_interval_ms;
}

void Reranker::Relinked(std::span<const uint32_t> pages) {
  relinked_.insert(relinked_.end(), pages.begin(), pages.end());
}

void Reranker::NotifyIfDue(int64_t now) {
  if (Due(now)) wake_.notify_one();
}

void Reranker::AddStats(SchedulerStats* stats) const {
  stats->reranks = reranks_;
  stats->rerank_ms = rerank_us_ / 1000;
  stats->rank_full_reads = full_reads_;
  stats->rerank_error = error_;
  stats->global_rekeys = global_rekeys_;
  stats->global_ranked_pages = global_pages_;
}

DbRankOptions ModeRankOptions(const SchedulerOptions& options) {
  DbRankOptions rank_options;
  rank_options.rank = options.rank;
  rank_options.warm_start = true;
  return rank_options;
}

Status Reranker::RankAndRekey() {
  std::lock_guard one_at_a_time(rank_mu_);
  const auto started = std::chrono::steady_clock::now();
  // Counted whether it succeeds or not: the time was spent.
  struct Timer {
    Reranker& r;
    std::chrono::steady_clock::time_point started;
    ~Timer() {
      const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - started);
      std::lock_guard lock(r.mu_);
      r.rerank_us_ += static_cast<uint64_t>(us.count());
    }
  } timer{*this, started};
  // The rank holds a snapshot for its whole run: grow the map first, so that the writes
  // meanwhile never need to (a growth waits for every snapshot to close).
  CRAWLRANK_RETURN_IF_ERROR(ReserveMapHeadroom(PageDbInternals::Of(db_)));
  const Status global = LoadGlobal().WithContext("the global rank");
  CRAWLRANK_RETURN_IF_ERROR(RankLocalAndRekey());
  return global;
}

Status Reranker::RankLocalAndRekey() {
  const DbRankOptions rank_options = RankOptions();
  if (!live_.has_value()) {
    CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored, RankPageDb(db_, algorithm_, rank_options));
    CountFullReads(1);
    Apply(stored, CombineRanks(std::move(stored.rank.scores), global_scores_));
    return Status::Ok();
  }
  // The snapshot and the pages written before it, taken together: no write commits
  // between them (a write holds the writer's lock from its start to its hook's Committed,
  // which reports to Relinked).
  std::vector<uint32_t> changed;
  CRAWLRANK_ASSIGN_OR_RETURN(std::optional<Snapshot> snapshot, NewSnapshotBetweenWrites(db_, [&] {
                               std::lock_guard lock(mu_);
                               changed.swap(relinked_);
                             }));
  const uint32_t reads_before = live_->full_reads();
  Result<StoredRank> stored = live_->Rank(db_, *snapshot, changed);
  snapshot.reset();
  CountFullReads(live_->full_reads() - reads_before);
  if (!stored.ok()) {
    // Start over from every link next time; out of memory, without a kept graph.
    const bool too_big = stored.status().code() == StatusCode::kResourceExhausted;
    {
      std::lock_guard lock(mu_);
      live_.reset();
      if (!too_big) live_.emplace(algorithm_, rank_options);
      relinked_.clear();
    }
    if (!too_big) return stored.status();
    stored = RankPageDb(db_, algorithm_, rank_options);
    if (!stored.ok()) return stored.status();
    CountFullReads(1);
  }
  Apply(*stored, CombineRanks(std::move(stored->rank.scores), global_scores_));
  return Status::Ok();
}

void Reranker::CountFullReads(uint32_t reads) {
  std::lock_guard lock(mu_);
  full_reads_ += reads;
}

void Reranker::Apply(const StoredRank& stored, std::span<const double> scores) {
  const size_t n = scores.size();
  const size_t batch = std::max<uint32_t>(1, options_.rerank_batch);
  for (size_t first = 0; first < n; first += batch) {
    // A mutex does not queue its waiters: released and taken again at once, it would
    // starve a Next waiting for it for the whole re-key. Step aside between batches.
    if (first > 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
    std::lock_guard lock(mu_);
    target_.Rekey(scores, first, std::min(n, first + batch), clock_.NowMs());
  }
  std::lock_guard lock(mu_);
  last_rank_ms_ = clock_.NowMs();
  ranked_graph_ = stored.graph.value_or(graph_);
  ++reranks_;
  const uint64_t global = std::min(global_scores_.size(), n);
  global_pages_ = global;
  if (global > 0 && global_applied_ != global_stamp_) {
    ++global_rekeys_;
    global_applied_ = global_stamp_;
  }
}

void Reranker::Loop(std::stop_token stop) {
  for (;;) {
    {
      std::unique_lock lock(mu_);
      const auto due = [&] { return Due(clock_.NowMs()); };
      if (options_.rerank_interval_ms > 0) {
        wake_.wait_for(lock, stop, std::chrono::milliseconds(options_.rerank_interval_ms), due);
      } else {
        wake_.wait(lock, stop, due);
      }
      if (stop.stop_requested()) return;
      if (!due()) continue;
    }
    Status status = RankAndRekey();
    std::lock_guard lock(mu_);
    error_ = status.ok() ? std::string() : status.ToString();
    if (!status.ok()) last_rank_ms_ = clock_.NowMs();  // do not retry in a tight loop
  }
}

}  // namespace crawlrank
