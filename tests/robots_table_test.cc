// Tests of src/crawl/robots_table.h, the crawler's robots.txt state, named after the RFC
// 9309 rule (§2.3.1) or the crawler rule each one checks. The expected entries are worked
// by hand from the RFC's text and the back-off RobotsPolicy documents.
#include "crawl/robots_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace crawlrank {
namespace {

constexpr int64_t kTableNow = 1'700'000'000'000;
constexpr char kTableOrigin[] = "http://a.test";

RobotsPolicy TablePolicy() {
  return {.agent = "crawlrank", .ttl_ms = 86'400'000, .retry_ms = 1000, .max_retries = 2};
}

FetchResult RobotsAnswer(long status, std::string body = "") {
  FetchResult result;
  result.status = status;
  result.body = std::move(body);
  return result;
}

FetchResult RobotsNoAnswer(FetchError error, std::string message) {
  FetchResult result;
  result.error = error;
  result.message = std::move(message);
  return result;
}

Request WaitingPage(const std::string& path, uint64_t lease) {
  Request r;
  r.url = std::string(kTableOrigin) + path;
  r.host = "a.test";
  r.lease = lease;
  return r;
}

TEST(RobotsTableTest, Successful2xxGivesItsRulesForTheTtl) {  // §2.3.1.1
  RobotsTable table(TablePolicy());
  const RobotsEntry& entry =
      table.Record(kTableOrigin, "a.test",
                   RobotsAnswer(200, "User-agent: crawlrank\nDisallow: /private\n"), kTableNow);
  EXPECT_TRUE(entry.usable());
  EXPECT_EQ(entry.expires_ms, kTableNow + TablePolicy().ttl_ms);
  EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/private/x", kTableNow),
            RobotsTable::Verdict::kDisallowed);
  EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/open", kTableNow),
            RobotsTable::Verdict::kAllowed);
  // Past the TTL the file is asked for again.
  EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/open", kTableNow + TablePolicy().ttl_ms),
            RobotsTable::Verdict::kAsk);
}

TEST(RobotsTableTest, UnknownOriginIsAskedFor) {
  RobotsTable table(TablePolicy());
  EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/", kTableNow), RobotsTable::Verdict::kAsk);
  EXPECT_EQ(table.Find(kTableOrigin), nullptr);
}

TEST(RobotsTableTest, Unavailable4xxAllowsEverything) {  // §2.3.1.3
  for (long status : {400L, 401L, 403L, 404L, 410L}) {
    RobotsTable table(TablePolicy());
    table.Record(kTableOrigin, "a.test", RobotsAnswer(status), kTableNow);
    EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/anything", kTableNow),
              RobotsTable::Verdict::kAllowed)
        << status;
  }
}

TEST(RobotsTableTest, RedirectsNotFollowedFurtherAllowEverything) {  // §2.3.1.2
  RobotsTable table(TablePolicy());
  table.Record(kTableOrigin, "a.test", RobotsNoAnswer(FetchError::kTooManyRedirects, "6 redirects"),
               kTableNow);
  EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/x", kTableNow),
            RobotsTable::Verdict::kAllowed);
  RobotsTable other(TablePolicy());
  other.Record(kTableOrigin, "a.test", RobotsAnswer(301), kTableNow);
  EXPECT_EQ(other.Judge(kTableOrigin, "http://a.test/x", kTableNow),
            RobotsTable::Verdict::kAllowed);
}

