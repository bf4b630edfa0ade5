// crawlrank/clock.h: where crawlrank reads the time.
//
// Everything that stores a time (crawl times, stored ranks) or waits for one (the
// scheduler's politeness delays, leases and revisits) reads it as Unix time in
// milliseconds. Code that decides by the time takes a `const Clock&`, so that tests and
// the crawl simulator drive it with a ManualClock instead of sleeping.
//
// Thread safety: both clocks may be read from any number of threads; ManualClock may be
// moved forward by one thread while others read it.
#ifndef CRAWLRANK_CLOCK_H_
#define CRAWLRANK_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace crawlrank {

// The system's wall clock, as Unix time in milliseconds.
int64_t UnixNowMs();

// Unix milliseconds as ISO 8601 UTC with milliseconds: "2026-11-25T19:42:24.123Z" (logs).
std::string IsoMillis(int64_t unix_ms);

class Clock {
 public:
  virtual ~Clock() = default;
  // Unix time in milliseconds. Need not be monotonic (the system clock may step back);
  // users of a Clock must tolerate a time earlier than one they read before.
  virtual int64_t NowMs() const = 0;
};

// The system clock (UnixNowMs).
class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override { return UnixNowMs(); }
};

// A clock that moves only when told: tests and simulations.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 0) : now_ms_(start_ms) {}
  int64_t NowMs() const override { return now_ms_.load(std::memory_order_acquire); }
  void Set(int64_t ms) { now_ms_.store(ms, std::memory_order_release); }
  void Advance(int64_t ms) { now_ms_.fetch_add(ms, std::memory_order_acq_rel); }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_CLOCK_H_
