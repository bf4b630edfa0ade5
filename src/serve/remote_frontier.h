// A Frontier (crawlrank/frontier.h) over a URLFrontier server: what `crawlrank crawl
// --frontier HOST:PORT` drives, so that the built-in crawler shares one `crawlrank serve`
// with other crawlers (docs/frontier.md, "Clients").
//
// Each call is one gRPC call (reports: one PutURLs stream, each page's links as discovered
// URLs naming it as their source, then the page), made with wait-for-ready: a server that
// is away (a restart) is waited for, up to `wait_ms` an attempt. A call that fails because
// the server is away or busy (UNAVAILABLE, DEADLINE_EXCEEDED) or whose items the server
// acked FAIL (it could not write them) is made again, the same batch, after a back-off
// (retry_ms, doubling up to 30 s), as long as the next attempt would begin within
// give_up_ms of the first (an attempt's own wait ends there too): then it fails as IoError
// naming the address, the tries and the last cause. Every call is safe to repeat.
// Cancel() ends the waits at once (a Ctrl-C).
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
  int64_t wait_ms = 60'000;   // how long one attempt waits for a server that is away
  int64_t retry_ms = 1'000;    // the first back-off between attempts; doubles to 30 s
  int64_t give_up_ms = 600'000;  // retries stop once this long has passed since the first
  // One try a call, without waiting for a server that is away (gRPC's fail-fast, the
  // deadline wait_ms): a call that would be tried again fails instead, as Unavailable (at
  // once when nothing listens at the address; or past its deadline), or as Aborted when
  // the server answered but acked some items FAIL (it could not write them). For a client of many nodes, which goes on
  // with the others (ClusterFrontier); retry_ms and give_up_ms are then unused.
  bool fail_fast = false;
  // GetStats asks for the node's own counts (URLFrontier's `local`), not its cluster's.
  bool local_stats = false;
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
  // GetStats' answer, or why the server gave none.
  Result<SchedulerStats> ReadStats() const;
  // The server's ListNodes: every node of its cluster in the cluster's order (a server
  // alone: its own address). Asked once, as Probe asks.
  Result<std::vector<std::string>> ListNodes() const;

  // Asks the server for its stats once, without waiting for it: OK also when nothing
  // answers at the address (a server not started yet is waited for by the calls);
  // FailedPrecondition when something answers that is not a URLFrontier server (an HTTP/1
  // web server, a gRPC server without the API), and the server's own refusal (a token
  // missing: Unauthenticated as IoError) as it comes. For a front door to name a wrong
  // address at once instead of after the calls' waits.
  Status Probe() const;
  // Ends the back-off waits and further retries of every call, now and later (stopping).
  void Cancel();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_REMOTE_FRONTIER_H_
