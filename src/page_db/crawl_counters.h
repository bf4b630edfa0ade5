// The crawl's counters, fetch details and progress samples (format version 7;
// crawlrank/crawl_counters.h, docs/format.md):
//   meta "crawl_counters"  the whole crawl's CrawlCounters
//   `counters`  host key (HostKey, kHost; the byte 0 for URLs without a host) -> its
//               CrawlCounters: u8 version (1), varint field count, that many varints in
//               the order of counter_field (format version 8 and older: those before
//               kGhostPages; version 9: those before the histograms' buckets; the fields
//               missing read as 0)
//   `fetches`   key32 page id -> the last fetch's FetchInfo: varint length + content
//               type, varint wire bytes, varint decoded bytes, varint ms, varint length +
//               title
//   `progress`  key64 Unix ms -> ProgressSample: varint crawled pages, fetches, failures,
//               wire bytes, queued, in flight
//   `recent`    key64 sequence number -> RecentFetch (format version 10; recent_fetches.h)
// The writer gathers a transaction's changes in CounterDeltas and writes them at commit
// (WriteTxn::Commit), with the global counters mirrored in WriterState.
#ifndef CRAWLRANK_SRC_PAGE_DB_CRAWL_COUNTERS_H_
#define CRAWLRANK_SRC_PAGE_DB_CRAWL_COUNTERS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crawlrank/crawl_counters.h"
#include "crawlrank/page_types.h"
#include "crawlrank/status.h"
#include "page_db/lmdb_env.h"
#include "page_db/page_db_impl.h"

namespace crawlrank {

// Positions of the counters in a stored value.
namespace counter_field {
inline constexpr size_t kPages = 0, kCrawledPages = 1, kFailedPages = 2, kFetches = 3;
inline constexpr size_t kFailures = kFetches + kStatusClasses;
inline constexpr size_t kWireBytes = kFailures + kMaxFailureKind + 1;
inline constexpr size_t kDecodedBytes = kWireBytes + 1, kFetchMs = kWireBytes + 2;
// Format version 9 appends the ghosts; a value of version 8 has the fields before it.
inline constexpr size_t kGhostPages = kWireBytes + 3;
// Format version 10 appends the histograms' buckets.
inline constexpr size_t kFetchMsHistogram = kGhostPages + 1;
inline constexpr size_t kWireBytesHistogram = kFetchMsHistogram + kFetchMsBuckets;
inline constexpr size_t kCount = kWireBytesHistogram + kWireBytesBuckets;
}  // namespace counter_field

inline constexpr std::string_view kMetaCrawlCounters = "crawl_counters";
// Pages [0, N) are counted in their hosts' entries (fixed64 N; absent: 0).
inline constexpr std::string_view kMetaHostPagesCounted = "host_pages_counted";
// How often the writer adds the pages it created to their hosts' entries.
inline constexpr int64_t kHostPagesFlushMs = 1000;
// The `counters` key of the URLs that have no host.
inline constexpr std::string_view kNoHostKey{"\0", 1};

// The `counters` key of canonical `url` (HostKey with kHost, or kNoHostKey), as a view
// into `url` or kNoHostKey.
std::string_view CounterHostView(std::string_view url);
inline std::string CounterHostOf(std::string_view url) { return std::string(CounterHostView(url)); }

void EncodeCrawlCounters(const CrawlCounters& counters, std::string* out);
// False when `value` does not decode.
bool DecodeCrawlCounters(std::string_view value, CrawlCounters* counters);
// `info` with its text cut to the caps (kMaxContentTypeBytes, kMaxTitleBytes).
void EncodeFetchInfo(const FetchInfo& info, std::string* out);
bool DecodeFetchInfo(std::string_view value, FetchInfo* info);
void EncodeProgressSample(const ProgressSample& sample, std::string* out);
bool DecodeProgressSample(std::string_view key, std::string_view value, ProgressSample* sample);
// The longest prefix of `text` of at most `max` bytes that does not end inside a UTF-8
// sequence.
std::string_view CutUtf8(std::string_view text, size_t max);

// A transaction's changes to the counters, by host.
class CounterDeltas {
 public:
  using Fields = std::array<int64_t, counter_field::kCount>;
  void Add(std::string_view host, size_t field, int64_t delta);
  // The same for the host alone (the crawl's own count is kept otherwise).
  void AddToHost(std::string_view host, size_t field, int64_t delta);
  // A fetch of a page on `host` with `status` and `info`.
  void AddFetch(std::string_view host, uint16_t status, const FetchInfo& info);
  bool empty() const { return hosts_.empty(); }
  const Fields& global() const { return global_; }
  // By host key, in key order (written in order).
  const std::map<std::string, Fields, std::less<>>& hosts() const { return hosts_; }
  void Clear() {
    hosts_.clear();
    global_ = {};
  }

 private:
  std::map<std::string, Fields, std::less<>> hosts_;
  Fields global_{};
};

// `counters` with `delta` applied (a count below 0 stays at 0: Check reports it).
void ApplyDelta(const CounterDeltas::Fields& delta, CrawlCounters* counters);

// ---- the tables

// Reads the whole crawl's counters into db.writer.crawl, and the last progress sample's
// time into db.writer.last_progress_ms (a writer's open). Pages past the hosts' count
// (a writer that stopped without writing it) go to db.pending_host_pages.
Status LoadCrawlCounters(PageDbImpl& db, MDB_txn* txn);
Status LoadLastProgress(PageDbImpl& db, MDB_txn* txn);
// meta "host_pages_counted" (0 when absent).
Result<uint64_t> ReadHostPagesCounted(const PageDbImpl& db, MDB_txn* txn);
// Counts the pages, crawls and failures of a DB older than version 7 into its new tables,
// in the upgrade's transaction: each page under its host, its crawls as fetches of its last
// status's class, each page failed for good with its attempts as failures of its kind.
// Bytes and times start at 0.
Status RebuildCrawlCounters(PageDbImpl& db, MDB_txn* txn);
// Rewrites the whole `counters` table and the crawl's counters in `txn` (a reshard's
// last step): each host's page counts (pages, crawled, failed, ghosts) recounted from the
// pages and the schedule, its other fields those of `carried` (counters another PageDB
// kept for the host), the crawl's the sum. The writer's mirror follows.
Status RewriteCrawlCounters(PageDbImpl& db, MDB_txn* txn,
                            const std::map<std::string, CrawlCounters, std::less<>>& carried);
// Check(kFull)'s part: every entry of the three tables decodes; a fetch entry names a
// page of the DB; the page counts of the crawl and of each host are those the pages and the
// schedule hold; every other count of the crawl is the sum of its hosts'.
Status CheckCrawlCounters(const PageDbImpl& db, MDB_txn* txn, uint64_t pages);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_DB_CRAWL_COUNTERS_H_
