#include "dashboard/dashboard_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "crawlrank/best_pages.h"
#include "crawlrank/clock.h"
#include "crawlrank/global_rank.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/node_list.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/scheduler.h"
#include "crawlrank/url.h"
#include "dashboard/html.h"
#include "page_db/crawl_counters.h"
#include "page_db/schedule_table.h"
#include "schedule/url_filter.h"

namespace crawlrank::dashboard {
namespace {

// Pages neither crawled nor failed.
uint64_t ToDo(const CrawlCounters& c) {
  return c.pages - std::min(c.pages, c.crawled_pages + c.failed_pages);
}

Json CountersJson(const CrawlCounters& c) {
  Json fetches = Json::object(), failures = Json::object();
  for (size_t i = 0; i < kStatusClasses; ++i) {
    fetches[std::string(StatusClassName(static_cast<StatusClass>(i)))] = c.fetches[i];
  }
  ForEachFailureKind([&](FailureKind kind) {
    if (c.failures_of(kind) != 0) failures[std::string(FailureKindName(kind))] = c.failures_of(kind);
  });
  return Json{{"pages", c.pages},
              {"crawled_pages", c.crawled_pages},
              {"failed_pages", c.failed_pages},
              {"to_do", ToDo(c)},
              {"fetches", c.fetches_total()},
              {"fetches_by_class", fetches},
              {"failures", c.failures_total()},
              {"failures_by_kind", failures},
              {"wire_bytes", c.wire_bytes},
              {"decoded_bytes", c.decoded_bytes},
              {"fetch_ms", c.fetch_ms}};
}

Json SampleJson(const ProgressSample& s) {
  return Json{{"time_ms", s.time_ms},          {"crawled_pages", s.crawled_pages},
              {"fetches", s.fetches},          {"failures", s.failures},
              {"wire_bytes", s.wire_bytes},    {"queued", s.queued},
              {"in_flight", s.in_flight}};
}

// The crawl's stored configuration as the views apply it (crawl_config.h): which hosts are
// in its scope, and the delay between two requests to a host without a longer one of its
// own. A DB without one stored has every host in scope, and no delay known but the hosts'
// own (a front end that stores none, such as a Python Scheduler, chose its delay itself).
class StoredScope {
 public:
  static Result<StoredScope> Read(const PageDb& db) {
    StoredScope scope;
    CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig config, db.ReadConfig());
    CRAWLRANK_ASSIGN_OR_RETURN(const SchedulerOptions options, StoredSchedulerOptions(db));
    if (config.contains("delay_ms")) scope.default_delay_ms_ = options.delay_ms;
    if (options.scope != CrawlScope::kAny) {
      SchedulerOptions only_scope;  // the scope alone: patterns and schemes are per page
      only_scope.scope = options.scope;
      only_scope.scope_hosts = options.scope_hosts;
      CRAWLRANK_ASSIGN_OR_RETURN(UrlFilter filter, UrlFilter::Compile(only_scope));
      scope.filter_.emplace(std::move(filter));
    }
    return scope;
  }
  // Whether pages of `host` (a counters key: the URL's host) may be fetched by the crawl.
  bool InScope(std::string_view host) const {
    return !filter_.has_value() ||
           filter_->Judge("http://" + std::string(host) + "/") != UrlFilter::Verdict::kOutOfScope;
  }
  bool scoped() const { return filter_.has_value(); }
  int64_t default_delay_ms() const { return default_delay_ms_; }

