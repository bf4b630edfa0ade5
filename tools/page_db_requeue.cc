// page_db_requeue (`crawlrank requeue`): puts pages that failed for good back in the queue.
#include <iostream>

#include "crawlrank/scheduler.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CommandLine app(
      "Puts the pages of a PageDB that failed for good back in the queue, as if new: their "
      "retries start over. Without options, every failed page; the options narrow it, all "
      "together. Needs the writer lock: stop the crawl first. `crawlrank failed` lists them.",
      "page_db_requeue");
  std::string db_path, kind;
  FailureFilter filter;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("--kind", kind, "only failures of this kind (crawlrank failed --help lists them)");
  app.Add("--host", filter.host, "only pages of this host (e.g. example.com)");
  app.Add("--url-regex", filter.url_regex,
          "only URLs this ECMAScript regular expression matches (searched, not anchored)");
  return Run(app, argc, argv, [&] {
    if (!kind.empty()) {
      filter.kind = ParseFailureKind(kind);
      if (!filter.kind) return UsageError(app, "unknown kind \"" + kind + "\"");
    }
    PageDbOptions options;
    options.create_if_missing = false;
    auto db = PageDb::Open(db_path, options);
    if (!db.ok()) return Fail(app, db.status());
    auto scheduler = Scheduler::Open(**db, {});
    if (!scheduler.ok()) return Fail(app, scheduler.status());
    auto requeued = (*scheduler)->Requeue(filter);
    if (!requeued.ok()) {
      return requeued.status().code() == StatusCode::kInvalidArgument
                 ? UsageError(app, requeued.status().message())
                 : Fail(app, requeued.status());
    }
    scheduler->reset();
    if (Status synced = (*db)->Sync(); !synced.ok()) return Fail(app, synced);
    std::cout << "requeued " << *requeued << " pages\n";
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) { return crawlrank::tools::Main(argc, argv); }
