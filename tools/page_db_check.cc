// page_db_check: verifies a PageDB and says what to do when it is damaged.
#include <iostream>

#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// What an operator can do about a damaged DB, printed after the first broken key.
constexpr std::string_view kWhatNext =
    "What to do next:\n"
    "  - keep this copy as it is: do not open it for writing (crawlrank's writers refuse a\n"
    "    DB whose quick check fails, and page_db_load and page_db_compact run the full check);\n"
    "  - restore the DB from a copy taken while it was sound (page_db_compact DB COPY makes\n"
    "    one at any time, beside a running crawl);\n"
    "  - or salvage what still reads: page_db_dump info DB --all > pages.txt and\n"
    "    page_db_dump links DB > links.txt, then page_db_load NEW pages.txt and\n"
    "    page_db_load NEW links.txt (each dump stops at the first damaged page it meets).\n";

int Main(int argc, char** argv) {
  CLI::App app(
      "Checks a PageDB: every B-tree page of data.mdb read and checked without LMDB, then "
      "every invariant of the stored pages and links (--quick: the header, the counts, and "
      "a bounded sample of pages and records, in milliseconds). Exits 0 when no damage is "
      "found, 1 when it is damaged (naming the first broken page or key) or cannot be read. "
      "Works while a crawl writes.",
      "page_db_check");
  std::string db_path;
  bool quick = false;
  app.add_option("db", db_path, "PageDB directory")->required();
  app.add_flag("--quick", quick, "check the header, the counts and a sample only");
  return Run(app, argc, argv, [&] {
    auto damaged = [&](const Status& status) {
      Fail(app, status);
      if (status.code() == StatusCode::kDataLoss) std::cerr << kWhatNext;
      return kExitFailure;
    };
    auto db = OpenForReading(db_path);
    if (!db.ok()) return damaged(db.status());
    const auto level = quick ? PageDb::CheckLevel::kQuick : PageDb::CheckLevel::kFull;
    if (Status status = (*db)->Check(level); !status.ok()) return damaged(status);
    auto info = (*db)->Info();
    if (!info.ok()) return damaged(info.status());
    std::cout << "PageDB \"" << db_path << "\": no damage found by the "
              << (quick ? "quick" : "full") << " check (" << info->counters.pages << " pages, "
              << info->counters.edges << " links)\n";
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
