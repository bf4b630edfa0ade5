// page_db_rank: computes a rank of a PageDB's link graph and stores it with the DB.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>

#include "crawlrank/db_rank.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// Reads trusted pages, one hash or URL per line ('#' starts a comment line).
Result<std::vector<uint64_t>> ReadTrusted(const Snapshot& snapshot, const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot open trusted-pages file \"" + path + "\"");
  std::vector<uint64_t> trusted;
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    const std::vector<std::string_view> fields = SplitFields(line);
    if (fields.empty() || fields[0][0] == '#') continue;
    Result<PageRecord> page = FindPage(snapshot, fields[0]);
    if (!page.ok()) {
      return page.status().WithContext("\"" + path + "\" line " + std::to_string(number));
    }
    trusted.push_back(page->fingerprint);
  }
  if (trusted.empty()) return InvalidArgumentError("\"" + path + "\" names no page");
  return trusted;
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Computes a rank of the pages of a PageDB from its links and stores it in "
      "DB/ranks/ALGO.rank, where page_db_top and page_db_dump read it. Reads one snapshot: "
      "works while a crawl writes.",
      "page_db_rank");
  std::string db_path, algo = "pagerank", mode = "auto", trusted_path;
  DbRankOptions options;
  uint64_t budget_mib = options.rank.memory_budget >> 20;
  app.Add("db", db_path, "PageDB directory")->Required();
  std::string algorithms;
  for (std::string_view name : RankAlgorithmNames()) algorithms += " " + std::string(name);
  app.Add("--algo", algo,
          "one of: display" + algorithms +
              " (display: PageRank without template links, in ranks/display.rank, the rank "
              "the lists people read use; ppr: teleport by page scores; wpr: weighted "
              "PageRank)")
      ->ShowDefault();
  app.Add("--damping", options.rank.damping,
          "damping factor c in [0, 1]; HITS: each step keeps c of itself and jumps uniformly "
          "with 1 - c (1: Kleinberg's HITS)")->ShowDefault();
  app.Add("--tolerance", options.rank.tolerance,
          "stop when the L1 norm of an iteration's change is at most this")
      ->ShowDefault();
  app.Add("--max-iterations", options.rank.max_iterations)->ShowDefault();
  options.rank.threads = 0;
  app.Add("--threads", options.rank.threads, "0: one per core")->ShowDefault();
  std::map<std::string, RankMode> modes;
  std::vector<std::string> mode_names;
  for (RankMode m : {RankMode::kAuto, RankMode::kStream, RankMode::kCsr}) {
    modes.emplace(RankModeName(m), m);
    mode_names.emplace_back(RankModeName(m));
  }
  app.Add("--mode", mode, "auto (CSR if it fits the memory budget), stream or csr")
      ->ShowDefault()
      ->OneOf(mode_names);
  app.Add("--memory-budget", budget_mib, "MiB the auto mode may spend on a CSR")->ShowDefault();
  app.Add("--extrapolate", options.rank.extrapolation_period,
          "csr mode, PageRank family: quadratic extrapolation every N iterations "
          "(0: plain power iteration)")
      ->ShowDefault();
  std::string renumber = "auto";
  std::map<std::string, RankRenumber> renumbers;
  std::vector<std::string> renumber_names;
  for (RankRenumber r : {RankRenumber::kAuto, RankRenumber::kNever, RankRenumber::kAlways}) {
    renumbers.emplace(RankRenumberName(r), r);
    renumber_names.emplace_back(RankRenumberName(r));
  }
  app.Add("--renumber", renumber,
          "csr mode, PageRank family: iterate over the pages in an order of their links "
          "(first seen: each page, then its targets) (auto: when under a quarter of the "
          "links join pages less "
          "than 4096 ids apart)")
      ->ShowDefault()
      ->OneOf(renumber_names);
  app.Flag("--cross-host", options.cross_host_only, "use only links between different hosts");
  app.Flag("--template-links", options.rank.template_links.drop,
           "drop the links a host puts on most of its pages (docs/ranking.md, \"Template "
           "links\")");
  app.Add("--template-share", options.rank.template_links.share,
          "with --template-links: \"most\" is more than this share of a host's pages "
          "with links")
      ->ShowDefault();
  app.Add("--template-min-pages", options.rank.template_links.min_pages,
          "with --template-links: hosts with fewer pages with links keep theirs")
      ->ShowDefault();
  app.Flag("--warm-start", options.warm_start, "start from the stored rank of this algorithm");
  app.Add("--trusted", trusted_path,
          "trustrank: file of trusted pages, one hash or URL per line "
          "(default: the crawl's seeds, depth 0)");
  return Run(app, argc, argv, [&] {
    // display: PageRank without template links, kept in a file of its own (db_rank.h).
    const bool display = algo == kDisplayRankName;
    Result<RankAlgorithm> algorithm =
        display ? Result<RankAlgorithm>(RankAlgorithm::kPageRank) : ParseRankAlgorithm(algo);
    if (!algorithm.ok()) return UsageError(app, algorithm.status().message());
    if (display && options.cross_host_only) {
      return UsageError(app, "--algo display ranks over every link but template links: "
                             "not with --cross-host");
    }
    if (!trusted_path.empty() && *algorithm != RankAlgorithm::kTrustRank) {
      return UsageError(app, "--trusted goes with --algo trustrank");
    }
    options.rank.mode = modes.at(mode);
    options.rank.renumber = renumbers.at(renumber);
    options.rank.memory_budget = budget_mib << 20;
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    if (!trusted_path.empty()) {
      auto snapshot = (*db)->NewSnapshot();
      if (!snapshot.ok()) return Fail(app, snapshot.status());
      Result<std::vector<uint64_t>> trusted = ReadTrusted(*snapshot, trusted_path);
      if (!trusted.ok()) return Fail(app, trusted.status());
      options.trusted = std::move(trusted).value();
    }
    if (display) options.rank.template_links.drop = true;  // for the report below
    Result<StoredRank> stored =
        display ? RankForDisplay(**db, options) : RankPageDb(**db, *algorithm, options);
    if (!stored.ok()) return Fail(app, stored.status());
    const RankReport& r = stored->rank.report;
    std::printf("%s over %" PRIu32 " pages and %" PRIu64 " links (%s mode, %u threads%s%s)\n",
                algo.c_str(), r.pages, r.links, std::string(RankModeName(r.mode)).c_str(),
                r.threads, options.cross_host_only ? ", cross-host links only" : "",
                r.renumbered ? ", renumbered" : "");
    if (options.rank.template_links.drop) {
      std::printf("template   %" PRIu64 " links to %" PRIu32
                  " (host, page) pairs dropped (share %.2f, hosts of %" PRIu32 "+ pages)\n",
                  r.template_links, r.template_targets, options.rank.template_links.share,
                  options.rank.template_links.min_pages);
    }
    std::printf("iterations %" PRIu32 "\n", r.iterations);
    std::printf("residual   %.3g (%s, tolerance %.3g)\n", r.residual,
                r.converged ? "converged" : "NOT converged", options.rank.tolerance);
    std::printf("seconds    %.3f\n", r.seconds);
    std::printf("saved      %s\n", display ? RankFilePath(db_path, kDisplayRankName).c_str()
                                          : RankFilePath(db_path, *algorithm).c_str());
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
