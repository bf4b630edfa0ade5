// crawlrank/crawler.h: the built-in crawler. Seeds in, a ranked PageDB out.
//
//   auto db = PageDb::Open("crawl.db", {});
//   CrawlerOptions options;
//   options.seeds = {"https://example.com/"};
//   auto crawler = Crawler::Open(**db, options);
//   Result<CrawlSummary> summary = (*crawler)->Run();    // until done, a limit or Stop()
//
// A Crawler drives a Frontier (frontier.h): a Scheduler (scheduler.h) over the PageDB
// it opens, or one the caller gives. It fetches what Next hands out with libcurl's multi
// interface, obeys robots.txt (robots.h), extracts links with a streaming HTML5 scan
// (html_extract.h; Gumbo for the pages it hands over) and
// reports every page in its own transaction. docs/crawler.md
// is the user's guide; `crawlrank crawl` is its command line.
//
// What a fetch becomes
// --------------------
// - 2xx: a crawled page. HTML (text/html, application/xhtml+xml) is parsed for links, the
//   content hash (of the visible text) and the keyword scores; anything else is recorded
//   with the XXH3 of its body and no links.
// - 3xx with a Location: a crawled page whose one link is the target. Redirects are never
//   followed inside libcurl: the target goes through the scheduler like any link, so it is
//   fetched once, politely, and checked like any other URL.
// - 304 (a revisit's conditional GET): crawled, content unchanged.
// - other 4xx: a crawled page with its status and no links.
// - 429, 5xx, network errors, timeouts: failures, retried by the scheduler with back-off;
//   a 429 or 503 holds the host (Retry-After is honoured).
// - refused before any byte is sent (robots.txt, a private address, a URL too long) or cut
//   off (a body over max_body_bytes, headers over max_header_bytes): failed for good, with
//   its kind (failure_kind.h) and the detail kept in the PageDB.
// - the 21st redirect in a row (kMaxRedirectChain: a chain of 3xx pages each pointing at
//   the next): failed for good as redirect-limit, so an endless chain of distinct
//   redirects ends. The count lives in the run's memory: a resumed run starts it over.
//
// robots.txt
// ----------
// Fetched once per origin (scheme, host, port) before its first page, through the same
// guards, following up to five redirects; cached in the PageDB with the scheduler's host
// state for robots_ttl_ms. 2xx: its rules; 4xx but 429, or more than five redirects:
// allow all; 429, 5xx or unreachable: disallow all, then ask again with a page's
// back-off (schedule.retry_ms, doubled for each further failure; RFC 9309 §2.3.1). The pages that
// came for such an origin meanwhile are held, with their leases, until it is asked again
// (their retries are not spent). After schedule.max_retries retries the origin is given up on:
// its pages, and any later found, fail for good as robots-unreachable with the detail
// ("connection refused", "HTTP 503"), until robots_ttl_ms has passed or, in a later run,
// until one more try fails; the summary names it. So every crawl ends. A Crawl-delay sets the host's delay, capped at
// max_crawl_delay_ms (the hosts capped by a robots.txt fetched in this run are reported).
//
// Safety
// ------
// Only http and https. Unless allow_private, every connection is checked at the moment
// libcurl opens its socket, against the very address it is about to connect to: loopback,
// private, link-local, carrier-grade NAT, multicast, unspecified and reserved ranges (IPv4
// and IPv6, mapped addresses included) are refused. A name that resolves to such an
// address is therefore refused whatever it looks like, and no second resolution can slip
// past the check. Links longer than max_url_bytes are not recorded. Environment proxies are
// ignored; `proxy` sets one explicitly. Caveat: through a proxy, the check sees only the
// proxy's address (a proxy on a private address needs allow_private), never the target's:
// the proxy must refuse private targets itself.
//
// Stopping and resuming
// ---------------------
// Stop() (thread-safe, e.g. from a signal thread) makes Run return within about 100 ms,
// or once the pages being parsed are (a page takes milliseconds; HTML nested thousands of
// levels deep is cut where Gumbo would slow down, html_extract.h): transfers in flight
// and pages not parsed yet are abandoned unreported, and their leases return to the queue
// when the PageDB is next opened for writing. Stop is final: a later Run returns at once. Every page reported is in the PageDB. Running
// again on the same PageDB goes on where the last run stopped; seeds given again are
// known pages and keep their state, except that one failed for good is queued again
// (with fresh retries); new ones join the queue.
//
// Threads: Run uses the calling thread for the network and parse_threads more for
// parsing. One Crawler per PageDB at a time (its Scheduler is exclusive).
#ifndef CRAWLRANK_CRAWLER_H_
#define CRAWLRANK_CRAWLER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "crawlrank/crawl_config.h"
#include "crawlrank/fetch_log.h"
#include "crawlrank/frontier.h"
#include "crawlrank/html_extract.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct CrawlerOptions {
  // URLs to start from (canonicalised with the DB's profile); added to those of earlier runs.
  std::vector<std::string> seeds;

  // The crawl's own Scheduler: what to crawl and in which order, politeness between
  // hosts, retries and revisits, one vocabulary with crawlrank serve and the Python front
  // ends (scheduler_options.h says what each field means and its default). Worth knowing
  // for a crawl:
  // - schedule.max_pages, max_depth, max_pages_per_host: limits (0: none). max_pages
  //   counts the pages of this DB, over every run.
  // - schedule.scope (CrawlScope): links to hosts out of scope are still recorded in the
  //   graph, as pages never fetched (SchedulerStats::out_of_scope). scope_hosts: the hosts
  //   (or domains) of earlier runs' seeds as stored (crawl_config.h); Open adds this run's
  //   seeds' and stores the result. Empty with a scope: the DB's depth-0 pages give them.
  // - schedule.score: with keywords, "topical" (or "ppr" or "topic-hits") steers the crawl
  //   toward the topic. schedule.rank.template_links with `drop`: the re-ranks of the crawl
  //   and the rank after it leave out the links a host puts on most of its pages.
  // - schedule.revisits: a revisit is a conditional GET (If-Modified-Since: the last
  //   crawl); a 304 counts as unchanged. With revisits on, a crawl never runs out of work:
  //   it ends by Stop() or max_time_ms.
  // - schedule.delay_ms: between two requests to one host (robots.txt's Crawl-delay
  //   can raise it); per_host: requests in flight at once to one host.
  // - schedule.retry_ms, max_retries: a failure that may pass (timeout, connection, 5xx)
  //   is retried after retry_ms, doubled for each further failure of the page, up to
  //   max_retries times. An origin whose robots.txt cannot be fetched backs off the same
  //   way (robots_ttl_ms below caps it).
  // - schedule.lease_ms is the crawler's to set: at least 10 minutes, and longer than its
  //   timeouts and robots.txt back-off need (crawl_options.h).
  // - schedule.clock, progress_interval_ms (the DB's progress samples), the re-rank
  //   settings: as for any Scheduler.
  SchedulerOptions schedule;

  // --- What to crawl, besides the schedule's limits and scope.
  // False: links marked rel=nofollow, and all links of a page whose robots meta says
  // nofollow, are not followed (nor recorded).
  bool follow_nofollow = false;
  // How pages are parsed (html_extract.h): kStreaming, the default, reads them without a
  // DOM and hands the few it cannot answer as a DOM would to Gumbo
  // (CrawlSummary::tree_parsed_pages); kGumbo parses every page with Gumbo.
  HtmlParser html_parser = HtmlParser::kStreaming;
  // Fetch the sitemaps robots.txt names, and /sitemap.xml, and queue the URLs they list.
  bool sitemaps = false;
  // Keyword file (one keyword a line): content and link scores (html_extract.h).
  std::string keywords_file;
  // Run returns after this long (0: no limit), as if stopped.
  int64_t max_time_ms = 0;

  // --- Politeness, besides the schedule's delay and requests per host.
  // Requests in flight at once, in all.
  uint32_t concurrency = 16;
  std::string user_agent = "crawlrank/0.1 (+https://github.com/crawlrank/crawlrank)";
  // The product token matched against robots.txt groups; empty: the user agent's first
  // word before '/'.
  std::string robots_agent;
  int64_t max_crawl_delay_ms = 60'000;
  // How long a robots.txt is kept; also how long an origin given up on stays so.
  int64_t robots_ttl_ms = 86'400'000;   // a day

  // --- Limits of one fetch.
  int64_t connect_timeout_ms = 10'000;
  int64_t timeout_ms = 30'000;           // the whole transfer
  int64_t low_speed_bytes = 1024;        // below this many bytes/s...
  int64_t low_speed_ms = 15'000;         // ...for this long: a timeout (slow-loris)
  uint64_t max_body_bytes = 10 << 20;    // decoded bytes; more ends the fetch with an error
  // All of an answer's headers together; libcurl's own caps (one line over 100 KiB, all
  // over 300 KiB, in 7.88) fail a fetch the same way, for good, whatever this says.
  uint64_t max_header_bytes = 64 << 10;
  size_t max_url_bytes = 4096;
  int max_redirects_robots = 5;

  // --- Network.
  bool allow_private = false;  // tests and demos on 127.0.0.1 set it
  std::string proxy;           // e.g. "http://proxy:3128"; empty: none (environment ignored)
  // "host:port:address" entries that pin a name to an address (libcurl's CURLOPT_RESOLVE):
  // tests use it to give 127.0.0.1 a public-looking name.
  std::vector<std::string> resolve;
  int64_t dns_cache_ms = 300'000;

  // --- Keeping what was fetched.
  // Appends every exchange that got a whole answer (pages, robots.txt, sitemaps; any
  // status) to WARC 1.1 files in this directory, created if missing: a request and a
  // response record each, one gzip member per record, named
  // crawlrank-YYYYMMDDhhmmss-NNNNN.warc.gz, a new file once one reaches
  // warc_max_file_bytes. Bodies are kept as received: content decoding moves from libcurl
  // into crawlrank (gzip, deflate, br, zstd) and HTTP/2 heads are written in HTTP/1.1 form
  // (docs/crawler.md, "Keeping what was fetched"). Empty: no WARC.
  std::string warc_dir;
  uint64_t warc_max_file_bytes = uint64_t{1} << 30;

  // --- Progress: the callback is called about every report_interval_ms with the figures
  // so far (the DB's own samples follow schedule.progress_interval_ms, 10 s).
  int64_t report_interval_ms = 2000;

  // Threads parsing HTML besides the one running the network; 0: one per core.
  uint32_t parse_threads = 0;
};