 private:
  std::optional<UrlFilter> filter_;
  int64_t default_delay_ms_ = 0;
};

// A host's row of the hosts view. Every host gets one, to be sorted; only the rows shown
// are written as JSON (with 100,000 hosts, building every row's JSON took most of the time).
struct HostRow {
  std::string host;  // valid UTF-8
  CrawlCounters counters;
  uint64_t in_flight = 0;
  const HostEntry* entry = nullptr;  // null: the scheduler keeps none
  bool in_scope = true;              // the stored scope's (StoredScope)
  int64_t delay_ms = 0;              // in force: its crawl delay, or the default when longer
};

// Pages of a row still to be fetched: none for a host outside the scope.
uint64_t ToDo(const HostRow& r) { return r.in_scope ? ToDo(r.counters) : 0; }

Json HostJson(const HostRow& r) {
  const HostEntry none;
  const HostEntry& e = r.entry != nullptr ? *r.entry : none;
  Json row = CountersJson(r.counters);
  row["host"] = r.host;
  row["to_do"] = ToDo(r);
  row["in_scope"] = r.in_scope;
  row["out_of_scope"] = r.in_scope ? 0 : ToDo(r.counters);
  row["in_flight"] = r.in_flight;
  row["delay_ms"] = r.delay_ms;
  row["crawl_delay_ms"] = e.crawl_delay_ms;  // robots.txt's (0: none)
  row["hold_until_ms"] = e.hold_until_ms;
  row["robots_bytes"] = e.robots.size();
  row["group"] = ValidUtf8(e.group);
  row["page_limit"] = e.page_limit;
  return row;
}

// Column `key` of a row as HostJson writes it, for a column of numbers (kHostColumns but
// "host").
double HostNumber(const HostRow& r, std::string_view key) {
  const CrawlCounters& c = r.counters;
  if (key == "pages") return c.pages;
  if (key == "crawled_pages") return c.crawled_pages;
  if (key == "failed_pages") return c.failed_pages;
  if (key == "to_do") return ToDo(r);
  if (key == "in_flight") return r.in_flight;
  if (key == "fetches") return c.fetches_total();
  if (key == "failures") return c.failures_total();
  if (key == "wire_bytes") return c.wire_bytes;
  if (key == "decoded_bytes") return c.decoded_bytes;
  if (key == "fetch_ms") return c.fetch_ms;
  if (key == "delay_ms") return r.delay_ms;
  return r.entry == nullptr ? 0 : r.entry->hold_until_ms;
}

// Sorts `rows` by column `key` (the host as text, the rest as numbers), ties by host.
void SortRows(std::vector<HostRow>& rows, std::string_view key, bool descending) {
  const bool by_host = key == "host";
  std::vector<double> value(rows.size());
  if (!by_host) {
    for (size_t i = 0; i < rows.size(); ++i) value[i] = HostNumber(rows[i], key);
  }
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (value[a] != value[b]) return descending ? value[a] > value[b] : value[a] < value[b];
    const int c = rows[a].host.compare(rows[b].host);
    return by_host && descending ? c > 0 : c < 0;
  });
  std::vector<HostRow> sorted;
  sorted.reserve(rows.size());
  for (size_t i : order) sorted.push_back(std::move(rows[i]));
  rows = std::move(sorted);
}

// The crawl's guidance against a rank: after each number of pages fetched (in the order
// of their first fetch), the share of the rank's mass on them. At most 200 points; the
// ideal (the best pages first) beside it.
Result<Json> GuidanceCurve(const PageDb& db, const std::vector<double>& scores) {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  std::vector<std::pair<int64_t, double>> fetched;  // (first crawl ms, score)
  double total = 0;
  for (double s : scores) total += std::isfinite(s) && s > 0 ? s : 0;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    if (page.crawled() && page.id < scores.size()) {
      const double s = scores[page.id];
      fetched.emplace_back(page.first_crawl_ms, std::isfinite(s) && s > 0 ? s : 0);
    }
    return Status::Ok();
  }));
  std::stable_sort(fetched.begin(), fetched.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> best;
  best.reserve(scores.size());
  for (double s : scores) best.push_back(std::isfinite(s) && s > 0 ? s : 0);
  std::sort(best.begin(), best.end(), std::greater<>());
  Json points = Json::array();
  const size_t n = fetched.size();
  const size_t step = std::max<size_t>(1, n / 200);
  double mass = 0, ideal = 0;
  for (size_t i = 0; i < n; ++i) {
    mass += fetched[i].second;
    ideal += i < best.size() ? best[i] : 0;
    if ((i + 1) % step == 0 || i + 1 == n) {
      points.push_back({{"pages", i + 1},
                        {"share", total > 0 ? mass / total : 0.0},
                        {"ideal", total > 0 ? ideal / total : 0.0}});
    }
  }
  return Json{{"fetched", n}, {"points", std::move(points)}};
}

