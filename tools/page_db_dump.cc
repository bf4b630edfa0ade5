// page_db_dump: prints every page (`info`) or every link (`links`) of a PageDB.
//
// --skip-damaged is the salvage of a damaged DB (page_db_check's advice): a page record or
// a block of links that does not decode is left out, named on stderr, and the rest is
// dumped; the tool then exits 3. Both dumps number the pages that remain densely (an index
// after a skipped page moves down by the pages skipped before it), and `links` leaves out
// the links from and to a skipped page, so that the two dumps load together into a new DB.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "crawlrank/crawl_config.h"
#include "crawlrank/page_standing.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/scheduler.h"

#include "dump_formats.h"
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
  bool csv = false;
  bool graphml = false;
  bool urls = false;  // links: the pages' URLs instead of their indexes
  bool skip_damaged = false;
  bool iso_times = false;
  bool ghosts = false;  // info: the ghosts of a node of a cluster too
  std::vector<std::string> ranks;  // extra rank columns
};

// What --skip-damaged left out, each entry told on stderr as the walk meets it.
class Skipped {
 public:
  explicit Skipped(std::string tool) : tool_(std::move(tool)) {}

  // The DamageSink of a walk; `also` says what else the dump leaves out for the entry.
  DamageSink Sink(std::string_view also = "") {
    return [this, also](const DamagedEntry& entry) {
      std::cerr << tool_ << ": skipped damaged ";
      if (entry.table == "pages") {
        pages_.push_back(entry.key);
        std::cerr << "page " << entry.key << " (pages table" << also << ")";
      } else {
        ++blocks_;
        const uint64_t first = uint64_t{entry.key} * 32;
        std::cerr << "link block " << entry.key << " (" << entry.table
                  << " table: the links from pages " << first << " to " << first + 31 << ")";
      }
      std::cerr << ": " << entry.why.message() << "\n";
      return Status::Ok();
    };
  }
  bool any() const { return !pages_.empty() || blocks_ > 0; }
  bool IsSkippedPage(uint32_t id) const {
    return std::binary_search(pages_.begin(), pages_.end(), id);
  }
  // The index page `id` has in the dump: less the pages skipped before it (the walk meets
  // them in id order, so `pages_` is sorted).
  uint32_t Renumbered(uint32_t id) const {
    if (pages_.empty()) return id;
    const auto before = std::lower_bound(pages_.begin(), pages_.end(), id) - pages_.begin();
    return id - static_cast<uint32_t>(before);
  }
  // The closing line on stderr and the exit status of a dump that skipped something.
  int Finish() const {
    std::cerr << tool_ << ": skipped " << pages_.size() << " damaged page record(s) and " << blocks_
              << " damaged link block(s); "
              << (pages_.empty() ? "" : "the pages after a skipped one are renumbered; ")
              << "the rest is dumped (exit " << kExitSkippedDamage << ")\n";
    return kExitSkippedDamage;
  }

 private:
  std::string tool_;
  std::vector<uint32_t> pages_;  // ids, in increasing order
  uint64_t blocks_ = 0;
};

// The stored rank columns named by --rank, in order; a page newer than a rank has no value
// there.
struct RankColumns {
  std::vector<std::vector<double>> values;  // --rank's, in order
  std::vector<double> shown;  // --json and --csv's `rank` (ShownRankName); empty: none
  bool Has(size_t column, uint32_t id) const { return id < values[column].size(); }
};

// Where every page stands, by id, as the crawl's stored configuration judges it (the state
// column of --all, --json and --csv: crawled, pending, failed:KIND, removed, out_of_scope,
// filtered; page_standing.h). None when not needed, or when salvaging a schedule that does
// not read (every page not crawled is then pending).
using FailedKinds = std::optional<PageStandings>;

Result<FailedKinds> ReadFailedKinds(const PageDb& db, const Snapshot& snapshot,
                                    const Options& options, const std::string& tool) {
  if (options.mode != "info" || (!options.all && !options.json && !options.csv)) {
    return FailedKinds();
  }
  Result<PageStandings> standings = [&]() -> Result<PageStandings> {
    CRAWLRANK_ASSIGN_OR_RETURN(const SchedulerOptions stored, StoredSchedulerOptions(db));
    return ReadPageStandings(db, snapshot, stored);
  }();
  if (!standings.ok() && options.skip_damaged) {  // salvage the pages without their states
    std::cerr << tool << ": the schedule does not read (" << standings.status().message()
              << "); every page not crawled is shown as pending\n";
    return FailedKinds();
  }
  if (!standings.ok()) {
    return Status(standings.status().code(),
                  standings.status().message() +
                      " (--skip-damaged dumps the pages, each not crawled as pending)");
  }
  return FailedKinds(std::move(standings).value());
}

