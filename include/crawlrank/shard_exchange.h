// crawlrank/shard_exchange.h: the collective calls a rank over several shards makes
// (global_rank.h), as one interface: MPI's in the job crawlrank_rank_mpi (docs/cluster.md),
// threads of one process in the tests and the crawl simulator (LocalShardGroup).
//
// A computation over N shards runs as N participants, one per shard, each calling the
// same collectives in the same order with its own part. Every call returns once every
// participant has made it (or fails on every one: a participant that dies ends the job).
//
// Thread safety: one participant is one thread of control; an object serves one
// participant.
#ifndef CRAWLRANK_SHARD_EXCHANGE_H_
#define CRAWLRANK_SHARD_EXCHANGE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank {

class ShardExchange {
 public:
  virtual ~ShardExchange() = default;

  // This participant's shard, in [0, shards()).
  virtual uint32_t shard() const = 0;
  virtual uint32_t shards() const = 0;

  // All-to-all of 8-byte words: `send` holds send_counts[0] words for shard 0, then
  // send_counts[1] for shard 1, ... (this shard's own part included); `receive` gets the
  // words each shard sent to this one, in shard order, receive_counts[j] of them from j.
  // The counts must match what the other side sends (callers exchange them first when
  // they do not know them). InvalidArgument when the spans do not fit the counts.
  virtual Status AllToAll(std::span<const uint64_t> send, std::span<const uint64_t> send_counts,
                          std::span<uint64_t> receive,
                          std::span<const uint64_t> receive_counts) = 0;

  // Every participant's `mine`, in shard order: the same vector on every shard.
  virtual Result<std::vector<std::string>> AllGather(std::string_view mine) = 0;
};

// N participants in one process, one thread each (tests, the crawl simulator). Every
// member's calls block until the other members make theirs; a member that never comes
// blocks the rest, so each member must run to the end of the computation.
class LocalShardGroup {
 public:
  explicit LocalShardGroup(uint32_t shards);
  ~LocalShardGroup();
  LocalShardGroup(const LocalShardGroup&) = delete;
  LocalShardGroup& operator=(const LocalShardGroup&) = delete;

  uint32_t shards() const;
  // The participant of shard `i` (< shards()); lives as long as the group.
  ShardExchange& member(uint32_t i);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SHARD_EXCHANGE_H_