constexpr std::string_view kHostColumns[] = {
    "host", "pages", "crawled_pages", "failed_pages", "to_do", "in_flight", "fetches",
    "failures", "wire_bytes", "decoded_bytes", "fetch_ms", "delay_ms", "hold_until_ms"};

}  // namespace

Result<Json> DashboardData::ClusterOf(const StoredConfig& config) {
  const auto nodes = config.find(std::string(kClusterNodesKey));
  const auto node = config.find(std::string(kClusterNodeKey));
  if (nodes == config.end() || node == config.end()) return Json(nullptr);
  CRAWLRANK_ASSIGN_OR_RETURN(const NodeList list, NodeList::Parse(nodes->second, node->second));
  return Json{{"node", list.self()},
              {"index", list.self_index()},
              {"nodes", list.size()},
              {"list", list.Joined()}};
}

Result<Json> DashboardData::Summary() const {
  CRAWLRANK_ASSIGN_OR_RETURN(PageDbInfo info, db_.Info());
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(const CrawlCounters totals, snapshot.CrawlTotals());
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<ProgressSample> last,
                             snapshot.Progress(0, 2));
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig config, snapshot.Config());
  Result<Json> cluster = ClusterOf(config);
  // The pages of this PageDB's crawl: a node's ghosts (pages other nodes own) left out.
  Json summary{{"path", ValidUtf8(info.path)},
               {"format_version", info.format_version},
               {"cluster", cluster.ok() ? *std::move(cluster) : Json(nullptr)},
               {"now_ms", UnixNowMs()},
               {"pages", snapshot.counters().pages - totals.ghost_pages},
               {"ghost_pages", totals.ghost_pages},
               {"crawled_pages", snapshot.counters().crawled_pages},
               {"links", snapshot.counters().edges},
               {"file_bytes", info.file_bytes},
               {"counters", CountersJson(totals)}};
  // A scoped crawl's pages on hosts outside its scope are never to be fetched: one pass
  // over the hosts' counters splits them off (page_db_stats counts them the same way).
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredScope scope, StoredScope::Read(db_));
  uint64_t out_of_scope = 0;
  if (scope.scoped()) {
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachHostTotals([&](std::string_view host,
                                                             const CrawlCounters& c) {
      if (!scope.InScope(host)) out_of_scope += ToDo(c);
      return Status::Ok();
    }));
  }
  const uint64_t to_do = ToDo(totals) - std::min(ToDo(totals), out_of_scope);
  summary["counters"]["to_do"] = to_do;
  summary["counters"]["out_of_scope"] = out_of_scope;
  CRAWLRANK_ASSIGN_OR_RETURN(summary["state"], State(snapshot, totals, to_do, config, info.created_ms));
  Json stored = Json::object();
  for (const auto& [key, value] : config) stored[ValidUtf8(key)] = ValidUtf8(value);
  summary["config"] = std::move(stored);
  if (last.empty()) {
    summary["last_sample"] = nullptr;
  } else {
    summary["last_sample"] = SampleJson(last.back());
  }
  if (last.size() == 2 && last[1].time_ms > last[0].time_ms) {
    const double s = static_cast<double>(last[1].time_ms - last[0].time_ms) / 1000;
    summary["rates"] = {
        {"fetches_per_s", static_cast<double>(last[1].fetches - last[0].fetches) / s},
        {"failures_per_s", static_cast<double>(last[1].failures - last[0].failures) / s},
        {"wire_bytes_per_s", static_cast<double>(last[1].wire_bytes - last[0].wire_bytes) / s}};
  } else {
    summary["rates"] = nullptr;
  }
  return summary;
}

Result<Json> DashboardData::Progress(int64_t since_ms) const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<ProgressSample> samples,
                             snapshot.Progress(since_ms, 10'000));
  Json out = Json::array();
  for (const ProgressSample& s : samples) out.push_back(SampleJson(s));
  return Json{{"samples", std::move(out)}};
}

