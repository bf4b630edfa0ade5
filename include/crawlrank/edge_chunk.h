// crawlrank/edge_chunk.h: a run of links in the form the PageDB streams them and the rank
// kernels read them.
//
// The PageDB (page_db.h, Snapshot::ScanEdges) produces chunks and the ranking layer
// (edge_source.h, rank.h) consumes them; this header is the one thing both share, so that
// the PageDB needs nothing from the ranking layer. It depends on the standard library and
// status.h alone.
//
// Thread safety: a chunk is a plain value; one thread at a time may change it.
#ifndef CRAWLRANK_EDGE_CHUNK_H_
#define CRAWLRANK_EDGE_CHUNK_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank {

// A run of consecutive source pages (in increasing id order, each at most once) with their
// targets, laid out like a small CSR: the targets of sources[i] are
// targets[ends[i-1] .. ends[i]) (ends[-1] taken as 0). A source without links may be
// absent. A sink may swap the vectors out to keep them (the source refills whatever it
// gets back), which lets a pipeline decode the next chunk while the last is used.
struct EdgeChunk {
  std::vector<uint32_t> sources;
  std::vector<uint32_t> ends;
  std::vector<uint32_t> targets;

  void Clear() {
    sources.clear();
    ends.clear();
    targets.clear();
  }
  size_t size() const { return sources.size(); }
  std::span<const uint32_t> TargetsOf(size_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends[i - 1];
    return {targets.data() + begin, ends[i] - begin};
  }
};

// Called with each chunk of a pass, in order; a non-OK status stops the pass.
using EdgeChunkSink = std::function<Status(EdgeChunk&)>;

}  // namespace crawlrank

#endif  // CRAWLRANK_EDGE_CHUNK_H_
