// RobotsRules (crawlrank/robots.h): which group applies (the policy over the line parser
// of robots_parser.cc), matching, and the cache form.
#include "crawlrank/robots.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "base/coding.h"
#include "crawl/robots_internal.h"

namespace crawlrank {
namespace {

using robots_internal::RobotsKey;
using robots_internal::RobotsLine;

// "*" alone, or followed by a space or tab: the global group (RFC 9309 §2.2.1).
bool IsGlobalAgent(std::string_view value) {
  return value == "*" ||
         (value.size() > 1 && value[0] == '*' && (value[1] == ' ' || value[1] == '\t'));
}

// One group's worth of what Parse keeps: rules and the largest crawl delay.
struct Collected {
  bool seen = false;  // some user-agent line named it
  std::vector<std::pair<std::string, bool>> rules;
  std::optional<int64_t> delay_ms;

  void Add(const Collected& group) {
    rules.insert(rules.end(), group.rules.begin(), group.rules.end());
    if (group.delay_ms) delay_ms = std::max(delay_ms.value_or(0), *group.delay_ms);
  }
};

// Follows the groups of a robots.txt (RFC 9309 §2.1-§2.2.1) and collects the rules of
// those naming the product token, and of the "*" groups, separately. A group's members
// are known only at its end (a user-agent line may follow a Crawl-delay line of the same
// group), so each group is gathered on its own, then added where it belongs.
class GroupSelector : public robots_internal::RobotsHandler {
 public:
  explicit GroupSelector(std::string_view token) : token_(token) {}

  void OnLine(const RobotsLine& line) override {
    switch (line.key) {
      case RobotsKey::kUserAgent:
        if (!in_group_ || group_has_rules_) EndGroup();
        in_group_ = true;
        if (IsGlobalAgent(line.value)) {
          names_global_ = global_.seen = true;
        } else if (const std::string_view t = robots_internal::RobotsProductToken(line.value);
                   !t.empty() && AsciiEqualsIgnoreCase(t, token_)) {
          names_token_ = specific_.seen = true;
        }
        break;
      case RobotsKey::kAllow:
      case RobotsKey::kDisallow: {
        if (!in_group_) break;  // a rule before any group
        group_has_rules_ = true;
        std::string pattern = robots_internal::NormalizeRobotsPattern(line.value);
        if (pattern.empty()) break;  // "Disallow:" is no rule
        group_.rules.emplace_back(std::move(pattern), line.key == RobotsKey::kAllow);
        break;
      }
      case RobotsKey::kCrawlDelay:
        if (!in_group_) break;
        if (const auto delay = robots_internal::ParseCrawlDelayMs(line.value)) {
          group_.delay_ms = std::max(group_.delay_ms.value_or(0), *delay);
        }
        break;
      case RobotsKey::kSitemap:
        if (!line.value.empty()) sitemaps_.emplace_back(line.value);
        break;
      case RobotsKey::kUnknown: break;
    }
  }

  // Ends the current group, if any, adding it to the token's and/or the "*" collection.
  void EndGroup() {
    if (names_token_) specific_.Add(group_);
    if (names_global_) global_.Add(group_);
    group_ = Collected();
    group_has_rules_ = names_token_ = names_global_ = false;
  }

  // The group that applies: the token's, else "*"'s, else none (empty). Call EndGroup first.
  Collected& chosen() { return specific_.seen ? specific_ : global_; }
  std::vector<std::string>& sitemaps() { return sitemaps_; }

