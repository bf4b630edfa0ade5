// page_db_upgrade: carries a PageDB of an older format version over to this one, in place.
#include <fstream>
#include <iostream>

#include "crawlrank/rank_store.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// Prints a line for each rank file of the DB that is not of the current format version.
// None is rewritten (docs/format.md, "Rank files"): a version 1 file is read as it is,
// its crawled count unknown, until the next rank of its algorithm replaces it.
void NoteRankFiles(const std::string& db_path) {
  for (std::string_view name : RankAlgorithmNames()) {
    const Result<RankAlgorithm> algorithm = ParseRankAlgorithm(name);
    if (!algorithm.ok()) continue;
    const std::string path = RankFilePath(db_path, *algorithm);
    std::ifstream in(path, std::ios::binary);
    char head[12] = {};
    if (!in.read(head, sizeof head) || std::string_view(head, 8) != "CRWLRANK") continue;
    uint32_t version = 0;
    for (int i = 0; i < 4; ++i)
      version |= uint32_t{static_cast<unsigned char>(head[8 + i])} << (8 * i);
    if (version == 1) {
      std::cout << path << ": rank file version 1, read as it is (crawled count unknown); "
                << "left as it is: the next rank (`crawlrank rank " << db_path << " --algo " << name
                << "`, or a crawl's) writes version " << kRankFileFormatVersion << "\n";
    } else if (version > kRankFileFormatVersion) {
      std::cout << path << ": rank file version " << version
                << ", newer than this crawlrank reads; left as it is\n";
    }
  }
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Carries a PageDB of format version 2 to 8 over to version 9, in place, in one "
      "transaction: version 2 gets the scheduler's empty tables, version 3 files each page "
      "failed for good with its kind (inferred from its HTTP status and reason; its time "
      "unknown), version 4 gets an empty table for the crawl's stored configuration (the "
      "next crawl stores its options there), version 5 a table of the pages' creation "
      "times, with one entry that dates every page there from the upgrade, version 6 the "
      "crawl's counters, counted from the pages there (each page's crawls filed under its "
      "last status; bytes and fetch times from then on), and empty tables for fetch details "
      "and progress samples; versions 7 and 8 only their version number (version 8 adds a "
      "schedule state for pages due again at a date their fetcher gave, version 9 one for "
      "pages another node of a cluster owns). Nothing else changes (pages, links and ranks stay as they "
      "are). Crawlrank releases that read only older versions cannot open it afterwards. "
      "Needs the writer lock: stop the crawl first. A DB already at version 9 is left as it "
      "is.",
      "page_db_upgrade");
  app.Footer(
      "Rank files (DB/ranks/*.rank) are not rewritten: one of version 1 is read as it is, its "
      "crawled count unknown, and the next rank of its algorithm replaces it; each is "
      "listed.\n");
  std::string db_path;
  app.Add("db", db_path, "PageDB directory")->Required();
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
    NoteRankFiles(db_path);
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