// Where a crawl stands; given to the progress callback and kept in the summary.
struct CrawlProgress {
  double elapsed_s = 0;
  uint64_t pages = 0;        // fetched and recorded this run (any status)
  uint64_t html_pages = 0;   // of which parsed as HTML
  uint64_t errors = 0;       // failures this run (retried or for good)
  uint64_t bytes = 0;        // body bytes received (decoded)
  uint64_t queued = 0;       // the scheduler's queue
  uint64_t in_flight = 0;    // transfers running
  uint64_t hosts = 0;        // hosts the scheduler knows
  uint64_t max_pages = 0;    // the limit left for this run (0: none), for an ETA
  // Origins whose robots.txt failed and is to be asked again (their pages wait).
  uint64_t waiting_origins = 0;
  // Pages a second over about the last 10 s (the run's average before that).
  double recent_pages_per_s = 0;
};

struct CrawlSummary {
  CrawlProgress progress;
  // Failures this run by kind (FailureKindName: "timeout", "connect", "http-5xx",
  // "robots-unreachable", ...), retried or for good: count.
  std::map<std::string, uint64_t> errors;
  std::map<int, uint64_t> statuses;      // HTTP status of recorded pages: count
  uint64_t robots_fetched = 0;
  uint64_t robots_disallowed = 0;        // pages robots.txt kept us from fetching
  uint64_t robots_unavailable = 0;       // pages held back while their robots.txt failed
  uint64_t sitemap_urls = 0;
  // HTML pages parsed with Gumbo's tree: every one with HtmlParser::kGumbo, else those the
  // streaming scan handed over (a <frameset>, misnested tables and formatting elements).
  uint64_t tree_parsed_pages = 0;
  // Hosts whose robots.txt Crawl-delay was over max_crawl_delay_ms, with the delay asked.
  std::map<std::string, int64_t> capped_crawl_delays;
  // Origins given up on this run (robots.txt unreachable, retries spent): the last detail.
  std::map<std::string, std::string> unreachable_origins;
  // Seeds of this run that had failed for good before, put back in the queue by Open.
  uint64_t requeued_seeds = 0;
  // Hosts this crawl fetched from before (their robots.txt answered) whose address the
  // guard refuses now (allow_private off, or the name moved to a private address): host:
  // the guard's detail. Their pages are held, never failed: the host is held in the
  // scheduler for the run, its pages handed out stay leased and come back at the next
  // open. With a frontier other than the crawler's own Scheduler, such pages fail.
  std::map<std::string, std::string> refused_hosts;
  uint64_t held_pages = 0;  // pages of those hosts handed out and held
  bool stopped = false;   // Stop() ended it
  bool finished = false;  // nothing is left to fetch (or max_pages is reached)
  bool limit_reached = false;  // max_pages is reached, pages still queued or not
  // Run ended because every host with pages queued is in refused_hosts (not finished).
  bool only_refused_left = false;
};

