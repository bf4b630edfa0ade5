// DashboardData::Metrics: the crawl in Prometheus' text exposition format (version
// 0.0.4), with the conventional names and units: counters end in _total, sizes are bytes,
// times are seconds. Labels take a fixed set of values (status classes, failure kinds,
// rank algorithms): nothing per host or per URL, so the series stay few.
#include <cstdio>
#include <utility>
#include <vector>

#include "crawlrank/clock.h"
#include "crawlrank/rank_store.h"
#include "dashboard/dashboard_data.h"

namespace crawlrank::dashboard {
// Prometheus' text format, written sample by sample.
class Exposition {
 public:
  // Starts a metric family.
  void Family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += "# HELP " + std::string(name) + ' ' + std::string(help) + '\n';
    out_ += "# TYPE " + std::string(name) + ' ' + std::string(type) + '\n';
  }
  // Labels every sample carries (a node's node and cluster), already escaped.
  explicit Exposition(std::string common) : common_(std::move(common)) {}
  void Sample(std::string_view name, std::string_view labels, double value) {
    char number[64];
    std::snprintf(number, sizeof number, "%.17g", value);
    std::string all = common_;
    if (!labels.empty()) all += (all.empty() ? "" : ",") + std::string(labels);
    out_ += std::string(name) + (all.empty() ? "" : "{" + all + "}") + ' ' + number + '\n';
  }
  void One(std::string_view name, std::string_view type, std::string_view help, double value) {
    Family(name, type, help);
    Sample(name, "", value);
  }
  // A histogram family from per-bucket counts (not cumulative) under upper `bounds`
  // (the last bucket is +Inf), each bound and the sum divided by `unit`.
  template <typename Bounds, typename Counts>
  void Histogram(std::string_view name, std::string_view help, const Bounds& bounds,
                 const Counts& counts, double unit, double sum) {
    Family(name, "histogram", help);
    const std::string bucket = std::string(name) + "_bucket";
    double cumulative = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      cumulative += static_cast<double>(counts[i]);
      char le[64] = "+Inf";
      if (i < bounds.size()) std::snprintf(le, sizeof le, "%.15g", static_cast<double>(bounds[i]) / unit);
      Sample(bucket, "le=\"" + std::string(le) + "\"", cumulative);
    }
    Sample(std::string(name) + "_sum", "", sum / unit);
    Sample(std::string(name) + "_count", "", cumulative);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string common_;
  std::string out_;
};

namespace {

// A label value in the exposition format: backslash, double quote and newline escaped.
std::string LabelValue(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

void DashboardData::RankAges(Exposition& e) const {
  bool family = false;
  std::vector<std::pair<std::string_view, RankAlgorithm>> ranks = {
      {kDisplayRankName, RankAlgorithm::kPageRank}};
  for (const std::string_view name : RankAlgorithmNames()) {
    if (const Result<RankAlgorithm> algorithm = ParseRankAlgorithm(name); algorithm.ok()) {
      ranks.emplace_back(name, *algorithm);
    }
  }
  for (const auto& [name, algorithm] : ranks) {
    Result<std::shared_ptr<const RankView>> view = LoadRankView(std::string(name), algorithm);
    if (!view.ok()) continue;
    if (!family) {
      e.Family("crawlrank_rank_age_seconds", "gauge", "Age of each stored rank.");
      family = true;
    }
    e.Sample("crawlrank_rank_age_seconds", "algorithm=\"" + std::string(name) + "\"",
             static_cast<double>(UnixNowMs() - (*view)->meta["created_ms"].get<int64_t>()) / 1000);
  }
}

Result<std::string> DashboardData::Metrics() const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(const CrawlCounters c, snapshot.CrawlTotals());
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<ProgressSample> samples, snapshot.Progress(0, 1));
  const PageDbCounters& db = snapshot.counters();
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig config, snapshot.Config());
  CRAWLRANK_ASSIGN_OR_RETURN(const Json cluster, ClusterOf(config));
  Exposition e(cluster.is_null()
                   ? std::string()
                   : "node=\"" + LabelValue(cluster["node"].get<std::string>()) + "\",cluster=\"" +
                         LabelValue(cluster["list"].get<std::string>()) + "\"");
  e.One("crawlrank_pages", "gauge",
        "Pages the PageDB knows, crawled or only linked to (a node's own: no ghosts).",
        static_cast<double>(db.pages - c.ghost_pages));
  if (!cluster.is_null()) {
    e.One("crawlrank_ghost_pages", "gauge",
          "Pages other nodes own that this node keeps for its links to them.",
          static_cast<double>(c.ghost_pages));
  }
  e.One("crawlrank_pages_crawled", "gauge", "Pages crawled at least once.",
        static_cast<double>(db.crawled_pages));
  e.One("crawlrank_pages_failed", "gauge", "Pages failed for good.",
        static_cast<double>(c.failed_pages));
  e.One("crawlrank_links", "gauge", "Links stored.", static_cast<double>(db.edges));
  e.Family("crawlrank_pages_fetched_total", "counter",
           "Fetches recorded (recrawls included), by HTTP status class.");
  for (size_t i = 0; i < kStatusClasses; ++i) {
    e.Sample("crawlrank_pages_fetched_total",
             "status_class=\"" + std::string(StatusClassName(static_cast<StatusClass>(i))) + "\"",
             static_cast<double>(c.fetches[i]));
  }
  e.Family("crawlrank_fetch_failures_total", "counter",
           "Failures reported (each attempt, retried or final), by kind.");
  ForEachFailureKind([&](FailureKind kind) {
    e.Sample("crawlrank_fetch_failures_total",
             "kind=\"" + std::string(FailureKindName(kind)) + "\"",
             static_cast<double>(c.failures_of(kind)));
  });
  e.One("crawlrank_received_bytes_total", "counter",
        "Bytes received: headers and bodies as sent (before content decoding).",
        static_cast<double>(c.wire_bytes));
  e.One("crawlrank_decoded_bytes_total", "counter", "Body bytes after content decoding.",
        static_cast<double>(c.decoded_bytes));
  e.One("crawlrank_fetch_seconds_total", "counter", "Time spent in fetches, summed.",
        static_cast<double>(c.fetch_ms) / 1000);
  // Fetches recorded with their details (the crawl's counters, format version 10): the sums
  // are those of the counters above, which fetches without details add nothing to.
  e.Histogram("crawlrank_fetch_duration_seconds",
              "Fetches recorded, by time from the request's start to the body's end.",
              kFetchMsBounds, c.fetch_ms_buckets, 1000, static_cast<double>(c.fetch_ms));
  e.Histogram("crawlrank_response_size_bytes",
              "Fetches recorded, by bytes received (headers and body as sent).",
              kWireBytesBounds, c.wire_bytes_buckets, 1, static_cast<double>(c.wire_bytes));
  if (!samples.empty()) {
    const ProgressSample& last = samples.back();
    e.One("crawlrank_queue_urls", "gauge", "Pages queued, at the last progress sample.",
          static_cast<double>(last.queued));
    e.One("crawlrank_in_flight_urls", "gauge",
          "Pages handed out and not reported yet, at the last progress sample.",
          static_cast<double>(last.in_flight));
    e.One("crawlrank_progress_sample_timestamp_seconds", "gauge",
          "When the last progress sample was taken (Unix time).",
          static_cast<double>(last.time_ms) / 1000);
  }
  RankAges(e);
  return e.Take();
}

}  // namespace crawlrank::dashboard
