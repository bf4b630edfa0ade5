#include "crawlrank/failure_kind.h"

#include <array>

namespace crawlrank {
namespace {

// Indexed by the kind's number.
constexpr std::array<std::string_view, kMaxFailureKind + 1> kNames = {
    "other",           "timeout",         "connect",           "dns",
    "tls",             "connection",      "http-4xx",          "http-5xx",
    "robots-disallowed", "robots-unreachable", "private-address", "too-large",
    "protocol",        "redirect-limit",  "bad-url",
};

}  // namespace

std::string_view FailureKindName(FailureKind kind) {
  const auto k = static_cast<size_t>(kind);
  return k < kNames.size() ? kNames[k] : "other";
}

std::optional<FailureKind> ParseFailureKind(std::string_view name) {
  for (size_t k = 0; k < kNames.size(); ++k) {
    if (kNames[k] == name) return static_cast<FailureKind>(k);
  }
  return std::nullopt;
}

FailureKind InferFailureKind(uint16_t http_status, std::string_view reason) {
  if (http_status >= 500 && http_status < 600) return FailureKind::kHttp5xx;
  if (http_status >= 400 && http_status < 500) return FailureKind::kHttp4xx;
  if (reason == "robots.txt disallows it") return FailureKind::kRobotsDisallowed;
  return FailureKind::kOther;
}

}  // namespace crawlrank
