// Fault test of the scheduler: a multi-threaded crawl loop in a child process, killed with
// SIGKILL at random moments and restarted. Nothing handed out is lost, nothing is handed
// out twice while its lease is valid, a crawled page never comes back, and Check passes.
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "crawlrank/scheduler.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Child;
using testing::Send;
using testing::TempDir;

constexpr uint32_t kPages = 30000;
constexpr uint32_t kHosts = 200;
// Messages from the child: a page index, tagged.
constexpr uint32_t kHanded = 1u << 31;   // Next handed it out
constexpr uint32_t kFailing = 1u << 30;  // about to report it failed (its lease ends)
constexpr uint32_t kIndex = kFailing - 1;

std::string Url(uint32_t i) {
  return "http://h" + std::to_string(i % kHosts) + ".test/p" + std::to_string(i);
}

uint32_t IndexOf(const std::string& url) {
  return static_cast<uint32_t>(std::stoul(url.substr(url.rfind("/p") + 2)));
}

// Page i links to i+1 (so every page is reachable from page 0) and three others.
CrawledPage PageOf(uint32_t i) {
  CrawledPage page;
  page.url = Url(i);
  page.http_status = 200;
  page.content_hash = i;
  for (uint32_t t : {i + 1, i * 7 + 3, i * 13 + 5, i * 31 + 11}) {
    const float score = static_cast<float>((t * 2654435761u) % 1000) / 1000;
    page.links.push_back(Link{Url(t % kPages), score});
  }
  return page;
}

SchedulerOptions CrawlOptions() {
  SchedulerOptions options;
  options.delay_ms = 0;
  options.per_host = 2;
  options.lease_ms = 3'600'000;  // no lease expires within one run
  options.retry_ms = 1;
  options.max_retries = 100;  // more than the runs: a page fails at most once a run
  return options;
}

// Child body: three threads hand out, fetch and report pages until the crawl is finished.
// Page i with i % 17 == 0 fails once per run before it is crawled.
void CrawlUntilKilled(const std::string& path, int fd) {
  PageDbOptions db_options;
  db_options.initial_map_size = 64 << 10;  // the map grows under the kill too
  auto db = PageDb::Open(path, db_options);
  if (!db.ok()) ::_exit(2);
  auto scheduler = Scheduler::Open(**db, CrawlOptions());
  if (!scheduler.ok()) ::_exit(2);
  if (!(*scheduler)->AddSeeds({Url(0)}).ok()) ::_exit(4);
  std::atomic<bool> finished{false};
  std::vector<std::thread> threads;
  std::vector<std::atomic<bool>> failed_once(kPages);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      while (!finished.load()) {
        auto next = (*scheduler)->Next(4);
        if (!next.ok()) ::_exit(4);
        if (next->empty()) {
          if ((*scheduler)->GetStats().finished) finished = true;
          std::this_thread::yield();
          continue;
        }
        for (const Request& r : *next) {
          const uint32_t i = IndexOf(r.url);
          Send(fd, kHanded | i);
          if (i % 17 == 0 && !failed_once[i].exchange(true)) {
            Send(fd, kFailing | i);
            if (!(*scheduler)->Failed({.url = r.url, .lease = r.lease, .reason = "test"}).ok()) {
              ::_exit(4);
            }
            continue;
          }
          if (!(*scheduler)->Crawled({PageOf(i), r.lease}).ok()) ::_exit(4);
          Send(fd, i);  // acknowledged: committed
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ::_exit(0);
}

TEST(SchedulerFaultTest, KilledCrawlLosesNothingAndLeasesNothingTwice) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  const uint32_t seed = std::random_device{}();
  std::printf("SchedulerFaultTest seed %u\n", seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::set<uint32_t> crawled;  // acknowledged over all runs
  int kills = 0;
  for (int round = 0; round < 24; ++round) {
    const auto delay = std::chrono::milliseconds(std::uniform_int_distribution<int>(5, 60)(rng));
    SCOPED_TRACE("round " + std::to_string(round) + ", kill after " +
                 std::to_string(delay.count()) + " ms");
    std::set<uint32_t> leased;  // in this run
    int status = 0;
    {
      Child crawler([&](int fd) { CrawlUntilKilled(path, fd); });
      std::this_thread::sleep_for(delay);
      status = crawler.Kill();
      while (auto message = crawler.Read()) {
        const uint32_t i = *message & kIndex;
        if (*message & kHanded) {
          EXPECT_TRUE(leased.insert(i).second) << "page " << i << " handed out twice while leased";
          EXPECT_EQ(crawled.count(i), 0u) << "crawled page " << i << " handed out again";
        } else if (*message & kFailing) {
          leased.erase(i);
        } else {
          leased.erase(i);
          crawled.insert(i);
        }
      }
    }
    if (WIFSIGNALED(status)) ++kills;
    ASSERT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
        << "the crawler failed, status " << status;
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, PageDbOptions{}));
    ASSERT_OK(db->Check());
    for (uint32_t i : crawled) {
      ASSERT_OK_AND_ASSIGN(PageRecord page, db->FindUrl(Url(i)));
      ASSERT_TRUE(page.crawled()) << "acknowledged page " << i << " lost";
    }
    if (WIFEXITED(status)) break;  // the crawl finished before the kill
  }
  std::printf("kills %d, pages acknowledged %zu of %u\n", kills, crawled.size(), kPages);
  EXPECT_GE(kills, 20);
  // Finish the crawl here: every page comes out, none twice, and nothing is left over.
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, PageDbOptions{}));
  ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, CrawlOptions()));
  for (;;) {
    ASSERT_OK_AND_ASSIGN(std::vector<Request> next, scheduler->Next(64));
    if (next.empty()) {
      if (scheduler->GetStats().finished) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a retry comes due
      continue;
    }
    for (const Request& r : next) {
      const uint32_t i = IndexOf(r.url);
      EXPECT_TRUE(crawled.insert(i).second) << "crawled page " << i << " handed out again";
      ASSERT_OK(scheduler->Crawled({PageOf(i), r.lease}));
    }
  }
  const SchedulerStats stats = scheduler->GetStats();
  EXPECT_TRUE(stats.finished);
  EXPECT_EQ(stats.crawled, kPages);
  for (uint32_t i = 0; i < kPages; ++i) {
    ASSERT_OK_AND_ASSIGN(PageRecord page, db->FindUrl(Url(i)));
    ASSERT_TRUE(page.crawled()) << "page " << i << " never crawled: lost";
  }
  EXPECT_EQ(stats.failed + stats.in_flight + stats.retrying + stats.queued, 0u);
  ASSERT_OK(db->Check());
}

}  // namespace
}  // namespace crawlrank
