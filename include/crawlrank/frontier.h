// crawlrank/frontier.h: what a crawler drives. The seam between a crawler (the built-in
// one, crawler.h) and whatever decides what it fetches next: the Scheduler over a local
// PageDB is one implementation, and a client of a remote frontier can be another.
//
// The crawler asks for requests (Next), reports each one back once (CrawledBatch or
// Failed, with the lease the request carried), and keeps two things per host through the
// frontier: the crawl delay robots.txt asks for, and its own robots.txt state (opaque
// bytes the frontier stores for it). Everything a crawler needs about a page comes in its
// Request, so a crawler never reads the PageDB itself.
//
// Thread safety: implementations take calls from any thread.
#ifndef CRAWLRANK_FRONTIER_H_
#define CRAWLRANK_FRONTIER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/schedule_types.h"
#include "crawlrank/status.h"

namespace crawlrank {

class Frontier {
 public:
  virtual ~Frontier() = default;

  // Adds pages to crawl at depth 0; known pages keep their state. A URL that cannot be
  // canonicalised fails the whole call, naming it.
  virtual Status AddSeeds(const std::vector<std::string>& urls) = 0;
  // Up to n requests whose hosts may take them now, best first. Empty when none may:
  // GetStats() tells when one will, or that the crawl is finished.
  virtual Result<std::vector<Request>> Next(size_t n) = 0;
  // Records fetched pages (their links join the frontier) and ends their leases. The links
  // a report refuses (CrawlReport::refused: a robots.txt the crawler knows disallows them)
  // fail with it, as Failed with lease 0 would fail each, so that they are never handed out.
  virtual Status CrawledBatch(const std::vector<CrawlReport>& reports) = 0;
  // Ends the lease of a page that could not be fetched; the frontier retries or fails it.
  // With lease 0 it names a page not handed out (a refused link, as above). Such a report
  // may race with the page's hand-out: the page may be leased by then (the crawler then
  // fails the lease too) or settled; a frontier must take either without error, and count
  // the page failed once.
  virtual Status Failed(const FailureReport& report) = 0;

  // Fails for good, as `report` says (its url, lease and retryable are ignored), every
  // page queued for host `host` whose URL's origin (scheme://authority) is `origin`: e.g.
  // an origin whose robots.txt cannot be fetched. Returns how many. This default fails
  // none; the crawler then fails such pages one at a time as they are handed out.
  virtual Result<uint64_t> FailQueued(std::string_view host, std::string_view origin,
                                      const FailureReport& report) {
    (void)host, (void)origin, (void)report;
    return uint64_t{0};
  }

  // Sets a host's crawl delay (robots.txt's Crawl-delay); 0 restores the default.
  virtual Status SetCrawlDelay(std::string_view host, int64_t delay_ms) = 0;
  // The crawler's robots.txt state of a host; empty when it has none.
  virtual std::string HostRobots(std::string_view host) const = 0;
  virtual Status SetHostRobots(std::string_view host, std::string_view bytes) = 0;

  virtual SchedulerStats GetStats() const = 0;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_FRONTIER_H_
