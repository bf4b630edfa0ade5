// What `crawlrank dashboard` shows, as JSON (its /api/ endpoints, and what its pages
// render) and as Prometheus text (/metrics). Every call opens its own snapshot of a
// PageDB (opened read-only, beside a running crawl) and reads in time proportional to
// what it returns: the crawl's counters, one entry per host, the failed pages, the
// progress samples; never a pass over the pages. A stored rank is read once per file
// version (its top pages and its distribution are kept until the file changes).
// Thread-safe: the server calls it from several threads.
#ifndef CRAWLRANK_SRC_DASHBOARD_DASHBOARD_DATA_H_
#define CRAWLRANK_SRC_DASHBOARD_DASHBOARD_DATA_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "crawlrank/status.h"

namespace crawlrank::dashboard {

using Json = nlohmann::ordered_json;
class Exposition;  // dashboard_metrics.cc

// The most rows a list returns (hosts, failures, top pages, links).
inline constexpr size_t kMaxRows = 1000;

struct HostsQuery {
  std::string sort = "pages";  // a column of the hosts view (Json keys of a row)
  bool descending = true;
  size_t offset = 0;
  size_t limit = 100;
};

class DashboardData {
 public:
  explicit DashboardData(const PageDb& db) : db_(db) {}

  // The crawl at a glance: the PageDB's header and counters, the crawl's counters, the
  // last progress sample and the rates since the one before, the crawl's state (State)
  // and its stored configuration.
  Result<Json> Summary() const;
  // {"latest": the highest number shown, "rows": [...]}: the latest fetches and failures
  // (format version 10), newest first, those numbered above `after`, at most `n`; each
  // with its URL and referrer (the page whose link found it first).
  Result<Json> Recent(uint64_t after, size_t n) const;
  // Pages by URL: the one `query` names exactly (canonicalised) first, then those whose URL
  // holds it, at most `limit` (kMaxRows), with the number of matches. Each with its
  // standing (page_standing.h), failure, last fetch, links in and out, score in every
  // stored rank, and the robots.txt rule that decides it. One pass over the pages, one
  // over the links, one over the schedule; the rank files are read.
  Result<Json> Search(const std::string& query, size_t limit) const;
  // {"broken": total, "rows": [...]}: pages that answered 4xx/5xx (crawled, or failed for
  // good) with the pages linking to them (at most `referrers` listed), most linked first
  // (schedule/broken_links.h); BrokenCsv has every one, a line per linking page.
  Result<Json> Broken(size_t limit, size_t referrers) const;
  Result<std::string> BrokenCsv() const;
  // One host (a counters key, as the hosts view lists it): its counters, the delay in
  // force, its hold and page limit, and the robots.txt entries the crawler keeps for its
  // origins (their rules in the order they are tried). NotFound for a host the crawl never
  // met.
  Result<Json> Host(const std::string& name) const;
  // {"samples": [...]} from since_ms on, at most 10,000 (the latest).
  Result<Json> Progress(int64_t since_ms) const;
  // {"hosts": total, "rows": [...]}: each host's counters and politeness state, sorted;
  // InvalidArgument naming the column for an unknown sort.
  Result<Json> Hosts(const HostsQuery& query) const;
  // {"failed": total, "rows": [...]}: pages failed for good, newest first, of `kind` and
  // `host` when given (names as crawlrank failed takes them).
  Result<Json> Failures(const std::string& kind, const std::string& host, size_t limit) const;
  // The best `n` pages by the stored rank `by` (kDisplayRankName, or an algorithm's
  // name), with the rank's age and the graph it was computed on, its distribution (log-log
  // histogram), and the crawl's guidance curve: the share of the rank's mass on the pages
  // fetched, against pages fetched in the order they were first fetched (one pass over the
  // pages when the rank file changes, then kept). The display rank lists the pages crawled
  // with a 2xx answer only (best_pages.h, PagesShown::kFetchedOk). InvalidArgument for an unknown name,
  // NotFound when no such rank is stored.
  Result<Json> Top(const std::string& by, size_t n) const;
  // One page (by id, or by URL when `url` is not empty): its record, last fetch, out-links
  // and in-links (at most kMaxRows each; the in-links take one pass over the links, about
  // 200 M a second). NotFound when the DB has no such page.
  Result<Json> Page(std::optional<uint32_t> id, const std::string& url) const;
  // Prometheus text format 0.0.4: the crawl's counters and gauges. On a node of a
  // cluster every sample carries node="ENTRY" and cluster="LIST" (the sorted node list),
  // so that Prometheus sums the nodes (docs/cluster.md).
  Result<std::string> Metrics() const;
  // On a node of a cluster: {"node": entry, "index": its place in the sorted list (from
  // 0), "nodes": how many, "list": the sorted list}; null for a PageDB that runs alone.
  // InvalidArgument when the stored membership does not read.
  static Result<Json> ClusterOf(const StoredConfig& config);

 private:
  // A stored rank as the dashboard keeps it: the best kMaxRows pages and the histogram.
  struct RankView {
    int64_t file_mtime_ns = 0;
    uint64_t file_size = 0;
    Json meta;                                 // created, graph
    std::vector<std::pair<uint32_t, double>> best;  // (page id, score), best first
    Json histogram;
    Json guidance;  // the share of the rank's mass fetched against pages fetched
  };
  Result<std::shared_ptr<const RankView>> LoadRankView(const std::string& name,
                                                       RankAlgorithm algorithm) const;
  // Metrics' part: the age of each stored rank.
  void RankAges(Exposition& e) const;
  // The crawl's state: "running" while a process holds the writer lock (its pid, from
  // /proc/locks), else "finished" when nothing is left in scope (and under --max-pages),
  // else "stopped"; the time since the PageDB was created (to the last sample when not
  // running), pages crawled a second over the last minute, and an ETA for what is left at
  // that rate while running.
  // `created_ms`: the PageDB's (PageDbInfo), which Summary has read.
  Result<Json> State(const Snapshot& snapshot, const CrawlCounters& totals, uint64_t to_do,
                     const StoredConfig& config, int64_t created_ms) const;

  const PageDb& db_;
  mutable std::mutex ranks_mu_;
  mutable std::map<std::string, std::shared_ptr<const RankView>> ranks_;  // by file name
};

}  // namespace crawlrank::dashboard

#endif  // CRAWLRANK_SRC_DASHBOARD_DASHBOARD_DATA_H_
