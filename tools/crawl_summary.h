// What `crawlrank crawl` prints: the progress line while it runs, and the summary at its
// end (text or --json), with the exit status it implies.
#ifndef CRAWLRANK_TOOLS_CRAWL_SUMMARY_H_
#define CRAWLRANK_TOOLS_CRAWL_SUMMARY_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crawl_command.h"
#include "crawlrank/crawler.h"
#include "crawlrank/rank_store.h"
#include "tool_common.h"

namespace crawlrank::tools {

// "crawl: 12 pages (3.1/s now), queue 40, ..., ETA 13s".
std::string ProgressLine(const CrawlProgress& p);
// The progress line on stderr: rewritten in place on a terminal, a line each otherwise.
void PrintProgress(const CrawlProgress& p, bool tty);

// The rank at the end of a crawl: its header (no vectors), the DB's counters after it,
// and the best pages crawled with a 2xx answer by it.
struct Ranked {
  StoredRank rank;
  PageDbCounters now;
  std::vector<std::pair<std::string, double>> top;
};

// The summary as --json prints it; `ranked` none when the crawl was not ranked.
nlohmann::json SummaryJson(const CrawlSummary& s,
                           const std::vector<std::pair<std::string, double>>& top,
                           std::string_view rank_name, const std::string& db_path,
                           const std::optional<Ranked>& ranked);
// The exit status of a crawl that ran to its end (kExitOk, or kExitFailure with a line on
// stderr saying why).
int CrawlOutcome(const CrawlSummary& s);
// A local crawl's summary on stdout: the counts, notes and hints (`end`: the scheduler's
// stats at the end), then the best pages when it was `ranked`. Errors: stdout's.
Status PrintLocalSummary(const CrawlSummary& s, const SchedulerStats& end, const CrawlArgs& a,
                         const std::optional<Ranked>& ranked);
// The summary of a crawl through a frontier: what this process fetched.
int PrintRemoteSummary(const CrawlSummary& s, const CrawlArgs& a);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_CRAWL_SUMMARY_H_
