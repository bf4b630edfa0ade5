#include "crawlrank/broken_links.h"

#include <algorithm>
#include <unordered_map>

#include "crawlrank/scheduler.h"

namespace crawlrank {
namespace {

bool IsBrokenStatus(uint16_t status) { return status >= 400 && status <= 599; }

}  // namespace

Result<std::vector<BrokenPage>> FindBrokenPages(const PageDb& db, const Snapshot& snapshot) {
  std::vector<BrokenPage> broken;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    if (page.crawled() && IsBrokenStatus(page.http_status)) {
      broken.push_back({page.id, page.url, page.http_status, false, {}});
    }
    return Status::Ok();
  }));
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<FailedPage> failed,
                             Scheduler::FailedPages(db, snapshot));
  for (const FailedPage& page : failed) {
    if (IsBrokenStatus(page.http_status)) {
      broken.push_back({page.id, page.url, page.http_status, true, {}});
    }
  }
  std::unordered_map<uint32_t, size_t> index;
  for (size_t i = 0; i < broken.size(); ++i) index.emplace(broken[i].id, i);
  if (!index.empty()) {
    EdgeCursor cursor = snapshot.Edges();
    for (; cursor.Valid(); cursor.Next()) {
      for (uint32_t target : cursor.targets()) {
        if (const auto it = index.find(target); it != index.end()) {
          broken[it->second].referrers.push_back(cursor.source());
        }
      }
    }
    CRAWLRANK_RETURN_IF_ERROR(cursor.status());
  }
  std::sort(broken.begin(), broken.end(), [](const BrokenPage& x, const BrokenPage& y) {
    return x.referrers.size() != y.referrers.size() ? x.referrers.size() > y.referrers.size()
                                                    : x.url < y.url;
  });
  return broken;
}

}  // namespace crawlrank
