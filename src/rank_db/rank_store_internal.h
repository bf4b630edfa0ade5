// Private to rank_store.cc and its tests and fuzz target: the rank file reader over bytes.
#ifndef CRAWLRANK_SRC_RANK_STORE_INTERNAL_H_
#define CRAWLRANK_SRC_RANK_STORE_INTERNAL_H_

#include <string>
#include <string_view>

#include "crawlrank/rank_store.h"

namespace crawlrank {

// Decodes the bytes of a whole rank file as LoadRank does (LoadRank reads the file through
// the same decoder): the same checks, statuses and messages, with `path` naming the file.
Result<StoredRank> ParseRankFile(std::string_view bytes, RankAlgorithm algorithm,
                                 const std::string& path);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_RANK_STORE_INTERNAL_H_
