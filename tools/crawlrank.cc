// crawlrank: the front door. `crawlrank crawl DB SEED...` runs the built-in crawler
// (crawl_command.h); `crawlrank TOOL ARGS...` runs page_db_TOOL (or crawlrank_TOOL for
// `url`, `robots`, `serve` and `dashboard`) from the same directory, so every tool keeps
// its own name and also answers under this one.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "crawl_command.h"
#include "crawlrank/page_db.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/version.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

constexpr std::string_view kTools[] = {"broken",   "check",   "compact", "dashboard", "dump",
                                       "failed",   "find",    "links",   "load",      "path",
                                       "rank",     "requeue", "reshard", "robots",    "schedule",
                                       "serve",    "stats",   "top",     "upgrade",   "url"};

int Usage(std::FILE* to) {
  std::fprintf(to,
               "usage: crawlrank crawl DB SEED... [options]   crawl (crawlrank crawl --help)\n"
               "       crawlrank TOOL ARGS...                 run page_db_TOOL (crawlrank_url,\n"
               "                                              crawlrank_robots, crawlrank_serve,\n"
               "                                              crawlrank_dashboard),\n"
               "                                              TOOL one of:\n"
               "        ");
  for (std::string_view t : kTools) std::fprintf(to, " %.*s", static_cast<int>(t.size()), t.data());
  std::fprintf(to, "\n       crawlrank --version                    the version and formats\n");
  return kExitUsage;
}

int Main(int argc, char** argv) {
  if (argc < 2) return Usage(stderr);
  const std::string_view command = argv[1];
  if (command == "crawl") return CrawlCommand(argc - 1, argv + 1);
  if (command == "--help" || command == "-h" || command == "help") {
    Usage(stdout);  // asked for: data, on stdout
    return kExitOk;
  }
  if (command == "--version" || command == "-V") {
    std::printf("crawlrank %s (PageDB format %u, rank file format %u)\n", CRAWLRANK_VERSION_STRING,
                kPageDbFormatVersion, kRankFileFormatVersion);
    return kExitOk;
  }
  if (std::find(std::begin(kTools), std::end(kTools), command) == std::end(kTools)) {
    std::fprintf(stderr, "crawlrank: unknown command \"%s\"\n", argv[1]);
    return Usage(stderr);
  }
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string name = command == "url" || command == "robots" || command == "serve" ||
                                   command == "dashboard"
                               ? "crawlrank_" + std::string(command)
                               : "page_db_" + std::string(command);
  const std::string path = (ec ? std::filesystem::path(name) : self.parent_path() / name).string();
  std::vector<char*> args;
  std::string argv0 = name;
  args.push_back(argv0.data());
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  std::fprintf(stderr, "crawlrank: cannot run %s: %s\n", path.c_str(), std::strerror(errno));
  return kExitFailure;
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) { return crawlrank::tools::Main(argc, argv); }