Result<Json> DashboardData::Hosts(const HostsQuery& query) const {
  if (std::find(std::begin(kHostColumns), std::end(kHostColumns), query.sort) ==
      std::end(kHostColumns)) {
    std::string names;
    for (std::string_view c : kHostColumns) names += (names.empty() ? "" : ", ") + std::string(c);
    return InvalidArgumentError("hosts: no column \"" + ValidUtf8(query.sort) + "\" to sort by (" +
                                names + ")");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  // Politeness state and pages in flight, by host key (the scheduler's tables).
  const ScheduleTables tables(db_);
  std::unordered_map<std::string, HostEntry> entries;
  std::unordered_map<std::string, uint64_t> in_flight;
  if (tables.Present()) {
    CRAWLRANK_RETURN_IF_ERROR(tables.ForEachHost(snapshot, [&](std::string_view key, HostEntry& e) {
      entries.emplace(std::string(key), std::move(e));
      return Status::Ok();
    }));
    CRAWLRANK_RETURN_IF_ERROR(tables.ForEachEntry(snapshot, [&](uint32_t id, ScheduleEntry& e) {
      if (e.state != EntryState::kLeased) return Status::Ok();
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord page, snapshot.FindId(id));
      ++in_flight[CounterHostOf(page.url)];  // keyed as the counters are
      return Status::Ok();
    }));
  }
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredScope scope, StoredScope::Read(db_));
  std::vector<HostRow> rows;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachHostTotals([&](std::string_view host,
                                                           const CrawlCounters& c) {
    HostRow row{ValidUtf8(host), c};
    const auto flying = in_flight.find(std::string(host));
    if (flying != in_flight.end()) row.in_flight = flying->second;
    const auto entry = entries.find(std::string(host));
    if (entry != entries.end()) row.entry = &entry->second;
    row.in_scope = scope.InScope(host);
    row.delay_ms = std::max(scope.default_delay_ms(),
                            row.entry != nullptr ? row.entry->crawl_delay_ms : 0);
    rows.push_back(std::move(row));
    return Status::Ok();
  }));
  SortRows(rows, query.sort, query.descending);
  Json out{{"hosts", rows.size()}, {"sort", query.sort}, {"descending", query.descending}};
  Json shown = Json::array();
  const size_t limit = std::min(query.limit, kMaxRows);
  out["offset"] = query.offset;
  out["limit"] = limit;  // rows a page shows: what the view pages by
  for (size_t i = query.offset; i < rows.size() && shown.size() < limit; ++i) {
    shown.push_back(HostJson(rows[i]));
  }
  out["rows"] = std::move(shown);
  return out;
}

Result<Json> DashboardData::Failures(const std::string& kind, const std::string& host,
                                     size_t limit) const {
  FailureFilter filter;
  if (!kind.empty()) {
    const std::optional<FailureKind> parsed = ParseFailureKind(kind);
    if (!parsed) return InvalidArgumentError("failures: no failure kind \"" + ValidUtf8(kind) + "\"");
    filter.kind = parsed;
  }
  filter.host = host;
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<FailedPage> failed,
                             Scheduler::FailedPages(db_, snapshot, filter));
  std::stable_sort(failed.begin(), failed.end(), [](const FailedPage& a, const FailedPage& b) {
    return a.failed_ms > b.failed_ms;
  });
  Json rows = Json::array();
  for (const FailedPage& f : failed) {
    if (rows.size() >= std::min(limit, kMaxRows)) break;
    rows.push_back({{"id", f.id},
                    {"url", ValidUtf8(f.url)},
                    {"kind", FailureKindName(f.kind)},
                    {"detail", ValidUtf8(f.detail)},
                    {"http_status", f.http_status},
                    {"attempts", f.attempts},
                    {"failed_ms", f.failed_ms}});
  }
  return Json{{"failed", failed.size()}, {"rows", std::move(rows)}};
}

