// The dashboard as a console (issue #48): the crawl's state, the latest fetches, search,
// broken links and one host's politeness state, each read from one snapshot.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <unordered_map>

#include "crawl/robots_cache.h"
#include "crawlrank/broken_links.h"
#include "crawlrank/clock.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/page_standing.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/robots.h"
#include "crawlrank/scheduler.h"
#include "crawlrank/url.h"
#include "dashboard/dashboard_data.h"
#include "dashboard/html.h"
#include "page_db/schedule_table.h"

namespace crawlrank::dashboard {
namespace {

// The process that holds the writer lock of the PageDB at `path` (its flock on
// writer.lock, as /proc/locks lists it), 0 when none does, -1 when it cannot be told (no
// /proc). Read-only: taking the lock to test it would refuse a writer starting meanwhile.
int64_t WriterPid(const std::string& path) {
  struct stat st;
  if (::stat((path + "/writer.lock").c_str(), &st) != 0) return 0;
  std::ifstream locks("/proc/locks");
  if (!locks) return -1;
  char device[64];
  std::snprintf(device, sizeof device, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  const std::string inode = ":" + std::to_string(st.st_ino);
  int64_t same_inode = 0;
  std::string line;
  while (std::getline(locks, line)) {
    // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF"; a waiter's line has "->".
    char kind[16], mode[16], access[16], where[64];
    long long pid = 0;
    if (line.find("->") != std::string::npos ||
        std::sscanf(line.c_str(), "%*d: %15s %15s %15s %lld %63s", kind, mode, access, &pid,
                    where) != 5 ||
        std::string_view(kind) != "FLOCK" || std::string_view(access) != "WRITE") {
      continue;
    }
    if (std::string_view(where) == device) return pid;
    // A file system that names its devices otherwise there than stat does (an overlay):
    // the inode alone.
    if (std::string_view(where).ends_with(inode)) same_inode = pid;
  }
  return same_inode;
}

std::string FailureName(const RecentFetch& e) {
  return e.failed ? std::string(FailureKindName(e.kind)) : std::string();
}

Json PageLink(const Snapshot& snapshot, uint64_t fingerprint) {
  if (fingerprint == 0) return nullptr;
  Result<PageRecord> page = snapshot.Find(fingerprint);
  return page.ok() ? Json(ValidUtf8(page->url)) : Json(nullptr);
}

// Whether the schedule's host key `key` (a host, or a registered domain) covers `host`:
// the host itself or one of its subdomains, never a longer name that merely ends alike.
bool KeyCovers(std::string_view key, std::string_view host) {
  return host == key || (host.size() > key.size() && host.ends_with(key) &&
                         host[host.size() - key.size() - 1] == '.');
}

// The robots.txt entry the crawler keeps for `url`'s origin, from the host entries of the
// schedule (their keys are the URLs' hosts or registered domains, so only those whose key
// ends the URL's host are decoded); nullopt when none is kept.
struct KeptRobots {
  std::string origin;
  RobotsEntry entry;
};
std::optional<KeptRobots> RobotsOf(const std::unordered_map<std::string, HostEntry>& hosts,
                                   std::string_view url) {
  const std::string origin = OriginOf(url);
  const Result<std::string> host = HostKey(url, HostKeyMode::kHost);
  if (!host.ok()) return std::nullopt;
  std::optional<KeptRobots> found;
  for (const auto& [key, entry] : hosts) {
    if (entry.robots.empty() || !KeyCovers(key, *host)) continue;
    DecodeRobotsState(entry.robots, [&](std::string_view o, RobotsEntry e) {
      if (o == origin) found = KeptRobots{std::string(o), std::move(e)};
    });
    if (found) break;
  }
  return found;
}

Json RulesJson(const RobotsRules& rules) {
  Json out = Json::array();
  for (const RobotsRules::Rule& rule : rules.rules()) {
    out.push_back({{"allow", rule.allow}, {"pattern", ValidUtf8(rule.pattern)}});
  }
  return out;
}

Json RobotsJson(const KeptRobots& kept) {
  const RobotsEntry& e = kept.entry;
  Json sitemaps = Json::array();
  for (const std::string& s : e.rules.sitemaps()) sitemaps.push_back(ValidUtf8(s));
  return {{"origin", ValidUtf8(kept.origin)},
          {"status", e.status},
          {"fetched_ms", e.fetched_ms},
          {"expires_ms", e.expires_ms},
          {"usable", e.usable()},
          {"failures", e.failures},
          {"detail", ValidUtf8(e.detail)},
          {"crawl_delay_ms", e.rules.crawl_delay_ms() ? Json(*e.rules.crawl_delay_ms()) : Json()},
          {"rules", RulesJson(e.rules)},
          {"sitemaps", std::move(sitemaps)}};
}

// The rule that decides `url` under what is kept, as a search shows it.
Json RobotsVerdict(const std::unordered_map<std::string, HostEntry>& hosts, std::string_view url) {
  const std::optional<KeptRobots> kept = RobotsOf(hosts, url);
  if (!kept) return nullptr;
  Json out{{"origin", ValidUtf8(kept->origin)}, {"status", kept->entry.status}};
  if (!kept->entry.usable()) {
    out["allowed"] = false;
    out["rule"] = "robots.txt unreachable: every page waits (RFC 9309 2.3.1.4)";
    return out;
  }
  const RobotsRules::Rule* rule = kept->entry.rules.Deciding(RobotsPath(url));
  out["allowed"] = rule == nullptr || rule->allow;
  out["rule"] = rule == nullptr ? Json(nullptr)
                                : Json(std::string(rule->allow ? "Allow: " : "Disallow: ") +
                                       ValidUtf8(rule->pattern));
  return out;
}

}  // namespace

Result<Json> DashboardData::State(const Snapshot& snapshot, const CrawlCounters& totals,
                                  uint64_t to_do, const StoredConfig& config,
                                  int64_t created_ms) const {
  const int64_t now = UnixNowMs();
  const int64_t pid = WriterPid(db_.path());
  // The crawl's rate: pages crawled over the last minute of samples (seven at the default
  // ten-second interval).
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<ProgressSample> recent,
                             snapshot.Progress(0, 7));
  double pages_per_s = 0;
  if (recent.size() >= 2 && recent.back().time_ms > recent.front().time_ms) {
    pages_per_s = static_cast<double>(recent.back().crawled_pages - recent.front().crawled_pages) *
                  1000 / static_cast<double>(recent.back().time_ms - recent.front().time_ms);
  }
  // What is left: the pages to do in scope, and no more than --max-pages allows (it counts
  // the pages handed out: crawled, failed or in flight).
  uint64_t left = to_do;
  if (const auto it = config.find("max_pages"); it != config.end()) {
    const uint64_t max = std::strtoull(it->second.c_str(), nullptr, 10);
    const uint64_t handed = totals.crawled_pages + totals.failed_pages;
    if (max > 0) left = std::min(left, max - std::min(max, handed));
  }
  const int64_t last_ms = recent.empty() ? created_ms : recent.back().time_ms;
  std::string state = pid > 0 ? "running" : left == 0 ? "finished" : "stopped";
  if (pid < 0) state = "unknown";
  Json out{{"state", state},
           {"writer_pid", pid > 0 ? Json(pid) : Json(nullptr)},
           {"created_ms", created_ms},
           {"last_sample_ms", recent.empty() ? Json(nullptr) : Json(recent.back().time_ms)},
           {"elapsed_ms", std::max<int64_t>(0, (pid > 0 ? now : last_ms) - created_ms)},
           {"left", left},
           {"pages_per_s", pages_per_s}};
  out["eta_ms"] = pid > 0 && pages_per_s > 0 && left > 0
                      ? Json(static_cast<int64_t>(std::ceil(static_cast<double>(left) * 1000 /
                                                            pages_per_s)))
                      : Json(nullptr);
  return out;
}

Result<Json> DashboardData::Recent(uint64_t after, size_t n) const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<RecentFetch> fetches,
                             snapshot.RecentFetches(after, std::min<size_t>(n, kRecentFetches)));
  Json rows = Json::array();
  for (const RecentFetch& e : fetches) {
    Result<PageRecord> page = snapshot.FindId(e.page);
    if (!page.ok()) return page.status();
    rows.push_back({{"seq", e.seq},
                    {"time_ms", e.time_ms},
                    {"id", e.page},
                    {"url", ValidUtf8(page->url)},
                    {"http_status", e.http_status},
                    {"wire_bytes", e.wire_bytes},
                    {"decoded_bytes", e.decoded_bytes},
                    {"fetch_ms", e.fetch_ms},
                    {"content_type", ValidUtf8(e.content_type)},
                    {"referrer", PageLink(snapshot, page->discovered_from)},
                    {"failure", e.failed ? Json(FailureName(e)) : Json(nullptr)}});
  }
  const uint64_t latest = fetches.empty() ? after : fetches.front().seq;
  return Json{{"latest", latest}, {"rows", std::move(rows)}};
}

