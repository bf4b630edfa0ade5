// The crawler's network side: concurrent HTTP(S) transfers on one libcurl multi handle
// (connection reuse and HTTP/2 per host, a shared DNS cache), each checked against the
// address guard when its socket opens, capped in headers and body while streaming, and
// never following redirects unless asked (robots.txt only).
//
// Not thread-safe, except Wakeup: one thread starts transfers and polls.
#ifndef CRAWLRANK_SRC_CRAWL_FETCHER_H_
#define CRAWLRANK_SRC_CRAWL_FETCHER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crawlrank/failure_kind.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct FetcherOptions {
  std::string user_agent;
  int64_t connect_timeout_ms = 10'000;
  int64_t timeout_ms = 30'000;
  int64_t low_speed_bytes = 1024;
  int64_t low_speed_ms = 15'000;
  uint64_t max_body_bytes = 10 << 20;
  uint64_t max_header_bytes = 64 << 10;
  bool allow_private = false;
  std::string proxy;                 // empty: none, and the environment's are ignored
  std::vector<std::string> resolve;  // CURLOPT_RESOLVE entries
  int64_t dns_cache_ms = 300'000;
  uint32_t max_connections = 64;     // kept open for reuse
  // Keep each exchange as it went over the wire (crawlrank crawl --warc): the request and
  // response heads, and the body before content decoding, which moves from libcurl into
  // crawlrank (content_decoding.h) so that both forms are at hand. max_body_bytes then caps
  // the body as received and as decoded, each. Costs a copy of each head and body.
  bool keep_wire = false;
};

struct FetchJob {
  std::string url;
  uint64_t tag = 0;                  // the caller's; comes back in the result
  int max_redirects = 0;             // above 0: follow up to this many (robots.txt)
  uint64_t max_body_bytes = 0;       // 0: the fetcher's; else this many...
  bool truncate_body = false;        // ...and true: keep the first bytes, no error
  int64_t if_modified_since_ms = 0;  // conditional GET; 0: none
};

// Why a transfer failed; kNone when an HTTP answer came (whatever its status).
enum class FetchError : uint8_t {
  kNone,
  kPrivateAddress,   // the address guard refused every address of the host
  kDns,
  kConnect,
  kTimeout,          // total, connect or low-speed timeout
  kTls,
  kConnection,       // reset, closed early, nothing received
  kBodyTooLarge,
  kHeadersTooLarge,
  kTooManyRedirects,
  kProtocol,         // malformed HTTP, bad content encoding
  kOther,
};
// Whether trying again later could help.
bool FetchErrorRetryable(FetchError error);
// How a page failed by `error` is filed (crawlrank/failure_kind.h).
inline FailureKind FailureKindOf(FetchError error) {
  switch (error) {
    case FetchError::kPrivateAddress: return FailureKind::kPrivateAddress;
    case FetchError::kDns: return FailureKind::kDns;
    case FetchError::kConnect: return FailureKind::kConnect;
    case FetchError::kTimeout: return FailureKind::kTimeout;
    case FetchError::kTls: return FailureKind::kTls;
    case FetchError::kConnection: return FailureKind::kConnection;
    case FetchError::kBodyTooLarge:
    case FetchError::kHeadersTooLarge: return FailureKind::kTooLarge;
    case FetchError::kTooManyRedirects: return FailureKind::kRedirectLimit;
    case FetchError::kProtocol: return FailureKind::kProtocol;
    case FetchError::kNone:
    case FetchError::kOther: break;
  }
  return FailureKind::kOther;
}

struct FetchResult {
  uint64_t tag = 0;
  std::string url;            // as asked
  std::string final_url;      // after the redirects followed (robots.txt)
  FetchError error = FetchError::kNone;
  std::string message;        // libcurl's, or the guard's, with the URL
  long status = 0;            // HTTP status of the last response
  std::string content_type;   // the header as sent
  std::string location;       // a 3xx's target, absolute (not followed)
  std::optional<int64_t> retry_after_ms;
  std::string body;           // decoded (gzip, deflate, br, zstd)
  bool truncated = false;     // FetchJob::truncate_body cut it
  std::string address;        // the address connected to
  uint64_t wire_bytes = 0;    // headers and body as received (before content decoding)
  uint32_t fetch_ms = 0;      // from the start to the end of the transfer
  int64_t started_ms = 0;     // wall clock at Start, Unix ms
  // With FetcherOptions::keep_wire, the last exchange (the one after the redirects
  // followed) as it went over the wire; `wire_complete` when the whole answer came (also
  // when its content could not be decoded: error kProtocol or kBodyTooLarge, body empty).
  bool wire_complete = false;
  std::string request_head;   // request line and headers as sent, ending with a blank line
  std::string response_head;  // status line and headers as received, likewise
  std::string wire_body;      // before content decoding (transfer codings removed)
};

class Fetcher {
 public:
  static Result<std::unique_ptr<Fetcher>> Create(const FetcherOptions& options);
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  // Starts a transfer. InvalidArgument when libcurl refuses the URL.
  Status Start(FetchJob job);
  // Runs transfers for up to timeout_ms (less when one ends or Wakeup is called), and
  // appends those that ended to `done`.
  Status Poll(int timeout_ms, std::vector<FetchResult>* done);
  // Ends every transfer without a result.
  void AbandonAll();
  // Makes a Poll return early; thread-safe.
  void Wakeup();
  size_t running() const;

  struct Impl;

 private:
  explicit Fetcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_FETCHER_H_