std::string StateOf(const FailedKinds& standings, const PageRecord& record, uint32_t id) {
  if (standings.has_value() && id < standings->by_id.size()) return standings->NameOf(id);
  return PageStateField(record, std::nullopt);
}

nlohmann::ordered_json PageJson(const PageRecord& r) {
  return {{"hash", FormatFingerprint(r.fingerprint)},
          {"index", r.id},
          {"url", r.url},
          {"first_crawl_ms", r.first_crawl_ms},
          {"last_crawl_ms", r.last_crawl_ms},
          {"changes", r.n_changes},
          {"crawls", r.n_crawls},
          {"content_score", r.content_score},
          {"depth", r.depth},
          {"discovered_from", FormatFingerprint(r.discovered_from)},
          {"link_score", r.link_score},
          {"content_hash", FormatFingerprint(r.content_hash)},
          {"status", r.http_status},
          {"errors", r.n_errors}};
}

// `ghosts`: the ids of the ghosts it leaves out, in id order.
Status DumpInfo(const Snapshot& snapshot, const Options& options, const RankColumns& ranks,
                const FailedKinds& failed, const std::vector<uint32_t>& ghosts,
                Skipped& skipped, Output& out) {
  if (options.header && !options.json && !options.csv) {
    out << PageLineHeader(options.all);
    for (const std::string& name : options.ranks) out << ' ' << name;
    out << '\n';
  }
  std::string line;
  PageRecord renumbered;
  bool csv_header_written = false;
  const auto print = [&](const PageRecord& stored) {
    if (std::binary_search(ghosts.begin(), ghosts.end(), stored.id)) return Status::Ok();
    const PageRecord* record_ptr = &stored;
    if (skipped.any()) {
      renumbered = stored;
      renumbered.id = skipped.Renumbered(stored.id);
      record_ptr = &renumbered;
    }
    const PageRecord& record = *record_ptr;
    const uint32_t id = stored.id;  // of the rank columns, which follow the DB's ids
    line.clear();
    if (options.json || options.csv) {
      nlohmann::ordered_json json = PageJson(record);
      if (options.iso_times) {
        json["first_crawl"] = IsoTimeOr(record.first_crawl_ms, "-");
        json["last_crawl"] = IsoTimeOr(record.last_crawl_ms, "-");
      }
      json["state"] = StateOf(failed, record, id);
      json["rank"] = ranks.shown.size() > id ? nlohmann::ordered_json(ranks.shown[id])
                                             : nlohmann::ordered_json(nullptr);
      for (size_t c = 0; c < options.ranks.size(); ++c) {
        json[options.ranks[c]] = ranks.Has(c, id) ? nlohmann::ordered_json(ranks.values[c][id])
                                                  : nlohmann::ordered_json(nullptr);
      }
      if (options.csv) {
        if (!csv_header_written) {  // the header row: the same fields, named as in JSON
          for (const auto& [name, value] : json.items()) {
            if (!line.empty()) line += ',';
            AppendCsvField(name, line);
          }
          line += kCsvLineEnd;
          csv_header_written = true;
        }
        bool first = true;
        for (const auto& [name, value] : json.items()) {
          if (!first) line += ',';
          first = false;
          AppendCsvField(value.is_string() ? value.get<std::string>()
                         : value.is_null() ? std::string()
                                           : value.dump(),
                         line);
        }
        out << line << kCsvLineEnd;
        return Status::Ok();
      }
      line = json.dump();
    } else {
      AppendPageLine(record, options.all, line,
                     options.iso_times ? TimeFormat::kIso : TimeFormat::kUnixSeconds);
      if (options.all) {
        line += ' ';
        line += StateOf(failed, record, id);
      }
      for (size_t c = 0; c < options.ranks.size(); ++c) {
        line += ' ';
        line += ranks.Has(c, id) ? FormatScore(ranks.values[c][id]) : "-";
      }
    }
    out << line << '\n';
    return Status::Ok();
  };
  CRAWLRANK_RETURN_IF_ERROR(options.skip_damaged ? snapshot.ForEachPage(print, skipped.Sink())
                                                 : snapshot.ForEachPage(print));
  return out.Flush();
}