TEST(RobotsTableTest, UnreachableDisallowsAllAndBacksOffDoubling) {  // §2.3.1.4
  RobotsTable table(TablePolicy());
  // retry_ms 1000, doubling: due again after 1 s, then 2 s; max_retries 2: the third
  // failure in a row gives up, for the TTL.
  const RobotsEntry& first = table.Record(kTableOrigin, "a.test", RobotsAnswer(503), kTableNow);
  EXPECT_FALSE(first.usable());
  EXPECT_EQ(first.failures, 1u);
  EXPECT_EQ(first.expires_ms, kTableNow + 1000);
  EXPECT_EQ(first.detail, "HTTP 503");
  EXPECT_EQ(table.retrying_origins(), 1u);
  EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/x", kTableNow),
            RobotsTable::Verdict::kUnavailable);
  const RobotsEntry& second = table.Record(
      kTableOrigin, "a.test", RobotsNoAnswer(FetchError::kConnect, "refused"), kTableNow + 1000);
  EXPECT_EQ(second.failures, 2u);
  EXPECT_EQ(second.expires_ms, kTableNow + 1000 + 2000);
  EXPECT_EQ(second.detail, "refused");
  const RobotsEntry& third =
      table.Record(kTableOrigin, "a.test", RobotsAnswer(429), kTableNow + 3000);
  EXPECT_EQ(third.failures, 3u);
  EXPECT_EQ(third.expires_ms, kTableNow + 3000 + TablePolicy().ttl_ms);
  EXPECT_EQ(table.retrying_origins(), 0u);
  EXPECT_EQ(table.Judge(kTableOrigin, "http://a.test/x", kTableNow + 3000),
            RobotsTable::Verdict::kGaveUp);
  // An answer at last resets the count.
  const RobotsEntry& back =
      table.Record(kTableOrigin, "a.test", RobotsAnswer(200, ""), kTableNow + 9000);
  EXPECT_TRUE(back.usable());
  EXPECT_EQ(back.failures, 0u);
}

TEST(RobotsTableTest, ARefusedAddressOrProtocolErrorIsNotFiled) {
  EXPECT_FALSE(RobotsTable::Files(RobotsNoAnswer(FetchError::kPrivateAddress, "10.0.0.1")));
  EXPECT_FALSE(RobotsTable::Files(RobotsNoAnswer(FetchError::kProtocol, "bad")));
  EXPECT_TRUE(RobotsTable::Files(RobotsNoAnswer(FetchError::kTimeout, "slow")));
  EXPECT_TRUE(RobotsTable::Files(RobotsAnswer(500)));
}

TEST(RobotsTableTest, PagesWaitForTheFileOnceAnOriginAndComeBackTogether) {
  RobotsTable table(TablePolicy());
  EXPECT_TRUE(table.Wait(kTableOrigin, WaitingPage("/1", 1)));   // the first: fetch the file
  EXPECT_FALSE(table.Wait(kTableOrigin, WaitingPage("/2", 2)));  // the fetch is under way
  EXPECT_TRUE(table.Wait("https://a.test", WaitingPage("/3", 3)));
  EXPECT_EQ(table.waiting(), 3u);
  const std::vector<Request> back = table.TakeWaiting(kTableOrigin);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].lease, 1u);
  EXPECT_EQ(back[1].lease, 2u);
  EXPECT_EQ(table.waiting(), 1u);
  EXPECT_TRUE(table.TakeWaiting(kTableOrigin).empty());
  table.DropPages();
  EXPECT_EQ(table.waiting(), 0u);
}

TEST(RobotsTableTest, ParkedPagesComeBackWhenTheFileIsDueAgain) {
  RobotsTable table(TablePolicy());
  table.Record(kTableOrigin, "a.test", RobotsAnswer(500),
               kTableNow);  // due again at kTableNow + 1000
  table.Park(kTableOrigin, WaitingPage("/1", 7));
  EXPECT_EQ(table.next_due(), kTableNow + 1000);
  EXPECT_TRUE(table.TakeDue(kTableNow + 999).empty());
  const std::vector<Request> due = table.TakeDue(kTableNow + 1000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].lease, 7u);
  EXPECT_FALSE(table.next_due().has_value());
}

