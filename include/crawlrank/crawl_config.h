// crawlrank/crawl_config.h: the crawl's configuration as its PageDB keeps it.
//
// A crawl stores the options it runs with in its PageDB (PageDb::WriteConfig, format
// version 5), so that a resumed crawl keeps its scope, patterns, limits and politeness,
// and every reading tool (page_db_stats, page_db_schedule, Scheduler::Inspect) judges the
// schedule as the crawl does. The rules every front end follows (docs/crawler.md, "Stored
// configuration", has the table of keys and which front end writes each):
//   - a resume uses what is stored;
//   - an option the user gave this run (typed on the command line, a Scrapy setting above
//     default priority) overrides the stored value, is stored, and one line says so
//     (DescribeChanges);
//   - a list given again replaces the stored list;
//   - a reset (`--reset-config`) clears what is stored first.
//
// Values are text: integers in decimal, names as the options spell them, lists one item a
// line (an item cannot hold a line break: SchedulerConfig refuses it). The scheduler's keys
// are below; the crawler adds its own (crawler.h: CrawlerConfig). Unknown keys are kept and
// ignored, so an older build reads a newer crawl's configuration.
//
// Thread safety: plain functions over values.
#ifndef CRAWLRANK_CRAWL_CONFIG_H_
#define CRAWLRANK_CRAWL_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"

namespace crawlrank {

// "any", "same-host", "same-domain".
std::string_view CrawlScopeName(CrawlScope scope);
// InvalidArgument listing the names for anything else.
Result<CrawlScope> ParseCrawlScope(std::string_view name);

// The keys SchedulerConfig writes and ApplySchedulerConfig reads, in display order:
// score, host_key, scope, scope_hosts, allow, deny, max_pages, max_depth,
// max_pages_per_host, delay_ms, per_host, retry_ms, max_retries, template_links (0 or 1:
// rank.template_links.drop), revisit_ms.
const std::vector<std::string_view>& SchedulerConfigKeys();

// Every scheduler key of `options`. revisit_ms is min_revisit_ms with revisits on, else 0.
// InvalidArgument when a list item holds a line break.
Result<StoredConfig> SchedulerConfig(const SchedulerOptions& options);
// Sets on `options` each scheduler key `config` holds, leaving the other fields.
// InvalidArgument naming the key and value that do not parse.
Status ApplySchedulerConfig(const StoredConfig& config, SchedulerOptions* options);
// `base` with the DB's stored configuration applied: the options a tool that reads the
// schedule beside (or after) a crawl should use.
Result<SchedulerOptions> StoredSchedulerOptions(const PageDb& db, SchedulerOptions base = {});

// A key given this run whose value differs from the stored one (none stored: nullopt).
struct ConfigChange {
  std::string key;
  std::optional<std::string> stored;
  std::string given;
};
// `stored` with every key of `given` over it; `changes` (when not null) gets the keys whose
// value changed, in key order. A scope given that differs from the stored one drops the
// stored scope_hosts (unless they are given too): hosts of a same-host scope are not the
// domains of a same-domain one.
StoredConfig MergeConfig(const StoredConfig& stored, const StoredConfig& given,
                         std::vector<ConfigChange>* changes = nullptr);
// A crawl's configuration resolved by the rules above, for one run of any front end
// (crawlrank crawl, crawlrank serve, the Scrapy scheduler, the Frontera backend): what
// was stored, the options given this run over it, and what changed.
struct ResolvedConfig {
  StoredConfig stored;              // as read (empty after a reset, or on a new crawl)
  StoredConfig config;              // stored with the given keys over it: run with this
  std::vector<ConfigChange> changes;  // the given keys whose value differs, in key order
  bool reset = false;               // the stored configuration was set aside
  // The one line a front end prints or logs, or "" when there is nothing to say (a new
  // crawl): "cleared the configuration stored in DB", "resumed with the configuration
  // stored in DB (HINT)", or "changed the configuration stored in DB: delay_ms 1000 -> 0".
  // `hint` tells how to override it in the front end's own terms.
  std::string Line(std::string_view db_path, std::string_view hint) const;
};
// Reads `db`'s stored configuration (set aside when `reset`: --reset-config) and merges
// `given` (the keys of the options the user gave this run) over it (MergeConfig). The
// caller applies `config` to its options (ApplySchedulerConfig, ApplyCrawlerConfig) and
// stores what it runs with. Errors: the DB's, naming it.
Result<ResolvedConfig> ResolveConfig(const PageDb& db, const StoredConfig& given,
                                     bool reset = false);

// One line for a person: "delay_ms 1000 -> 0; scope any -> same-host"; a list shows its
// item count when it has more than 3 items ("scope_hosts 2 items -> 5 items").
std::string DescribeChanges(const std::vector<ConfigChange>& changes);
// The configuration for a person, one "key: value" line each, lists as "a, b, c" (past 10
// items, the first 10 and a count), an empty value as "(none)", in key order.
std::string FormatConfig(const StoredConfig& config);

// The keys a node of a cluster of `crawlrank serve` processes stores (docs/frontier.md,
// "A cluster"): the node list, comma separated in Java String order; this node's entry;
// the rule that gives each URL its owner.
inline constexpr std::string_view kClusterNodesKey = "nodes";
inline constexpr std::string_view kClusterNodeKey = "node";
inline constexpr std::string_view kClusterPartitionKey = "partition";
// FailedPrecondition naming `db_path` and its node when `config` is a cluster node's: a
// front end that crawls one PageDB alone (crawlrank crawl, the Scrapy scheduler, the
// Frontera backend) refuses it, since it holds only that node's share of the crawl. OK
// otherwise.
Status RefuseClusterNode(const StoredConfig& config, std::string_view db_path);

// Whether `key` holds a list (scope_hosts, allow, deny).
bool IsConfigListKey(std::string_view key);
// Lists as stored: one item a line, and back.
std::string JoinConfigList(const std::vector<std::string>& items);
std::vector<std::string> SplitConfigList(std::string_view value);

}  // namespace crawlrank

#endif  // CRAWLRANK_CRAWL_CONFIG_H_
