#include "crawl_command.h"

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
#include <optional>
#include <stop_token>
#include <thread>

#include "crawl_summary.h"
#include "crawlrank/best_pages.h"
#include "crawlrank/crawl_end.h"
#include "crawlrank/url_pattern.h"
#include "tool_common.h"
#ifdef CRAWLRANK_WITH_SERVER
#include "crawlrank/node_list.h"
#include "serve/cluster_frontier.h"
#include "serve/remote_frontier.h"
#endif

namespace crawlrank::tools {
namespace {

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

// Runs `crawler` to its end, the progress line on stderr unless --quiet, the log flushed
// at each progress report (a killed crawl loses at most its last seconds of log), stopped
// cleanly by SIGINT or SIGTERM through `signals`, which watches it meanwhile (made before
// any thread, so that all inherit its mask) and is released after. *received: the signal
// that stopped it, or 0.
Result<CrawlSummary> RunCrawler(Crawler& crawler, SignalWatcher& signals, const CrawlArgs& a,
                                std::optional<FetchLogFile>& log, int* received) {
  const bool tty = isatty(STDERR_FILENO) == 1;
  Crawler::ProgressFn progress;
  if (!a.quiet || log.has_value()) {
    progress = [tty, quiet = a.quiet, &log](const CrawlProgress& p) {
      if (log.has_value()) (void)log->Flush();  // its error is reported at the end
      if (!quiet) PrintProgress(p, tty);
    };
  }
  Result<CrawlSummary> summary =
      crawler.Run(progress, log.has_value() ? log->Writer() : FetchLogFn());
  if (!a.quiet && tty) std::fprintf(stderr, "\r\x1b[K");
  signals.Release();  // joins the watcher: a signal it caught meanwhile counts too
  *received = signals.received();
  if (summary.ok() && log.has_value()) {
    if (Status logged = log->Flush(); !logged.ok()) return logged;
  }
  return summary;
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
Result<std::string> ResolveCrawlConfig(const CommandLine& app, const PageDb& db, CrawlArgs& a) {
  {
    // A cluster node's PageDB holds its share of a crawl: crawled alone, never (read even
    // with --reset-config, which would forget the membership).
    CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig stored, db.ReadConfig());
    CRAWLRANK_RETURN_IF_ERROR(RefuseClusterNode(stored, a.db_path));
  }
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
int ShowConfig(const CommandLine& app, CrawlArgs& a) {
  // Every key, as parsed (the given options, else the defaults), under the stored ones and
  // the given ones over those, resolved as a run resolves them.
  Result<StoredConfig> all = CrawlerConfig(a.crawl);
  if (!all.ok()) return UsageError(app, all.status().message());
  const StoredConfig given = GivenConfig(app, *all);
  ResolvedConfig resolved;
  resolved.config = given;
  if (std::filesystem::exists(a.db_path)) {
    auto db = OpenForReading(a.db_path);
    if (!db.ok()) return Fail(app, db.status());
    Result<ResolvedConfig> read = ResolveConfig(**db, given, a.reset_config);
    if (!read.ok()) return Fail(app, read.status());
    resolved = *std::move(read);
  }
  const StoredConfig& stored = resolved.stored;
  const StoredConfig shown = MergeConfig(*all, resolved.config);
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
// With a cluster: how long one call waits for a node before the node counts as down (and
// the crawler goes on with the others).
constexpr int64_t kNodeCallMs = 10'000;
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

#ifdef CRAWLRANK_WITH_SERVER
// Runs the crawler over `frontier` (a RemoteFrontier or a ClusterFrontier), after naming a
// wrong address at once rather than after the calls' waits.
template <typename RemoteKind>
int CrawlOver(const CommandLine& app, const CrawlArgs& a, const CrawlerOptions& o,
              UrlProfile profile, std::optional<FetchLogFile>& log, SignalWatcher& signals,
              RemoteKind& frontier) {
  if (Status probed = frontier.Probe(); !probed.ok()) return Fail(app, probed);
  auto crawler = Crawler::Open(frontier, o, profile);
  if (!crawler.ok()) return Fail(app, crawler.status());
  signals.Watch(**crawler, [&frontier] { frontier.Cancel(); });
  // The same progress line as a local crawl, the queue being the server's.
  int received = 0;
  Result<CrawlSummary> summary = RunCrawler(**crawler, signals, a, log, &received);
  crawler->reset();
  if (!summary.ok()) return Fail(app, summary.status());
  const int printed = PrintRemoteSummary(*summary, a);
  if (received != 0) return 128 + received;
  return printed != kExitOk ? printed : CrawlOutcome(*summary);
}

// `crawlrank crawl --frontier HOST:PORT SEED...`: the crawler over a RemoteFrontier, or,
// given a list of nodes or --discover, over a ClusterFrontier reading every node. The
// server's stored configuration scopes, orders and paces the crawl; this process fetches,
// parses and reports, keeping robots.txt per host in memory.
int CrawlThroughFrontier(const CommandLine& app, const CrawlArgs& a, const CrawlerOptions& o,
                         UrlProfile profile, std::optional<FetchLogFile>& log) {
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
  SignalWatcher signals;  // before gRPC's threads start, so that all inherit the mask
  if (!a.discover && a.frontier.find(',') == std::string::npos) {
    RemoteFrontier frontier(remote);
    return CrawlOver(app, a, o, profile, log, signals, frontier);
  }
  ClusterFrontierOptions cluster{.nodes = {}, .remote = remote};
  cluster.remote.wait_ms = kNodeCallMs;
  if (a.discover) {
    if (a.frontier.find(',') != std::string::npos) {
      return UsageError(app, "--discover: give one node's address to --frontier, not a list");
    }
    Result<std::vector<std::string>> nodes = DiscoverNodes(remote);
    if (!nodes.ok()) return Fail(app, nodes.status());
    cluster.nodes = *std::move(nodes);
  } else {
    Result<NodeList> list = NodeList::Parse(a.frontier, a.frontier.substr(0, a.frontier.find(',')));
    if (!list.ok()) return UsageError(app, "--frontier: " + list.status().message());
    cluster.nodes = list->nodes();
  }
  Result<std::unique_ptr<ClusterFrontier>> frontier = ClusterFrontier::Make(cluster);
  if (!frontier.ok()) return Fail(app, frontier.status().WithContext("--frontier"));
  const int code = CrawlOver(app, a, o, profile, log, signals, **frontier);
  if (const size_t unsent = (*frontier)->Unsent(); unsent > 0) {
    std::fprintf(stderr,
                 "crawlrank crawl: %zu reports, failures or seeds never reached their nodes (a "
                 "page not reported is handed out again when its lease ends)\n",
                 unsent);
  }
  return code;
}
#endif

// The options of what to crawl and how to order it.
void AddCrawlOptions(CommandLine& app, CrawlArgs& a) {
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
  app.Add("--allow", o.schedule.allow, "fetch only URLs matching one of these (regex)");
  app.Add("--deny", o.schedule.deny, "never fetch URLs matching this (regex)");
  app.Add("--delay", a.delay_s, "seconds between two requests to one host")->ShowDefault();
  app.Add("--concurrency", o.concurrency, "requests in flight in all")->ShowDefault();
  app.Add("--per-host", o.schedule.per_host, "requests in flight per host")->ShowDefault();
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
}

// The options of the fetches, the network, the output and --frontier.
void AddFetchOptions(CommandLine& app, CrawlArgs& a) {
  CrawlerOptions& o = a.crawl;
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
  app.Add("--parser", a.parser,
          "HTML parser: streaming (no DOM; Gumbo for the pages it hands over) or gumbo (a "
          "DOM for every page)")
      ->OneOf({"streaming", "gumbo"})
      ->ShowDefault();
  app.Add("--parse-threads", o.parse_threads, "HTML parsing threads (0: one per core)")
      ->ShowDefault();
  app.Add("--profile", a.profile, "URL profile of a new DB: rfc3986 or w3lib")->ShowDefault();
  app.Add("--top", a.top, "best pages to print at the end")->ShowDefault();
  app.Add("--frontier", a.frontier,
          "HOST:PORT of a crawlrank serve to crawl through, beside other crawlers: no local "
          "PageDB (every positional argument is a seed); the server's stored configuration "
          "scopes, orders and paces the crawl. A cluster: every node, H1:P1,H2:P2,... (read "
          "round robin; reports to the node that handed the page out)");
  app.Flag("--discover", a.discover,
           "with --frontier HOST:PORT of one node: crawl every node of its cluster (ListNodes)");
  app.Add("--crawl-id", a.crawl_id, "with --frontier: the crawl (default: the server's)");
  app.Add("--frontier-token", a.frontier_token, "with --frontier: the server's --token");
  app.Add("--frontier-tls-ca", a.frontier_tls_ca,
          "with --frontier: PEM file of the CA of the server's TLS certificate");
  app.Add("--lease", a.lease_s, "with --frontier: seconds a URL handed out stays leased")
      ->ShowDefault();
  app.Add("--frontier-give-up", a.frontier_give_up_s,
          "with --frontier: seconds a call keeps trying a server that is away or busy, or "
          "that could not write a report (the same batch, with back-off), before the crawl "
          "ends with exit 1; with a cluster, how long a node may stay down once every other "
          "is finished or down")
      ->ShowDefault();
  app.Flag("--quiet", a.quiet, "no progress on stderr");
  app.Flag("--json", a.json, "print the summary as JSON on stdout");
}

// Turns what the tool parsed into the crawler's options: -1 to go on, else the exit
// status of a usage error (bad times, scope, seeds file or pattern), or 1 for a seeds
// file that cannot be read.
int ApplyArgs(const CommandLine& app, CrawlArgs& a) {
  CrawlerOptions& o = a.crawl;
  Result<ScoreMode> mode = ParseScoreMode(a.score);
  if (!mode.ok()) return UsageError(app, mode.status().message());
  o.schedule.score = *mode;
  for (double v : {a.revisit_s, a.max_time_s, a.delay_s, a.retry_delay_s, a.timeout_s,
                   a.connect_timeout_s, a.max_crawl_delay_s, a.frontier_give_up_s}) {
    if (!std::isfinite(v) || v < 0) return UsageError(app, "times must be 0 or more seconds");
  }
  o.schedule.delay_ms = std::llround(a.delay_s * 1000);
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
  for (const auto* list : {&o.schedule.allow, &o.schedule.deny}) {
    for (const std::string& pattern : *list) {
      if (Result<UrlPattern> compiled = UrlPattern::Compile(pattern); !compiled.ok()) {
        const char* name = list == &o.schedule.allow ? "--allow" : "--deny";
        return UsageError(app, std::string(name) + ": " + compiled.status().message());
      }
    }
  }
  if (a.frontier.empty() && a.db_path.empty()) {
    return UsageError(app, "db is required (or --frontier HOST:PORT)");
  }
  return -1;
}

// --log's file, opened when asked for; `code` gets the exit status of a failure.
std::optional<FetchLogFile> OpenLog(const CommandLine& app, const CrawlArgs& a, int* code) {
  if (a.log_path.empty()) return std::nullopt;
  Result<FetchLogFile> opened = FetchLogFile::Open(a.log_path);
  if (!opened.ok()) {
    *code = Fail(app, opened.status());
    return std::nullopt;
  }
  return std::move(*opened);
}

// `crawlrank crawl --frontier ...`, when this crawlrank has the URLFrontier client.
int CrawlRemote(const CommandLine& app, CrawlArgs& a, UrlProfile profile) {
#ifdef CRAWLRANK_WITH_SERVER
  CrawlerOptions& o = a.crawl;
  if (o.schedule.scope != CrawlScope::kAny || !o.schedule.allow.empty() ||
      !o.schedule.deny.empty()) {
    return UsageError(app, "--frontier: the scope and patterns are the server's (its "
                           "stored configuration): give them to the crawl it serves");
  }
  if (!a.db_path.empty()) o.seeds.insert(o.seeds.begin(), a.db_path);
  int failed = kExitOk;
  std::optional<FetchLogFile> log = OpenLog(app, a, &failed);
  if (failed != kExitOk) return failed;
  return CrawlThroughFrontier(app, a, o, profile, log);
#else
  (void)a;
  (void)profile;
  return UsageError(app, "--frontier: this crawlrank was built without gRPC");
#endif
}

// The ranks every front end leaves at a crawl's end (crawl_end.h: the score mode's when
// it ranks, and the display rank), and the best pages crawled with a 2xx answer by the
// display rank, for the summary.
Result<Ranked> RankTheCrawl(PageDb& db, const CrawlArgs& a) {
  CRAWLRANK_ASSIGN_OR_RETURN(CrawlEndRanks ranks, RankCrawlEnd(db, a.crawl.schedule));
  CRAWLRANK_ASSIGN_OR_RETURN(PageDbInfo info, db.Info());
  Ranked ranked{std::move(ranks.display), info.counters, {}};
  const std::vector<double> scores = std::move(ranked.rank.rank.scores);
  ranked.rank.rank.hubs.clear();  // the header is all the summary keeps
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  BestPagesFilter fetched_ok;
  fetched_ok.pages = PagesShown::kFetchedOk;
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<BestPage> best,
                             BestPages(snapshot, scores, static_cast<size_t>(a.top), fetched_ok));
  for (BestPage& page : best) ranked.top.emplace_back(std::move(page.record.url), page.score);
  return ranked;
}

// Opens the crawler on `db` with the configuration resolved; the exit status of a
// failure in `code`.
std::unique_ptr<Crawler> OpenCrawler(const CommandLine& app, PageDb& db, CrawlArgs& a, int* code) {
  Result<std::string> resolved = ResolveCrawlConfig(app, db, a);
  if (!resolved.ok()) {
    *code = Fail(app, resolved.status());
    return nullptr;
  }
  // Not progress: said even with --quiet.
  if (!resolved->empty()) std::fprintf(stderr, "%s\n", resolved->c_str());
  auto crawler = Crawler::Open(db, a.crawl);
  if (crawler.ok()) return *std::move(crawler);
  // The library says "crawl: ..." for its callers; here the tool's name says it.
  std::string_view message = crawler.status().message();
  if (message.starts_with("crawl: ")) message.remove_prefix(7);
  *code = crawler.status().code() == StatusCode::kInvalidArgument
              ? UsageError(app, message)
              : Fail(app, Status(crawler.status().code(), std::string(message)));
  return nullptr;
}

// A crawl into the PageDB a.db_path: run, rank, summary.
int CrawlLocal(const CommandLine& app, CrawlArgs& a, UrlProfile profile) {
  int code = kExitOk;
  std::optional<FetchLogFile> log = OpenLog(app, a, &code);
  if (code != kExitOk) return code;
  SignalWatcher signals;  // before any thread starts, so that all inherit the mask
  PageDbOptions db_options;
  db_options.url_profile = profile;
  auto db = PageDb::Open(a.db_path, db_options);
  if (!db.ok()) return Fail(app, db.status());
  std::unique_ptr<Crawler> crawler = OpenCrawler(app, **db, a, &code);
  if (crawler == nullptr) return code;
  signals.Watch(*crawler);
  int received = 0;
  Result<CrawlSummary> summary = RunCrawler(*crawler, signals, a, log, &received);
  const SchedulerStats end = crawler->scheduler().GetStats();
  crawler.reset();  // the scheduler goes; the DB stays open for the rank
  if (!summary.ok()) return Fail(app, summary.status());
  if (Status synced = (*db)->Sync(); !synced.ok()) return Fail(app, synced);
  // Not after a signal, which asks to stop now (`crawlrank rank DB --algo display` or the
  // next run ranks it). The crawl order is the score mode's business, not this.
  std::optional<Ranked> ranked;
  if (received == 0) {
    Result<Ranked> rank = RankTheCrawl(**db, a);
    if (!rank.ok()) return Fail(app, rank.status());
    ranked = *std::move(rank);
  }
  if (Status printed = PrintLocalSummary(*summary, end, a, ranked); !printed.ok()) {
    return Fail(app, printed);
  }
  if (received != 0) return 128 + received;
  return CrawlOutcome(*summary);
}

}  // namespace

int CrawlCommand(int argc, char** argv) {
  CommandLine app(
      "Crawls from the seeds into the PageDB DB (created if missing), politely, obeying "
      "robots.txt, then ranks the graph and prints its best pages. A rerun on the same DB "
      "goes on where the last one stopped; seeds given to it are added. Ctrl-C stops "
      "cleanly. See docs/crawler.md.",
      "crawlrank crawl");
  CrawlArgs a;
  AddCrawlOptions(app, a);
  AddFetchOptions(app, a);
  return Run(app, argc, argv, [&] {
    Result<UrlProfile> profile = ParseUrlProfile(a.profile);
    if (!profile.ok()) return UsageError(app, profile.status().message());
    a.crawl.html_parser = a.parser == "gumbo" ? HtmlParser::kGumbo : HtmlParser::kStreaming;
    if (const int code = ApplyArgs(app, a); code >= 0) return code;
    if (!a.frontier.empty()) return CrawlRemote(app, a, *profile);
    if (a.show_config) return ShowConfig(app, a);
    return CrawlLocal(app, a, *profile);
  });
}

}  // namespace crawlrank::tools