namespace {

// The pages a list of the rank `name` shows: the display rank's, those fetched with a 2xx
// answer (as crawlrank top and the crawl's summary); any other rank's, every page.
BestPagesFilter ShownFilter(std::string_view name) {
  BestPagesFilter filter;
  filter.pages = name == kDisplayRankName ? PagesShown::kFetchedOk : PagesShown::kAny;
  return filter;
}

}  // namespace

Result<std::shared_ptr<const DashboardData::RankView>> DashboardData::LoadRankView(
    const std::string& name, RankAlgorithm algorithm) const {
  const std::string path = RankFilePath(db_.path(), name);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return NotFoundError("no " + name + " rank stored (crawlrank rank " + db_.path() +
                         " --algo " + name + ")");
  }
  const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  {
    std::lock_guard lock(ranks_mu_);
    const auto it = ranks_.find(name);
    if (it != ranks_.end() && it->second->file_mtime_ns == mtime &&
        it->second->file_size == static_cast<uint64_t>(st.st_size)) {
      return it->second;
    }
  }
  CRAWLRANK_ASSIGN_OR_RETURN(StoredRank stored, LoadRank(db_.path(), name, algorithm));
  auto view = std::make_shared<RankView>();
  view->file_mtime_ns = mtime;
  view->file_size = static_cast<uint64_t>(st.st_size);
  const std::vector<double>& scores = stored.rank.scores;
  view->meta = {{"algorithm", name},
                {"created_ms", stored.created_ms},
                {"pages", scores.size()},
                {"cross_host_only", stored.cross_host_only}};
  if (stored.graph) {
    view->meta["graph"] = {{"pages", stored.graph->pages},
                           {"links", stored.graph->edges},
                           {"crawled_pages", stored.graph->crawled_pages}};
  }
  if (const auto& g = stored.global; g.has_value()) {  // a cluster's global rank
    view->meta["global"] = {{"run", g->run_id},
                            {"node", g->shard},
                            {"nodes", g->shards},
                            {"pages", g->total.pages},
                            {"links", g->total.edges},
                            {"crawled_pages", g->total.crawled_pages}};
  }
  // The best pages as the lists everywhere take them (best_pages.h): the display rank's
  // are the pages fetched with a 2xx answer. Top checks each again in its own snapshot.
  {
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
    BestPagesFilter filter = ShownFilter(name);
    // A node of a cluster shows its own pages: its ghosts are their owners' to show.
    CRAWLRANK_ASSIGN_OR_RETURN(filter.excluded, Scheduler::GhostPages(db_, snapshot));
    CRAWLRANK_ASSIGN_OR_RETURN(std::vector<BestPage> best,
                               BestPages(snapshot, scores, kMaxRows, filter));
    for (const BestPage& page : best) view->best.emplace_back(page.record.id, page.score);
  }
  // The distribution: pages per tenth of a decade of score, zero scores apart.
  std::map<int, uint64_t> bins;
  uint64_t zeros = 0;
  for (double s : scores) {
    if (!(s > 0) || !std::isfinite(s)) {
      ++zeros;
      continue;
    }
    ++bins[static_cast<int>(std::floor(std::log10(s) * 10))];
  }
  Json histogram = Json::array();
  for (const auto& [bin, count] : bins) {
    histogram.push_back({{"score", std::pow(10.0, (bin + 0.5) / 10)}, {"pages", count}});
  }
  view->histogram = {{"bins", std::move(histogram)}, {"zero", zeros}};
  CRAWLRANK_ASSIGN_OR_RETURN(view->guidance, GuidanceCurve(db_, scores));
  std::lock_guard lock(ranks_mu_);
  ranks_[name] = view;
  return std::shared_ptr<const RankView>(view);
}

