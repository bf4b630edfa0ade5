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
#include <limits>
#include <fstream>
#include <iostream>
#include <unordered_map>

#include "crawlrank/fault_guard.h"
#include "page_line.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

constexpr std::string_view kSyntheticUrlPrefix = "http://graph.invalid/";
constexpr size_t kBatchItems = 200'000;

struct UrlGroup {
  std::string source;
  std::vector<Link> targets;
};

// Everything read from the input, checked, ready to write.
struct Input {
  std::vector<PageRecord> pages;                   // page lines
  std::vector<std::pair<uint32_t, uint32_t>> id_links;
  uint32_t max_link_id = 0;                        // the largest id in id_links
  std::vector<UrlGroup> url_groups;                // by source, in order of first appearance
  uint64_t url_links = 0;
  uint64_t lines = 0;
};

class InputReader {
 public:
  InputReader(std::string name, uint64_t first_id, UrlProfile profile)
      : name_(std::move(name)), first_id_(first_id), profile_(profile) {}

  Status ReadAll(std::istream& in) {
    std::string line;
    while (std::getline(in, line)) {
      ++input_.lines;
      Status status = ReadLine(line);
      if (!status.ok()) {
        return InvalidArgumentError(name_ + ":" + std::to_string(input_.lines) + ": " +
                                    status.message());
      }
    }
    if (in.bad()) return IoError("read " + name_ + ": input error");
    return Status::Ok();
  }

  Input& input() { return input_; }

 private:
  enum class Kind { kNone, kPages, kIdLinks, kUrlLinks };

  Status ReadLine(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto fields = SplitFields(line);
    if (fields.empty() || fields[0].front() == '#') return Status::Ok();
    if (fields.size() == kBasicPageFields || fields.size() == kFullPageFields) {
      return ReadPage(fields);
    }
    if (fields.size() != 2) {
      return InvalidArgumentError("expected `src dst` or a page_db_dump info line (" +
                                  std::to_string(kBasicPageFields) + " or " +
                                  std::to_string(kFullPageFields) + " fields), got " +
                                  std::to_string(fields.size()) + " fields");
    }
    for (std::string_view field : fields) {
      if (field.size() > 1 && field[0] == '-' && IsNumber(field.substr(1))) {
        return InvalidArgumentError("page index " + QuoteForMessage(field) +
                                    " is negative: indexes run from 0");
      }
    }
    const bool ids = IsNumber(fields[0]) && IsNumber(fields[1]);
    return ids ? ReadIdLink(fields[0], fields[1]) : ReadUrlLink(fields[0], fields[1]);
  }

  static bool IsNumber(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  }

  Status Become(Kind kind) {
    static constexpr std::string_view kNames[] = {"", "page lines", "index pairs", "URL pairs"};
    if (kind_ == kind) return Status::Ok();
    const bool allowed = kind_ == Kind::kNone || (kind_ == Kind::kPages && kind == Kind::kIdLinks);
    if (!allowed) {
      return InvalidArgumentError(std::string(kNames[int(kind)]) + " cannot follow " +
                                  std::string(kNames[int(kind_)]));
    }
    kind_ = kind;
    return Status::Ok();
  }

  Status ReadPage(std::span<const std::string_view> fields) {
    CRAWLRANK_RETURN_IF_ERROR(Become(Kind::kPages));
    CRAWLRANK_ASSIGN_OR_RETURN(PageRecord page, ParsePageLine(fields));
    const uint64_t expected = first_id_ + input_.pages.size();
    if (page.id != expected) {
      return InvalidArgumentError(
          "index " + std::to_string(page.id) + " where " + std::to_string(expected) +
          " was expected (pages must be in index order, starting at the DB's page count " +
          std::to_string(first_id_) + ")");
    }
    CRAWLRANK_ASSIGN_OR_RETURN(std::string canonical, CanonicalizeUrl(page.url, profile_));
    if (canonical != page.url) {
      return InvalidArgumentError("URL " + QuoteForMessage(page.url) + " is not canonical under " +
                                  std::string(UrlProfileName(profile_)) + " (that is " +
                                  QuoteForMessage(canonical) +
                                  "); was the dump made with another --profile?");
    }
    if (UrlFingerprint(page.url) != page.fingerprint) {
      return InvalidArgumentError("hash " + FormatFingerprint(page.fingerprint) +
                                  " is not the hash of " + QuoteForMessage(page.url) + " (" +
                                  FormatFingerprint(UrlFingerprint(page.url)) + ")");
    }
    input_.pages.push_back(std::move(page));
    return Status::Ok();
  }