// The pages' URLs by id (skipped pages: empty), for links with --urls; and with --graphml,
// each page as a GraphML node. One walk of the pages; the links come after.
Result<std::vector<std::string>> WalkPages(const Snapshot& snapshot, const Options& options,
                                           Skipped& skipped, Output& out) {
  std::vector<std::string> urls;
  std::string line;
  const auto visit = [&](const PageRecord& r) {
    if (options.urls) {
      urls.resize(std::max<size_t>(urls.size(), size_t{r.id} + 1));
      urls[r.id] = r.url;
    }
    if (options.graphml) {
      line = "    <node id=\"n" + std::to_string(skipped.Renumbered(r.id)) + "\"><data key=\"url\">";
      AppendXmlText(r.url, line);
      line += "</data><data key=\"status\">" + std::to_string(r.http_status) +
              "</data><data key=\"crawls\">" + std::to_string(r.n_crawls) +
              "</data><data key=\"depth\">" + std::to_string(r.depth) + "</data></node>\n";
      out << line;
    }
    return Status::Ok();
  };
  // With --skip-damaged, the walk also names the pages the links then leave out.
  const std::string_view also = "; the links from and to it are left out too";
  if (options.skip_damaged) {
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage(visit, skipped.Sink(also)));
  } else if (options.urls || options.graphml) {
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage(visit));
  }
  return urls;
}

constexpr std::string_view kGraphmlHead =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
    "  <key id=\"url\" for=\"node\" attr.name=\"url\" attr.type=\"string\"/>\n"
    "  <key id=\"status\" for=\"node\" attr.name=\"status\" attr.type=\"int\"/>\n"
    "  <key id=\"crawls\" for=\"node\" attr.name=\"crawls\" attr.type=\"int\"/>\n"
    "  <key id=\"depth\" for=\"node\" attr.name=\"depth\" attr.type=\"int\"/>\n"
    "  <graph id=\"pagedb\" edgedefault=\"directed\">\n";

