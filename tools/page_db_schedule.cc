// page_db_schedule: what the scheduler would hand out next, what is in flight, and the
// hosts' politeness state, read from a live or stopped PageDB.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "crawlrank/crawl_config.h"
#include "crawlrank/scheduler.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

std::string ScoreModeHelp() {
  std::string names;
  for (ScoreMode mode : AllScoreModes()) {
    names += names.empty() ? "" : ", ";
    names += ScoreModeName(mode);
  }
  return "the crawl's score mode (" + names + ")";
}

nlohmann::ordered_json StatsJson(const SchedulerStats& stats) {
  // Every field of the stats, by ForEachStatsField's names: first those this tool printed
  // before (issue #42), in their order and with next_ready (ISO time or "never") after
  // `limit_reached`, then the others in declaration order.
  static constexpr std::string_view kFirst[] = {"queued",   "ready",   "in_flight",
                                                "retrying", "crawled", "failed",
                                                "hosts",    "finished", "limit_reached"};
  nlohmann::ordered_json fields;
  ForEachStatsField([&](const char* name, auto field) { fields[name] = stats.*field; });
  nlohmann::ordered_json out;
  for (std::string_view name : kFirst) out[std::string(name)] = fields[std::string(name)];
  out["next_ready"] = stats.next_ready_ms < 0 ? "never" : IsoTimeOr(stats.next_ready_ms, "now");
  out["next_ready_ms"] = stats.next_ready_ms;
  for (const auto& [name, value] : fields.items()) {
    if (!out.contains(name)) out[name] = value;
  }
  return out;
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Prints the best queued pages of a PageDB as its scheduler orders them (score, host, and "
      "the priority when any shown page has one other than 0), the pages in flight (lease, "
      "expiry) and, with --hosts, the hosts with pages queued or in "
      "flight (ready time, in flight, queued, done, delay). Reads a snapshot: works beside a "
      "running crawl. Times are ISO 8601 UTC (JSON adds them as Unix milliseconds, *_ms). The "
      "delay since a host's last request lives only "
      "in the crawling process, so a host's ready time here is the end of its hold, if any.",
      "page_db_schedule");
  std::string db_path, score = std::string(ScoreModeName(SchedulerOptions().score));
  uint64_t n = 20, max_hosts = 50;
  bool hosts = false, json = false;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("-n", n, "how many queued pages")->ShowDefault();
  app.Add("--score", score, ScoreModeHelp())->ShowDefault();
  app.Flag("--hosts", hosts, "also print the hosts' state");
  app.Add("--max-hosts", max_hosts, "at most this many hosts, most queued first")->ShowDefault();
  app.Flag("--json", json, "print one JSON object");
  return Run(app, argc, argv, [&] {
    auto mode = ParseScoreMode(score);
    if (!mode.ok()) return UsageError(app, mode.status().message());
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    // The crawl's stored options (scope, patterns, delays), the score given over them.
    auto options = StoredSchedulerOptions(**db);
    if (!options.ok()) return Fail(app, options.status());
    if (app.Count("--score") > 0) options->score = *mode;
    auto view = Scheduler::Inspect(**db, *options, n, hosts ? max_hosts : 0);
    if (!view.ok()) return Fail(app, view.status());
    if (json) {
      nlohmann::ordered_json out;
      out["stats"] = StatsJson(view->stats);
      out["next"] = nlohmann::json::array();
      for (const auto& page : view->next) {
        out["next"].push_back({{"url", page.url},
                               {"score", page.score},
                               {"host", page.host},
                               {"priority", page.priority}});
      }
      out["in_flight"] = nlohmann::json::array();
      for (const auto& lease : view->in_flight) {
        out["in_flight"].push_back({{"url", lease.url},
                                    {"lease", lease.lease},
                                    {"expires", IsoTime(lease.expiry_ms)},
                                    {"expires_ms", lease.expiry_ms},
                                    {"host", lease.host}});
      }
      if (hosts) {
        out["hosts"] = nlohmann::json::array();
        for (const auto& host : view->hosts) {
          out["hosts"].push_back({{"host", host.key},
                                  {"ready", IsoTimeOr(host.ready_ms, "now")},
                                  {"ready_ms", host.ready_ms},
                                  {"in_flight", host.in_flight},
                                  {"queued", host.queued},
                                  {"done", host.done},
                                  {"delay_ms", host.delay_ms}});
        }
      }
      std::cout << out.dump(2) << "\n";
      return kExitOk;
    }
    Output out;
    const SchedulerStats& stats = view->stats;
    out << "queued " << stats.queued << ", in flight " << stats.in_flight << ", retrying "
        << stats.retrying << ", crawled " << stats.crawled << ", failed " << stats.failed
        << ", hosts " << stats.hosts << ", "
        << (stats.limit_reached ? std::string("finished: max_pages reached")
            : stats.finished    ? std::string("finished")
                                : "next ready " + IsoTimeOr(stats.next_ready_ms, "now"))
        << "\n";
    // The priority column only when a caller gave priorities (QueuedExtra).
    const bool priorities = std::any_of(view->next.begin(), view->next.end(),
                                        [](const auto& page) { return page.priority != 0; });
    out << (priorities ? "# next: priority score url host\n" : "# next: score url host\n");
    for (const auto& page : view->next) {
      if (priorities) out << std::to_string(page.priority) << ' ';
      out << FormatScore(page.score) << ' ' << page.url << ' ' << page.host << '\n';
    }
    out << "# in flight: lease expires url host\n";
    for (const auto& lease : view->in_flight) {
      out << lease.lease << ' ' << IsoTime(lease.expiry_ms) << ' ' << lease.url << ' '
          << lease.host << '\n';
    }
    if (hosts) {
      out << "# hosts: host ready in_flight queued done delay_ms\n";
      for (const auto& host : view->hosts) {
        out << host.key << ' ' << IsoTimeOr(host.ready_ms, "now") << ' ' << uint64_t{host.in_flight}
            << ' ' << host.queued << ' ' << host.done << ' ' << static_cast<uint64_t>(host.delay_ms)
            << '\n';
      }
    }
    const Status status = out.Flush();
    return status.ok() ? kExitOk : Fail(app, status);
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
