#include "serve/frontier_queries.h"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/clock.h"
#include "crawlrank/scheduler.h"
#include "crawlrank/url.h"
#include "serve/frontier_items.h"

namespace crawlrank {
namespace {

// The metadata name GetURLStatus and ListURLs set: where the page stands.
constexpr std::string_view kMetaState = "crawlrank.state";

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Which URLs a ListURLs or CountURLs call is about: one queue's or all, and a substring.
class UrlMatcher {
 public:
  UrlMatcher(const SchedulerOptions& options, std::string key, std::string filter,
             bool ignore_case)
      : mode_(options.host_key),
        key_(std::move(key)),
        filter_(std::move(filter)),
        ignore_case_(ignore_case) {
    if (ignore_case_) std::transform(filter_.begin(), filter_.end(), filter_.begin(), Lower);
  }

  bool Matches(std::string_view url) const {
    if (!key_.empty()) {
      Result<std::string> key = HostKey(url, mode_);
      if (!key.ok() || *key != key_) return false;
    }
    if (filter_.empty()) return true;
    if (!ignore_case_) return url.find(filter_) != std::string_view::npos;
    const auto found = std::search(url.begin(), url.end(), filter_.begin(), filter_.end(),
                                   [](char a, char b) { return Lower(a) == b; });
    return found != url.end();
  }

