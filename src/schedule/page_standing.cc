#include "crawlrank/page_standing.h"

#include "crawlrank/scheduler.h"
#include "schedule/url_filter.h"

namespace crawlrank {

std::string PageStandings::NameOf(uint32_t id) const {
  switch (by_id.at(id)) {
    case PageStanding::kPending: return "pending";
    case PageStanding::kCrawled: return "crawled";
    case PageStanding::kFailed: {
      const auto it = failures.find(id);
      const FailureKind kind = it == failures.end() ? FailureKind::kOther : it->second;
      return "failed:" + std::string(FailureKindName(kind));
    }
    case PageStanding::kRemoved: return "removed";
    case PageStanding::kOutOfScope: return "out_of_scope";
    case PageStanding::kFiltered: return "filtered";
    case PageStanding::kElsewhere: return "elsewhere";
  }
  return "pending";
}

Result<PageStandings> ReadPageStandings(const PageDb& db, const Snapshot& snapshot,
                                        const SchedulerOptions& options) {
  CRAWLRANK_ASSIGN_OR_RETURN(const UrlFilter filter, UrlFilter::Compile(options));
  PageStandings out;
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<FailedPage> failed,
                             Scheduler::FailedPages(db, snapshot));
  for (const FailedPage& page : failed) out.failures.emplace(page.id, page.kind);
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<uint32_t> removed,
                             Scheduler::RemovedPages(db, snapshot));
  out.by_id.assign(snapshot.counters().pages, PageStanding::kPending);
  for (uint32_t id : removed) {
    if (id < out.by_id.size()) out.by_id[id] = PageStanding::kRemoved;
  }
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<uint32_t> ghosts,
                             Scheduler::GhostPages(db, snapshot));
  for (uint32_t id : ghosts) {
    if (id < out.by_id.size()) out.by_id[id] = PageStanding::kElsewhere;
  }
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    if (page.id >= out.by_id.size()) return Status::Ok();  // (a count the snapshot outgrew)
    PageStanding& standing = out.by_id[page.id];
    if (page.crawled()) {
      standing = PageStanding::kCrawled;
    } else if (out.failures.contains(page.id)) {
      standing = PageStanding::kFailed;
    } else if (standing == PageStanding::kRemoved || standing == PageStanding::kElsewhere) {
      // stays so
    } else if (const UrlFilter::Verdict verdict = filter.Judge(page.url);
               verdict == UrlFilter::Verdict::kOutOfScope) {
      standing = PageStanding::kOutOfScope;
    } else if (verdict == UrlFilter::Verdict::kFiltered ||
               (options.max_depth != 0 && page.depth > options.max_depth)) {
      standing = PageStanding::kFiltered;
    }
    return Status::Ok();
  }));
  return out;
}

}  // namespace crawlrank