 private:
  const std::string_view token_;
  bool in_group_ = false;         // a user-agent line was seen
  bool group_has_rules_ = false;  // an Allow/Disallow line followed the current group's agents
  bool names_token_ = false;      // the current group names the product token
  bool names_global_ = false;     // the current group is a "*" group
  Collected group_;               // the current group's rules and delay
  Collected specific_;
  Collected global_;
  std::vector<std::string> sitemaps_;
};

constexpr std::string_view kMagic = "CRrb";
constexpr uint8_t kVersion = 1;

}  // namespace

RobotsRules RobotsRules::Parse(std::string_view body, std::string_view product_token) {
  GroupSelector selector(robots_internal::RobotsProductToken(product_token));
  robots_internal::ParseRobotsTxt(body, selector);
  selector.EndGroup();
  RobotsRules rules;
  Collected& chosen = selector.chosen();
  rules.rules_.reserve(chosen.rules.size());
  for (auto& [pattern, allow] : chosen.rules) rules.rules_.push_back({std::move(pattern), allow});
  rules.SortRules();
  rules.crawl_delay_ms_ = chosen.delay_ms;
  rules.sitemaps_ = std::move(selector.sitemaps());
  return rules;
}

RobotsRules RobotsRules::DisallowAll() {
  RobotsRules rules;
  rules.rules_.push_back({"/", false});
  return rules;
}

namespace {

// The order in which rules are tried: the first match is the longest, allow before
// disallow among equals (RFC 9309 §2.2.2); patterns break ties so the order is canonical.
template <typename R>
bool RuleBefore(const R& a, const R& b) {
  if (a.pattern.size() != b.pattern.size()) return a.pattern.size() > b.pattern.size();
  if (a.allow != b.allow) return a.allow;
  return a.pattern < b.pattern;
}

}  // namespace

void RobotsRules::SortRules() {
  std::sort(rules_.begin(), rules_.end(), RuleBefore<Rule>);
  rules_.erase(std::unique(rules_.begin(), rules_.end()), rules_.end());
}

const RobotsRules::Rule* RobotsRules::Deciding(std::string_view path) const {
  if (rules_.empty()) return nullptr;
  std::string normalized;
  if (!robots_internal::IsNormalRobotsPath(path)) {
    normalized = robots_internal::NormalizeRobotsPath(path);
    path = normalized;
  }
  if (path == "/robots.txt") return nullptr;  // RFC 9309 §2.2.2: implicitly allowed
  for (const Rule& rule : rules_) {
    if (robots_internal::RobotsPatternMatches(rule.pattern, path)) return &rule;
  }
  return nullptr;
}

bool RobotsRules::Allowed(std::string_view path) const {
  const Rule* rule = Deciding(path);
  return rule == nullptr || rule->allow;
}

// The cache form (docs/crawler.md): "CRrb", version byte 1, flags (bit 0: a crawl delay
// follows), [varint delay ms], varint rule count, per rule a kind byte (0 disallow,
// 1 allow) and a varint-length pattern, varint sitemap count, per sitemap a
// varint-length value. Rules are stored in matching order.
std::string RobotsRules::Serialize() const {
  std::string out(kMagic);
  out.push_back(static_cast<char>(kVersion));
  out.push_back(crawl_delay_ms_ ? 1 : 0);
  if (crawl_delay_ms_) coding::PutVarint64(out, static_cast<uint64_t>(*crawl_delay_ms_));
  coding::PutVarint64(out, rules_.size());
  for (const Rule& rule : rules_) {
    out.push_back(rule.allow ? 1 : 0);
    coding::PutVarint64(out, rule.pattern.size());
    out.append(rule.pattern);
  }
  coding::PutVarint64(out, sitemaps_.size());
  for (const std::string& sitemap : sitemaps_) {
    coding::PutVarint64(out, sitemap.size());
    out.append(sitemap);
  }
  return out;
}

namespace {

Status Damaged(std::string_view what) {
  return DataLossError("deserialize robots rules: " + std::string(what));
}

// Reads a varint-length string; false when cut short.
bool GetString(std::string_view& in, std::string_view* out) {
  uint64_t size;
  if (!coding::GetVarint64(in, &size) || size > in.size()) return false;
  *out = in.substr(0, size);
  in.remove_prefix(size);
  return true;
}

}  // namespace

Result<RobotsRules> RobotsRules::Deserialize(std::string_view bytes) {
  if (!bytes.starts_with(kMagic) || bytes.size() < kMagic.size() + 1) {
    return InvalidArgumentError("deserialize robots rules " + QuoteForMessage(bytes, 16) +
                                ": not a serialized RobotsRules (no \"CRrb\" magic)");
  }
  if (const auto version = static_cast<uint8_t>(bytes[kMagic.size()]); version != kVersion) {
    return InvalidArgumentError("deserialize robots rules: format version " +
                                std::to_string(version) + ", this library reads version " +
                                std::to_string(kVersion));
  }
  std::string_view in = bytes.substr(kMagic.size() + 1);
  RobotsRules rules;
  if (in.empty()) return Damaged("cut short before the flags");
  const auto flags = static_cast<uint8_t>(in[0]);
  in.remove_prefix(1);
  if (flags > 1) return Damaged("unknown flags " + std::to_string(flags));
  if (flags & 1) {
    uint64_t delay;
    if (!coding::GetVarint64(in, &delay)) return Damaged("crawl delay cut short");
    if (delay > static_cast<uint64_t>(robots_internal::kMaxCrawlDelayMs)) {
      return Damaged("crawl delay " + std::to_string(delay) + " ms over the cap");
    }
    rules.crawl_delay_ms_ = static_cast<int64_t>(delay);
  }
  uint64_t count;
  // Each rule takes at least 3 bytes: no reserving more than the input could hold.
  if (!coding::GetVarint64(in, &count) || count > in.size() / 3) {
    return Damaged("rule count cut short or too large");
  }
  rules.rules_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const std::string where = "rule " + std::to_string(i) + ": ";
    if (in.empty()) return Damaged(where + "cut short");
    const auto kind = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    if (kind > 1) return Damaged(where + "unknown kind " + std::to_string(kind));
    std::string_view pattern;
    if (!GetString(in, &pattern)) return Damaged(where + "pattern cut short");
    if (pattern.empty() || robots_internal::NormalizeRobotsPattern(pattern) != pattern) {
      return Damaged(where + "pattern " + QuoteForMessage(pattern, 64) + " is not normalised");
    }
    Rule rule{std::string(pattern), kind == 1};
    if (!rules.rules_.empty() && !RuleBefore(rules.rules_.back(), rule)) {
      return Damaged(where + "out of order or repeated");
    }
    rules.rules_.push_back(std::move(rule));
  }
  if (!coding::GetVarint64(in, &count) || count > in.size()) {
    return Damaged("sitemap count cut short or too large");
  }
  rules.sitemaps_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view sitemap;
    if (!GetString(in, &sitemap)) return Damaged("sitemap " + std::to_string(i) + ": cut short");
    if (sitemap.empty() || sitemap.find_first_of("\r\n#") != std::string_view::npos ||
        sitemap.front() == ' ' || sitemap.front() == '\t' || sitemap.back() == ' ' ||
        sitemap.back() == '\t') {
      return Damaged("sitemap " + std::to_string(i) + ": not a Sitemap line's value");
    }
    rules.sitemaps_.emplace_back(sitemap);
  }
  if (!in.empty()) return Damaged(std::to_string(in.size()) + " bytes left over");
  return rules;
}

std::string RobotsPath(std::string_view url) {
  if (const size_t hash = url.find('#'); hash != std::string_view::npos) url = url.substr(0, hash);
  if (const size_t scheme_end = url.find("://"); scheme_end != std::string_view::npos) {
    const size_t path_start = url.find_first_of("/?", scheme_end + 3);
    url = path_start == std::string_view::npos ? std::string_view() : url.substr(path_start);
  }
  if (url.empty()) return "/";
  if (url.front() != '/') return "/" + std::string(url);
  return std::string(url);
}

}  // namespace crawlrank
