// Politeness without a PageDB: the host table (src/schedule/host_table.h) is given `now` on
// every call, so these tests drive time by hand. Expected values follow from the rules
// SchedulerOptions documents: a delay runs from one hand-out to the next, a crawl delay
// longer than delay_ms replaces it, a group shares one in-flight budget and one delay,
// the hard rate applies only when no host is ready at the soft one.
#include "schedule/host_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace crawlrank {
namespace {

class HostTableTest : public ::testing::Test {
 protected:
  // A host `key` with pages `ids` queued at `keys`, filed at `now`.
  uint32_t AddHost(HostTable& hosts, const std::string& key, std::vector<uint32_t> ids,
                   std::vector<float> keys, int64_t now) {
    const uint32_t number = hosts.Number(key);
    for (size_t i = 0; i < ids.size(); ++i) hosts[number].queue.Push(ids[i], keys[i], 0, slot_);
    hosts.Reschedule(number, now);
    return number;
  }
  // Takes the best page of the best ready host (as Next does) and starts its flight.
  std::optional<uint32_t> HandOut(HostTable& hosts, int64_t now, bool busy = false) {
    if (busy) hosts.PromoteBusy(now);
    hosts.PromoteWaiting(now);
    const std::optional<uint32_t> number = hosts.PopReady(busy);
    if (!number) return std::nullopt;
    const uint32_t page = hosts[*number].queue.top().id;
    hosts[*number].queue.RemoveAt(slot_[page], kFirstState, slot_);
    hosts.StartFlight(*number, now);
    hosts.Reschedule(*number, now);
    return page;
  }

