#include "crawlrank/crawl_config.h"

#include <charconv>
#include <cstdint>
#include <functional>

#include "crawlrank/score_mode.h"
#include "crawlrank/url_pattern.h"

namespace crawlrank {

namespace {

constexpr std::pair<CrawlScope, std::string_view> kScopeNames[] = {
    {CrawlScope::kAny, "any"},
    {CrawlScope::kSameHost, "same-host"},
    {CrawlScope::kSameDomain, "same-domain"},
};

// How one key is read from and written to SchedulerOptions.
struct Field {
  std::string_view key;
  std::function<std::string(const SchedulerOptions&)> get;
  std::function<Status(std::string_view, SchedulerOptions&)> set;
};

template <typename T>
Status ParseInteger(std::string_view value, T* out) {
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, *out);
  if (ec != std::errc() || ptr != end || value.empty()) {
    return InvalidArgumentError("not an integer in range");
  }
  if constexpr (std::is_signed_v<T>) {
    if (*out < 0) return InvalidArgumentError("a negative number");
  }
  return Status::Ok();
}

template <typename T>
Field Integer(std::string_view key, T SchedulerOptions::*member) {
  return {
      key, [member](const SchedulerOptions& o) { return std::to_string(o.*member); },
      [member](std::string_view v, SchedulerOptions& o) { return ParseInteger(v, &(o.*member)); }};
}

Field List(std::string_view key, std::vector<std::string> SchedulerOptions::*member) {
  return {key, [member](const SchedulerOptions& o) { return JoinConfigList(o.*member); },
          [member](std::string_view v, SchedulerOptions& o) {
            o.*member = SplitConfigList(v);
            return Status::Ok();
          }};
}

// A list of URL patterns: each must compile, so that a stored pattern RE2 refuses (one an
// older crawlrank took) stops the run that reads it instead of vanishing.
Field PatternList(std::string_view key, std::vector<std::string> SchedulerOptions::*member) {
  Field field = List(key, member);
  field.set = [member](std::string_view v, SchedulerOptions& o) -> Status {
    std::vector<std::string> patterns = SplitConfigList(v);
    for (const std::string& pattern : patterns) {
      CRAWLRANK_RETURN_IF_ERROR(UrlPattern::Compile(pattern).status());
    }
    o.*member = std::move(patterns);
    return Status::Ok();
  };
  return field;
}

const std::vector<Field>& Fields() {
  static const std::vector<Field> fields = {
      {"score", [](const SchedulerOptions& o) { return std::string(ScoreModeName(o.score)); },
       [](std::string_view v, SchedulerOptions& o) -> Status {
         CRAWLRANK_ASSIGN_OR_RETURN(o.score, ParseScoreMode(v));
         return Status::Ok();
       }},
      {"host_key",
       [](const SchedulerOptions& o) {
         return std::string(o.host_key == HostKeyMode::kHost ? "host" : "domain");
       },
       [](std::string_view v, SchedulerOptions& o) -> Status {
         if (v != "host" && v != "domain") return InvalidArgumentError("not host or domain");
         o.host_key = v == "host" ? HostKeyMode::kHost : HostKeyMode::kRegisteredDomain;
         return Status::Ok();
       }},
      {"scope", [](const SchedulerOptions& o) { return std::string(CrawlScopeName(o.scope)); },
       [](std::string_view v, SchedulerOptions& o) -> Status {
         CRAWLRANK_ASSIGN_OR_RETURN(o.scope, ParseCrawlScope(v));
         return Status::Ok();
       }},
      List("scope_hosts", &SchedulerOptions::scope_hosts),
      PatternList("allow", &SchedulerOptions::allow),
      PatternList("deny", &SchedulerOptions::deny),
      Integer("max_pages", &SchedulerOptions::max_pages),
      Integer("max_depth", &SchedulerOptions::max_depth),
      Integer("max_pages_per_host", &SchedulerOptions::max_pages_per_host),
      Integer("delay_ms", &SchedulerOptions::delay_ms),
      Integer("per_host", &SchedulerOptions::per_host),
      Integer("retry_ms", &SchedulerOptions::retry_ms),
      Integer("max_retries", &SchedulerOptions::max_retries),
      {"template_links",
       [](const SchedulerOptions& o) {
         return std::string(o.rank.template_links.drop ? "1" : "0");
       },
       [](std::string_view v, SchedulerOptions& o) -> Status {
         if (v != "0" && v != "1") return InvalidArgumentError("not 0 or 1");
         o.rank.template_links.drop = v == "1";
         return Status::Ok();
       }},
      {"revisit_ms",
       [](const SchedulerOptions& o) { return std::to_string(o.revisits ? o.min_revisit_ms : 0); },
       [](std::string_view v, SchedulerOptions& o) -> Status {
         int64_t ms = 0;
         CRAWLRANK_RETURN_IF_ERROR(ParseInteger(v, &ms));
         o.revisits = ms > 0;
         if (ms > 0) {
           o.min_revisit_ms = ms;
           o.max_revisit_ms = std::max(o.max_revisit_ms, ms);
         }
         return Status::Ok();
       }},
  };
  return fields;
}

// A value for a line of text: lists (one item a line) as "a, b, c".
std::string Shown(std::string_view key, const std::string& value, size_t max_items) {
  if (!IsConfigListKey(key)) return value;
  const std::vector<std::string> items = SplitConfigList(value);
  std::string out;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() > max_items) {
    out += ", ... (" + std::to_string(items.size()) + " items)";
  }
  return out;
}

}  // namespace

