// page_db_check: verifies a PageDB and says what to do when it is damaged.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <map>
#include <span>
#include <string>

#include "crawlrank/global_rank.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// `text` as one word of a POSIX shell: as it is when it holds nothing the shell reads
// specially, else in single quotes.
std::string ShellWord(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./+,:=@%-", c) != nullptr;
  });
  if (plain) return std::string(text);
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// A tool beside this one (the front door `crawlrank check` runs this binary from its
// directory too), so that the commands of the advice run as printed.
std::string ToolBesideThis(std::string_view name) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::string(name);
  return ShellWord((self.parent_path() / name).string());
}

// What an operator can do about the damaged DB at `db_path`, printed after the first
// broken key: each command runs as printed, from any directory.
std::string WhatNext(const std::string& db_path) {
  std::error_code ec;
  std::string base = std::filesystem::absolute(db_path, ec).lexically_normal().string();
  if (ec) base = db_path;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  const std::string db = ShellWord(base);
  const std::string pages = ShellWord(base + ".pages.txt");
  const std::string links = ShellWord(base + ".links.txt");
  const std::string salvaged = ShellWord(base + ".salvaged");
  const std::string dump = ToolBesideThis("page_db_dump");
  const std::string load = ToolBesideThis("page_db_load");
  std::string advice =
      "What to do next:\n"
      "  - keep this copy as it is: do not open it for writing (crawlrank's writers refuse a\n"
      "    DB whose quick check fails, and page_db_load and page_db_compact run the full check);\n"
      "  - restore the DB from a copy taken while it was sound (page_db_compact DB COPY makes\n"
      "    one at any time, beside a running crawl);\n"
      "  - or salvage what still reads into a new DB. Each dump leaves out the page records\n"
      "    and blocks of links it cannot read, names them, and then exits 3; the pages that\n"
      "    remain are renumbered alike in both dumps:\n";
  advice += "      " + dump + " info " + db + " --all --skip-damaged > " + pages + "\n";
  advice += "      " + dump + " links " + db + " --skip-damaged > " + links + "\n";
  advice += "      " + load + " " + salvaged + " " + pages + "\n";
  advice += "      " + load + " " + salvaged + " " + links + "\n";
  return advice;
}

// The global ranks (crawlrank_rank_mpi) stored with `dbs`, one line per algorithm: the run
// each file belongs to, and whether the nodes given hold one run or a mix. A mix is no
// damage (a node whose job process died after the others renamed keeps the run before):
// the next run of the job makes them one again.
Status PrintGlobalRuns(std::span<const std::string> dbs) {
  for (std::string_view name : RankAlgorithmNames()) {
    const RankAlgorithm algorithm = ParseRankAlgorithm(name).value();
    if (algorithm == RankAlgorithm::kInDegree) continue;
    std::map<uint64_t, std::vector<std::string>> runs;  // run -> "node i (path)"
    uint32_t shards = 0;
    for (const std::string& db : dbs) {
      Result<StoredRank> stored = LoadGlobalRank(db, algorithm);
      if (!stored.ok() && stored.status().code() == StatusCode::kNotFound) continue;
      if (!stored.ok()) return stored.status();
      shards = stored->global->shards;
      runs[stored->global->run_id].push_back("node " + std::to_string(stored->global->shard) +
                                             " (" + db + ")");
    }
    if (runs.empty()) continue;
    const auto hex = [](uint64_t run) {
      char text[17];
      std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(run));
      return std::string(text);
    };
    if (runs.size() == 1) {
      std::cout << "global " << name << ": run " << hex(runs.begin()->first) << " on "
                << runs.begin()->second.size() << " of " << shards << " nodes\n";
      continue;
    }
    std::cout << "global " << name << ": a mix of " << runs.size() << " runs:";
    for (const auto& [run, nodes] : runs) {
      std::cout << " run " << hex(run) << " on";
      for (size_t i = 0; i < nodes.size(); ++i) std::cout << (i ? ", " : " ") << nodes[i];
      std::cout << ";";
    }
    std::cout << " run crawlrank_rank_mpi again to make them one\n";
  }
  return Status::Ok();
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Checks a PageDB: every B-tree page of data.mdb read and checked without LMDB, then "
      "every invariant of the stored pages and links (--quick: the header, the counts, and "
      "a bounded sample of pages and records, in milliseconds). Exits 0 when no damage is "
      "found, 1 when it is damaged (naming the first broken page or key, then what to do "
      "next: the commands of a salvage with page_db_dump --skip-damaged, ready to run) or "
      "cannot be read. Works while a crawl writes.",
      "page_db_check");
  std::vector<std::string> db_paths;
  bool quick = false;
  app.Add("db", db_paths,
          "PageDB directory; several: each checked, and the nodes of a cluster also told "
          "whether their global ranks are of one run")
      ->Required();
  app.Flag("--quick", quick, "check the header, the counts and a sample only");
  return Run(app, argc, argv, [&] {
    for (const std::string& db_path : db_paths) {
      auto damaged = [&](const Status& status) {
        Fail(app, status);
        if (status.code() == StatusCode::kDataLoss) std::cerr << WhatNext(db_path);
        return kExitFailure;
      };
      auto db = OpenForReading(db_path);
      if (!db.ok()) return damaged(db.status());
      const auto level = quick ? PageDb::CheckLevel::kQuick : PageDb::CheckLevel::kFull;
      if (Status status = (*db)->Check(level); !status.ok()) return damaged(status);
      auto info = (*db)->Info();
      if (!info.ok()) return damaged(info.status());
      std::cout << "PageDB \"" << db_path << "\": no damage found by the "
                << (quick ? "quick" : "full") << " check (" << info->counters.pages
                << " pages, " << info->counters.edges << " links)\n";
    }
    if (Status status = PrintGlobalRuns(db_paths); !status.ok()) return Fail(app, status);
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