namespace {

// What a search shows beside each page found: where it stands, why it failed, its links
// in, the robots.txt entries kept, and the stored ranks' scores.
struct SearchContext {
  PageStandings standings;
  std::vector<uint64_t> in_links;  // by place in the pages found
  std::unordered_map<uint32_t, FailedPage> failed;
  std::unordered_map<std::string, HostEntry> hosts;  // those that keep robots.txt state
  std::vector<std::pair<std::string, std::vector<double>>> ranks;
};

Result<SearchContext> ReadSearchContext(const PageDb& db, const Snapshot& snapshot,
                                        const std::vector<PageRecord>& found) {
  SearchContext c;
  CRAWLRANK_ASSIGN_OR_RETURN(const SchedulerOptions options, StoredSchedulerOptions(db));
  CRAWLRANK_ASSIGN_OR_RETURN(c.standings, ReadPageStandings(db, snapshot, options));
  std::unordered_map<uint32_t, size_t> index;
  for (size_t i = 0; i < found.size(); ++i) index.emplace(found[i].id, i);
  c.in_links.assign(found.size(), 0);
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ScanEdges([&](const EdgeChunk& chunk) {
    for (uint32_t target : chunk.targets) {
      if (const auto it = index.find(target); it != index.end()) ++c.in_links[it->second];
    }
    return Status::Ok();
  }));
  if (!c.standings.failures.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(std::vector<FailedPage> all, Scheduler::FailedPages(db, snapshot));
    for (FailedPage& f : all) {
      if (index.contains(f.id)) c.failed.emplace(f.id, std::move(f));
    }
  }
  if (const ScheduleTables tables(db); tables.Present()) {
    CRAWLRANK_RETURN_IF_ERROR(tables.ForEachHost(snapshot, [&](std::string_view key, HostEntry& e) {
      if (!e.robots.empty()) c.hosts.emplace(std::string(key), std::move(e));
      return Status::Ok();
    }));
  }
  std::vector<std::pair<std::string, RankAlgorithm>> names = {
      {std::string(kDisplayRankName), RankAlgorithm::kPageRank}};
  for (const std::string_view name : RankAlgorithmNames()) {
    if (const Result<RankAlgorithm> algorithm = ParseRankAlgorithm(name); algorithm.ok()) {
      names.emplace_back(std::string(name), *algorithm);
    }
  }
  for (const auto& [name, algorithm] : names) {
    Result<StoredRank> stored = LoadRank(db.path(), name, algorithm);
    if (stored.ok()) c.ranks.emplace_back(name, std::move(stored->rank.scores));
  }
  return c;
}

