// Writing a generated graph into a fresh PageDB, for the benchmarks that rank one.
#ifndef CRAWLRANK_BENCHMARKS_GRAPH_DB_H_
#define CRAWLRANK_BENCHMARKS_GRAPH_DB_H_

#include <algorithm>
#include <string>
#include <vector>

#include "bench_util.h"
#include "crawlrank/page_db.h"

namespace crawlrank::bench {

// Writes pages 0 .. pages-1 (url_of(p): the page's URL), then every page's links
// (links_of(p, targets) fills `targets`, increasing page ids), in batches, without fsync.
template <typename UrlOf, typename LinksOf>
void WriteGraphDb(const std::string& path, uint32_t pages, UrlOf&& url_of, LinksOf&& links_of) {
  PageDbOptions options;
  options.durability = Durability::kNone;
  auto db = Check(PageDb::Open(path, options));
  constexpr uint32_t kBatch = 20000;
  for (uint32_t first = 0; first < pages; first += kBatch) {
    WriteBatch batch;
    for (uint32_t p = first; p < std::min(pages, first + kBatch); ++p) {
      PageRecord record;
      record.url = url_of(p);
      record.fingerprint = UrlFingerprint(record.url);
      record.id = p;
      batch.RestorePage(std::move(record));
    }
    Check(db->Write(batch));
  }
  std::vector<uint32_t> targets;
  for (uint32_t first = 0; first < pages; first += kBatch) {
    WriteBatch batch;
    for (uint32_t p = first; p < std::min(pages, first + kBatch); ++p) {
      links_of(p, targets);
      if (!targets.empty()) batch.RestoreLinks(p, targets);
    }
    Check(db->Write(batch));
  }
  Check(db->Sync());
}

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_GRAPH_DB_H_