  std::vector<uint32_t> slot_ = std::vector<uint32_t>(64, kFirstState);
};

SchedulerOptions Polite(int64_t delay_ms) {
  SchedulerOptions options;
  options.delay_ms = delay_ms;
  return options;
}

TEST_F(HostTableTest, DelayRunsFromOneHandOutToTheNext) {
  HostTable hosts(Polite(1000));
  AddHost(hosts, "a.example", {1, 2}, {0.5f, 0.9f}, 0);
  EXPECT_EQ(HandOut(hosts, 0), 2u);            // the better page first
  EXPECT_EQ(HandOut(hosts, 0), std::nullopt);  // one in flight, and the delay
  hosts.EndFlight(0, 10);
  hosts.Reschedule(0, 10);
  EXPECT_EQ(HandOut(hosts, 999), std::nullopt);  // the delay runs from the hand-out at 0
  uint64_t ready = 0;
  EXPECT_EQ(hosts.NextReady(999, &ready), 1000);
  EXPECT_EQ(ready, 0u);
  EXPECT_EQ(HandOut(hosts, 1000), 1u);
}

TEST_F(HostTableTest, BestPageAcrossHostsGoesFirst) {
  HostTable hosts(Polite(0));
  AddHost(hosts, "a.example", {1}, {0.2f}, 0);
  AddHost(hosts, "b.example", {2}, {0.7f}, 0);
  AddHost(hosts, "c.example", {3}, {0.4f}, 0);
  EXPECT_EQ(HandOut(hosts, 0), 2u);
  EXPECT_EQ(HandOut(hosts, 0), 3u);
  EXPECT_EQ(HandOut(hosts, 0), 1u);
  EXPECT_EQ(HandOut(hosts, 0), std::nullopt);
}

TEST_F(HostTableTest, LongerCrawlDelayAlsoExtendsTheDelayRunning) {
  HostTable hosts(Polite(1000));
  const uint32_t a = AddHost(hosts, "a.example", {1, 2}, {0.5f, 0.9f}, 0);
  ASSERT_EQ(HandOut(hosts, 0), 2u);
  // robots.txt says Crawl-delay: 5 while the first request is out.
  HostEntry entry = hosts.EntryOf(hosts[a]);
  entry.crawl_delay_ms = 5000;
  hosts.Apply(a, entry, 100);
  hosts.EndFlight(a, 200);
  hosts.Reschedule(a, 200);
  EXPECT_EQ(hosts.DelayOf(hosts[a]), 5000);
  EXPECT_EQ(HandOut(hosts, 4999), std::nullopt);
  EXPECT_EQ(HandOut(hosts, 5000), 1u);
  // A shorter crawl delay never goes below delay_ms.
  entry.crawl_delay_ms = 10;
  hosts.Apply(a, entry, 5000);
  EXPECT_EQ(hosts.DelayOf(hosts[a]), 1000);
}

TEST_F(HostTableTest, HostsOfOneGroupShareInFlightAndDelay) {
  HostTable hosts(Polite(1000));
  const uint32_t a = AddHost(hosts, "a.example", {1}, {0.9f}, 0);
  const uint32_t b = AddHost(hosts, "b.example", {2}, {0.5f}, 0);
  hosts.JoinGroup(a, "10.0.0.1", 0);
  hosts.JoinGroup(b, "10.0.0.1", 0);
  EXPECT_EQ(HandOut(hosts, 0), 1u);
  EXPECT_FALSE(hosts.HasRoom(hosts[b]));  // the group's one request is out
  EXPECT_EQ(HandOut(hosts, 5000), std::nullopt);
  hosts.EndFlight(a, 10);
  hosts.Reschedule(a, 10);
  EXPECT_EQ(hosts.ReadyAt(hosts[b]), 1000);  // the group's delay, from a's hand-out
  EXPECT_EQ(HandOut(hosts, 999), std::nullopt);
  EXPECT_EQ(HandOut(hosts, 1000), 2u);
  // Out of the group, b has its own budget again.
  hosts.JoinGroup(b, "", 1000);
  EXPECT_TRUE(hosts.HasRoom(hosts[a]));
}

TEST_F(HostTableTest, HardRateOnlyWhenNothingIsReadyAtTheSoftRate) {
  SchedulerOptions options = Polite(1000);
  options.busy_delay_ms = 100;
  HostTable hosts(options);
  ASSERT_TRUE(hosts.Busy());
  AddHost(hosts, "a.example", {1, 2}, {0.9f, 0.5f}, 0);
  ASSERT_EQ(HandOut(hosts, 0), 1u);
  hosts.EndFlight(0, 10);
  hosts.Reschedule(0, 10);
  EXPECT_EQ(HandOut(hosts, 99, /*busy=*/true), std::nullopt);
  EXPECT_EQ(HandOut(hosts, 100), std::nullopt);  // not at the soft rate
  EXPECT_EQ(HandOut(hosts, 100, /*busy=*/true), 2u);
}

TEST_F(HostTableTest, PerHostLimitStopsFilingTheHost) {
  SchedulerOptions options = Polite(0);
  options.max_pages_per_host = 2;
  HostTable hosts(options);
  const uint32_t a = AddHost(hosts, "a.example", {1, 2, 3}, {0.9f, 0.5f, 0.1f}, 0);
  hosts[a].done = 1;
  hosts.Reschedule(a, 0);
  EXPECT_EQ(HandOut(hosts, 0), 1u);  // done 1 + in flight 1: the limit
  EXPECT_TRUE(hosts.Exhausted(hosts[a]));
  hosts.EndFlight(a, 0);
  ++hosts[a].done;
  hosts.Reschedule(a, 0);
  EXPECT_EQ(HandOut(hosts, 0), std::nullopt);
  uint64_t ready = 0;
  EXPECT_EQ(hosts.NextReady(0, &ready), -1);
}

TEST_F(HostTableTest, StaleEntriesAreSkippedAndCompacted) {
  HostTable hosts(Polite(0));
  const uint32_t a = AddHost(hosts, "a.example", {1}, {0.9f}, 0);
  for (int i = 0; i < 100; ++i) hosts.Reschedule(a, 0);  // 100 stale entries, 1 valid
  hosts.Compact(/*bound=*/10, 0);
  EXPECT_EQ(HandOut(hosts, 0), 1u);
  EXPECT_EQ(HandOut(hosts, 0), std::nullopt);
}

TEST_F(HostTableTest, UndoRestoresAHostAsItWasBeforeAHandOut) {
  HostTable hosts(Polite(1000));
  const uint32_t a = AddHost(hosts, "a.example", {1}, {0.9f}, 0);
  hosts.JoinGroup(a, "g", 0);
  const HostTable::FlightMark mark = hosts.Mark(a);
  hosts.StartFlight(a, 500);
  hosts.Undo(a, mark, 500);
  EXPECT_EQ(hosts[a].in_flight, 0u);
  EXPECT_EQ(hosts[a].ready_at_ms, 0);
  EXPECT_EQ(hosts.ReadyAt(hosts[a]), 0);  // the group's delay is undone too
}

TEST_F(HostTableTest, UrlsShareTheHostOfTheirKey) {
  HostTable hosts(Polite(0));
  EXPECT_EQ(hosts.NumberOfUrl("https://a.example/x"), hosts.NumberOfUrl("http://a.example/y"));
  EXPECT_NE(hosts.NumberOfUrl("https://a.example/"), hosts.NumberOfUrl("https://b.example/"));
  EXPECT_EQ(hosts.Find("a.example"), hosts.NumberOfUrl("https://a.example/"));
  EXPECT_EQ(hosts.Find("c.example"), std::nullopt);
}

}  // namespace
}  // namespace crawlrank
