// The fixed list of failure kinds (crawlrank/failure_kind.h): the numbers are stored, so
// they are pinned here against the list docs/format.md gives.
#include "crawlrank/failure_kind.h"

#include <set>
#include <string>

#include "testutil.h"

namespace crawlrank {
namespace {

TEST(FailureKindTest, NumbersAndNamesAreTheDocumentedOnes) {
  const std::pair<int, const char*> documented[] = {
      {0, "other"},          {1, "timeout"},           {2, "connect"},
      {3, "dns"},            {4, "tls"},               {5, "connection"},
      {6, "http-4xx"},       {7, "http-5xx"},          {8, "robots-disallowed"},
      {9, "robots-unreachable"}, {10, "private-address"}, {11, "too-large"},
      {12, "protocol"},      {13, "redirect-limit"},   {14, "bad-url"}};
  ASSERT_EQ(std::size(documented), size_t{kMaxFailureKind} + 1);
  for (const auto& [number, name] : documented) {
    const auto kind = static_cast<FailureKind>(number);
    EXPECT_EQ(FailureKindName(kind), name);
    EXPECT_EQ(ParseFailureKind(name), kind) << name;
  }
  std::set<std::string> seen;
  ForEachFailureKind([&](FailureKind kind) { seen.insert(std::string(FailureKindName(kind))); });
  EXPECT_EQ(seen.size(), std::size(documented));
}

TEST(FailureKindTest, UnknownNamesAreRefused) {
  for (const char* name : {"", "Timeout", "http 503", "private address", "other "}) {
    EXPECT_FALSE(ParseFailureKind(name).has_value()) << name;
  }
}

TEST(FailureKindTest, AKindIsInferredFromTheStatusAndReason) {
  EXPECT_EQ(InferFailureKind(503, ""), FailureKind::kHttp5xx);
  EXPECT_EQ(InferFailureKind(500, "robots.txt disallows it"), FailureKind::kHttp5xx);
  EXPECT_EQ(InferFailureKind(429, "HTTP 429"), FailureKind::kHttp4xx);
  EXPECT_EQ(InferFailureKind(0, "robots.txt disallows it"), FailureKind::kRobotsDisallowed);
  EXPECT_EQ(InferFailureKind(0, "connection refused"), FailureKind::kOther);
  EXPECT_EQ(InferFailureKind(200, ""), FailureKind::kOther);
}

}  // namespace
}  // namespace crawlrank
