// page_db_top: prints the best pages of a PageDB by a stored rank.
#include <iostream>

#include "crawlrank/best_pages.h"
#include "crawlrank/scheduler.h"
#include "rank_column.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// On stderr: when the rank was computed and over what, and a warning when the graph has
// changed since (the list on stdout stays one page a line).
void PrintFreshness(const std::string& db_path, std::string_view by, const StoredRank& rank,
                    const PageDbCounters& now) {
  std::cerr << FreshnessLine(rank, now) << '\n';
  if (const std::string change = GraphChange(rank, now); !change.empty()) {
    std::cerr << "warning: the graph has changed since this rank (" << change
              << "): rank again with `crawlrank rank " << db_path << " --algo "
              << (by == kDisplayRankName ? by : RankAlgorithmName(rank.rank.algorithm))
              << (rank.cross_host_only ? " --cross-host" : "") << "`\n";
  }
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Prints the N best pages by a rank stored with page_db_rank, best first, one per line: "
      "hash url score (9 significant digits). Ties go to the lower page index. On stderr, "
      "one line says when the rank was computed and over what graph, against the graph now, "
      "and a warning follows when the graph has changed since. By default the rank is "
      "display (PageRank without template links, computed when a crawl ends) and the pages "
      "listed are those crawled with a 2xx answer; a DB without a display rank (loaded, or "
      "ranked by hand) is listed by pagerank.",
      "page_db_top");
  std::string db_path, by;
  uint64_t n = 20;
  bool uncrawled = false, crawled = false, any = false;
  std::string host;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("--by", by, RankColumnHelp() + " (default: display, else pagerank)");
  app.Add("-n", n, "how many pages")->ShowDefault();
  auto* only_uncrawled = app.Flag("--uncrawled", uncrawled, "only pages not crawled yet");
  app.Flag("--crawled", crawled, "only pages crawled (fetched, any status)")
      ->Excludes(only_uncrawled);
  app.Add("--host", host, "only pages on this host (its name, without a port)");
  app.Flag("--any", any,
           "with --by display: every ranked page (its default is the pages crawled with a 2xx "
           "answer; --crawled and --uncrawled choose too)");
  return Run(app, argc, argv, [&] {
    if (by.empty()) by = ShownRankName(db_path);
    if (!IsRankColumn(by))
      return UsageError(app, "unknown --by \"" + by + "\"; " + RankColumnHelp());
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    std::vector<StoredRank> sources;
    auto columns = LoadRankColumns(db_path, std::span(&by, 1), &sources);
    if (!columns.ok()) return Fail(app, columns.status());
    const std::vector<double>& scores = columns->front();
    auto snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    PrintFreshness(db_path, by, sources.front(), snapshot->counters());
    // The display rank lists what a person would call the crawl's pages: those fetched
    // with a 2xx answer (not the 404s people link to, nor the sites it never fetched).
    BestPagesFilter filter;
    filter.pages = uncrawled ? PagesShown::kUncrawled
                   : crawled ? PagesShown::kCrawled
                   : by == kDisplayRankName && !any ? PagesShown::kFetchedOk
                                                    : PagesShown::kAny;
    filter.host = host;
    // A node of a cluster lists its own pages: its ghosts are their owners' to list.
    auto ghosts = Scheduler::GhostPages(**db, *snapshot);
    if (!ghosts.ok()) return Fail(app, ghosts.status());
    filter.excluded = std::move(ghosts).value();
    Result<std::vector<BestPage>> best =
        BestPages(*snapshot, scores, static_cast<size_t>(n), filter);
    if (!best.ok()) {
      return Fail(app, best.status().WithContext("the stored " + by + " rank"));
    }
    Output out;
    for (const BestPage& page : *best) {
      out << FormatFingerprint(page.record.fingerprint) << ' ' << page.record.url << ' '
          << FormatScore(page.score) << '\n';
    }
    const Status status = out.Flush();
    return status.ok() ? kExitOk : Fail(app, status);
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
