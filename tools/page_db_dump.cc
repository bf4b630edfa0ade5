// page_db_dump: prints every page (`info`) or every link (`links`) of a PageDB.
#include <nlohmann/json.hpp>

#include "page_line.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

struct Options {
  std::string mode;
  std::string db;
  bool header = false;
  bool all = false;
  bool json = false;
};

nlohmann::ordered_json PageJson(const PageRecord& r) {
  return {{"hash", FormatFingerprint(r.fingerprint)},
          {"index", r.id},
          {"url", r.url},
          {"first_crawl_ms", r.first_crawl_ms},
          {"last_crawl_ms", r.last_crawl_ms},
          {"changes", r.n_changes},
          {"crawls", r.n_crawls},
          {"score", r.content_score},
          {"depth", r.depth},
          {"discovered_from", FormatFingerprint(r.discovered_from)},
          {"link_score", r.link_score},
          {"content_hash", FormatFingerprint(r.content_hash)},
          {"status", r.http_status},
          {"errors", r.n_errors}};
}

Status DumpInfo(const Snapshot& snapshot, const Options& options, Output& out) {
  if (options.header && !options.json) out << PageLineHeader(options.all) << '\n';
  std::string line;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& record) {
    line.clear();
    if (options.json) {
      line = PageJson(record).dump();
    } else {
      AppendPageLine(record, options.all, line);
    }
    out << line << '\n';
    return Status::Ok();
  }));
  return out.Flush();
}

Status DumpLinks(const Snapshot& snapshot, const Options& options, Output& out) {
  if (options.header && !options.json) out << "# from_index to_index\n";
  EdgeCursor cursor = snapshot.Edges();
  for (; cursor.Valid(); cursor.Next()) {
    for (uint32_t target : cursor.targets()) {
      if (options.json) {
        out << "{\"from\":" << uint64_t{cursor.source()} << ",\"to\":" << uint64_t{target}
            << "}\n";
      } else {
        out << uint64_t{cursor.source()} << ' ' << uint64_t{target} << '\n';
      }
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(cursor.status());
  return out.Flush();
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Prints every page of a PageDB (info: hash index url first_crawl last_crawl changes "
      "crawls score) or every link (links: from_index to_index), from one consistent "
      "snapshot. Works while a crawl writes.",
      "page_db_dump");
  Options options;
  app.add_option("mode", options.mode, "info or links")
      ->required()
      ->check(CLI::IsMember({"info", "links"}));
  app.add_option("db", options.db, "PageDB directory")->required();
  app.add_flag("--header", options.header, "print a header line starting with '#'");
  app.add_flag("--all", options.all,
               "info: add depth discovered_from link_score content_hash status errors");
  app.add_flag("--json", options.json, "one JSON object per line, every field");
  return Run(app, argc, argv, [&] {
    auto db = OpenForReading(options.db);
    if (!db.ok()) return Fail(app, db.status());
    auto snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    Output out;
    const Status status = options.mode == "info" ? DumpInfo(*snapshot, options, out)
                                                 : DumpLinks(*snapshot, options, out);
    return status.ok() ? kExitOk : Fail(app, status);
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) { return crawlrank::tools::Main(argc, argv); }
