#include "crawlrank/clock.h"

#include <gtest/gtest.h>

namespace crawlrank {
namespace {

TEST(ClockTest, IsoMillisWritesUtcWithMilliseconds) {
  EXPECT_EQ(IsoMillis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(IsoMillis(1'764'000'000'123), "2025-11-24T16:00:00.123Z");
  EXPECT_EQ(IsoMillis(1'764'000'000'007), "2025-11-24T16:00:00.007Z");
  // Before 1970: the second below, and the milliseconds counted up from it.
  EXPECT_EQ(IsoMillis(-1), "1969-12-31T23:59:59.999Z");
}

TEST(ClockTest, ManualClockMovesOnlyWhenTold) {
  ManualClock clock(5);
  EXPECT_EQ(clock.NowMs(), 5);
  clock.Advance(10);
  EXPECT_EQ(clock.NowMs(), 15);
  clock.Set(3);
  EXPECT_EQ(clock.NowMs(), 3);
}

}  // namespace
}  // namespace crawlrank
