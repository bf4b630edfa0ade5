#include "serve/put_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace crawlrank {
namespace {

PutItem Named(const std::string& url) {
  Discovery d;
  d.url = url;
  return d;
}

std::string UrlOfItem(const PutItem& item) { return std::get<Discovery>(item).url; }

TEST(PutQueueTest, TakeAllHandsOverEverythingQueuedInOrder) {
  PutQueue queue(10, 1000);
  ASSERT_TRUE(queue.Push("a", Named("http://a.test/"), 10));
  ASSERT_TRUE(queue.Push("b", Named("http://b.test/"), 10));
  std::vector<PutItem> items;
  std::vector<std::string> ids;
  ASSERT_TRUE(queue.TakeAll(&items, &ids));
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(UrlOfItem(items[1]), "http://b.test/");
  queue.Close();
  EXPECT_FALSE(queue.TakeAll(&items, &ids));
  EXPECT_TRUE(items.empty() && ids.empty());
}

TEST(PutQueueTest, CloseLetsTheRestBeTakenFirst) {
  PutQueue queue(10, 1000);
  ASSERT_TRUE(queue.Push("a", Named("http://a.test/"), 1));
  queue.Close();
  std::vector<PutItem> items;
  std::vector<std::string> ids;
  EXPECT_TRUE(queue.TakeAll(&items, &ids));
  EXPECT_FALSE(queue.TakeAll(&items, &ids));
}

TEST(PutQueueTest, PushWaitsWhileFullByCountOrBytes) {
  for (const auto& [max_items, max_bytes, size] :
       {std::tuple{size_t{2}, size_t{1000}, size_t{1}}, std::tuple{size_t{100}, size_t{10}, size_t{6}}}) {
    const size_t bytes = size;  // a lambda below takes it (clang 14 cannot capture a binding)
    PutQueue queue(max_items, max_bytes);
    ASSERT_TRUE(queue.Push("1", Named("http://a.test/1"), bytes));
    if (max_items == 2) {
      ASSERT_TRUE(queue.Push("2", Named("http://a.test/2"), bytes));
    }
    std::atomic<bool> pushed{false};
    std::thread producer([&] {
      EXPECT_TRUE(queue.Push("3", Named("http://a.test/3"), bytes));
      pushed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(pushed.load()) << "full: the producer waits";
    std::vector<PutItem> items;
    std::vector<std::string> ids;
    ASSERT_TRUE(queue.TakeAll(&items, &ids));  // makes room
    producer.join();
    EXPECT_TRUE(pushed.load());
    ASSERT_TRUE(queue.TakeAll(&items, &ids));
    EXPECT_EQ(ids, (std::vector<std::string>{"3"}));
  }
}

TEST(PutQueueTest, AnItemLargerThanTheByteCapGoesInAlone) {
  PutQueue queue(10, 10);
  EXPECT_TRUE(queue.Push("big", Named("http://a.test/"), 100));
}

TEST(PutQueueTest, StopReleasesAWaitingProducerAndRefusesMore) {
  PutQueue queue(1, 1000);
  ASSERT_TRUE(queue.Push("1", Named("http://a.test/1"), 1));
  std::atomic<int> result{-1};
  std::thread producer([&] { result = queue.Push("2", Named("http://a.test/2"), 1) ? 1 : 0; });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  queue.Stop();
  producer.join();
  EXPECT_EQ(result.load(), 0);
  EXPECT_FALSE(queue.Push("3", Named("http://a.test/3"), 1));
}

}  // namespace
}  // namespace crawlrank
