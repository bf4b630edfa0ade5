#include "crawl_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "rank_column.h"

namespace crawlrank::tools {
namespace {

std::string Duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<uint64_t>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lluh%02llum", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s / 60 % 60));
  } else if (s >= 60) {
    std::snprintf(text, sizeof text, "%llum%02llus", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  } else {
    std::snprintf(text, sizeof text, "%llus", static_cast<unsigned long long>(s));
  }
  return text;
}

}  // namespace

std::string ProgressLine(const CrawlProgress& p) {
  const double rate = p.recent_pages_per_s;
  char text[256];
  std::snprintf(text, sizeof text,
                "crawl: %llu pages (%.1f/s now), queue %llu, in flight %llu, hosts %llu, errors %llu",
                static_cast<unsigned long long>(p.pages), rate,
                static_cast<unsigned long long>(p.queued),
                static_cast<unsigned long long>(p.in_flight),
                static_cast<unsigned long long>(p.hosts),
                static_cast<unsigned long long>(p.errors));
  std::string line = text;
  if (p.waiting_origins > 0) {
    line += ", waiting for robots.txt: " + std::to_string(p.waiting_origins) +
            (p.waiting_origins == 1 ? " origin" : " origins");
  }
  // What is left is what is queued and in flight now (more is found as the crawl goes),
  // at most what --max-pages leaves.
  uint64_t left = p.queued + p.in_flight;
  if (p.max_pages > 0) left = std::min(left, p.max_pages > p.pages ? p.max_pages - p.pages : 0);
  if (left > 0 && rate > 0) line += ", ETA " + Duration(static_cast<double>(left) / rate);
  return line;
}