// One page found, as a search's JSON row.
Result<Json> SearchRow(const Snapshot& snapshot, const SearchContext& c, const PageRecord& page,
                       uint64_t in_links, bool exact) {
  Json row{{"id", page.id},
           {"url", ValidUtf8(page.url)},
           {"exact", exact},
           {"state", page.id < c.standings.by_id.size() ? c.standings.NameOf(page.id) : "pending"},
           {"http_status", page.http_status},
           {"crawls", page.n_crawls},
           {"last_crawl_ms", page.last_crawl_ms},
           {"depth", page.depth},
           {"referrer", PageLink(snapshot, page.discovered_from)},
           {"failure", nullptr},
           {"fetch", nullptr}};
  if (const auto f = c.failed.find(page.id); f != c.failed.end()) {
    row["failure"] = {{"kind", FailureKindName(f->second.kind)},
                      {"detail", ValidUtf8(f->second.detail)},
                      {"attempts", f->second.attempts},
                      {"failed_ms", f->second.failed_ms}};
  }
  Result<FetchInfo> fetch = snapshot.FetchOf(page.id);
  if (fetch.ok()) {
    row["fetch"] = {{"content_type", ValidUtf8(fetch->content_type)},
                    {"wire_bytes", fetch->wire_bytes},
                    {"fetch_ms", fetch->fetch_ms},
                    {"title", ValidUtf8(fetch->title)}};
  } else if (fetch.status().code() != StatusCode::kNotFound) {
    return fetch.status();
  }
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<uint32_t> out, snapshot.Links(page.id));
  row["out_links"] = out.size();
  row["in_links"] = in_links;
  Json scores = Json::object();
  for (const auto& [name, values] : c.ranks) {
    if (page.id < values.size()) scores[name] = values[page.id];
  }
  row["ranks"] = std::move(scores);
  row["robots"] = RobotsVerdict(c.hosts, page.url);
  return row;
}

}  // namespace

