// page_db_failed (`crawlrank failed`): the pages of a PageDB that failed for good, with
// why, read from a snapshot beside a running crawl.
#include <iostream>
#include <nlohmann/json.hpp>

#include "crawlrank/scheduler.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

std::string KindList() {
  std::string names;
  ForEachFailureKind([&](FailureKind kind) {
    names += names.empty() ? "" : ", ";
    names += FailureKindName(kind);
  });
  return names;
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Lists the pages of a PageDB that failed for good: URL, kind, last HTTP status (0: no "
      "answer), attempts, when (ISO 8601 UTC; `unknown` when a format version 3 DB kept it; "
      "JSON adds failed_ms, Unix milliseconds) and the "
      "detail. Kinds: " +
          KindList() +
          ". Reads a snapshot: works beside a running crawl. "
          "`crawlrank requeue` queues them again.",
      "page_db_failed");
  std::string db_path, kind, host;
  bool json = false;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("--kind", kind, "only failures of this kind");
  app.Add("--host", host, "only pages of this host (e.g. example.com)");
  app.Flag("--json", json, "print a JSON array");
  return Run(app, argc, argv, [&] {
    FailureFilter filter;
    if (!kind.empty()) {
      filter.kind = ParseFailureKind(kind);
      if (!filter.kind) return UsageError(app, "unknown kind \"" + kind + "\" (" + KindList() + ")");
    }
    filter.host = host;
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    auto failed = Scheduler::FailedPages(**db, filter);
    if (!failed.ok()) return Fail(app, failed.status());
    Output out;
    if (json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const FailedPage& page : *failed) {
        list.push_back({{"url", page.url},
                        {"kind", FailureKindName(page.kind)},
                        {"http_status", page.http_status},
                        {"attempts", page.attempts},
                        {"failed", IsoTimeOr(page.failed_ms, "unknown")},
                        {"failed_ms", page.failed_ms},
                        {"detail", page.detail}});
      }
      out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
      out << "# url kind http_status attempts failed detail\n";
      for (const FailedPage& page : *failed) {
        out << page.url << ' ' << FailureKindName(page.kind) << ' '
            << uint64_t{page.http_status} << ' ' << uint64_t{page.attempts} << ' '
            << IsoTimeOr(page.failed_ms, "unknown") << ' ' << page.detail << '\n';
      }
    }
    if (Status flushed = out.Flush(); !flushed.ok()) return Fail(app, flushed);
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) { return crawlrank::tools::Main(argc, argv); }
