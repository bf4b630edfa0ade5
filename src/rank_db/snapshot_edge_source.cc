// SnapshotEdgeSource (edge_source.h): the links of a PageDB snapshot as an edge source.
// It lives here, beside db_rank.cc, rather than with the other sources in src/rank/,
// because it is the one source that reads a PageDB: the kernels stay free of the DB.
#include "crawlrank/edge_source.h"
#include "crawlrank/page_db.h"

namespace crawlrank {

SnapshotEdgeSource::SnapshotEdgeSource(const Snapshot& snapshot) : snapshot_(snapshot) {}

uint32_t SnapshotEdgeSource::num_pages() const {
  return static_cast<uint32_t>(snapshot_.counters().pages);
}

uint64_t SnapshotEdgeSource::num_links() const {
  return snapshot_.counters().edges;
}

Status SnapshotEdgeSource::Scan(const EdgeChunkSink& sink) {
  return snapshot_.ScanEdges(sink);
}

}  // namespace crawlrank
