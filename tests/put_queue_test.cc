#include "serve/put_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace crawlrank {
namespace {

TEST(PutQueueTest, TakeAllHandsOverEverythingQueuedInOrder) {
  PutQueue<std::string> queue(10, 1000);
  ASSERT_TRUE(queue.Push("a", 10));
  ASSERT_TRUE(queue.Push("b", 10));
  std::vector<std::string> taken;
  ASSERT_TRUE(queue.TakeAll(&taken));
  EXPECT_EQ(taken, (std::vector<std::string>{"a", "b"}));
  queue.Close();
  EXPECT_FALSE(queue.TakeAll(&taken));
  EXPECT_TRUE(taken.empty());
}

TEST(PutQueueTest, CloseLetsTheRestBeTakenFirst) {
  PutQueue<std::string> queue(10, 1000);
  ASSERT_TRUE(queue.Push("a", 1));
  queue.Close();
  std::vector<std::string> taken;
  EXPECT_TRUE(queue.TakeAll(&taken));
  EXPECT_FALSE(queue.TakeAll(&taken));
}

TEST(PutQueueTest, PushWaitsWhileFullByCountOrBytes) {
  for (const auto& [max_items, max_bytes, size] :
       {std::tuple{size_t{2}, size_t{1000}, size_t{1}}, std::tuple{size_t{100}, size_t{10}, size_t{6}}}) {
    const size_t bytes = size;  // a lambda below takes it (clang 14 cannot capture a binding)
    PutQueue<std::string> queue(max_items, max_bytes);
    ASSERT_TRUE(queue.Push("1", bytes));
    if (max_items == 2) {
      ASSERT_TRUE(queue.Push("2", bytes));
    }
    std::atomic<bool> pushed{false};
    std::thread producer([&] {
      EXPECT_TRUE(queue.Push("3", bytes));
      pushed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(pushed.load()) << "full: the producer waits";
    std::vector<std::string> taken;
    ASSERT_TRUE(queue.TakeAll(&taken));  // makes room
    producer.join();
    EXPECT_TRUE(pushed.load());
    ASSERT_TRUE(queue.TakeAll(&taken));
    EXPECT_EQ(taken, (std::vector<std::string>{"3"}));
  }
}

TEST(PutQueueTest, AnItemLargerThanTheByteCapGoesInAlone) {
  PutQueue<std::string> queue(10, 10);
  EXPECT_TRUE(queue.Push("big", 100));
}

TEST(PutQueueTest, StopReleasesAWaitingProducerAndRefusesMore) {
  PutQueue<std::string> queue(1, 1000);
  ASSERT_TRUE(queue.Push("1", 1));
  std::atomic<int> result{-1};
  std::thread producer([&] { result = queue.Push("2", 1) ? 1 : 0; });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  queue.Stop();
  producer.join();
  EXPECT_EQ(result.load(), 0);
  EXPECT_FALSE(queue.Push("3", 1));
}

}  // namespace
}  // namespace crawlrank
