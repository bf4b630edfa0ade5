// crawlrank/fetch_log.h: the crawl log, one line for each page the crawler fetched or
// failed (`crawlrank crawl --log FILE`).
//
// Crawler::Run calls a FetchLogFn, on the thread that runs it, once for each leased page
// that ends: fetched and recorded (any HTTP status), failed after a fetch (timeout, 5xx,
// ...), or failed before one (robots.txt disallows it, a URL libcurl refuses, an origin
// given up on). A page that waits for its robots.txt is logged when it ends, not while it
// waits; robots.txt and sitemap fetches are not pages and are not logged.
//
// FetchLogFile writes the entries as JSON lines, appended to a file:
//   {"time":"2026-11-25T19:42:24.123Z","url":"https://a.example/x","status":200,
//    "bytes":5120,"content_type":"text/html; charset=utf-8","ms":38,
//    "referrer":"https://a.example/","failure":null}
// `status` 0 means no answer; `failure` is a FailureKindName ("timeout", "http-5xx",
// "robots-disallowed", ...) or null for a recorded page; `referrer` is the page whose link
// first found this one, null for a seed or when unknown (a crawler on a foreign frontier).
// Strings are escaped so that every line is valid JSON whatever a server sent: control
// characters and bytes outside ASCII become \u00XX, one per byte. The content type is cut
// at kMaxContentTypeBytes.
//
// Durability: lines are buffered and written when a second has passed since the last
// write (checked at each entry; `crawlrank crawl` also flushes at each progress report,
// about every 2 s), past 1 MiB, at Flush and at close: a crash loses the last seconds at
// most. The file is opened for appending, so a resumed crawl adds to the last one's log.
#ifndef CRAWLRANK_FETCH_LOG_H_
#define CRAWLRANK_FETCH_LOG_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "crawlrank/page_types.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct FetchLogEntry {
  int64_t time_ms = 0;        // when it ended, Unix milliseconds
  std::string url;            // canonical
  uint16_t http_status = 0;   // 0: no answer
  uint64_t bytes = 0;         // body bytes received (decoded)
  std::string content_type;   // the header as sent; empty when none
  int64_t duration_ms = 0;    // from the request's start to its end; 0 when never sent
  std::string referrer;       // empty: a seed, or unknown
  std::string failure;        // FailureKindName; empty: recorded as crawled
};

using FetchLogFn = std::function<void(const FetchLogEntry&)>;

// The entry as one line of JSON, without the newline.
std::string FetchLogLine(const FetchLogEntry& entry);

// An open crawl log. Not thread-safe: one thread appends (Run's).
class FetchLogFile {
 public:
  // Opens `path` for appending, creating it. Internal or NotFound naming the path.
  static Result<FetchLogFile> Open(const std::string& path);
  FetchLogFile(FetchLogFile&&) noexcept;
  FetchLogFile& operator=(FetchLogFile&&) noexcept;
  ~FetchLogFile();

  // Buffers the entry's line; writes the buffer when a second has passed since the last
  // write. The first error sticks and is returned by Flush (a full disk must not stop a
  // crawl midway: its pages are in the PageDB either way).
  void Append(const FetchLogEntry& entry);
  // Writes what is buffered; the first error of any write, naming the path.
  Status Flush();
  // How to hand Append to Crawler::Run. It writes to the open file, not to this object:
  // it stays valid when the FetchLogFile is moved, until the file is closed.
  FetchLogFn Writer();

 private:
  struct File;
  explicit FetchLogFile(std::unique_ptr<File> file);
  std::unique_ptr<File> file_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_FETCH_LOG_H_
