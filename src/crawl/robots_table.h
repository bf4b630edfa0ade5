// The crawler's robots.txt state, by origin (RFC 9309 §2.3: one robots.txt per
// scheme://authority): what each origin's file said and until when, the pages waiting for
// a file to be fetched, the pages parked while one is unavailable, and the rule from a
// robots.txt fetch's outcome to the rules it gives (Record).
//
// A host's entries are kept in the frontier (Frontier::SetHostRobots) as the bytes of
// robots_cache.h: Load reads them once a run, Saved gives them back after a change.
//
// Thread safety: one thread (the crawler's network thread) calls everything but Refusal
// and FirstRefusal, which the parse threads call too: the entries are written under a
// lock that Refusal shares, and the network thread reads them without it (it is their
// only writer).
#ifndef CRAWLRANK_SRC_CRAWL_ROBOTS_TABLE_H_
#define CRAWLRANK_SRC_CRAWL_ROBOTS_TABLE_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "crawl/fetcher.h"
#include "crawl/robots_cache.h"
#include "crawlrank/schedule_types.h"

namespace crawlrank {

struct RobotsPolicy {
  std::string agent;            // the product token groups are matched against
  int64_t ttl_ms = 86'400'000;  // how long a fetched robots.txt holds (CrawlerOptions)
  // An unavailable robots.txt (5xx, 429, unreachable) is asked again after retry_ms,
  // doubling, up to ttl_ms; past max_retries its origin's pages fail for good until ttl_ms.
  int64_t retry_ms = 60'000;
  uint32_t max_retries = 3;
};

class RobotsTable {
 public:
  explicit RobotsTable(RobotsPolicy policy) : policy_(std::move(policy)) {}
  RobotsTable(const RobotsTable&) = delete;
  RobotsTable& operator=(const RobotsTable&) = delete;

  const RobotsPolicy& policy() const { return policy_; }

  // --- What the frontier keeps per host.
  // True the first time a run asks for `host`: its stored entries are then to be Load-ed.
  bool FirstSight(std::string_view host) { return loaded_hosts_.emplace(host).second; }
  // Files `host`'s stored entries. One given up on by an earlier run is asked once more
  // (its pages may have been re-queued after a fix) and given up on at its first failure.
  void Load(const std::string& host, std::string_view bytes);
  // The entries filed under `host`, encoded for the frontier, by origin.
  std::string Saved(std::string_view host) const;

  // --- A page about to be fetched.
  enum class Verdict : uint8_t {
    kAsk,          // no entry, or an expired one: the page waits for the file (Wait)
    kAllowed,      // fetch it
    kDisallowed,   // the rules refuse it: it fails (kRobotsDisallowed)
    kUnavailable,  // the file is unavailable for now: the page is parked (Park)
    kGaveUp,       // unavailable past max_retries: the page fails (kRobotsUnreachable)
  };
  Verdict Judge(std::string_view origin, std::string_view url, int64_t now) const;
  // The entry of `origin`, or null. Network thread only.
  const RobotsEntry* Find(std::string_view origin) const;

  // Files `page` to wait for `origin`'s robots.txt: true when it is the first, and the
  // file is to be fetched now.
  bool Wait(const std::string& origin, Request page);
  // The pages waiting for `origin`'s file, which came (or failed).
  std::vector<Request> TakeWaiting(const std::string& origin);
  size_t waiting() const { return waiting_count_; }
  // Parks `page` until `origin`'s unavailable robots.txt is due again (kUnavailable).
  void Park(std::string_view origin, Request page);
  // The parked pages whose file is due by `now`, to be dispatched again.
  std::vector<Request> TakeDue(int64_t now);
  // When the first parked page is due; nullopt when none is parked.
  std::optional<int64_t> next_due() const;
  // Whether `entry`'s origin is given up on: unavailable past the policy's max_retries.
  bool GaveUp(const RobotsEntry& entry) const { return entry.gave_up(policy_.max_retries); }
  // Origins whose file failed and that are not given up on (CrawlProgress::waiting_origins).
  size_t retrying_origins() const { return retrying_.size(); }
  // Forgets the waiting and parked pages (their leases come back at the next open).
  void DropPages();

  // --- A robots.txt fetched (RFC 9309 §2.3.1).
  // Whether the outcome is filed at all: a refused address or a protocol error says
  // nothing of the file (another page of the host may name another origin), so its pages
  // fail as the fetch did and nothing is cached.
  static bool Files(const FetchResult& result) {
    return result.error != FetchError::kPrivateAddress && result.error != FetchError::kProtocol;
  }
  // Files `result` for `origin` (its pages filed under politeness key `host`):
  // - 2xx: its rules, for ttl_ms;
  // - 4xx but 429, 3xx (redirects not followed further) or more than five redirects:
  //   "unavailable", every path allowed, for ttl_ms;
  // - 5xx, 429 or no answer: "unreachable", every path disallowed, asked again after a
  //   back-off (RobotsPolicy), given up on past max_retries.
  // Returns the entry filed.
  const RobotsEntry& Record(const std::string& origin, const std::string& host,
                            const FetchResult& result, int64_t now);

  // --- Links, before they are queued (any thread).
  // Why the file already known for `url`'s origin refuses it (kind kRobotsDisallowed or
  // kRobotsUnreachable, not retryable, the reason set; url and lease left empty), or
  // nullopt when it does not or nothing is known.
  std::optional<FailureReport> Refusal(std::string_view url) const;
  // True the first time the page `fingerprint` is refused this run (to count it once).
  bool FirstRefusal(uint64_t fingerprint);

 private:
  void BackOff(const std::string& origin, RobotsEntry* entry);

  const RobotsPolicy policy_;
  mutable std::shared_mutex mu_;  // over entries_: Refusal reads it from any thread
  std::unordered_map<std::string, RobotsEntry> entries_;  // by origin
  std::unordered_set<std::string> loaded_hosts_;
  std::unordered_map<std::string, std::vector<Request>> waiting_;  // by origin
  size_t waiting_count_ = 0;
  // Pages of an origin whose file is unavailable, held with their leases until it is asked
  // again (failing them would spend their retries), by the time it is due.
  std::multimap<int64_t, Request> parked_;
  std::unordered_set<std::string> retrying_;  // origins whose file failed, not given up on
  std::mutex refused_mu_;
  std::unordered_set<uint64_t> refused_;  // fingerprints refused this run
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_ROBOTS_TABLE_H_
