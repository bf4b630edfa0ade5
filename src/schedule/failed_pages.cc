#include "schedule/failed_pages.h"

#include "crawlrank/scheduler.h"
#include "page_db/schedule_table.h"

namespace crawlrank {

Result<FailureMatcher> FailureMatcher::Make(const FailureFilter& filter, UrlProfile profile) {
  FailureMatcher m;
  m.kind_ = filter.kind;
  m.host_ = filter.host;
  if (!filter.url_regex.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(UrlPattern pattern, UrlPattern::Compile(filter.url_regex));
    m.regex_.emplace(std::move(pattern));
  }
  for (const std::string& url : filter.urls) {
    Result<std::string> canonical = CanonicalizeUrl(url, profile);
    if (!canonical.ok()) {
      return InvalidArgumentError("URL \"" + url + "\": " + canonical.status().message());
    }
    m.urls_.insert(std::move(*canonical));
  }
  return m;
}

bool FailureMatcher::Matches(std::string_view url, FailureKind kind) const {
  if (kind_.has_value() && *kind_ != kind) return false;
  if (!urls_.empty() && urls_.count(std::string(url)) == 0) return false;
  if (!host_.empty()) {
    const Result<std::string> host = HostKey(url);
    if (!host.ok() || *host != host_) return false;
  }
  return !regex_.has_value() || regex_->Search(url);
}

Result<std::vector<FailedPage>> Scheduler::FailedPages(const PageDb& db,
                                                       const FailureFilter& filter) {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  return FailedPages(db, snapshot, filter);
}

Result<std::vector<FailedPage>> Scheduler::FailedPages(const PageDb& db, const Snapshot& snapshot,
                                                       const FailureFilter& filter) {
  CRAWLRANK_ASSIGN_OR_RETURN(const FailureMatcher matcher,
                             FailureMatcher::Make(filter, db.url_profile()));
  std::vector<FailedPage> out;
  const ScheduleTables tables(db);
  if (!tables.Present()) return out;  // format version 2: nothing failed is kept
  CRAWLRANK_RETURN_IF_ERROR(
      tables.ForEachEntry(snapshot, [&](uint32_t id, ScheduleEntry& entry) -> Status {
        if (entry.state != EntryState::kFailed) return Status::Ok();
        CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, snapshot.FindId(id));
        if (!matcher.Matches(record.url, entry.kind)) return Status::Ok();
        out.push_back({std::move(record.url), id, entry.kind, std::move(entry.reason),
                       entry.http_status, entry.failures, entry.failed_ms});
        return Status::Ok();
      }));
  return out;
}

}  // namespace crawlrank
