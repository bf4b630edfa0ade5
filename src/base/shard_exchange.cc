// LocalShardGroup (crawlrank/shard_exchange.h): N participants as threads of one process.
// Each collective posts what a member sends, meets the others at a barrier, copies what is
// addressed to it from their posts, and meets them again before anyone reuses a buffer.
#include "crawlrank/shard_exchange.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <numeric>

namespace crawlrank {

struct LocalShardGroup::State {
  class Member;
  struct Post {
    std::span<const uint64_t> words, counts;
    std::string_view text;
  };

  explicit State(uint32_t n);
  // Blocks until every member has called it as many times as this one.
  void Barrier() {
    std::unique_lock lock(mutex);
    const uint64_t generation = this->generation;
    if (++arrived == posts.size()) {
      arrived = 0;
      ++this->generation;
      all_arrived.notify_all();
      return;
    }
    all_arrived.wait(lock, [&] { return this->generation != generation; });
  }

  std::mutex mutex;
  std::condition_variable all_arrived;
  size_t arrived = 0;
  uint64_t generation = 0;
  std::vector<Post> posts;  // by member; each member writes its own between barriers
  std::vector<std::unique_ptr<Member>> members;
};

class LocalShardGroup::State::Member final : public ShardExchange {
 public:
  Member(State& group, uint32_t index) : group_(group), index_(index) {}
  uint32_t shard() const override { return index_; }
  uint32_t shards() const override { return static_cast<uint32_t>(group_.posts.size()); }

  Status AllToAll(std::span<const uint64_t> send, std::span<const uint64_t> send_counts,
                  std::span<uint64_t> receive, std::span<const uint64_t> receive_counts) override {
    const uint32_t n = shards();
    Status status = Status::Ok();
    if (send_counts.size() != n || receive_counts.size() != n ||
        std::accumulate(send_counts.begin(), send_counts.end(), uint64_t{0}) != send.size() ||
        std::accumulate(receive_counts.begin(), receive_counts.end(), uint64_t{0}) !=
            receive.size()) {
      status = InvalidArgumentError("all-to-all on shard " + std::to_string(index_) +
                                    ": the buffers do not fit the counts");
      send = {};
      send_counts = {};
    }
    group_.posts[index_].words = send;
    group_.posts[index_].counts = send_counts;
    group_.Barrier();
    uint64_t at = 0;
    for (uint32_t j = 0; j < n && status.ok(); ++j) {
      const Post& from = group_.posts[j];
      if (from.counts.size() != n || from.counts[index_] != receive_counts[j]) {
        status = InvalidArgumentError("all-to-all: shard " + std::to_string(j) + " sends " +
                                      std::to_string(from.counts.empty() ? 0 : from.counts[index_]) +
                                      " words to shard " + std::to_string(index_) +
                                      ", which expects " + std::to_string(receive_counts[j]));
        break;
      }
      const uint64_t offset =
          std::accumulate(from.counts.begin(), from.counts.begin() + index_, uint64_t{0});
      std::copy_n(from.words.begin() + static_cast<ptrdiff_t>(offset), receive_counts[j],
                  receive.begin() + static_cast<ptrdiff_t>(at));
      at += receive_counts[j];
    }
    group_.Barrier();
    return status;
  }

  Result<std::vector<std::string>> AllGather(std::string_view mine) override {
    group_.posts[index_].text = mine;
    group_.Barrier();
    std::vector<std::string> all;
    all.reserve(group_.posts.size());
    for (const Post& post : group_.posts) all.emplace_back(post.text);
    group_.Barrier();
    return all;
  }

 private:
  State& group_;
  const uint32_t index_;
};

LocalShardGroup::State::State(uint32_t n) : posts(n) {
  for (uint32_t i = 0; i < n; ++i) members.push_back(std::make_unique<Member>(*this, i));
}

LocalShardGroup::LocalShardGroup(uint32_t shards)
    : state_(std::make_unique<State>(std::max(shards, 1u))) {}
LocalShardGroup::~LocalShardGroup() = default;

uint32_t LocalShardGroup::shards() const {
  return static_cast<uint32_t>(state_->posts.size());
}

ShardExchange& LocalShardGroup::member(uint32_t i) {
  return *state_->members.at(i);
}

}  // namespace crawlrank
