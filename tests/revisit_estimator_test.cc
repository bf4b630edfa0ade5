// Revisits without a PageDB: the estimator (src/schedule/revisit_estimator.h) is told each
// crawl's counters. Expected intervals come from the rules its header documents: the first
// revisit after min_revisit_ms, 4x longer after two unchanged visits, the Cho and
// Garcia-Molina estimate -ln((n - X + 0.5) / (n + 0.5)) / I once it leaves the noise band
// max(2%, 2 / sqrt(n)), and a rule's fixed interval clamped to [min, max].
#include "schedule/revisit_estimator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace crawlrank {
namespace {

constexpr int64_t kHour = 3'600'000;

SchedulerOptions Revisits() {
  SchedulerOptions options;
  options.revisits = true;
  options.min_revisit_ms = kHour;
  options.max_revisit_ms = 1000 * kHour;
  return options;
}

RevisitEstimator Make(const SchedulerOptions& options) {
  Result<RevisitEstimator> estimator = RevisitEstimator::Make(options);
  EXPECT_TRUE(estimator.ok()) << estimator.status().ToString();
  RevisitEstimator made = *std::move(estimator);
  made.Grow(8);
  return made;
}

TEST(RevisitEstimatorTest, OffMeansNeverDue) {
  RevisitEstimator revisits = Make(SchedulerOptions());
  EXPECT_FALSE(revisits.enabled());
  EXPECT_EQ(revisits.NextRevisit(0, {1, 0, 5, 5}, false), -1);
}

TEST(RevisitEstimatorTest, FirstRevisitAfterTheMinimumThenFourTimesLongerWithoutChange) {
  RevisitEstimator revisits = Make(Revisits());
  int64_t t = 1000;
  EXPECT_EQ(revisits.NextRevisit(0, {1, 0, 1000, t}, false), t + kHour);
  t += kHour;
  EXPECT_EQ(revisits.NextRevisit(0, {2, 0, 1000, t}, false), t + kHour);  // n = 1: too few
  t += kHour;
  EXPECT_EQ(revisits.NextRevisit(0, {3, 0, 1000, t}, false), t + 4 * kHour);
}

TEST(RevisitEstimatorTest, ChangesAtEveryVisitShortenTheIntervalToTheEstimate) {
  RevisitEstimator revisits = Make(Revisits());
  const int64_t interval = 100 * kHour;
  // Opened with three crawls 100 h apart, each a change: n = 2 intervals, X = 2.
  int64_t t = 2 * interval;
  ASSERT_EQ(revisits.NextRevisit(0, {3, 2, 0, t}, true), t + interval);  // inside the noise
  t += interval;
  ASSERT_EQ(revisits.NextRevisit(0, {4, 3, 0, t}, false), t + interval);  // n = 3: still
  t += interval;
  // n = 4, X = 4: rate = ln(9) / I, outside max(2%, 1) of I: the interval moves to 1 / rate.
  const auto expected = static_cast<int64_t>(static_cast<float>(interval / std::log(9.0)));
  EXPECT_NEAR(static_cast<double>(revisits.NextRevisit(0, {5, 4, 0, t}, false) - t),
              static_cast<double>(expected), 1.0);
}

TEST(RevisitEstimatorTest, RuleIntervalIsClampedAndRuleMultiplierScales) {
  SchedulerOptions options = Revisits();
  options.revisit_rules = {{"/news/", 10 * 60'000, 0}, {"/archive/", 0, 8}};
  RevisitEstimator revisits = Make(options);
  PageRecord news;
  news.url = "https://a.example/news/today";
  news.n_crawls = 1;
  news.last_crawl_ms = 5000;
  const CrawlHistory h = revisits.HistoryOf(news);
  EXPECT_EQ(h.rule, 0);
  EXPECT_EQ(revisits.NextRevisit(1, h, false), 5000 + kHour);  // 10 min, raised to the minimum
  PageRecord other;
  other.url = "https://a.example/about";
  EXPECT_EQ(revisits.HistoryOf(other).rule, -1);
}

TEST(RevisitEstimatorTest, BadRulesAreRefusedNamingThem) {
  SchedulerOptions options = Revisits();
  options.revisit_rules = {{"/x/", 0, 0}};
  Result<RevisitEstimator> made = RevisitEstimator::Make(options);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("\"/x/\""), std::string::npos);
  options.revisit_rules = {{"(", 1000, 0}};
  made = RevisitEstimator::Make(options);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
}

TEST(RevisitEstimatorTest, DueQueueIsEarliestFirstAndARefilingMakesTheOldEntryStale) {
  RevisitEstimator revisits = Make(Revisits());
  revisits.Schedule(3, 300);
  revisits.Schedule(4, 100);
  revisits.Schedule(3, 50);  // page 3 is due earlier now
  EXPECT_EQ(revisits.Earliest(), 50);
  EXPECT_FALSE(revisits.DueBy(49));
  ASSERT_TRUE(revisits.DueBy(1000));
  Timed t = revisits.Pop();
  EXPECT_EQ(t.who, 3u);
  EXPECT_TRUE(revisits.Current(t));
  t = revisits.Pop();
  EXPECT_EQ(t.who, 4u);
  t = revisits.Pop();
  EXPECT_EQ(t.who, 3u);
  EXPECT_FALSE(revisits.Current(t));  // the filing at 300 was replaced
  EXPECT_FALSE(revisits.DueBy(1000));
}

}  // namespace
}  // namespace crawlrank
