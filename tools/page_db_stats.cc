// page_db_stats: the header, counters, sizes and a few graph statistics of a PageDB.
#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "crawlrank/crawl_config.h"
#include "crawlrank/scheduler.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

Result<nlohmann::ordered_json> Collect(const PageDb& db) {
  CRAWLRANK_ASSIGN_OR_RETURN(PageDbInfo info, db.Info());
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  const PageDbCounters& counters = snapshot.counters();

  // A node of a cluster keeps ghosts (pages another node owns) for the links to them:
  // counted apart, left out of the pages, hosts and depths.
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<uint32_t> ghosts, Scheduler::GhostPages(db, snapshot));
  std::unordered_set<std::string> hosts;
  uint32_t max_depth = 0;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    if (std::binary_search(ghosts.begin(), ghosts.end(), page.id)) return Status::Ok();
    max_depth = std::max(max_depth, page.depth);
    auto host = HostKey(page.url);
    if (host.ok()) hosts.insert(*std::move(host));
    return Status::Ok();
  }));
  uint64_t sources = 0, max_out = 0;
  EdgeCursor cursor = snapshot.Edges();
  for (; cursor.Valid(); cursor.Next()) {
    ++sources;
    max_out = std::max<uint64_t>(max_out, cursor.targets().size());
  }
  CRAWLRANK_RETURN_IF_ERROR(cursor.status());

  nlohmann::ordered_json stats;
  stats["path"] = info.path;
  stats["format_version"] = info.format_version;
  stats["url_profile"] = UrlProfileName(info.url_profile);
  stats["hash"] = info.hash;
  stats["created"] = IsoTime(info.created_ms);
  stats["created_ms"] = info.created_ms;
  stats["pages"] = counters.pages - std::min<uint64_t>(counters.pages, ghosts.size());
  stats["ghosts"] = ghosts.size();
  uint64_t received = 0;  // pages that other nodes passed score to (push modes)
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachReceivedShare([&](uint32_t, float) {
    ++received;
    return Status::Ok();
  }));
  stats["pages_with_shares"] = received;
  stats["crawled_pages"] = counters.crawled_pages;
  stats["links"] = counters.edges;
  stats["hosts_seen"] = hosts.size();
  stats["pages_with_links"] = sources;
  stats["max_out_degree"] = max_out;
  stats["mean_out_degree"] = sources == 0 ? 0.0 : double(counters.edges) / double(sources);
  stats["max_depth"] = max_depth;
  stats["file_bytes"] = info.file_bytes;
  stats["map_bytes"] = info.map_size;
  stats["pages_table_bytes"] = info.pages_bytes;
  stats["links_table_bytes"] = info.links_bytes;
  stats["bytes_per_link"] =
      counters.edges == 0 ? 0.0 : double(info.links_bytes) / double(counters.edges);
  // The scheduler's counters, as the crawl's stored options see the DB (page_db_schedule
  // has more); with the default options when the stored ones do not apply (a value this
  // crawlrank refuses), which config_error then says, so that the rest still shows.
  // The configuration is read once, from the snapshot; only a value that does not apply
  // is set aside (an error reading it stops the tool).
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig config, snapshot.Config());
  SchedulerOptions options;
  if (Status applied = ApplySchedulerConfig(config, &options); !applied.ok()) {
    stats["config_error"] =
        "stored configuration of PageDB \"" + db.path() + "\": " + applied.message();
    options = SchedulerOptions();
  }
  CRAWLRANK_ASSIGN_OR_RETURN(ScheduleView schedule, Scheduler::Inspect(db, options, 0, 0));
  stats["hosts"] = schedule.stats.hosts;
  stats["queued"] = schedule.stats.queued;
  stats["in_flight"] = schedule.stats.in_flight;
  stats["retrying"] = schedule.stats.retrying;
  stats["failed"] = schedule.stats.failed;
  stats["filtered"] = schedule.stats.filtered;
  stats["out_of_scope"] = schedule.stats.out_of_scope;
  stats["removed"] = schedule.stats.removed;
  // Pages failed for good, by kind (crawlrank failed lists them).
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<FailedPage> failed, Scheduler::FailedPages(db, snapshot));
  std::map<std::string, uint64_t> by_kind;
  for (const FailedPage& page : failed) ++by_kind[std::string(FailureKindName(page.kind))];
  for (const auto& [kind, n] : by_kind) stats["failed_" + kind] = n;
  stats["crawl_finished"] = schedule.stats.finished;
  stats["limit_reached"] = schedule.stats.limit_reached;  // max_pages, pages still queued or not
  // The crawl's counters (format version 7; zeros before): fetches by status class,
  // failure reports by kind, bytes and time, and the progress samples kept.
  CRAWLRANK_ASSIGN_OR_RETURN(const CrawlCounters totals, snapshot.CrawlTotals());
  stats["fetches"] = totals.fetches_total();
  for (size_t i = 0; i < kStatusClasses; ++i) {
    stats["fetches_" + std::string(StatusClassName(static_cast<StatusClass>(i)))] =
        totals.fetches[i];
  }
  stats["failure_reports"] = totals.failures_total();
  ForEachFailureKind([&](FailureKind kind) {
    if (totals.failures_of(kind) != 0) {
      stats["failure_reports_" + std::string(FailureKindName(kind))] = totals.failures_of(kind);
    }
  });
  stats["wire_bytes"] = totals.wire_bytes;
  stats["decoded_bytes"] = totals.decoded_bytes;
  stats["fetch_ms"] = totals.fetch_ms;
  // The histograms (format version 10), as /metrics exports them: each bucket's own count
  // (not cumulative) under its upper bound, "+Inf" last.
  const auto buckets = [](const auto& bounds, const auto& counts) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (size_t i = 0; i < counts.size(); ++i) {
      out[i < bounds.size() ? std::to_string(bounds[i]) : "+Inf"] = counts[i];
    }
    return out;
  };
  stats["observed_fetches"] = totals.observed_fetches();
  stats["fetch_ms_buckets"] = buckets(kFetchMsBounds, totals.fetch_ms_buckets);
  stats["wire_bytes_buckets"] = buckets(kWireBytesBounds, totals.wire_bytes_buckets);
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<ProgressSample> samples, snapshot.Progress());
  stats["progress_samples"] = samples.size();
  // The crawl's stored configuration (crawl_config.h), lists as arrays.
  nlohmann::ordered_json stored = nlohmann::ordered_json::object();
  for (const auto& [key, value] : config) {
    if (IsConfigListKey(key)) {
      stored[key] = SplitConfigList(value);
    } else {
      stored[key] = value;
    }
  }
  stats["config"] = stored;
  return stats;
}

