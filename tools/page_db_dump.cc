// page_db_dump: prints every page (`info`) or every link (`links`) of a PageDB.
#include <nlohmann/json.hpp>

#include "page_line.h"
#include "rank_column.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

struct Options {
  std::string mode;
  std::string db;
  bool header = false;
  bool all = false;
  bool json = false;
  std::vector<std::string> ranks;  // extra rank columns
};

// The stored rank columns named by --rank, in order; a page newer than a rank has no value
// there.
struct RankColumns {
  std::vector<std::vector<double>> values;
  bool Has(size_t column, uint32_t id) const { return id < values[column].size(); }
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

Status DumpInfo(const Snapshot& snapshot, const Options& options, const RankColumns& ranks,
                Output& out) {
  if (options.header && !options.json) {
    out << PageLineHeader(options.all);
    for (const std::string& name : options.ranks) out << ' ' << name;
    out << '\n';
  }
  std::string line;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& record) {
    line.clear();
    if (options.json) {
      nlohmann::ordered_json json = PageJson(record);
      for (size_t c = 0; c < options.ranks.size(); ++c) {
        json[options.ranks[c]] = ranks.Has(c, record.id)
                                     ? nlohmann::ordered_json(ranks.values[c][record.id])
                                     : nlohmann::ordered_json(nullptr);
      }
      line = json.dump();
    } else {
      AppendPageLine(record, options.all, line);
      for (size_t c = 0; c < options.ranks.size(); ++c) {
        line += ' ';
        line += ranks.Has(c, record.id) ? FormatScore(ranks.values[c][record.id]) : "-";
      }
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
        out << "{\"from\":" << uint64_t{cursor.source()} << ",\"to\":" << uint64_t{target} << "}\n";
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
  app.add_option("--rank", options.ranks,
                 "info: add the column of " + RankColumnHelp() +
                     " (stored by page_db_rank; "
                     "'-' for pages newer than the rank); repeatable");
  return Run(app, argc, argv, [&] {
    if (!options.ranks.empty() && options.mode != "info") {
      return UsageError(app, "--rank goes with info");
    }
    for (const std::string& name : options.ranks) {
      if (!IsRankColumn(name))
        return UsageError(app, "unknown --rank \"" + name + "\"; " + RankColumnHelp());
    }
    auto db = OpenForReading(options.db);
    if (!db.ok()) return Fail(app, db.status());
    RankColumns ranks;
    auto values = LoadRankColumns(options.db, options.ranks);
    if (!values.ok()) return Fail(app, values.status());
    ranks.values = std::move(values).value();
    auto snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    Output out;
    const Status status = options.mode == "info" ? DumpInfo(*snapshot, options, ranks, out)
                                                 : DumpLinks(*snapshot, options, out);
    return status.ok() ? kExitOk : Fail(app, status);
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