Status DumpLinks(const Snapshot& snapshot, const Options& options, Skipped& skipped, Output& out) {
  if (options.graphml) out << kGraphmlHead;
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<std::string> urls,
                             WalkPages(snapshot, options, skipped, out));
  const std::string_view from = options.urls ? "from_url" : "from";
  const std::string_view to = options.urls ? "to_url" : "to";
  if (options.csv) {
    out << from << ',' << to << kCsvLineEnd;
  } else if (options.header && !options.json && !options.graphml) {
    out << (options.urls ? "# from_url to_url\n" : "# from_index to_index\n");
  }
  std::string line;
  EdgeCursor cursor = options.skip_damaged ? snapshot.Edges(skipped.Sink()) : snapshot.Edges();
  for (; cursor.Valid(); cursor.Next()) {
    if (skipped.IsSkippedPage(cursor.source())) continue;
    const uint64_t source = skipped.Renumbered(cursor.source());
    for (uint32_t stored_target : cursor.targets()) {
      if (skipped.IsSkippedPage(stored_target)) continue;
      const uint64_t target = skipped.Renumbered(stored_target);
      line.clear();
      if (options.graphml) {
        line = "    <edge source=\"n" + std::to_string(source) + "\" target=\"n" +
               std::to_string(target) + "\"/>\n";
      } else if (options.urls) {
        const std::string& a = urls[cursor.source()];
        const std::string& b = urls[stored_target];
        if (options.json) {
          line = nlohmann::ordered_json{{"from_url", a}, {"to_url", b}}.dump() + "\n";
        } else if (options.csv) {
          AppendCsvField(a, line);
          line += ',';
          AppendCsvField(b, line);
          line += kCsvLineEnd;
        } else {  // canonical URLs hold no space: one line, two fields
          line = a + ' ' + b + '\n';
        }
      } else if (options.json) {
        line = "{\"from\":" + std::to_string(source) + ",\"to\":" + std::to_string(target) + "}\n";
      } else if (options.csv) {
        line = std::to_string(source) + ',' + std::to_string(target) + std::string(kCsvLineEnd);
      } else {
        line = std::to_string(source) + ' ' + std::to_string(target) + '\n';
      }
      out << line;
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(cursor.status());
  if (options.graphml) out << "  </graph>\n</graphml>\n";
  return out.Flush();
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Prints every page of a PageDB (info: hash index url first_crawl last_crawl changes "
      "crawls score) or every link (links: from_index to_index), from one consistent "
      "snapshot. Works while a crawl writes. Exits 0, 1 when it fails (a damaged record "
      "ends it), 2 on bad usage, and 3 when --skip-damaged left something out.",
      "page_db_dump");
  Options options;
  app.Add("mode", options.mode, "info or links")->Required()->OneOf({"info", "links"});
  app.Add("db", options.db, "PageDB directory")->Required();
  app.Flag("--header", options.header, "print a header line starting with '#'");
  app.Flag("--all", options.all,
           "info: add depth discovered_from link_score content_hash status errors state "
           "(crawled, pending, or failed:KIND for a page failed for good; page_db_load "
           "reads it back and restores nothing of it)");
  app.Flag("--json", options.json,
           "one JSON object per line, every field (info: the fields of --all, with score "
           "named content_score: the caller's relevance score, 0 without one such as "
           "--keywords; and rank: the rank lists show, the display rank where a crawl "
           "computed one, else pagerank, null without either or for a page newer than it)");
  app.Flag("--csv", options.csv,
           "CSV (RFC 4180: a header row, fields quoted where needed, CRLF line ends): info, "
           "every field of --json; links, from,to");
  app.Flag("--urls", options.urls,
           "links: each link as the two pages' URLs (from_url to_url) instead of their "
           "indexes; with --csv or --json too");
  app.Flag("--graphml", options.graphml,
           "links: the whole graph as one GraphML document: each page a node (n<index>) "
           "with its url, status, crawls and depth, each link an edge");
  app.Flag("--iso-times", options.iso_times,
           "info: crawl times as ISO 8601 UTC (\"-\" for never) instead of Unix seconds, "
           "for people; page_db_load reads only Unix seconds (with --json: adds "
           "first_crawl and last_crawl beside the *_ms fields)");
  app.Flag("--skip-damaged", options.skip_damaged,
           "salvage: leave out each page record or block of links that does not decode, "
           "name it on stderr, dump the rest and exit 3; pages are renumbered densely and "
           "links leaves out those of skipped pages, so dump both with this flag");
  app.Flag("--ghosts", options.ghosts,
           "info: on a node of a cluster, also the pages another node owns, which this one "
           "keeps for the links to them (state elsewhere); left out by default");
  app.Add("--rank", options.ranks,
          "info: add the column of " + RankColumnHelp() +
              " (stored by page_db_rank; "
              "'-' for pages newer than the rank); repeatable");
  return Run(app, argc, argv, [&] {
    if (options.json + options.csv + options.graphml > 1) {
      return UsageError(app, "--json, --csv and --graphml are different formats: give one");
    }
    if ((options.urls || options.graphml) && options.mode != "links") {
      return UsageError(app, std::string(options.urls ? "--urls" : "--graphml") +
                                 " goes with links");
    }
    if (options.urls && options.graphml) {
      return UsageError(app, "--graphml names pages by index and gives their URLs itself");
    }
    if (options.header && (options.csv || options.graphml)) {
      return UsageError(app, "--header goes without --csv (its header row is always there) "
                             "and --graphml");
    }
    if (options.iso_times && options.mode != "info") {
      return UsageError(app, "--iso-times goes with info");
    }
    if (options.ghosts && options.mode != "info") {
      return UsageError(app, "--ghosts goes with info (links always has the links to them)");
    }
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
    if (options.mode == "info" && (options.json || options.csv)) {
      // The `rank` field: the rank a list for a person shows, where one was computed.
      const std::string shown = ShownRankName(options.db);
      if (std::filesystem::exists(RankFilePath(options.db, shown))) {
        auto column = LoadRankColumns(options.db, std::span(&shown, 1));
        if (!column.ok()) return Fail(app, column.status());
        ranks.shown = std::move(column->front());
      }
    }
    auto snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    auto failed = ReadFailedKinds(**db, *snapshot, options, app.name());
    if (!failed.ok()) return Fail(app, failed.status());
    std::vector<uint32_t> ghosts;
    if (options.mode == "info" && !options.ghosts) {
      auto found = Scheduler::GhostPages(**db, *snapshot);
      if (!found.ok() && !options.skip_damaged) return Fail(app, found.status());
      if (found.ok()) ghosts = std::move(found).value();
    }
    Output out;
    Skipped skipped(app.name());
    const Status status = options.mode == "info"
                              ? DumpInfo(*snapshot, options, ranks, *failed, ghosts, skipped, out)
                              : DumpLinks(*snapshot, options, skipped, out);
    if (!status.ok()) return Fail(app, status);
    return skipped.any() ? skipped.Finish() : kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