void PrintProgress(const CrawlProgress& p, bool tty) {
  const std::string line = ProgressLine(p);
  if (tty) {
    std::fprintf(stderr, "\r\x1b[K%s", line.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

namespace {

// What a person may need to know after the counts: origins given up on, seeds queued
// again, and hints for a private address refused or a crawl with nothing left to do.
void PrintNotes(Output& out, const CrawlSummary& s, const SchedulerStats& end, const CrawlArgs& a) {
  for (const auto& [origin, detail] : s.unreachable_origins) {
    out << "gave up on " << origin << ": robots.txt unreachable (" << detail
        << "); its pages failed as robots-unreachable\n";
  }
  if (s.requeued_seeds > 0) {
    out << "queued again " << s.requeued_seeds << " seeds that had failed before\n";
  }
  for (const auto& [host, detail] : s.refused_hosts) {
    out << "held the pages of " << host << ": crawled before, its address is refused now ("
        << detail << "); they stay queued\n";
  }
  const auto refused = s.errors.find("private-address");
  if ((refused != s.errors.end() || !s.refused_hosts.empty()) && !a.crawl.allow_private) {
    if (refused != s.errors.end()) {
      out << "hint: " << refused->second
          << " pages failed because their host has a private address (loopback, LAN)";
    } else {
      out << "hint: hosts with a private address (loopback, LAN) are refused";
    }
    out << "; to crawl such hosts, run `crawlrank crawl " << a.db_path
        << " --allow-private` (stored with the crawl; failed pages come back with "
           "`crawlrank requeue " << a.db_path << " --kind private-address`)\n";
  }
  if (s.limit_reached) {
    out << "max_pages (" << a.crawl.schedule.max_pages << ") reached";
    if (end.queued + end.retrying > 0) out << " with " << end.queued + end.retrying << " pages queued";
    out << "; raise it with --max-pages\n";
  } else if (s.finished && s.progress.pages == 0 && s.progress.errors == 0 &&
             s.requeued_seeds == 0 && s.robots_disallowed == 0) {
    out << "already complete: " << end.crawled + end.failed << " pages (" << end.crawled
        << " crawled, " << end.failed << " failed). `crawlrank failed " << a.db_path
        << "` lists the failures and `crawlrank requeue " << a.db_path
        << "` queues them again; to start over, remove " << a.db_path << "\n";
  }
}

}  // namespace

// The exit status of a crawl that ran to its end: 1, with a line on stderr, when it
// fetched nothing though it tried (every page it was handed failed; robots.txt keeping
// pages out is the site's word, not a failure) or when only hosts the address guard
// refuses have pages left; 0 otherwise.
int CrawlOutcome(const CrawlSummary& s) {
  std::string why;
  if (s.only_refused_left) {
    why =
        "every host with pages queued is refused by the address guard (the summary names "
        "each: held the pages of HOST, or refused_hosts with --json)";
  } else if (s.progress.pages == 0 && s.progress.errors > 0) {
    why = "nothing fetched: every page it tried failed (errors above)";
  }
  if (why.empty()) return kExitOk;
  std::fprintf(stderr, "crawlrank crawl: %s\n", why.c_str());
  return kExitFailure;
}

namespace {

// The summary's lines of HTTP statuses and error kinds, each with its count.
void PrintOutcomes(Output& out, const CrawlSummary& s) {
  if (!s.statuses.empty()) {
    out << "statuses:";
    for (const auto& [status, n] : s.statuses) out << ' ' << std::to_string(status) << "×" << n;
    out << '\n';
  }
  if (!s.errors.empty()) {
    out << "errors:";
    for (const auto& [kind, n] : s.errors) out << ' ' << kind << "×" << n;
    out << '\n';
  }
}

}  // namespace

nlohmann::json SummaryJson(const CrawlSummary& s,
                           const std::vector<std::pair<std::string, double>>& top,
                           std::string_view rank_name, const std::string& db_path,
                           const std::optional<Ranked>& ranked) {
  nlohmann::json j;
  j["db"] = db_path;
  j["pages"] = s.progress.pages;
  j["html_pages"] = s.progress.html_pages;
  j["tree_parsed_pages"] = s.tree_parsed_pages;
  j["errors"] = s.progress.errors;
  j["bytes"] = s.progress.bytes;
  j["seconds"] = s.progress.elapsed_s;
  j["pages_per_second"] =
      s.progress.elapsed_s > 0 ? static_cast<double>(s.progress.pages) / s.progress.elapsed_s : 0;
  j["queued"] = s.progress.queued;
  j["hosts"] = s.progress.hosts;
  j["errors_by_kind"] = s.errors;
  nlohmann::json statuses = nlohmann::json::object();
  for (const auto& [status, n] : s.statuses) statuses[std::to_string(status)] = n;
  j["statuses"] = statuses;
  j["robots_fetched"] = s.robots_fetched;
  j["robots_disallowed"] = s.robots_disallowed;
  j["robots_unavailable"] = s.robots_unavailable;
  j["sitemap_urls"] = s.sitemap_urls;
  j["capped_crawl_delays_ms"] = s.capped_crawl_delays;
  j["unreachable_origins"] = s.unreachable_origins;
  j["requeued_seeds"] = s.requeued_seeds;
  j["stopped"] = s.stopped;
  j["finished"] = s.finished;
  j["limit_reached"] = s.limit_reached;
  j["refused_hosts"] = s.refused_hosts;
  j["held_pages"] = s.held_pages;
  j["rank"] = rank_name;
  j["ranked"] = ranked.has_value() ? FreshnessJson(ranked->rank, ranked->now) : nlohmann::json();
  nlohmann::json pages = nlohmann::json::array();
  for (const auto& [url, score] : top) pages.push_back({{"url", url}, {"score", score}});
  j["top"] = pages;
  return j;
}

Status PrintLocalSummary(const CrawlSummary& s, const SchedulerStats& end, const CrawlArgs& a,
                         const std::optional<Ranked>& ranked) {
  Output out;
  const std::vector<std::pair<std::string, double>> none;
  const auto& top = ranked.has_value() ? ranked->top : none;
  if (a.json) {
    out << SummaryJson(s, top, kDisplayRankName, a.db_path, ranked).dump(2) << '\n';
    return out.Flush();
  }
  char line[256];
  std::snprintf(line, sizeof line, "%s %llu pages (%llu HTML) in %.1f s, %.1f pages/s; %llu errors\n",
                s.stopped ? "stopped after" : (s.finished ? "done:" : "paused:"),
                static_cast<unsigned long long>(s.progress.pages),
                static_cast<unsigned long long>(s.progress.html_pages), s.progress.elapsed_s,
                s.progress.elapsed_s > 0 ? static_cast<double>(s.progress.pages) / s.progress.elapsed_s : 0.0,
                static_cast<unsigned long long>(s.progress.errors));
  out << line;
  PrintOutcomes(out, s);
  if (s.robots_disallowed > 0) out << "robots.txt kept " << s.robots_disallowed << " pages out\n";
  if (s.tree_parsed_pages > 0) {
    out << s.tree_parsed_pages << " HTML pages parsed with Gumbo's tree\n";
  }
  for (const auto& [h, delay] : s.capped_crawl_delays) {
    out << "crawl delay of " << h << " capped: it asks " << FormatSeconds(delay) << " s\n";
  }
  if (s.progress.queued > 0) out << s.progress.queued << " pages still queued\n";
  PrintNotes(out, s, end, a);
  if (!ranked.has_value()) {
    out << "not ranked: stopped by a signal (run `crawlrank rank " << a.db_path
        << " --algo display`)\n";
    return out.Flush();
  }
  out << FreshnessLine(ranked->rank, ranked->now) << '\n';
  if (const std::string change = GraphChange(ranked->rank, ranked->now); !change.empty()) {
    out << "warning: the graph changed while it was ranked (" << change
        << "): another process wrote to the DB\n";
  }
  out << "top pages by the display rank (PageRank without template links; `crawlrank top "
      << a.db_path << "` lists more):\n";
  for (const auto& [url, score] : top) out << "  " << FormatScore(score) << "  " << url << '\n';
  return out.Flush();
}

// The summary of a crawl through a frontier: what this process fetched (the server holds
// the graph and ranks it).
int PrintRemoteSummary(const CrawlSummary& s, const CrawlArgs& a) {
  Output out;
  if (a.json) {
    nlohmann::json j = SummaryJson(s, {}, "", "", std::nullopt);
    j.erase("db");
    j["frontier"] = a.frontier;
    out << j.dump(2) << '\n';
  } else {
    char line[256];
    std::snprintf(line, sizeof line, "%s %llu pages (%llu HTML) in %.1f s through %s; %llu errors\n",
                  s.stopped ? "stopped after" : (s.finished ? "done:" : "paused:"),
                  static_cast<unsigned long long>(s.progress.pages),
                  static_cast<unsigned long long>(s.progress.html_pages), s.progress.elapsed_s,
                  a.frontier.c_str(), static_cast<unsigned long long>(s.progress.errors));
    out << line;
    PrintOutcomes(out, s);
  }
  return out.Flush().ok() ? kExitOk : kExitFailure;
}

}  // namespace crawlrank::tools