 private:
  HostKeyMode mode_;
  std::string key_;
  std::string filter_;
  bool ignore_case_;
};

const char* StateName(PageState::Kind kind) {
  switch (kind) {
    case PageState::Kind::kQueued: return "queued";
    case PageState::Kind::kLeased: return "leased";
    case PageState::Kind::kRetrying: return "retrying";
    case PageState::Kind::kFailed: return "failed";
    case PageState::Kind::kCrawled: return "crawled";
    case PageState::Kind::kRemoved: return "removed";
    case PageState::Kind::kElsewhere: return "elsewhere";
  }
  return "unknown";
}

// A page as a known item, given where it stands and when it was created.
void FillItem(const PageRecord& page, const PageState& state, const std::string& key,
              int64_t created_ms, int64_t now_ms, urlfrontier::URLItem* item) {
  item->Clear();
  urlfrontier::KnownURLItem* known = item->mutable_known();
  urlfrontier::URLInfo* info = known->mutable_info();
  info->set_url(page.url);
  info->set_key(key);
  info->set_crawlid(std::string(kDefaultCrawlId));
  (*info->mutable_metadata())[std::string(kMetaState)].add_values(StateName(state.kind));
  (*info->mutable_metadata())[std::string(kMetaDepth)].add_values(std::to_string(page.depth));
  int64_t from_ms = 0;  // done: never handed out again
  switch (state.kind) {
    case PageState::Kind::kQueued: from_ms = now_ms; break;
    case PageState::Kind::kLeased:
    case PageState::Kind::kRetrying: from_ms = std::max(state.time_ms, now_ms); break;
    case PageState::Kind::kCrawled:  // due again only at a set time (a fetcher's date)
      if (state.time_ms > 0) from_ms = std::max(state.time_ms, now_ms);
      break;
    case PageState::Kind::kFailed:
    case PageState::Kind::kRemoved:
    case PageState::Kind::kElsewhere: break;
  }
  // Seconds, rounded up: never earlier than the page may go.
  known->set_refetchable_from_date(static_cast<uint64_t>((from_ms + 999) / 1000));
  item->set_creation_date(static_cast<uint64_t>(created_ms / 1000));
  item->set_id(page.url);
}

// Every page of the snapshot `matcher` takes, in id order, but those removed (the crawl no
// longer holds them) and the ghosts (another node does); `fn` returns false to stop.
grpc::Status ForEachMatch(const PageDb& db, const Snapshot& snapshot, const UrlMatcher& matcher,
                          const std::function<bool(const PageRecord&)>& fn) {
  Result<std::vector<uint32_t>> removed = Scheduler::RemovedPages(db, snapshot);
  if (!removed.ok()) return ToGrpc(removed.status().WithContext(db.path()));
  Result<std::vector<uint32_t>> ghosts = Scheduler::GhostPages(db, snapshot);
  if (!ghosts.ok()) return ToGrpc(ghosts.status().WithContext(db.path()));
  bool stopped = false;
  const Status scanned = snapshot.ForEachPage([&](const PageRecord& page) -> Status {
    if (std::binary_search(removed->begin(), removed->end(), page.id) ||
        std::binary_search(ghosts->begin(), ghosts->end(), page.id)) {
      return Status::Ok();
    }
    if (!matcher.Matches(page.url)) return Status::Ok();
    if (fn(page)) return Status::Ok();
    stopped = true;
    return AbortedError("stopped");  // ends the pass
  });
  if (!scanned.ok() && !stopped) return ToGrpc(scanned.WithContext(db.path()));
  return grpc::Status::OK;
}

}  // namespace

grpc::Status ListQueuesOf(const PageDb& db, const SchedulerOptions& options,
                          const urlfrontier::Pagination& request,
                          urlfrontier::QueueList* response) {
  if (grpc::Status crawl = CheckCrawlId(request.crawlid(), "Pagination.crawlID"); !crawl.ok()) {
    return crawl;
  }
  Result<ScheduleView> view =
      Scheduler::Inspect(db, options, 0, std::numeric_limits<size_t>::max());
  if (!view.ok()) return ToGrpc(view.status().WithContext("ListQueues"));
  const uint32_t size = request.size() != 0 ? request.size() : kDefaultListSize;
  uint64_t total = 0;
  for (const ScheduleView::HostState& host : view->hosts) {
    const bool active =
        (host.queued > 0 || host.in_flight > 0) && host.hold_until_ms <= view->now_ms;
    if (!active && !request.include_inactive()) continue;
    if (total >= request.start() && total - request.start() < size) {
      response->add_values(host.key);
    }
    ++total;
  }
  response->set_total(total);
  response->set_start(request.start());
  response->set_size(static_cast<uint32_t>(response->values_size()));
  response->set_crawlid(std::string(kDefaultCrawlId));
  return grpc::Status::OK;
}

grpc::Status ListUrlsOf(const PageDb& db, const SchedulerOptions& options,
                        const urlfrontier::ListUrlParams& request,
                        const std::function<bool(const urlfrontier::URLItem&)>& write) {
  if (grpc::Status crawl = CheckCrawlId(request.crawlid(), "ListUrlParams.crawlID"); !crawl.ok()) {
    return crawl;
  }
  Result<Snapshot> snapshot = db.NewSnapshot();
  if (!snapshot.ok()) return ToGrpc(snapshot.status());
  const UrlMatcher matcher(options, request.key(), request.filter(), request.ignorecase());
  const uint32_t size = std::min(request.size() != 0 ? request.size() : kDefaultListSize,
                                 kMaxListSize);
  // The page of matches first, then their states in one pass over the schedule.
  std::vector<PageRecord> pages;
  uint64_t seen = 0;
  grpc::Status listed = ForEachMatch(db, *snapshot, matcher, [&](const PageRecord& page) {
    if (seen++ < request.start()) return true;
    pages.push_back(page);
    return pages.size() < size;
  });
  if (!listed.ok()) return listed;
  Result<std::vector<PageState>> states = Scheduler::StatesOf(db, *snapshot, pages);
  if (!states.ok()) return ToGrpc(states.status().WithContext("ListURLs"));
  Result<std::vector<CreationMark>> marks = snapshot->CreationMarks();
  if (!marks.ok()) return ToGrpc(marks.status().WithContext("ListURLs"));
  const int64_t now_ms = UnixNowMs();
  urlfrontier::URLItem item;
  for (size_t i = 0; i < pages.size(); ++i) {
    Result<std::string> key = HostKey(pages[i].url, options.host_key);
    FillItem(pages[i], (*states)[i], key.ok() ? *key : std::string(),
             CreatedMs(*marks, pages[i].id), now_ms, &item);
    if (!write(item)) break;
  }
  return grpc::Status::OK;
}

grpc::Status CountUrlsOf(const PageDb& db, const SchedulerOptions& options,
                         const urlfrontier::CountUrlParams& request, urlfrontier::Long* response) {
  if (grpc::Status crawl = CheckCrawlId(request.crawlid(), "CountUrlParams.crawlID");
      !crawl.ok()) {
    return crawl;
  }
  Result<Snapshot> snapshot = db.NewSnapshot();
  if (!snapshot.ok()) return ToGrpc(snapshot.status());
  const UrlMatcher matcher(options, request.key(), request.filter(), request.ignorecase());
  uint64_t count = 0;
  grpc::Status counted = ForEachMatch(db, *snapshot, matcher, [&](const PageRecord&) {
    ++count;
    return true;
  });
  response->set_value(count);
  return counted;
}

grpc::Status UrlStatusOf(const PageDb& db, const SchedulerOptions& options,
                         const urlfrontier::URLStatusRequest& request,
                         urlfrontier::URLItem* response) {
  if (grpc::Status crawl = CheckCrawlId(request.crawlid(), "URLStatusRequest.crawlID");
      !crawl.ok()) {
    return crawl;
  }
  Result<std::string> url = ClientUrl(request.url(), db.url_profile(), "URLStatusRequest.url");
  if (!url.ok()) return ToGrpc(url.status());
  Result<std::string> key = HostKey(*url, options.host_key);
  if (!key.ok()) return ToGrpc(key.status().WithContext("URLStatusRequest.url"));
  const auto not_found = [&] {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "URLStatusRequest: " + QuoteForMessage(*url) + " is not in the crawl" +
                            (request.key().empty() ? "" : " under the queue " +
                                                              QuoteForMessage(request.key())));
  };
  if (!request.key().empty() && request.key() != *key) return not_found();
  Result<Snapshot> snapshot = db.NewSnapshot();
  if (!snapshot.ok()) return ToGrpc(snapshot.status());
  Result<PageRecord> page = snapshot->FindUrl(*url);
  if (!page.ok()) {
    if (page.status().code() == StatusCode::kNotFound) return not_found();
    return ToGrpc(page.status().WithContext("URLStatusRequest " + QuoteForMessage(*url)));
  }
  Result<std::vector<PageState>> state = Scheduler::StatesOf(db, *snapshot, {&*page, 1});
  if (!state.ok()) return ToGrpc(state.status().WithContext("URLStatusRequest"));
  if (state->front().kind == PageState::Kind::kRemoved ||
      state->front().kind == PageState::Kind::kElsewhere) {
    return not_found();
  }
  Result<std::vector<CreationMark>> marks = snapshot->CreationMarks();
  if (!marks.ok()) return ToGrpc(marks.status().WithContext("URLStatusRequest"));
  FillItem(*page, state->front(), *key, CreatedMs(*marks, page->id), UnixNowMs(), response);
  return grpc::Status::OK;
}

}  // namespace crawlrank