Result<Json> DashboardData::Search(const std::string& query, size_t limit) const {
  if (query.empty()) return InvalidArgumentError("search: give ?q= (a URL or a part of one)");
  if (query.size() > 2048) return InvalidArgumentError("search: the query is over 2048 bytes");
  limit = std::min(limit, kMaxRows);
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  // An exact URL first (as canonicalised); then every URL that holds the text.
  std::vector<PageRecord> found;
  uint64_t matches = 0;
  std::optional<uint32_t> exact;
  if (Result<std::string> canonical = CanonicalizeUrl(query, db_.url_profile()); canonical.ok()) {
    if (Result<PageRecord> page = snapshot.FindUrl(*canonical); page.ok()) {
      exact = page->id;
      found.push_back(*std::move(page));
      ++matches;
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    if (page.url.find(query) == std::string::npos || (exact && page.id == *exact)) {
      return Status::Ok();
    }
    if (++matches <= limit) found.push_back(page);
    return Status::Ok();
  }));
  if (found.size() > limit) found.resize(limit);
  Json rows = Json::array();
  if (!found.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(const SearchContext context, ReadSearchContext(db_, snapshot, found));
    for (size_t i = 0; i < found.size(); ++i) {
      CRAWLRANK_ASSIGN_OR_RETURN(Json row, SearchRow(snapshot, context, found[i], context.in_links[i],
                                                     exact && *exact == found[i].id));
      rows.push_back(std::move(row));
    }
  }
  return Json{{"query", ValidUtf8(query)}, {"matches", matches}, {"rows", std::move(rows)}};
}

Result<Json> DashboardData::Broken(size_t limit, size_t referrers) const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<BrokenPage> broken, FindBrokenPages(db_, snapshot));
  Json rows = Json::array();
  for (const BrokenPage& page : broken) {
    if (rows.size() >= std::min(limit, kMaxRows)) break;
    Json from = Json::array();
    for (size_t i = 0; i < page.referrers.size() && i < referrers; ++i) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord source, snapshot.FindId(page.referrers[i]));
      from.push_back({{"id", source.id}, {"url", ValidUtf8(source.url)}});
    }
    rows.push_back({{"id", page.id},
                    {"url", ValidUtf8(page.url)},
                    {"http_status", page.http_status},
                    {"state", page.failed ? "failed" : "crawled"},
                    {"referrer_count", page.referrers.size()},
                    {"referrers", std::move(from)}});
  }
  return Json{{"broken", broken.size()}, {"rows", std::move(rows)}};
}

