// crawlrank/edge_source.h: where the rank kernels get their edges from.
//
// An EdgeSource is a directed graph over dense page ids 0 .. num_pages()-1 that can be
// read any number of times, one full pass at a time, in increasing source order. The
// ranking kernels (rank.h) know nothing else about where edges live:
//   - SnapshotEdgeSource streams a PageDB read snapshot (memory O(1) beyond a chunk);
//   - EdgeListSource streams a text file of `src dst` id pairs;
//   - rank.h builds an in-memory CSR from any source when the memory budget allows.
// Every pass over one source delivers the same edges in the same order. The chunks a pass
// delivers (EdgeChunk, EdgeChunkSink) are declared in edge_chunk.h, which the PageDB shares.
#ifndef CRAWLRANK_EDGE_SOURCE_H_
#define CRAWLRANK_EDGE_SOURCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "crawlrank/edge_chunk.h"
#include "crawlrank/status.h"

namespace crawlrank {

class Snapshot;

class EdgeSource {
 public:
  virtual ~EdgeSource() = default;
  // Page ids run from 0 to num_pages() - 1; every target is below num_pages().
  virtual uint32_t num_pages() const = 0;
  // Number of edges one pass delivers.
  virtual uint64_t num_links() const = 0;
  // Delivers every edge once, in chunks of increasing source ids. DataLoss (naming where)
  // when the underlying data is damaged.
  virtual Status Scan(const EdgeChunkSink& sink) = 0;
};

// The links of a PageDB snapshot. The snapshot must outlive this source; every pass
// reads the same snapshot, so concurrent writes to the DB are not seen. A Snapshot comes
// from page_db.h, which this header does not include: ranking needs no PageDB otherwise.
class SnapshotEdgeSource final : public EdgeSource {
 public:
  explicit SnapshotEdgeSource(const Snapshot& snapshot);
  uint32_t num_pages() const override;
  uint64_t num_links() const override;
  Status Scan(const EdgeChunkSink& sink) override;

 private:
  const Snapshot& snapshot_;
};

// A text edge list, `src dst` page ids per line separated by spaces or tabs; blank lines
// and lines starting with '#' are skipped. Open() reads the file once to check every line
// and count pages (the largest id + 1, or `min_pages` if larger); each pass re-reads it.
// Each source's lines must be together, sources in increasing order; repeats count once.
class EdgeListSource final : public EdgeSource {
 public:
  // InvalidArgument naming the line for an unreadable line or one whose sources are not
  // in increasing order (sort with `sort -n -k1,1 -s` first); NotFound / IoError when the
  // file cannot be read.
  static Result<EdgeListSource> Open(const std::string& path, uint32_t min_pages = 0);
  uint32_t num_pages() const override { return pages_; }
  uint64_t num_links() const override { return links_; }
  Status Scan(const EdgeChunkSink& sink) override;

 private:
  EdgeListSource(std::string path, uint32_t pages, uint64_t links)
      : path_(std::move(path)), pages_(pages), links_(links) {}
  std::string path_;
  uint32_t pages_;
  uint64_t links_;
};

// An in-memory edge list (tests, small graphs, callers with their own data). Pairs need
// not be sorted or unique; the constructor sorts them and drops repeats.
class VectorEdgeSource final : public EdgeSource {
 public:
  VectorEdgeSource(uint32_t num_pages, std::vector<std::pair<uint32_t, uint32_t>> edges);
  uint32_t num_pages() const override { return pages_; }
  uint64_t num_links() const override { return edges_.size(); }
  Status Scan(const EdgeChunkSink& sink) override;

 private:
  uint32_t pages_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
};

// The edges of `inner` whose endpoints lie in different groups (`group[id]`, e.g. a host
// number per page). A source whose links all stay inside its group becomes dangling: its
// same-group links are dropped, never kept. `group` must have inner.num_pages() entries.
class CrossGroupEdgeSource final : public EdgeSource {
 public:
  CrossGroupEdgeSource(EdgeSource& inner, std::vector<uint32_t> group);
  uint32_t num_pages() const override { return inner_.num_pages(); }
  // Counted on the first pass; inner.num_links() until then.
  uint64_t num_links() const override { return links_; }
  Status Scan(const EdgeChunkSink& sink) override;

 private:
  EdgeSource& inner_;
  std::vector<uint32_t> group_;
  uint64_t links_;
  EdgeChunk filtered_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_EDGE_SOURCE_H_
