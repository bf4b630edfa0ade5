// A Frontier (crawlrank/frontier.h) over a URLFrontier server: what `crawlrank crawl
// --frontier HOST:PORT` drives, so that the built-in crawler shares one `crawlrank serve`
// with other crawlers (docs/frontier.md, "Clients").
//
// Each call is one gRPC call (reports: one PutURLs stream, each page's links as discovered
// URLs naming it as their source, then the page), made with wait-for-ready: a server that
// is away (a restart) is waited for, up to `wait_ms`, then the call fails with
// Unavailable... as IoError naming the address. Every call is safe to repeat.
//
// What stays in this process: the robots.txt state of each host (HostRobots), which the
// crawler keeps per fetcher; the leases are the server's, named here by a number per
// hand-out. FailQueued fails nothing (the server has no such call): the crawler fails an
// unreachable origin's pages one at a time as they come.
//
// Thread safety: every method may be called from any thread.
#ifndef CRAWLRANK_SRC_SERVE_REMOTE_FRONTIER_H_
#define CRAWLRANK_SRC_SERVE_REMOTE_FRONTIER_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "crawlrank/frontier.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct RemoteFrontierOptions {
  std::string address;   // host:port of the server
  std::string token;     // the server's --token; empty: none
  std::string tls_ca_pem;  // PEM of the CA of the server's certificate; empty: plain text
  std::string crawl_id;  // empty: the server's DEFAULT
  int64_t lease_ms = 60'000;  // what each hand-out is leased for (seconds on the wire)
  int64_t wait_ms = 60'000;   // how long a call waits for a server that is away
};

class RemoteFrontier final : public Frontier {
 public:
  explicit RemoteFrontier(const RemoteFrontierOptions& options);
  ~RemoteFrontier() override;
  RemoteFrontier(const RemoteFrontier&) = delete;
  RemoteFrontier& operator=(const RemoteFrontier&) = delete;

  Status AddSeeds(const std::vector<std::string>& urls) override;
  Result<std::vector<Request>> Next(size_t n) override;
  Status CrawledBatch(const std::vector<CrawlReport>& reports) override;
  Status Failed(const FailureReport& report) override;
  Status SetCrawlDelay(std::string_view host, int64_t delay_ms) override;
  std::string HostRobots(std::string_view host) const override;
  Status SetHostRobots(std::string_view host, std::string_view bytes) override;
  // From GetStats: finished when nothing is queued, retrying or handed out (to anyone);
  // next_ready_ms 200 ms from now otherwise (the API has no next-ready time). A call that
  // fails gives the last stats read.
  SchedulerStats GetStats() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_REMOTE_FRONTIER_H_