TEST(RobotsTableTest, RefusalNamesWhyAKnownFileRefusesALink) {
  RobotsTable table(TablePolicy());
  EXPECT_FALSE(table.Refusal("http://a.test/private").has_value());  // nothing known
  table.Record(kTableOrigin, "a.test", RobotsAnswer(200, "User-agent: *\nDisallow: /private\n"),
               kTableNow);
  const std::optional<FailureReport> refused = table.Refusal("http://a.test/private/1");
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->kind, FailureKind::kRobotsDisallowed);
  EXPECT_FALSE(refused->retryable);
  EXPECT_EQ(refused->reason, kRobotsDisallowedReason);
  EXPECT_FALSE(table.Refusal("http://a.test/open").has_value());
  // An origin given up on refuses every link, naming its file.
  const std::string other = "http://b.test";
  for (int i = 0; i < 3; ++i) table.Record(other, "b.test", RobotsAnswer(503), kTableNow + i);
  const std::optional<FailureReport> gone = table.Refusal("http://b.test/x");
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->kind, FailureKind::kRobotsUnreachable);
  EXPECT_EQ(gone->reason, "http://b.test/robots.txt unreachable: HTTP 503");
  // Unreachable but not given up on: the link is left to wait for the file.
  RobotsTable fresh(TablePolicy());
  fresh.Record(other, "b.test", RobotsAnswer(503), kTableNow);
  EXPECT_FALSE(fresh.Refusal("http://b.test/x").has_value());
}

TEST(RobotsTableTest, ARefusalIsCountedOnceARun) {
  RobotsTable table(TablePolicy());
  EXPECT_TRUE(table.FirstRefusal(42));
  EXPECT_FALSE(table.FirstRefusal(42));
  EXPECT_TRUE(table.FirstRefusal(43));
}

TEST(RobotsTableTest, AHostsEntriesRoundTripThroughTheFrontiersBytes) {
  RobotsTable table(TablePolicy());
  table.Record(kTableOrigin, "a.test", RobotsAnswer(200, "User-agent: *\nDisallow: /p\n"),
               kTableNow);
  table.Record("https://a.test", "a.test", RobotsAnswer(404), kTableNow);
  table.Record("http://b.test", "b.test", RobotsAnswer(200, ""), kTableNow);
  const std::string bytes = table.Saved("a.test");
  ASSERT_FALSE(bytes.empty());

  RobotsTable reread(TablePolicy());
  EXPECT_TRUE(reread.FirstSight("a.test"));
  EXPECT_FALSE(reread.FirstSight("a.test"));
  reread.Load("a.test", bytes);
  EXPECT_EQ(reread.Judge(kTableOrigin, "http://a.test/p", kTableNow),
            RobotsTable::Verdict::kDisallowed);
  EXPECT_EQ(reread.Judge("https://a.test", "https://a.test/p", kTableNow),
            RobotsTable::Verdict::kAllowed);
  EXPECT_EQ(reread.Find("http://b.test"), nullptr);  // filed under another host
  EXPECT_EQ(reread.Saved("a.test"), bytes);
}

TEST(RobotsTableTest, AnOriginGivenUpOnByAnEarlierRunIsAskedOnceMore) {
  RobotsTable table(TablePolicy());
  for (int i = 0; i < 3; ++i)
    table.Record(kTableOrigin, "a.test", RobotsAnswer(500), kTableNow + i);
  ASSERT_EQ(table.Judge(kTableOrigin, "http://a.test/", kTableNow + 3),
            RobotsTable::Verdict::kGaveUp);

  RobotsTable next_run(TablePolicy());
  next_run.Load("a.test", table.Saved("a.test"));
  EXPECT_EQ(next_run.Judge(kTableOrigin, "http://a.test/", kTableNow + 3),
            RobotsTable::Verdict::kAsk);
  // ... and given up on again at its first failure.
  const RobotsEntry& again =
      next_run.Record(kTableOrigin, "a.test", RobotsAnswer(500), kTableNow + 4);
  EXPECT_TRUE(again.gave_up(TablePolicy().max_retries));
}

}  // namespace
}  // namespace crawlrank