std::string_view CrawlScopeName(CrawlScope scope) {
  for (const auto& [s, name] : kScopeNames) {
    if (s == scope) return name;
  }
  return "unknown";
}

Result<CrawlScope> ParseCrawlScope(std::string_view name) {
  for (const auto& [scope, n] : kScopeNames) {
    if (n == name) return scope;
  }
  return InvalidArgumentError("unknown scope \"" + std::string(name) +
                              "\" (any, same-host or same-domain)");
}

const std::vector<std::string_view>& SchedulerConfigKeys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> out;
    for (const Field& field : Fields()) out.push_back(field.key);
    return out;
  }();
  return keys;
}

bool IsConfigListKey(std::string_view key) {
  return key == "scope_hosts" || key == "allow" || key == "deny";
}

std::string JoinConfigList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += '\n';
    out += items[i];
  }
  // One item that is empty must not read back as no item: a lone line break.
  if (items.size() == 1 && items[0].empty()) out = "\n";
  return out;
}

std::vector<std::string> SplitConfigList(std::string_view value) {
  std::vector<std::string> items;
  if (value.empty()) return items;
  if (value == "\n") return {std::string()};
  size_t start = 0;
  for (;;) {
    const size_t end = value.find('\n', start);
    items.emplace_back(value.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return items;
}

Result<StoredConfig> SchedulerConfig(const SchedulerOptions& options) {
  for (const auto* list : {&options.scope_hosts, &options.allow, &options.deny}) {
    for (const std::string& item : *list) {
      if (item.find('\n') != std::string::npos) {
        return InvalidArgumentError("scheduler options: \"" + item +
                                    "\" holds a line break, which no URL or host can match");
      }
    }
  }
  StoredConfig config;
  for (const Field& field : Fields()) config.emplace(field.key, field.get(options));
  return config;
}

Status ApplySchedulerConfig(const StoredConfig& config, SchedulerOptions* options) {
  for (const Field& field : Fields()) {
    const auto it = config.find(std::string(field.key));
    if (it == config.end()) continue;
    if (Status set = field.set(it->second, *options); !set.ok()) {
      // A list's message names the item at fault; the whole list would bury it.
      if (IsConfigListKey(field.key)) {
        return InvalidArgumentError("configuration key " + std::string(field.key) + ": " +
                                    set.message());
      }
      return InvalidArgumentError("configuration key " + std::string(field.key) + " = \"" +
                                  it->second + "\": " + set.message());
    }
  }
  return Status::Ok();
}

Result<SchedulerOptions> StoredSchedulerOptions(const PageDb& db, SchedulerOptions base) {
  CRAWLRANK_ASSIGN_OR_RETURN(StoredConfig config, db.ReadConfig());
  if (Status applied = ApplySchedulerConfig(config, &base); !applied.ok()) {
    return DataLossError("stored configuration of PageDB \"" + db.path() +
                         "\": " + applied.message());
  }
  return base;
}

StoredConfig MergeConfig(const StoredConfig& stored, const StoredConfig& given,
                         std::vector<ConfigChange>* changes) {
  StoredConfig merged = stored;
  for (const auto& [key, value] : given) {
    const auto it = stored.find(key);
    if (changes != nullptr && (it == stored.end() || it->second != value)) {
      changes->push_back(
          {key, it == stored.end() ? std::nullopt : std::optional(it->second), value});
    }
    merged[key] = value;
  }
  // The hosts belong to the scope they were taken for: a scope given that differs from
  // the stored one drops them, unless they are given too (the front end takes new ones).
  const auto scope = given.find("scope");
  const auto old_scope = stored.find("scope");
  const auto hosts = merged.find("scope_hosts");
  if (scope != given.end() && old_scope != stored.end() && scope->second != old_scope->second &&
      !given.contains("scope_hosts") && hosts != merged.end()) {
    if (changes != nullptr && !hosts->second.empty()) {
      changes->push_back({hosts->first, hosts->second, std::string()});
    }
    merged.erase(hosts);
  }
  return merged;
}

Result<ResolvedConfig> ResolveConfig(const PageDb& db, const StoredConfig& given, bool reset) {
  ResolvedConfig resolved;
  resolved.reset = reset;
  if (!reset) {
    CRAWLRANK_ASSIGN_OR_RETURN(resolved.stored, db.ReadConfig());
  }
  resolved.config = MergeConfig(resolved.stored, given, &resolved.changes);
  return resolved;
}

std::string ResolvedConfig::Line(std::string_view db_path, std::string_view hint) const {
  const std::string where(db_path);
  if (reset) return "cleared the configuration stored in " + where;
  if (stored.empty()) return std::string();
  if (changes.empty()) {
    return "resumed with the configuration stored in " + where + " (" + std::string(hint) + ")";
  }
  return "changed the configuration stored in " + where + ": " + DescribeChanges(changes);
}

Status RefuseClusterNode(const StoredConfig& config, std::string_view db_path) {
  const auto nodes = config.find(std::string(kClusterNodesKey));
  if (nodes == config.end() || nodes->second.empty()) return Status::Ok();
  const auto node = config.find(std::string(kClusterNodeKey));
  return FailedPreconditionError(
      "PageDB " + QuoteForMessage(db_path) + " is node " +
      (node == config.end() ? std::string("?") : node->second) + " of the cluster " +
      nodes->second +
      ": it holds that node's share of the crawl; serve it with `crawlrank serve`, and crawl "
      "the cluster with `crawlrank crawl --frontier`");
}

std::string DescribeChanges(const std::vector<ConfigChange>& changes) {
  std::string out;
  for (const ConfigChange& change : changes) {
    const auto shown = [&](const std::string& value) {
      if (value.empty()) return std::string("(none)");
      if (!IsConfigListKey(change.key)) return value;
      const size_t items = SplitConfigList(value).size();
      return items > 3 ? std::to_string(items) + " items" : Shown(change.key, value, 3);
    };
    if (!out.empty()) out += "; ";
    out += change.key + ' ' + (change.stored ? shown(*change.stored) : "(unset)") + " -> " +
           shown(change.given);
  }
  return out;
}

std::string FormatConfig(const StoredConfig& config) {
  std::string out;
  for (const auto& [key, value] : config) {
    out += key + ": " + (value.empty() ? std::string("(none)") : Shown(key, value, 10)) + '\n';
  }
  return out;
}

}  // namespace crawlrank