  Status ReadIdLink(std::string_view src, std::string_view dst) {
    CRAWLRANK_RETURN_IF_ERROR(Become(Kind::kIdLinks));
    // Ids end below 2^32 - 1 so that the page count fits 32 bits.
    constexpr uint64_t kMaxId = std::numeric_limits<uint32_t>::max() - 1;
    CRAWLRANK_ASSIGN_OR_RETURN(uint64_t from, ParseUnsigned(src, kMaxId));
    CRAWLRANK_ASSIGN_OR_RETURN(uint64_t to, ParseUnsigned(dst, kMaxId));
    if (!input_.pages.empty()) {
      const uint64_t known = first_id_ + input_.pages.size();
      if (from >= known || to >= known) {
        return InvalidArgumentError("link " + std::to_string(from) + " -> " + std::to_string(to) +
                                    " names an index beyond the " + std::to_string(known) +
                                    " pages");
      }
    }
    input_.id_links.emplace_back(static_cast<uint32_t>(from), static_cast<uint32_t>(to));
    input_.max_link_id = static_cast<uint32_t>(std::max({uint64_t{input_.max_link_id}, from, to}));
    return Status::Ok();
  }

  Status ReadUrlLink(std::string_view src, std::string_view dst) {
    CRAWLRANK_RETURN_IF_ERROR(Become(Kind::kUrlLinks));
    CRAWLRANK_ASSIGN_OR_RETURN(std::string from, CanonicalizeUrl(src, profile_));
    CRAWLRANK_ASSIGN_OR_RETURN(std::string to, CanonicalizeUrl(dst, profile_));
    auto [it, inserted] = group_of_.try_emplace(from, input_.url_groups.size());
    if (inserted) input_.url_groups.push_back(UrlGroup{std::move(from), {}});
    input_.url_groups[it->second].targets.push_back(Link{std::move(to), 0.f});
    ++input_.url_links;
    return Status::Ok();
  }

  std::string name_;
  uint64_t first_id_;
  UrlProfile profile_;
  Kind kind_ = Kind::kNone;
  Input input_;
  std::unordered_map<std::string, size_t> group_of_;
};

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

// The ids of a bare edge list stand for pages 0, 1, 2, ...: the loader creates a page for
// every id up to the largest. An id far past anything the links could number (two new
// pages a link, plus slack) is a typo or another kind of file: refuse it before creating
// billions of empty pages.
Status CheckDenseIds(const Input& input, uint64_t first_id) {
  const uint64_t next_id = first_id + input.pages.size();
  const uint64_t max_id = input.max_link_id;
  const uint64_t can_number = 2 * uint64_t{input.id_links.size()} + (uint64_t{1} << 20);
  if (max_id >= next_id && max_id - next_id >= can_number) {
    return InvalidArgumentError("the edge list names page id " + std::to_string(max_id) +
                                ", but its " + std::to_string(input.id_links.size()) +
                                " links could number at most " + std::to_string(can_number) +
                                " new pages after id " + std::to_string(next_id) +
                                ": ids must run densely from 0 (or from the DB's page count)");
  }
  return Status::Ok();
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
        return Fail(app, Status(check.code(), check.message() + "; nothing loaded (--no-check skips this check)"));
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

int main(int argc, char** argv) { return crawlrank::tools::Main(argc, argv); }