// The crawler's stored configuration (crawl_config.h): the scheduler's keys of the
// Scheduler it would open, and user_agent and max_crawl_delay_ms. InvalidArgument for a
// list item with a line break.
Result<StoredConfig> CrawlerConfig(const CrawlerOptions& options);
// Sets on `options` each key of `config` the crawler uses (the scheduler's but host_key,
// and the crawler's own). InvalidArgument naming a key whose value does not parse.
Status ApplyCrawlerConfig(const StoredConfig& config, CrawlerOptions* options);

class Crawler {
 public:
  using ProgressFn = std::function<void(const CrawlProgress&)>;

  // Opens a Scheduler on `db` (opened for writing) with the options' politeness, limits and
  // score mode, adds the seeds, and stores the configuration it runs with in the DB
  // (CrawlerConfig, with the scope's hosts completed): to resume with what is stored,
  // apply db.ReadConfig() to the options first (ApplyCrawlerConfig), as `crawlrank crawl`
  // does. InvalidArgument for a bad option or seed, naming it.
  static Result<std::unique_ptr<Crawler>> Open(PageDb& db, const CrawlerOptions& options);
  // Drives `frontier` (frontier.h) instead, which outlives the Crawler: the frontier
  // applies its own politeness, limits, filters and revisits, so options.schedule is its
  // business (but retry_ms and max_retries, the crawler's robots.txt back-off), and a
  // scope other than kAny is InvalidArgument. URLs are canonicalised with `profile`; the
  // crawler reads no PageDB.
  static Result<std::unique_ptr<Crawler>> Open(Frontier& frontier, const CrawlerOptions& options,
                                               UrlProfile profile = UrlProfile::kRfc3986);
  ~Crawler();
  Crawler(const Crawler&) = delete;
  Crawler& operator=(const Crawler&) = delete;

  // Crawls until nothing is left, max_pages is reached or Stop() is called. Errors: only
  // what stops the crawl itself (the PageDB failing); a page's failure is counted. `log`,
  // when given, is called on this thread for each page that ends (crawlrank/fetch_log.h).
  Result<CrawlSummary> Run(const ProgressFn& progress = nullptr, const FetchLogFn& log = nullptr);

  // Makes Run return soon (about 100 ms). Thread-safe; async-signal-unsafe (call it from a
  // thread that waits for signals, as `crawlrank crawl` does).
  void Stop();

  // The scheduler Run drives (for its stats, or to add seeds between runs). REQUIRES:
  // opened on a PageDb (the Crawler's own Scheduler).
  Scheduler& scheduler();
  // What Run drives: its own Scheduler, or the frontier it was opened on.
  Frontier& frontier();

 private:
  struct Impl;
  explicit Crawler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_CRAWLER_H_