Result<Json> DashboardData::Top(const std::string& by, size_t n) const {
  // "display", an algorithm, or a cluster's global rank ("global-pagerank").
  Result<StoredRankName> parsed = ParseStoredRankName(by);
  if (!parsed.ok()) {
    return InvalidArgumentError("top: " + ValidUtf8(parsed.status().message()));
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::shared_ptr<const RankView> view,
                             LoadRankView(parsed->file, parsed->algorithm));
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  Json out = view->meta;
  out["age_ms"] = UnixNowMs() - view->meta["created_ms"].get<int64_t>();
  out["pages_now"] = snapshot.counters().pages;
  out["links_now"] = snapshot.counters().edges;
  const BestPagesFilter shown = ShownFilter(by);
  Json rows = Json::array();
  for (const auto& [id, score] : view->best) {
    if (rows.size() >= std::min(n, kMaxRows)) break;
    Result<PageRecord> page = snapshot.FindId(id);
    if (!page.ok()) continue;  // a rank of a bigger DB (restored from elsewhere)
    if (!TakesPage(shown, *page)) {
      continue;  // a page of the display rank answered other than 2xx since
    }
    rows.push_back({{"id", id},
                    {"url", ValidUtf8(page->url)},
                    {"score", score},
                    {"crawled", page->crawled()},
                    {"http_status", page->http_status}});
  }
  out["rows"] = std::move(rows);
  out["histogram"] = view->histogram;
  out["guidance"] = view->guidance;
  return out;
}

Result<Json> DashboardData::Page(std::optional<uint32_t> id, const std::string& url) const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  Result<PageRecord> found = id ? snapshot.FindId(*id) : snapshot.FindUrl(url);
  if (!found.ok()) return found.status();
  const PageRecord& page = *found;
  Json out{{"id", page.id},
           {"url", ValidUtf8(page.url)},
           {"depth", page.depth},
           {"first_crawl_ms", page.first_crawl_ms},
           {"last_crawl_ms", page.last_crawl_ms},
           {"crawls", page.n_crawls},
           {"changes", page.n_changes},
           {"http_status", page.http_status},
           {"errors", page.n_errors},
           {"link_score", page.link_score},
           {"content_score", page.content_score}};
  Result<FetchInfo> fetch = snapshot.FetchOf(page.id);
  if (fetch.ok()) {
    out["fetch"] = {{"content_type", ValidUtf8(fetch->content_type)},
                    {"wire_bytes", fetch->wire_bytes},
                    {"decoded_bytes", fetch->decoded_bytes},
                    {"fetch_ms", fetch->fetch_ms},
                    {"title", ValidUtf8(fetch->title)}};
  } else if (fetch.status().code() == StatusCode::kNotFound) {
    out["fetch"] = nullptr;
  } else {
    return fetch.status();
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<uint32_t> links, snapshot.Links(page.id));
  Json out_links = Json::array();
  for (uint32_t target : links) {
    if (out_links.size() >= kMaxRows) break;
    CRAWLRANK_ASSIGN_OR_RETURN(PageRecord to, snapshot.FindId(target));
    out_links.push_back({{"id", target}, {"url", ValidUtf8(to.url)}, {"crawled", to.crawled()}});
  }
  out["out_links"] = links.size();
  out["links"] = std::move(out_links);
  // In-links: the sources that list this page, from one pass over the links.
  std::vector<uint32_t> sources;
  uint64_t in_links = 0;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ScanEdges([&](const EdgeChunk& chunk) {
    uint32_t begin = 0;
    for (size_t i = 0; i < chunk.size(); ++i) {
      const auto first = chunk.targets.begin() + begin;
      const auto last = chunk.targets.begin() + chunk.ends[i];
      if (std::binary_search(first, last, page.id)) {  // each list is sorted
        ++in_links;
        if (sources.size() < kMaxRows) sources.push_back(chunk.sources[i]);
      }
      begin = chunk.ends[i];
    }
    return Status::Ok();
  }));
  Json in = Json::array();
  for (uint32_t source : sources) {
    CRAWLRANK_ASSIGN_OR_RETURN(PageRecord from, snapshot.FindId(source));
    in.push_back({{"id", source}, {"url", ValidUtf8(from.url)}, {"crawled", from.crawled()}});
  }
  out["in_links"] = in_links;
  out["linked_from"] = std::move(in);
  return out;
}

}  // namespace crawlrank::dashboard
