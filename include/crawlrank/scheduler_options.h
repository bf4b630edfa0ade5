// crawlrank/scheduler_options.h: every option of a Scheduler, with its default and what
// it trades. docs/scheduler.md explains the policies behind them and has the table of
// defaults each front end uses.
#ifndef CRAWLRANK_SCHEDULER_OPTIONS_H_
#define CRAWLRANK_SCHEDULER_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/clock.h"
#include "crawlrank/rank.h"
#include "crawlrank/score_mode.h"
#include "crawlrank/url.h"

namespace crawlrank {

struct RevisitRule {
  std::string pattern;
  int64_t interval_ms = 0;  // above 0: revisit at this interval
  double multiplier = 0;    // else: scale the estimated interval by this (above 0)
};

// Which hosts a crawl keeps to. Pages on other hosts stay in the PageDB with their links
// (the graph stays whole) and are never handed out.
enum class CrawlScope : uint8_t {
  kAny = 0,         // every host
  kSameHost = 1,    // a host that is one of scope_hosts
  kSameDomain = 2,  // a host that is one of scope_hosts or a name under one ("docs.x.org"
                    // is under "x.org"): the seeds' registered domains, Scrapy's
                    // allowed_domains
};

struct SchedulerOptions {
  // Default: partial PageRank blended with RankMass, the order with the best geometric
  // mean over the crawl-order suite of both measures, pages to 80% of the hot pages and
  // PageRank fetched with the first 10% (docs/benchmarks.md, "The default order").
  // `pagerank` alone starves the hosts with the fewest links known. It keeps 8 bytes a
  // page more than the other rank modes (its two parts).
  ScoreMode score = ScoreMode::kBlend;

  // --- Politeness, per host key (docs/scheduler.md has the table of front-end defaults).
  // What one politeness budget covers: the host name, or its registered domain.
  HostKeyMode host_key = HostKeyMode::kHost;
  // Minimum time between two requests to one host, from one hand-out to the next. 0 turns
  // the delay off (a crawl of one's own test server). A crawl delay set with
  // SetCrawlDelay (robots.txt) raises it for that host.
  int64_t delay_ms = 1000;
  // Requests to one host in flight at once.
  uint32_t per_host = 1;
  // A shorter delay a host gets when no host is ready at delay_ms, so that a crawl
  // left with few hosts goes faster (never below a crawl delay). -1: none. Aduana's
  // per-domain rates map onto the pair: SOFT_CRAWL_LIMIT r (default 0.25 requests/s) is
  // delay_ms = 1000 / r, HARD_CRAWL_LIMIT R (default 100) is busy_delay_ms = 1000 / R.
  int64_t busy_delay_ms = -1;
  // How long a 429 or 503 without Retry-After holds its host: this, doubled for every
  // further such answer in a row (up to max_hold_ms); a success resets it. A Retry-After
  // longer than max_hold_ms is cut to it.
  int64_t hold_ms = 60'000;
  int64_t max_hold_ms = 3'600'000;

  // --- Leases and retries.
  // A page handed out and not acknowledged within this time goes back to the queue.
  int64_t lease_ms = 600'000;
  // A retryable failure retries after retry_ms, doubled for each further failure of the
  // page, until it has failed max_retries + 1 times; then the page is failed for good.
  int64_t retry_ms = 60'000;
  uint32_t max_retries = 3;

  // --- Progress (crawl_counters.h): a write at least this long after the last progress
  // sample appends one (the crawl's counters, the queue, the requests in flight) to the
  // PageDB, so that a finished crawl keeps its history. 0: none. A crawl that writes
  // nothing for a while leaves a gap.
  int64_t progress_interval_ms = 10'000;

  // --- Scope and filters, applied when a page joins the schedule (a page left out stays
  // in the PageDB with its links; it is never handed out).
  // The scope: checked first; a page outside it counts as out_of_scope (SchedulerStats),
  // not as filtered. scope_hosts are host names, compared without case, port or trailing
  // dot; a scope other than kAny needs at least one. A hash set, so tens of thousands of
  // hosts cost a look-up per name level, not a pattern.
  CrawlScope scope = CrawlScope::kAny;
  std::vector<std::string> scope_hosts;
  // URL schemes to fetch; empty: any.
  std::vector<std::string> allowed_schemes = {"http", "https"};
  // RE2 patterns (crawlrank/url_pattern.h: linear time, no look-around or backreferences)
  // searched in the canonical URL: a page matching a deny pattern is filtered; with allow
  // patterns, so is one matching none of them. Scheduler::Open refuses a pattern RE2
  // rejects, naming the list, the pattern and the construct.
  std::vector<std::string> allow, deny;

