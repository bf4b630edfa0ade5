// crawlrank/write_batch.h: what one PageDb::Write applies atomically (page_db.h), and the
// bounds every write checks on the pages it is given.
#ifndef CRAWLRANK_WRITE_BATCH_H_
#define CRAWLRANK_WRITE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "crawlrank/page_types.h"
#include "crawlrank/status.h"

namespace crawlrank {

// What a PageDB stores about a page, within the bounds every write checks (docs/format.md,
// "pages"): the record's decoder refuses a time below 0, and a page line of page_db_dump
// carries a status of at most three digits and finite scores only.
//   crawl times: Unix ms from 0 (CrawledPage: now; PageRecord: never crawled) to the end
//   of year 9999 (times later than that overflow the scheduler's revisit arithmetic).
inline constexpr int64_t kMaxCrawlTimeMs = 253'402'300'799'999;
inline constexpr uint16_t kMaxHttpStatus = 999;

// Checks the fields of a fetched page as every write checks them before it writes
// anything (PageDb::Add, AddBatch, Write, and the scheduler's Crawled, CrawledBatch and
// AddSeeds): crawl_time_ms from 0 to kMaxCrawlTimeMs, content_score and every link's score
// finite, http_status at most kMaxHttpStatus, URLs of 1 to 2^32 - 1 bytes. InvalidArgument
// `page "URL": FIELD is VALUE, ...` naming the first field out of bounds.
Status ValidateCrawledPage(const CrawledPage& page);
// The same for a whole record (WriteBatch::RestorePage, page_db_load's page lines):
// first_crawl_ms and last_crawl_ms from 0 to kMaxCrawlTimeMs, both scores finite,
// http_status at most kMaxHttpStatus, n_changes below n_crawls (or 0), a URL of 1 to
// 2^32 - 1 bytes. The id, hash and canonical form are the writer's to check.
Status ValidatePageRecord(const PageRecord& record);

// A set of writes applied atomically by PageDb::Write: all or none, in the order they were
// added (a RestoreLinks may name a page a RestorePage before it created).
class WriteBatch {
 public:
  // Records a fetched page and replaces its out-links.
  void AddCrawled(CrawledPage page) {
    order_.push_back({Kind::kPage, ops_.size()});
    ops_.push_back(Op{std::move(page), false, false});
  }
  // Records a fetched page and adds its links to the out-links it has: for a client that
  // reports a fetch apart from the links it found (a URLFrontier client sends each outlink
  // as a discovered URL naming its source, before or after the fetch's own report).
  void AddCrawledMergingLinks(CrawledPage page) {
    order_.push_back({Kind::kPage, ops_.size()});
    ops_.push_back(Op{std::move(page), false, true});
  }
  // Records the out-links of `source_url` without counting a crawl (graph import): they
  // replace any it had.
  void AddLinks(std::string source_url, std::vector<Link> links) {
    order_.push_back({Kind::kPage, ops_.size()});
    ops_.push_back(
        Op{CrawledPage{.url = std::move(source_url), .http_status = 0, .links = std::move(links)},
           true, false});
  }
  // Adds `links` to the out-links `source_url` has (stored, or written earlier in this
  // batch), without counting a crawl: a graph import that meets a page's links in pieces.
  // Costs as much as AddLinks plus a decode of the links the page had.
  void MergeLinks(std::string source_url, std::vector<Link> links) {
    order_.push_back({Kind::kPage, ops_.size()});
    ops_.push_back(
        Op{CrawledPage{.url = std::move(source_url), .http_status = 0, .links = std::move(links)},
           true, true});
  }
  // Adds the page `url` when it is new, at `depth` with `link_score` (its source held
  // elsewhere: another node of a cluster), without links or a crawl; a page it names that
  // exists keeps its depth and takes the link score when higher, as a link to it would.
  void AddDiscovered(std::string url, uint32_t depth, float link_score) {
    order_.push_back({Kind::kPage, ops_.size()});
    ops_.push_back(Op{CrawledPage{.url = std::move(url), .http_status = 0, .links = {}}, true, true, depth,
                      link_score});
  }
  // Restores a page exactly (page_db_load). REQUIRES: record.id is the next free id.
  void RestorePage(PageRecord record) {
    order_.push_back({Kind::kRestorePage, restores_.size()});
    restores_.push_back(std::move(record));
  }
  // Replaces the out-links of page `source` by `targets` (page ids; page_db_load).
  void RestoreLinks(uint32_t source, std::vector<uint32_t> targets) {
    order_.push_back({Kind::kRestoreLinks, restore_links_.size()});
    restore_links_.push_back({source, std::move(targets)});
  }
  size_t size() const { return order_.size(); }
  void Clear() {
    order_.clear();
    ops_.clear();
    restores_.clear();
    restore_links_.clear();
  }

 private:
  friend class PageDb;
  friend class PageDbInternals;  // src/: a write that another component joins
  enum class Kind : uint8_t { kPage, kRestorePage, kRestoreLinks };
  struct Op {
    CrawledPage page;
    bool links_only;  // AddLinks, MergeLinks: no crawl is counted
    bool merge;       // MergeLinks, AddCrawledMergingLinks: the links join the page's own
    uint32_t depth = 0;      // AddDiscovered: the page's, when this write creates it
    float link_score = 0.f;  // AddDiscovered: the score of the link to it
  };
  std::vector<std::pair<Kind, size_t>> order_;  // every write: its kind, its index there
  std::vector<Op> ops_;
  std::vector<PageRecord> restores_;
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> restore_links_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_WRITE_BATCH_H_
