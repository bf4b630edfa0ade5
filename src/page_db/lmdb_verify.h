// Structural verification of an LMDB data file, done without trusting it.
//
// liblmdb trusts its file: a damaged B-tree page (a node offset, a key size, a child page
// number) makes it read outside the page and, near the end of the map, fault. This walker
// reads data.mdb with pread into its own buffers, never through LMDB's map, and checks
// every page it visits against LMDB 0.9's layout (lmdb.h's data version 1): the page
// header, every node's bounds, key order and key ranges under each branch, child and
// overflow page numbers, tree depth, and (for a full walk) that every page up to the last
// is reached exactly once, by a table or by the free list, and the per-table page and entry
// counts LMDB keeps. A structure that passes can be read by LMDB without faulting.
//
// The walk follows the snapshot of read transaction `txn`, which pins its pages for the
// walk even while a writer in another process commits.
#ifndef CRAWLRANK_SRC_LMDB_VERIFY_H_
#define CRAWLRANK_SRC_LMDB_VERIFY_H_

#include <lmdb.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "crawlrank/status.h"

namespace crawlrank::lmdb {

enum class VerifyScope {
  // The meta pages, the root of every table, and per table the first, the last and
  // `kSampledPaths` random root-to-leaf paths: a few hundred page reads at most.
  kSample,
  // Every page of every table, the free list, and the accounting of all pages.
  kFull,
};

inline constexpr int kSampledPaths = 16;

// Verifies the structure of `data_path`, the data.mdb of the environment `txn` reads, as
// that transaction sees it; with kSample, the tables named in `whole_tables` are walked
// whole all the same. DataLoss naming the page and what is wrong with it; Unavailable when
// a writer moved on twice while the meta pages were read (try again).
Status VerifyStructure(MDB_txn* txn, const std::string& data_path, VerifyScope scope,
                       std::span<const std::string_view> whole_tables = {});

// A data.mdb shorter than the last page its environment `env` committed (at `path`, the
// PageDB's directory): DataLoss naming the sizes.
Status CheckFileSize(MDB_env* env, const std::string& path);

}  // namespace crawlrank::lmdb

#endif  // CRAWLRANK_SRC_LMDB_VERIFY_H_
