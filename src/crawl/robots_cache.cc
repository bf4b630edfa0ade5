#include "crawl/robots_cache.h"

#include <algorithm>

#include "base/coding.h"

namespace crawlrank {
namespace {

constexpr uint8_t kRobotsStateVersion = 2;

bool GetBytes(std::string_view& in, std::string_view* out) {
  uint64_t n = 0;
  if (!coding::GetVarint64(in, &n) || n > in.size()) return false;
  *out = in.substr(0, n);
  in.remove_prefix(n);
  return true;
}

void PutBytes(std::string_view bytes, std::string* out) {
  coding::PutVarint64(*out, bytes.size());
  out->append(bytes);
}

}  // namespace

std::string OriginOf(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const size_t path = url.find_first_of("/?#", scheme_end + 3);
  return std::string(url.substr(0, path));
}

void AppendRobotsState(std::string_view origin, const RobotsEntry& e, std::string* bytes) {
  if (bytes->empty()) bytes->push_back(static_cast<char>(kRobotsStateVersion));
  PutBytes(origin, bytes);
  coding::PutVarint64(*bytes, coding::ZigZag(e.fetched_ms));
  coding::PutVarint64(*bytes, coding::ZigZag(e.expires_ms));
  coding::PutVarint64(*bytes, e.status);
  PutBytes(e.rules.Serialize(), bytes);
  coding::PutVarint64(*bytes, e.failures);
  PutBytes(e.detail, bytes);
}

void DecodeRobotsState(std::string_view in,
                       const std::function<void(std::string_view origin, RobotsEntry entry)>& fn) {
  if (in.empty()) return;
  const auto version = static_cast<uint8_t>(in[0]);
  if (version != 1 && version != kRobotsStateVersion) return;
  in.remove_prefix(1);
  while (!in.empty()) {
    std::string_view origin, rules, detail;
    uint64_t fetched = 0, expires = 0, status = 0, failures = 0;
    if (!GetBytes(in, &origin) || !coding::GetVarint64(in, &fetched) ||
        !coding::GetVarint64(in, &expires) || !coding::GetVarint64(in, &status) ||
        !GetBytes(in, &rules) ||
        (version >= 2 && (!coding::GetVarint64(in, &failures) || !GetBytes(in, &detail)))) {
      return;
    }
    Result<RobotsRules> parsed = RobotsRules::Deserialize(rules);
    if (!parsed.ok()) continue;
    RobotsEntry e;
    e.fetched_ms = coding::UnZigZag(fetched);
    e.expires_ms = coding::UnZigZag(expires);
    e.status = static_cast<uint32_t>(std::min<uint64_t>(status, UINT32_MAX));
    e.rules = std::move(*parsed);
    e.failures = static_cast<uint32_t>(std::min<uint64_t>(failures, UINT32_MAX));
    e.detail.assign(detail);
    fn(origin, std::move(e));
  }
}

}  // namespace crawlrank
