// page_db_upgrade: carries a PageDB of an older format version over to this one, in place.
#include <iostream>

#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CLI::App app(
      "Carries a PageDB of format version 2, 3 or 4 over to version 5, in place, in one "
      "transaction: version 2 gets the scheduler's empty tables, version 3 files each page "
      "failed for good with its kind (inferred from its HTTP status and reason; its time "
      "unknown), version 4 gets an empty table for the crawl's stored configuration (the "
      "next crawl stores its options there). Nothing else changes (pages, links and ranks "
      "stay as they are). Crawlrank releases that read only older versions cannot open it "
      "afterwards. Needs the writer lock: stop the crawl first. A DB already at version 5 "
      "is left as it is.",
      "page_db_upgrade");
  std::string db_path;
  app.add_option("db", db_path, "PageDB directory")->required();
  return Run(app, argc, argv, [&] {
    int before = 0;
    {
      auto db = OpenForReading(db_path);
      if (!db.ok()) return Fail(app, db.status());
      auto info = (*db)->Info();
      if (!info.ok()) return Fail(app, info.status());
      before = static_cast<int>(info->format_version);
    }
    PageDbOptions options;
    options.create_if_missing = false;
    options.upgrade = true;
    auto db = PageDb::Open(db_path, options);
    if (!db.ok()) return Fail(app, db.status());
    if (Status synced = (*db)->Sync(); !synced.ok()) return Fail(app, synced);
    if (before == static_cast<int>(kPageDbFormatVersion)) {
      std::cout << "format version " << before << ": nothing to do\n";
    } else {
      std::cout << "format version " << before << " -> " << kPageDbFormatVersion << "\n";
    }
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
