// crawlrank: the front door. `crawlrank crawl DB SEED...` runs the built-in crawler;
// `crawlrank TOOL ARGS...` runs page_db_TOOL (or crawlrank_TOOL for `url`, `robots` and
// `serve`) from the same directory, so every tool keeps its own name and also answers
// under this one.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <thread>

#include "crawlrank/best_pages.h"
#include "crawlrank/crawl_end.h"
#include "crawlrank/crawler.h"
#include "crawlrank/db_rank.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/url_pattern.h"
#include "crawlrank/version.h"
#include "rank_column.h"
#include "tool_common.h"
#ifdef CRAWLRANK_WITH_SERVER
#include "serve/remote_frontier.h"
#endif

namespace crawlrank::tools {
namespace {

constexpr std::string_view kTools[] = {"broken",   "check",  "compact",  "dashboard", "dump",
                                       "failed",   "find",   "links",    "load",      "path",
                                       "rank",     "requeue", "robots",  "schedule",  "serve",
                                       "stats",    "top",    "upgrade",  "url"};

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

// The progress line on stderr: rewritten in place on a terminal, a line each otherwise.
void PrintProgress(const CrawlProgress& p, bool tty) {
  const std::string line = ProgressLine(p);
  if (tty) {
    std::fprintf(stderr, "\r\x1b[K%s", line.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

// Blocks SIGINT and SIGTERM in every thread and waits for them in one of its own, which
// asks the crawler to stop: no handler, no global state.
class SignalWatcher {
 public:
  SignalWatcher() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  }
  ~SignalWatcher() { Release(); }
  // Stops watching (before the crawler goes) and gives the signals their default action
  // back: a Ctrl-C after the crawl, during the rank, ends the process at once.
  void Release() {
    thread_ = {};  // joins
    pthread_sigmask(SIG_UNBLOCK, &set_, nullptr);
  }
  // Stops `crawler` at a signal, and calls `also` (when given) then too.
  void Watch(Crawler& crawler, std::function<void()> also = nullptr) {
    thread_ = std::jthread([this, &crawler, also = std::move(also)](std::stop_token stop) {
      const timespec tick{0, 50'000'000};
      while (!stop.stop_requested()) {
        const int signal = sigtimedwait(&set_, nullptr, &tick);
        if (signal == SIGINT || signal == SIGTERM) {
          received_ = signal;
          crawler.Stop();
          if (also) also();
        }
      }
    });
  }
  int received() const { return received_; }

 private:
  sigset_t set_;
  std::atomic<int> received_{0};
  std::jthread thread_;
};

struct Args {
  std::string db_path;
  std::vector<std::string> seeds;
  std::vector<std::string> seeds_files;  // one URL a line; "-": stdin
  std::string log_path;                  // --log: JSON lines, one a page
  CrawlerOptions crawl;
  std::string score = "blend";
  std::string profile = "rfc3986";
  std::string scope = "any";
  bool show_config = false, reset_config = false;
  double revisit_s = 0, max_time_s = 0;
  double delay_s = 1, retry_delay_s = 60, timeout_s = 30, connect_timeout_s = 10, max_crawl_delay_s = 60;
  bool same_host = false, same_domain = false, quiet = false, json = false;
  uint64_t top = 10;
  // --frontier: crawl through a crawlrank serve instead of a PageDB of its own.
  std::string frontier, crawl_id, frontier_token, frontier_tls_ca;
  double lease_s = 60;
  double frontier_give_up_s = 600;
};

// The rank at the end of a crawl: its header (no vectors), and the DB's counters after it.
struct Ranked {
  StoredRank rank;
  PageDbCounters now;
};

nlohmann::json SummaryJson(const CrawlSummary& s,
                           const std::vector<std::pair<std::string, double>>& top,
                           std::string_view rank_name, const std::string& db_path,
                           const std::optional<Ranked>& ranked) {
  nlohmann::json j;
  j["db"] = db_path;
  j["pages"] = s.progress.pages;
  j["html_pages"] = s.progress.html_pages;
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

// The stored configuration key (crawl_config.h) each option sets when it is given.
constexpr std::pair<std::string_view, std::string_view> kOptionKeys[] = {
    {"--max-pages", "max_pages"},   {"--max-depth", "max_depth"},
    {"--max-pages-per-host", "max_pages_per_host"},
    {"--same-host", "scope"},       {"--same-domain", "scope"},
    {"--scope", "scope"},           {"--allow", "allow"},
    {"--deny", "deny"},             {"--delay", "delay_ms"},
    {"--per-host", "per_host"},     {"--user-agent", "user_agent"},
    {"--score-mode", "score"},      {"--max-retries", "max_retries"},
    {"--retry-delay", "retry_ms"},  {"--max-crawl-delay", "max_crawl_delay_ms"},
    {"--revisit", "revisit_ms"},    {"--template-links", "template_links"},
    {"--allow-private", "allow_private"},
};

// The keys of the options given on this command line, with their values in `all` (the
// CrawlerConfig of the options as parsed).
StoredConfig GivenConfig(const CommandLine& app, const StoredConfig& all) {
  StoredConfig given;
  for (const auto& [option, key] : kOptionKeys) {
    if (app.Count(std::string(option)) > 0) given[std::string(key)] = all.at(std::string(key));
  }
  return given;
}

// Sets on `a.crawl` the configuration stored in `db` (none after --reset-config) with the
// options given over it, and returns the line that tells a person so (empty: nothing to
// say, as on a new DB). Crawler::Open stores the result.
Result<std::string> ResolveCrawlConfig(const CommandLine& app, const PageDb& db, Args& a) {
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig all, CrawlerConfig(a.crawl));
  CRAWLRANK_ASSIGN_OR_RETURN(const ResolvedConfig resolved,
                             ResolveConfig(db, GivenConfig(app, all), a.reset_config));
  if (Status applied = ApplyCrawlerConfig(resolved.config, &a.crawl); !applied.ok()) {
    return DataLossError("configuration stored in \"" + db.path() + "\": " +
                         applied.message() +
                         " (an option given again replaces the stored value; --reset-config "
                         "clears them all)");
  }
  return resolved.Line(a.db_path, "--show-config prints it; an option given overrides it");
}

// --show-config: what a run with these options would use, the given ones marked; writes
// nothing, and reads a DB that does not exist as one with nothing stored.
int ShowConfig(const CommandLine& app, Args& a) {
  StoredConfig stored;
  if (std::filesystem::exists(a.db_path)) {
    auto db = OpenForReading(a.db_path);
    if (!db.ok()) return Fail(app, db.status());
    Result<StoredConfig> read = (*db)->ReadConfig();
    if (!read.ok()) return Fail(app, read.status());
    if (!a.reset_config) stored = std::move(*read);
  }
  // Every key, as parsed (the given options, else the defaults), under the stored ones and
  // the given ones over those.
  Result<StoredConfig> all = CrawlerConfig(a.crawl);
  if (!all.ok()) return UsageError(app, all.status().message());
  const StoredConfig given = GivenConfig(app, *all);
  const StoredConfig shown = MergeConfig(*all, MergeConfig(stored, given));
  Output out;
  out << (stored.empty() ? "nothing stored in " + a.db_path + "; a run would use:\n"
                         : "configuration of " + a.db_path + " (stored unless marked):\n");
  for (const auto& [key, value] : shown) {
    std::string line = FormatConfig({{key, value}});
    line.pop_back();
    const char* mark = given.contains(key) ? "  (given now)"
                       : stored.contains(key) ? ""
                                              : "  (default)";
    out << "  " << line << mark << '\n';
  }
  if (Status flushed = out.Flush(); !flushed.ok()) return Fail(app, flushed);
  return kExitOk;
}

// Appends the seeds of `path` ("-": stdin), one URL a line, trimmed; blank lines and '#'
// comments skipped. A line over kMaxSeedLineBytes is InvalidArgument naming file and line
// (no URL is that long: the crawler drops links over 4 KiB), an unreadable file NotFound or
// Internal naming it.
constexpr size_t kMaxSeedLineBytes = 64 << 10;
Status ReadSeedsFile(const std::string& path, std::vector<std::string>* seeds) {
  std::ifstream file;
  std::istream* in = &std::cin;
  const std::string name = path == "-" ? std::string("standard input") : "\"" + path + "\"";
  if (path != "-") {
    file.open(path);
    if (!file) {
      return Status(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kInternal,
                    "--seeds-file " + name + ": " + std::strerror(errno));
    }
    in = &file;
  }
  std::string line;
  for (uint64_t number = 1; std::getline(*in, line); ++number) {
    if (line.size() > kMaxSeedLineBytes) {
      return InvalidArgumentError("--seeds-file " + name + ", line " + std::to_string(number) +
                                  ": over " + std::to_string(kMaxSeedLineBytes) + " bytes");
    }
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    const size_t end = line.find_last_not_of(" \t\r");
    seeds->push_back(line.substr(start, end - start + 1));
  }
  if (in->bad()) return InternalError("--seeds-file " + name + ": read error");
  return Status::Ok();
}

// What a person may need to know after the counts: origins given up on, seeds queued
// again, and hints for a private address refused or a crawl with nothing left to do.
void PrintNotes(Output& out, const CrawlSummary& s, const SchedulerStats& end, const Args& a) {
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

// The exit status of a crawl that ran to its end: 1, with a line on stderr, when it
// fetched nothing though it tried (every page it was handed failed; robots.txt keeping
// pages out is the site's word, not a failure) or when only hosts the address guard
// refuses have pages left; 0 otherwise.
int CrawlOutcome(const CrawlSummary& s) {
  std::string why;
  if (s.only_refused_left) {
    why = "every host with pages queued is refused by the address guard (held above)";
  } else if (s.progress.pages == 0 && s.progress.errors > 0) {
    why = "nothing fetched: every page it tried failed (errors above)";
  }
  if (why.empty()) return kExitOk;
  std::fprintf(stderr, "crawlrank crawl: %s\n", why.c_str());
  return kExitFailure;
}

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

#ifdef CRAWLRANK_WITH_SERVER
// The summary of a crawl through a frontier: what this process fetched (the server holds
// the graph and ranks it).
int PrintRemoteSummary(const CrawlSummary& s, const Args& a) {
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

// `crawlrank crawl --frontier HOST:PORT SEED...`: the crawler over a RemoteFrontier. The
// server's stored configuration scopes, orders and paces the crawl; this process fetches,
// parses and reports, keeping robots.txt per host in memory.
int CrawlThroughFrontier(const CommandLine& app, const Args& a, CrawlerOptions o,
                         UrlProfile profile, const FetchLogFn& log) {
  RemoteFrontierOptions remote;
  remote.address = a.frontier;
  remote.token = a.frontier_token;
  remote.crawl_id = a.crawl_id;
  remote.lease_ms = std::max<int64_t>(1000, std::llround(a.lease_s * 1000));
  remote.give_up_ms = std::llround(a.frontier_give_up_s * 1000);
  if (!a.frontier_tls_ca.empty()) {
    Result<std::string> pem = ReadPemFile(a.frontier_tls_ca);
    if (!pem.ok()) return Fail(app, pem.status());
    remote.tls_ca_pem = *std::move(pem);
  }
  RemoteFrontier frontier(remote);
  // A wrong address (a web server, say) is named now, not after the calls' waits.
  if (Status probed = frontier.Probe(); !probed.ok()) return Fail(app, probed);
  SignalWatcher signals;
  auto crawler = Crawler::Open(frontier, o, profile);
  if (!crawler.ok()) return Fail(app, crawler.status());
  signals.Watch(**crawler, [&frontier] { frontier.Cancel(); });
  // The same progress line as a local crawl, the queue being the server's.
  const bool tty = isatty(STDERR_FILENO) == 1;
  Crawler::ProgressFn progress;
  if (!a.quiet) progress = [tty](const CrawlProgress& p) { PrintProgress(p, tty); };
  Result<CrawlSummary> summary = (*crawler)->Run(progress, log);
  if (!a.quiet && tty) std::fprintf(stderr, "\r\x1b[K");
  const int received = signals.received();
  signals.Release();
  crawler->reset();
  if (!summary.ok()) return Fail(app, summary.status());
  const int printed = PrintRemoteSummary(*summary, a);
  if (received != 0) return 128 + received;
  return printed != kExitOk ? printed : CrawlOutcome(*summary);
}
#endif

int Crawl(int argc, char** argv) {
  CommandLine app(
      "Crawls from the seeds into the PageDB DB (created if missing), politely, obeying "
      "robots.txt, then ranks the graph and prints its best pages. A rerun on the same DB "
      "goes on where the last one stopped; seeds given to it are added. Ctrl-C stops "
      "cleanly. See docs/crawler.md.",
      "crawlrank crawl");
  Args a;
  CrawlerOptions& o = a.crawl;
  app.Add("db", a.db_path, "PageDB directory (with --frontier: the first seed)");
  app.Add("seeds", a.seeds, "URLs to start from");
  app.Add("--seeds-file", a.seeds_files,
          "also the URLs in FILE, one a line ('-': standard input); blank lines and "
          "lines starting with # are skipped; repeatable");
  app.Add("--log", a.log_path,
          "append one JSON line for each page fetched or failed to FILE: time, url, "
          "status, bytes, content_type, ms, referrer, failure (docs/crawler.md)");
  app.Add("--max-pages", o.schedule.max_pages, "pages to fetch in this DB in all (0: no limit)")
      ->ShowDefault();
  app.Add("--max-depth", o.schedule.max_depth, "link distance from a seed (0: no limit)")->ShowDefault();
  auto* host = app.Flag("--same-host", a.same_host, "follow links to the seeds' hosts only");
  auto* domain =
      app.Flag("--same-domain", a.same_domain, "follow links to the seeds' registered domains only")
          ->Excludes(host);
  app.Add("--scope", a.scope, "any, same-host or same-domain (any undoes a stored scope)")
      ->Excludes(host)
      ->Excludes(domain);
  app.Add("--max-pages-per-host", o.schedule.max_pages_per_host,
          "pages to fetch from one host (0: no limit)")
      ->ShowDefault();
  app.Flag("--show-config", a.show_config,
           "print the configuration stored in DB (with the options given over it) and exit");
  app.Flag("--reset-config", a.reset_config,
           "forget the stored configuration: this run's options and the defaults replace "
           "it");
  app.Add("--allow", o.schedule.allow_patterns, "fetch only URLs matching one of these (regex)");
  app.Add("--deny", o.schedule.deny_patterns, "never fetch URLs matching this (regex)");
  app.Add("--delay", a.delay_s, "seconds between two requests to one host")->ShowDefault();
  app.Add("--concurrency", o.concurrency, "requests in flight in all")->ShowDefault();
  app.Add("--per-host", o.schedule.max_in_flight_per_host, "requests in flight per host")->ShowDefault();
  app.Add("--user-agent", o.user_agent,
          "User-Agent; its first word is the robots.txt "
          "token")
      ->ShowDefault();
  app.Add("--score-mode", a.score,
          "queue order: blend (partial PageRank with RankMass), topical (with --keywords: "
          "best-first on link scores, ties by relevance), pagerank, ppr, trustrank, hits, "
          "topic-hits, wpr, indegree, link-score, opic, breadth-first, random. hits and "
          "topic-hits: not for discovery (up to 2.9x breadth-first's pages to reach the "
          "important ones); wpr and pagerank: not for a crawl seeded on several sites (1.5x "
          "and 3.2x breadth-first's from four front pages; docs/scheduler.md)")
      ->ShowDefault();
  app.Add("--rerank-graph-growth", o.schedule.rerank_graph_growth,
          "rank modes: also re-rank when the links plus the pages crawled grew by this "
          "share since the last rank (0: off; new pages alone trigger re-ranks)")
      ->ShowDefault();
  app.Flag("--template-links,!--no-template-links", o.schedule.rank.template_links.drop,
           "rank without the links a host puts on more than half of its pages (index, "
           "license, copyright: docs/ranking.md, \"Template links\"); stored with the "
           "crawl, --no-template-links undoes it");
  app.Add("--keywords", o.keywords_file,
          "file of topic keywords, one a line: content and link scores (use with "
          "--score-mode topical, or ppr or topic-hits)");
  app.Add("--timeout", a.timeout_s, "seconds for one whole fetch")->ShowDefault();
  app.Add("--connect-timeout", a.connect_timeout_s, "seconds to connect")->ShowDefault();
  app.Add("--max-body", o.max_body_bytes, "bytes of one body (decoded); more is an error")
      ->ShowDefault();
  app.Add("--warc", o.warc_dir,
          "keep every exchange (pages, robots.txt, sitemaps) as WARC 1.1 files in DIR, "
          "bodies as received (docs/crawler.md, \"Keeping what was fetched\")");
  app.Add("--warc-max-size", o.warc_max_file_bytes,
          "with --warc: bytes of one .warc.gz file before the next begins")
      ->ShowDefault();
  app.Add("--max-retries", o.schedule.max_retries,
          "retries of a page after a timeout, a connection error, a 429 or a 5xx")
      ->ShowDefault();
  app.Add("--retry-delay", a.retry_delay_s,
          "seconds before the first retry of a page; doubled for each further one")
      ->ShowDefault();
  app.Add("--max-crawl-delay", a.max_crawl_delay_s, "cap on robots.txt Crawl-delay, seconds")
      ->ShowDefault();
  app.Add("--revisit", a.revisit_s,
          "revisit crawled pages, at least this many seconds apart, at the rate they "
          "change (conditional GET); the crawl then runs until stopped or --max-time");
  app.Add("--max-time", a.max_time_s, "stop after this many seconds (0: no limit)")->ShowDefault();
  app.Flag("--allow-private,!--no-allow-private", o.allow_private,
           "allow loopback, private and link-local addresses (local tests and demos); "
           "stored with the crawl, --no-allow-private takes it back");
  app.Add("--proxy", o.proxy, "HTTP(S) proxy URL (the environment's are ignored)");
  app.Add("--resolve", o.resolve, "HOST:PORT:ADDRESS: pin a name to an address");
  app.Flag("--sitemaps", o.sitemaps, "queue the URLs of the sitemaps robots.txt names");
  app.Flag("--follow-nofollow", o.follow_nofollow, "follow rel=nofollow links too");
  app.Add("--parse-threads", o.parse_threads, "HTML parsing threads (0: one per core)")
      ->ShowDefault();
  app.Add("--profile", a.profile, "URL profile of a new DB: rfc3986 or w3lib")->ShowDefault();
  app.Add("--top", a.top, "best pages to print at the end")->ShowDefault();
  app.Add("--frontier", a.frontier,
          "HOST:PORT of a crawlrank serve to crawl through, beside other crawlers: no local "
          "PageDB (every positional argument is a seed); the server's stored configuration "
          "scopes, orders and paces the crawl");
  app.Add("--crawl-id", a.crawl_id, "with --frontier: the crawl (default: the server's)");
  app.Add("--frontier-token", a.frontier_token, "with --frontier: the server's --token");
  app.Add("--frontier-tls-ca", a.frontier_tls_ca,
          "with --frontier: PEM file of the CA of the server's TLS certificate");
  app.Add("--lease", a.lease_s, "with --frontier: seconds a URL handed out stays leased")
      ->ShowDefault();
  app.Add("--frontier-give-up", a.frontier_give_up_s,
          "with --frontier: seconds a call keeps trying a server that is away or busy, or "
          "that could not write a report (the same batch, with back-off), before the crawl "
          "ends with exit 1")
      ->ShowDefault();
  app.Flag("--quiet", a.quiet, "no progress on stderr");
  app.Flag("--json", a.json, "print the summary as JSON on stdout");
  return Run(app, argc, argv, [&] {
    Result<ScoreMode> mode = ParseScoreMode(a.score);
    if (!mode.ok()) return UsageError(app, mode.status().message());
    o.schedule.score = *mode;
    Result<UrlProfile> profile = ParseUrlProfile(a.profile);
    if (!profile.ok()) return UsageError(app, profile.status().message());
    for (double v : {a.revisit_s, a.max_time_s, a.delay_s, a.retry_delay_s, a.timeout_s,
                     a.connect_timeout_s, a.max_crawl_delay_s, a.frontier_give_up_s}) {
      if (!std::isfinite(v) || v < 0) return UsageError(app, "times must be 0 or more seconds");
    }
    o.schedule.min_delay_ms = std::llround(a.delay_s * 1000);
    o.schedule.retry_ms = std::llround(a.retry_delay_s * 1000);
    if (a.revisit_s > 0) {
      o.schedule.revisits = true;
      o.schedule.min_revisit_ms = std::llround(a.revisit_s * 1000);
    }
    o.max_time_ms = std::llround(a.max_time_s * 1000);
    o.timeout_ms = std::max<int64_t>(1, std::llround(a.timeout_s * 1000));
    o.connect_timeout_ms = std::max<int64_t>(1, std::llround(a.connect_timeout_s * 1000));
    o.max_crawl_delay_ms = std::llround(a.max_crawl_delay_s * 1000);
    Result<CrawlScope> scope = ParseCrawlScope(a.scope);
    if (!scope.ok()) return UsageError(app, scope.status().message());
    o.schedule.scope = a.same_host     ? CrawlScope::kSameHost
              : a.same_domain ? CrawlScope::kSameDomain
                              : *scope;
    o.seeds = a.seeds;
    for (const std::string& seeds_file : a.seeds_files) {
      Status read = ReadSeedsFile(seeds_file, &o.seeds);
      if (!read.ok()) {
        return read.code() == StatusCode::kInvalidArgument ? UsageError(app, read.message())
                                                            : Fail(app, read);
      }
    }
    // Before anything is opened: a given pattern RE2 refuses is a usage error, and must
    // never reach the configuration stored in the DB.
    for (const auto* list : {&o.schedule.allow_patterns, &o.schedule.deny_patterns}) {
      for (const std::string& pattern : *list) {
        if (Result<UrlPattern> compiled = UrlPattern::Compile(pattern); !compiled.ok()) {
          return UsageError(app, std::string(list == &o.schedule.allow_patterns ? "--allow" : "--deny") +
                                     ": " + compiled.status().message());
        }
      }
    }
    if (a.frontier.empty() && a.db_path.empty()) {
      return UsageError(app, "db is required (or --frontier HOST:PORT)");
    }
    if (!a.frontier.empty()) {
#ifdef CRAWLRANK_WITH_SERVER
      if (o.schedule.scope != CrawlScope::kAny || !o.schedule.allow_patterns.empty() || !o.schedule.deny_patterns.empty()) {
        return UsageError(app, "--frontier: the scope and patterns are the server's (its "
                               "stored configuration): give them to the crawl it serves");
      }
      if (!a.db_path.empty()) o.seeds.insert(o.seeds.begin(), a.db_path);
      std::optional<FetchLogFile> log;
      if (!a.log_path.empty()) {
        Result<FetchLogFile> opened = FetchLogFile::Open(a.log_path);
        if (!opened.ok()) return Fail(app, opened.status());
        log.emplace(std::move(*opened));
      }
      const int code =
          CrawlThroughFrontier(app, a, o, *profile, log.has_value() ? log->Writer() : FetchLogFn());
      if (log.has_value() && !log->Flush().ok()) return Fail(app, log->Flush());
      return code;
#else
      return UsageError(app, "--frontier: this crawlrank was built without gRPC");
#endif
    }
    if (a.show_config) return ShowConfig(app, a);

    std::optional<FetchLogFile> log;
    if (!a.log_path.empty()) {
      Result<FetchLogFile> opened = FetchLogFile::Open(a.log_path);
      if (!opened.ok()) return Fail(app, opened.status());
      log.emplace(std::move(*opened));
    }
    SignalWatcher signals;  // before any thread starts, so that all inherit the mask
    PageDbOptions db_options;
    db_options.url_profile = *profile;
    auto db = PageDb::Open(a.db_path, db_options);
    if (!db.ok()) return Fail(app, db.status());
    Result<std::string> resolved = ResolveCrawlConfig(app, **db, a);
    if (!resolved.ok()) return Fail(app, resolved.status());
    // Not progress: said even with --quiet.
    if (!resolved->empty()) std::fprintf(stderr, "%s\n", resolved->c_str());
    auto crawler = Crawler::Open(**db, o);
    if (!crawler.ok()) {
      // The library says "crawl: ..." for its callers; here the tool's name says it.
      std::string_view message = crawler.status().message();
      if (message.starts_with("crawl: ")) message.remove_prefix(7);
      return crawler.status().code() == StatusCode::kInvalidArgument
                 ? UsageError(app, message)
                 : Fail(app, Status(crawler.status().code(), std::string(message)));
    }
    signals.Watch(**crawler);
    const bool tty = isatty(STDERR_FILENO) == 1;
    Crawler::ProgressFn progress;
    if (!a.quiet || log.has_value()) {
      progress = [tty, quiet = a.quiet, &log](const CrawlProgress& p) {
        if (log.has_value()) (void)log->Flush();  // its error is reported at the end
        if (!quiet) PrintProgress(p, tty);
      };
    }
    Result<CrawlSummary> summary =
        (*crawler)->Run(progress, log.has_value() ? log->Writer() : FetchLogFn());
    const SchedulerStats end = (*crawler)->scheduler().GetStats();
    if (!a.quiet && tty) std::fprintf(stderr, "\r\x1b[K");
    const int received = signals.received();
    signals.Release();
    crawler->reset();  // the scheduler goes; the DB stays open for the rank
    if (!summary.ok()) return Fail(app, summary.status());
    if (log.has_value()) {
      if (Status logged = log->Flush(); !logged.ok()) return Fail(app, logged);
    }
    if (Status synced = (*db)->Sync(); !synced.ok()) return Fail(app, synced);

    // The display rank (PageRank without template links) and the best crawled pages by it;
    // not after a signal, which asks to stop now (`crawlrank rank DB --algo display` or the
    // next run ranks it). The crawl order is the score mode's business, not this.
    std::vector<std::pair<std::string, double>> top;
    std::optional<Ranked> ranked;
    if (received == 0) {
      // The ranks every front end leaves (crawl_end.h): the score mode's for a rank mode,
      // and the display rank the summary lists by.
      Result<CrawlEndRanks> ranks = RankCrawlEnd(**db, o.schedule);
      if (!ranks.ok()) return Fail(app, ranks.status());
      std::optional<StoredRank> rank(std::move(ranks->display));
      Result<PageDbInfo> info = (*db)->Info();
      if (!info.ok()) return Fail(app, info.status());
      const std::vector<double> scores = std::move(rank->rank.scores);
      rank->rank.hubs.clear();
      ranked = Ranked{std::move(rank).value(), info->counters};
      Result<Snapshot> snapshot = (*db)->NewSnapshot();
      if (!snapshot.ok()) return Fail(app, snapshot.status());
      BestPagesFilter fetched_ok;
      fetched_ok.pages = PagesShown::kFetchedOk;
      Result<std::vector<BestPage>> best =
          BestPages(*snapshot, scores, static_cast<size_t>(a.top), fetched_ok);
      if (!best.ok()) return Fail(app, best.status());
      for (BestPage& page : *best) top.emplace_back(std::move(page.record.url), page.score);
    }
    const CrawlSummary& s = *summary;
    Output out;
    if (a.json) {
      out << SummaryJson(s, top, kDisplayRankName, a.db_path, ranked).dump(2) << '\n';
    } else {
      char line[256];
      std::snprintf(line, sizeof line, "%s %llu pages (%llu HTML) in %.1f s, %.1f pages/s; %llu errors\n",
                    s.stopped ? "stopped after" : (s.finished ? "done:" : "paused:"),
                    static_cast<unsigned long long>(s.progress.pages),
                    static_cast<unsigned long long>(s.progress.html_pages), s.progress.elapsed_s,
                    s.progress.elapsed_s > 0 ? static_cast<double>(s.progress.pages) / s.progress.elapsed_s : 0.0,
                    static_cast<unsigned long long>(s.progress.errors));
      out << line;
      PrintOutcomes(out, s);
      if (s.robots_disallowed > 0) {
        out << "robots.txt kept " << s.robots_disallowed << " pages out\n";
      }
      for (const auto& [h, delay] : s.capped_crawl_delays) {
        out << "crawl delay of " << h << " capped: it asks " << FormatSeconds(delay) << " s\n";
      }
      if (s.progress.queued > 0) out << s.progress.queued << " pages still queued\n";
      PrintNotes(out, s, end, a);
      if (received != 0) {
        out << "not ranked: stopped by a signal (run `crawlrank rank " << a.db_path
            << " --algo display`)\n";
      } else {
        out << FreshnessLine(ranked->rank, ranked->now) << '\n';
        if (const std::string change = GraphChange(ranked->rank, ranked->now); !change.empty()) {
          out << "warning: the graph changed while it was ranked (" << change
              << "): another process wrote to the DB\n";
        }
        out << "top pages by the display rank (PageRank without template links; `crawlrank "
               "top "
            << a.db_path << "` lists more):\n";
        for (const auto& [url, score] : top) out << "  " << FormatScore(score) << "  " << url << '\n';
      }
    }
    if (Status flushed = out.Flush(); !flushed.ok()) return Fail(app, flushed);
    if (received != 0) return 128 + received;
    return CrawlOutcome(s);
  });
}

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
  if (command == "crawl") return Crawl(argc - 1, argv + 1);
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
