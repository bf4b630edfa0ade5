// page_db_compact: writes a compacted copy of a PageDB (full B-tree pages, no free space).
#include <iostream>

#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CommandLine app(
      "Checks a PageDB fully, writes a compacted copy into NEW_DB (which must not exist or be "
      "empty), checks the copy, and prints the sizes before and after. Works while a crawl writes; "
      "the "
      "copy is the DB as it was when the copy started.",
      "page_db_compact");
  std::string db_path, new_path;
  bool no_check = false;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("new_db", new_path, "directory of the compacted copy")->Required();
  app.Flag("--no-check", no_check,
           "skip the data checks of DB before copying (every B-tree page is still read "
           "and checked first)");
  return Run(app, argc, argv, [&] {
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    auto before = (*db)->Info();
    if (!before.ok()) return Fail(app, before.status());
    // CompactTo checks the snapshot it copies (fully, unless --no-check) before creating
    // anything.
    if (Status status = (*db)->CompactTo(new_path, !no_check); !status.ok()) {
      if (status.code() == StatusCode::kDataLoss) {
        status = Status(status.code(), status.message() + "; nothing copied");
      }
      return Fail(app, status);
    }
    auto copy = OpenForReading(new_path);
    if (!copy.ok()) return Fail(app, copy.status());
    if (Status status = (*copy)->Check(); !status.ok()) return Fail(app, status);
    auto after = (*copy)->Info();
    if (!after.ok()) return Fail(app, after.status());
    const double links = static_cast<double>(std::max<uint64_t>(1, after->counters.edges));
    std::cout << "pages " << after->counters.pages << ", links " << after->counters.edges << "\n"
              << "data.mdb bytes " << before->file_bytes << " -> " << after->file_bytes << "\n"
              << "links table bytes per link " << FormatScore(before->links_bytes / links) << " -> "
              << FormatScore(after->links_bytes / links) << "\n";
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