namespace {

// A CSV field (RFC 4180): quoted, quotes doubled. A field a spreadsheet would run as a
// formula (=, +, -, @ first) gets a leading apostrophe.
std::string CsvField(std::string_view text) {
  std::string out = "\"";
  if (!text.empty() && std::string_view("=+-@").find(text.front()) != std::string_view::npos) {
    out += '\'';
  }
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Result<std::string> DashboardData::BrokenCsv() const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<BrokenPage> broken, FindBrokenPages(db_, snapshot));
  std::string out = "url,http_status,state,referrer_count,referrer\r\n";
  for (const BrokenPage& page : broken) {
    const std::string head = CsvField(ValidUtf8(page.url)) + "," + std::to_string(page.http_status) +
                             "," + (page.failed ? "failed" : "crawled") + "," +
                             std::to_string(page.referrers.size()) + ",";
    if (page.referrers.empty()) out += head + "\r\n";
    for (uint32_t id : page.referrers) {  // one line a link: what a spreadsheet filters
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord source, snapshot.FindId(id));
      out += head + CsvField(ValidUtf8(source.url)) + "\r\n";
    }
  }
  return out;
}

Result<Json> DashboardData::Host(const std::string& name) const {
  if (name.empty()) return InvalidArgumentError("host: give ?name= (a host as the hosts view lists it)");
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(const CrawlCounters counters, snapshot.HostTotals(name));
  std::optional<HostEntry> entry;
  std::unordered_map<std::string, HostEntry> with_robots;
  const ScheduleTables tables(db_);
  if (tables.Present()) {
    CRAWLRANK_RETURN_IF_ERROR(tables.ForEachHost(snapshot, [&](std::string_view key, HostEntry& e) {
      if (key == name) entry = e;
      if (!e.robots.empty() && KeyCovers(key, name)) with_robots.emplace(std::string(key), std::move(e));
      return Status::Ok();
    }));
  }
  if (!entry && counters == CrawlCounters()) {
    return NotFoundError("host: no host \"" + ValidUtf8(name) + "\" in this crawl");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(const SchedulerOptions options, StoredSchedulerOptions(db_));
  const HostEntry none;
  const HostEntry& e = entry ? *entry : none;
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig config, snapshot.Config());
  const int64_t stored_delay = config.contains("delay_ms") ? options.delay_ms : 0;
  Json robots = Json::array();
  for (const auto& [key, kept] : with_robots) {
    DecodeRobotsState(kept.robots, [&](std::string_view origin, RobotsEntry r) {
      // A domain's key keeps the origins of all its hosts: this host's only.
      const Result<std::string> host = HostKey(std::string(origin) + "/", HostKeyMode::kHost);
      if (host.ok() && *host == name) {
        robots.push_back(RobotsJson(KeptRobots{std::string(origin), std::move(r)}));
      }
    });
  }
  return Json{{"host", ValidUtf8(name)},
              {"pages", counters.pages},
              {"crawled_pages", counters.crawled_pages},
              {"failed_pages", counters.failed_pages},
              {"fetches", counters.fetches_total()},
              {"failures", counters.failures_total()},
              {"wire_bytes", counters.wire_bytes},
              {"fetch_ms", counters.fetch_ms},
              {"delay_ms", std::max(stored_delay, e.crawl_delay_ms)},
              {"crawl_delay_ms", e.crawl_delay_ms},
              {"hold_until_ms", e.hold_until_ms},
              {"held", e.hold_until_ms > UnixNowMs()},
              {"page_limit", e.page_limit},
              {"group", ValidUtf8(e.group)},
              {"robots", std::move(robots)}};
}

}  // namespace crawlrank::dashboard
