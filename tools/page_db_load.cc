// page_db_load: reads a link graph or a page_db_dump output into a PageDB.
//
// Each input line is one of (blank lines and lines starting with '#' are skipped):
//   src dst                 two page indexes: a link. An index the DB does not have yet
//                           becomes a page with the URL http://graph.invalid/INDEX, so any
//                           graph can be ranked.
//   src_url dst_url         two absolute URLs: a link; new URLs become pages.
//   a page line             8 or 14 fields as printed by `page_db_dump info [--all]`: the
//                           page is restored with that index, hash and metadata.
// A dump is page lines followed by index pairs (`page_db_dump info` then `links`), so
// dump -> load -> dump prints the same. Page lines must come first and in index order,
// and URL pairs cannot be mixed with the other kinds.
//
// The whole input is read and checked first: a bad line is reported with its number and
// nothing is written (a new DB is not even created). The links given for a page replace
// any it had.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "crawlrank/fault_guard.h"
#include "load_input.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

constexpr std::string_view kSyntheticUrlPrefix = "http://graph.invalid/";
constexpr size_t kBatchItems = 200'000;

// Writes batches of bounded size.
class BatchWriter {
 public:
  explicit BatchWriter(PageDb& db) : db_(db) {}
  WriteBatch& batch() { return batch_; }
  Status Added(size_t items) {
    items_ += items;
    return items_ >= kBatchItems ? Flush() : Status::Ok();
  }
  Status Flush() {
    if (batch_.size() == 0) return Status::Ok();
    AddReport report;
    CRAWLRANK_RETURN_IF_ERROR(db_.Write(batch_, &report));
    batch_.Clear();
    items_ = 0;
    if (!report.rejected_links.empty()) {
      const auto& first = report.rejected_links.front();
      return AlreadyExistsError(std::to_string(report.rejected_links.size()) +
                                " link(s) not stored, the first \"" + first.url +
                                "\": " + first.reason.message());
    }
    return Status::Ok();
  }

 private:
  PageDb& db_;
  WriteBatch batch_;
  size_t items_ = 0;
};

PageRecord SyntheticPage(uint32_t id) {
  PageRecord page;
  page.id = id;
  page.url = std::string(kSyntheticUrlPrefix) + std::to_string(id);
  page.fingerprint = UrlFingerprint(page.url);
  return page;
}

Status Write(PageDb& db, uint64_t first_id, Input& input) {
  BatchWriter writer(db);
  for (PageRecord& page : input.pages) {
    writer.batch().RestorePage(std::move(page));
    CRAWLRANK_RETURN_IF_ERROR(writer.Added(1));
  }
  // Pages for indexes of a bare edge list that the DB does not have yet.
  uint64_t next_id = first_id + input.pages.size();
  for (; !input.id_links.empty() && next_id <= input.max_link_id; ++next_id) {
    writer.batch().RestorePage(SyntheticPage(static_cast<uint32_t>(next_id)));
    CRAWLRANK_RETURN_IF_ERROR(writer.Added(1));
  }
  CRAWLRANK_RETURN_IF_ERROR(writer.Flush());  // links may only name stored pages

  std::sort(input.id_links.begin(), input.id_links.end());
  for (size_t i = 0; i < input.id_links.size();) {
    const uint32_t source = input.id_links[i].first;
    std::vector<uint32_t> targets;
    for (; i < input.id_links.size() && input.id_links[i].first == source; ++i) {
      targets.push_back(input.id_links[i].second);
    }
    const size_t n = targets.size();
    writer.batch().RestoreLinks(source, std::move(targets));
    CRAWLRANK_RETURN_IF_ERROR(writer.Added(n));
  }
  for (UrlGroup& group : input.url_groups) {
    const size_t n = group.targets.size() + 1;
    writer.batch().AddLinks(std::move(group.source), std::move(group.targets));
    CRAWLRANK_RETURN_IF_ERROR(writer.Added(n));
  }
  CRAWLRANK_RETURN_IF_ERROR(writer.Flush());
  return db.Sync();
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Loads a link graph (`src dst` page indexes or `src_url dst_url` per line) or a "
      "page_db_dump output (info lines, then links) into a PageDB, creating it if needed. "
      "Reads standard input when FILE is not given. A bad line is reported with its number "
      "and nothing is written.",
      "page_db_load");
  std::string db_path, file, profile_name = "rfc3986";
  app.add_option("db", db_path, "PageDB directory (created when missing)")->required();
  app.add_option("file", file, "input file (default: standard input)");
  bool no_check = false;
  app.add_flag("--no-check", no_check,
               "skip the full check of an existing DB before loading into it (a writer's open "
               "still runs the quick check)");
  app.add_option("--profile", profile_name,
                 "URL profile of a new DB: rfc3986 or w3lib (an existing DB keeps its own)")
      ->capture_default_str();
  return Run(app, argc, argv, [&] {
    auto profile = ParseUrlProfile(profile_name);
    if (!profile.ok()) return UsageError(app, profile.status().message());
    std::ifstream in_file;
    if (!file.empty()) {
      in_file.open(file);
      if (!in_file) {
        return Fail(app, IoError("open \"" + file + "\": " + std::strerror(errno)));
      }
    }
    PageDbOptions options;
    options.url_profile = *profile;
    options.durability = Durability::kNone;  // a load can be redone; synced once at the end
    // An existing DB is held (and locked) while the input is read; a new one is created
    // only once the input has been read without error.
    options.create_if_missing = false;
    WatchPageDb(db_path);
    auto db = PageDb::Open(db_path, options);
    const bool exists = db.ok();
    if (!exists && db.status().code() != StatusCode::kNotFound) return Fail(app, db.status());
    uint64_t first_id = 0;
    if (exists && !no_check) {
      // Writing a whole input into a damaged DB would bury the damage: check it first.
      if (Status check = (*db)->Check(); !check.ok()) {
        return Fail(app,
                    Status(check.code(),
                           check.message() + "; nothing loaded (--no-check skips this check)"));
      }
    }
    if (exists) {
      auto info = (*db)->Info();
      if (!info.ok()) return Fail(app, info.status());
      first_id = info->counters.pages;
    }

    InputReader reader(file.empty() ? std::string("<stdin>") : file, first_id,
                       exists ? (*db)->url_profile() : *profile);
    Status status = reader.ReadAll(file.empty() ? std::cin : in_file);
    if (status.ok()) status = CheckDenseIds(reader.input(), first_id);
    if (!status.ok()) return Fail(app, status);
    if (!exists) {
      options.create_if_missing = true;
      options.error_if_exists = true;  // another process created it meanwhile: start over
      db = PageDb::Open(db_path, options);
      if (!db.ok()) return Fail(app, db.status());
    }
    status = Write(**db, first_id, reader.input());
    if (!status.ok()) return Fail(app, status);
    auto info = (*db)->Info();
    if (!info.ok()) return Fail(app, info.status());
    std::cout << "page_db_load: read " << reader.input().lines << " lines; " << db_path
              << " now holds " << info->counters.pages << " pages and " << info->counters.edges
              << " links\n";
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
