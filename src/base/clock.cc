#include "crawlrank/clock.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace crawlrank {

int64_t UnixNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string IsoMillis(int64_t unix_ms) {
  const int64_t seconds = unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000;
  const auto t = static_cast<time_t>(seconds);
  std::tm utc{};
  char text[48];
  if (gmtime_r(&t, &utc) == nullptr ||
      std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc) == 0) {
    return "?";
  }
  char millis[8];
  std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(unix_ms - seconds * 1000));
  return std::string(text) + millis;
}

}  // namespace crawlrank
