// When a crawled page is due again (SchedulerOptions::revisits): a change-rate estimator
// per page, and the queue of crawled pages by the time they come due. It knows nothing of
// the PageDB: it learns each page's crawl counters from its record (HistoryOf) and is told
// of every crawl (NextRevisit).
//
// The estimator: Cho & Garcia-Molina's estimator of a Poisson change rate from n visits
// at a fixed interval I, X of which found a change,
//   rate = -ln((n - X + 0.5) / (n + 0.5)) / I,
// is unbiased only when the intervals are equal. So a page is revisited in epochs of one
// interval each: the epoch's counts estimate the rate, and a new epoch starts (counts
// reset, interval moved toward 1 / rate, by at most 4x) only when the estimate leaves the
// current interval by more than its noise, max(2%, 2 / sqrt(n)). Without a change the
// interval grows 4x per two visits; with one every visit it shrinks. On open, each page
// starts an epoch from its record's totals (n = crawls - 1, X = changes, I = their mean
// interval), so nothing but the records needs to persist.
//
// A page may also be due at a time its fetcher gave (CrawlReport::refetch_at_ms, kept in
// the schedule table as EntryState::kDue): filed with `dated`, it is due then whether
// revisits are on or off. The due queue exists only once something is filed, so a crawl
// without revisits and without dates pays nothing for it.
#ifndef CRAWLRANK_SRC_SCHEDULE_REVISIT_ESTIMATOR_H_
#define CRAWLRANK_SRC_SCHEDULE_REVISIT_ESTIMATOR_H_

#include <cstdint>
#include <vector>

#include "crawlrank/page_types.h"
#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"
#include "crawlrank/url_pattern.h"
#include "schedule/time_queue.h"

namespace crawlrank {

// What a crawl tells the estimator: the record's crawl counters after it.
struct CrawlHistory {
  uint32_t n_crawls = 0, n_changes = 0;
  int64_t first_crawl_ms = 0, last_crawl_ms = 0;
  int rule = -1;  // the first revisit rule matching the URL
};

class RevisitEstimator {
 public:
  // Takes the revisit options; InvalidArgument naming a rule that has neither an interval
  // nor a multiplier, or whose pattern does not compile.
  static Result<RevisitEstimator> Make(const SchedulerOptions& options);

  bool enabled() const { return options_.revisits; }
  // Makes room for pages [0, pages).
  void Grow(size_t pages);

  // The counters of `page`'s record, and the first rule its URL matches.
  CrawlHistory HistoryOf(const PageRecord& page) const;
  // Updates page `id`'s estimate with a crawl (or, `on_open`, with its whole history) and
  // returns when it is due again; -1 with revisits off or a page never crawled.
  int64_t NextRevisit(uint32_t id, const CrawlHistory& history, bool on_open);

  // Files page `id` as due at `due_ms` (ignored when negative, or with revisits off unless
  // `dated`: a time its fetcher gave, or a revisit already under way); an earlier filing
  // of the page becomes stale.
  void Schedule(uint32_t id, int64_t due_ms, bool dated = false);
  // Page `id` is due at no time: its filing becomes stale (and leaves the top of the
  // queue, so that Earliest does not keep a crawl unfinished for it).
  void Cancel(uint32_t id) {
    if (id >= at_.size()) return;
    at_[id] = -1;
    while (!due_.empty() && !Current(due_.top())) due_.pop();
  }
  // Files page `id` again at the time it is due (a revisit lease that was rolled back).
  void Refile(uint32_t id) { due_.push({at_[id], id, 0}); }

  // The due queue, earliest first. Entries may be stale (Current tells).
  bool DueBy(int64_t now) const { return !due_.empty() && due_.top().time <= now; }
  Timed Pop() {
    const Timed t = due_.top();
    due_.pop();
    return t;
  }
  void Push(const Timed& t) { due_.push(t); }
  bool Current(const Timed& t) const { return at_[t.who] == t.time; }
  // The earliest time in the queue (a lower bound: it may be stale); -1 when empty.
  int64_t Earliest() const { return due_.empty() ? -1 : due_.top().time; }

 private:
  struct State {
    uint32_t n = 0, changes = 0;  // visits (intervals) and changes in this epoch
    uint32_t seen_changes = 0;    // the record's n_changes at the last crawl
    float interval_ms = 0;
  };
  explicit RevisitEstimator(const SchedulerOptions& options);

  struct Options {
    bool revisits = false;
    int64_t min_revisit_ms = 0, max_revisit_ms = 0;
    std::vector<RevisitRule> rules;
  } options_;
  std::vector<UrlPattern> rules_;  // options_.rules' patterns, compiled
  size_t pages_ = 0;               // Grow's bound
  std::vector<State> state_;       // by page id, with revisits on
  std::vector<int64_t> at_;        // by page id: the valid due time; empty until a filing
  TimeQueue due_;                  // crawled pages by due time; stale: at_ differs
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SCHEDULE_REVISIT_ESTIMATOR_H_