int Main(int argc, char** argv) {
  CommandLine app("Prints the header, counters, sizes and graph statistics of a PageDB.",
                  "page_db_stats");
  std::string db_path;
  bool json = false;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Flag("--json", json, "print one JSON object");
  return Run(app, argc, argv, [&] {
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    // The quick check is cheap: a damaged DB is said so, not summarised as if sound.
    const Status quick = (*db)->Check(PageDb::CheckLevel::kQuick);
    if (!quick.ok()) {
      Fail(app, Status(quick.code(), "the quick check failed: " + quick.message() +
                                         "; run page_db_check for the full report"));
    }
    auto stats = Collect(**db);
    if (!stats.ok()) return Fail(app, stats.status());
    (*stats)["quick_check"] = quick.ok() ? "passed" : "FAILED";
    if (!quick.ok()) return kExitFailure;
    const bool config_applies = !stats->contains("config_error");
    if (!config_applies) {
      Fail(app, Status(StatusCode::kDataLoss,
                       (*stats)["config_error"].get<std::string>() +
                           "; the schedule counts below take the default options"));
    }
    const int code = config_applies ? kExitOk : kExitFailure;  // printed, but damaged
    if (json) {
      std::cout << stats->dump(2) << "\n";
      return code;
    }
    for (const auto& [key, value] : stats->items()) {
      std::cout << key << ": ";
      if (key == "config") {  // one line a key; a long list shortened
        std::cout << (value.empty() ? "(none stored)\n" : "\n");
        for (const auto& [name, setting] : value.items()) {
          StoredConfig one;
          one[name] = setting.is_array()
                          ? JoinConfigList(setting.get<std::vector<std::string>>())
                          : setting.get<std::string>();
          std::cout << "  " << FormatConfig(one);
        }
      } else if (value.is_string()) {
        std::cout << value.get<std::string>() << "\n";
      } else if (value.is_number_float()) {
        std::cout << FormatScore(value.get<double>()) << "\n";
      } else {
        std::cout << value.dump() << "\n";
      }
    }
    return code;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