  // --- Revisits (off by default: a crawl then ends when nothing is queued or leased).
  // Crawled pages come back at the rate their content was seen to change (see
  // docs/scheduler.md for the estimator), within [min_revisit_ms, max_revisit_ms].
  bool revisits = false;
  int64_t min_revisit_ms = 3'600'000;          // an hour; also the wait after the first crawl
  int64_t max_revisit_ms = 30 * 86'400'000LL;  // thirty days
  // The share of each Next that goes to due revisits first (new pages fill the rest, and
  // revisits fill what new pages leave).
  double revisit_share = 0.2;
  // The first rule whose pattern (RE2, as above) is found in the URL sets the interval
  // (interval_ms) or scales the estimated one (multiplier), as Aduana's FREQ_SPEC did.
  std::vector<RevisitRule> revisit_rules;

  // --- Limits (0: none).
  // Pages deeper than this (seeds are depth 0) are not scheduled.
  uint32_t max_depth = 0;
  // Pages handed out in all (crawled, in flight or failed), and per host.
  uint64_t max_pages = 0;
  uint64_t max_pages_per_host = 0;

  // --- Re-ranking (the modes from the ranking engine).
  // Recompute the ranks when the DB has this share more pages than at the last rank...
  // (Cost: a crawl ranks its whole graph about 1/rerank_growth times over in all, since the
  // graph grows geometrically between ranks; 2% with the graph trigger below measured best
  // on the suite: docs/scheduler.md, "Re-ranking".)
  double rerank_growth = 0.02;
  // ...and at least this many more; or, with pages added, after this interval (0: never).
  uint64_t rerank_min_new_pages = 10;
  int64_t rerank_interval_ms = 0;
  // Also recompute when the link graph has grown without new pages: when its size, the
  // links stored plus the pages crawled, is this share above its size at the last rank
  // (0: off) and at least rerank_min_graph_growth above. A crawl that mostly
  // fetches pages it already knows (links among them, recrawls) adds few pages but changes
  // the graph the ranks come from. The size is the DB's counters, read without a pass;
  // growth is net (a recrawl that drops links counts against it).
  // On by default: once a site's pages are all known, only fetches (their links) improve
  // the ranks; without this trigger the order froze at the last discovery.
  double rerank_graph_growth = 0.02;
  uint64_t rerank_min_graph_growth = 10;
  // Re-rank in a background thread (Next keeps answering; the schedule is re-keyed in
  // batches of rerank_batch pages, each holding the scheduler's lock briefly). False:
  // re-rank inside the Next call that finds it due (deterministic: the crawl simulator).
  bool background_rerank = true;
  uint32_t rerank_batch = 16384;
  // Keep the ranking graph in memory between re-ranks (db_rank.h, LiveDbRank): a re-rank
  // then reads only the out-links of the pages written since the last one and starts from
  // its scores, instead of reading every link again. Costs 8 bytes a link and about 40 a
  // page for as long as the scheduler is open; a graph over rank.memory_budget is re-read
  // every time, as with false. PageRank, ppr and trustrank; the other rank modes re-read,
  // and so does any mode with rank.template_links.drop.
  bool keep_rank_graph = true;
  // Damping, tolerance, threads and memory budget of each re-rank, and whether it drops
  // template links (rank.h, TemplateLinkOptions; default: no): the links a host puts on
  // most of its pages then steer the crawl no more than the content links. Each re-rank
  // then reads every link (keep_rank_graph does not apply) and sorts a key per link.
  RankOptions rank;

  // Name each request's referrer (Request::referrer: the URL of the page whose link found
  // it first), for a crawl log. It costs a look-up of that page per hand-out, about 7% of
  // the scheduler's own instructions in crawlrank_simulate's breadth-first replay, so it is
  // off unless asked: the built-in crawler and crawlrank serve ask. Not stored.
  bool name_referrers = false;

  // The clock every decision reads; must outlive the Scheduler. nullptr: the system clock.
  const Clock* clock = nullptr;

  // A node of a cluster (crawlrank serve --nodes): true for a canonical URL another node
  // owns. A page a write creates that it names becomes a ghost (format version 9): kept,
  // with the links to it, so that the links of this node's pages stay whole, but never
  // queued, counted or shown here (its owner crawls it). Asked once a page, when it is
  // created; a page is a ghost for good. Empty (the default): every page is this crawl's.
  // Not stored: the cluster's membership is (crawlrank serve).
  std::function<bool(std::string_view url)> elsewhere;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SCHEDULER_OPTIONS_H_
