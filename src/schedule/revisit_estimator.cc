#include "schedule/revisit_estimator.h"

#include <algorithm>
#include <cmath>

namespace crawlrank {

RevisitEstimator::RevisitEstimator(const SchedulerOptions& options)
    : options_{options.revisits, options.min_revisit_ms, options.max_revisit_ms,
               options.revisit_rules} {}

Result<RevisitEstimator> RevisitEstimator::Make(const SchedulerOptions& options) {
  RevisitEstimator estimator(options);
  for (const RevisitRule& rule : options.revisit_rules) {
    if (rule.interval_ms <= 0 && !(rule.multiplier > 0)) {
      return InvalidArgumentError("revisit rule \"" + rule.pattern +
                                  "\": needs an interval_ms or a multiplier above 0");
    }
    Result<UrlPattern> pattern = UrlPattern::Compile(rule.pattern);
    if (!pattern.ok()) return InvalidArgumentError("revisit rule: " + pattern.status().message());
    estimator.rules_.push_back(std::move(*pattern));
  }
  return estimator;
}

void RevisitEstimator::Grow(size_t pages) {
  pages_ = std::max(pages_, pages);
  if (!options_.revisits) return;  // at_ grows with the first filing (Schedule)
  at_.resize(pages_, -1);
  state_.resize(pages_);
}

CrawlHistory RevisitEstimator::HistoryOf(const PageRecord& page) const {
  CrawlHistory history{page.n_crawls, page.n_changes, page.first_crawl_ms, page.last_crawl_ms};
  for (size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].Search(page.url)) {
      history.rule = static_cast<int>(i);
      break;
    }
  }
  return history;
}

int64_t RevisitEstimator::NextRevisit(uint32_t id, const CrawlHistory& h, bool on_open) {
  if (!options_.revisits || h.n_crawls == 0) return -1;
  const auto min = static_cast<double>(options_.min_revisit_ms);
  const auto max = static_cast<double>(options_.max_revisit_ms);
  State& st = state_[id];
  if (h.rule >= 0 && options_.rules[h.rule].interval_ms > 0) {
    st.seen_changes = h.n_changes;
    return h.last_crawl_ms + std::clamp(options_.rules[h.rule].interval_ms, options_.min_revisit_ms,
                                        options_.max_revisit_ms);
  }
  const double multiplier = h.rule >= 0 ? options_.rules[h.rule].multiplier : 1;
  if (on_open || h.n_crawls == 1 || st.interval_ms <= 0) {
    st = State();
    st.seen_changes = h.n_changes;
    st.interval_ms = static_cast<float>(min);
    if (h.n_crawls >= 2 && h.last_crawl_ms > h.first_crawl_ms) {
      st.n = h.n_crawls - 1;
      st.changes = std::min(h.n_changes, st.n);
      st.interval_ms = static_cast<float>(
          std::clamp(static_cast<double>(h.last_crawl_ms - h.first_crawl_ms) / st.n, min, max));
    }
  } else {
    ++st.n;
    if (h.n_changes > st.seen_changes) ++st.changes;
    st.seen_changes = h.n_changes;
  }
  if (st.n >= 2) {
    const double interval = st.interval_ms;
    const double r = -std::log((st.n - st.changes + 0.5) / (st.n + 0.5));
    const double target = r > 0 ? multiplier * interval / r : 4 * interval;
    const double noise = std::max(0.02, 2 / std::sqrt(static_cast<double>(st.n)));
    if (target > interval * (1 + noise) || target < interval / (1 + noise)) {
      const double moved = std::clamp(target, interval / 4, interval * 4);
      st.interval_ms = static_cast<float>(std::clamp(moved, min, max));
      st.n = st.changes = 0;
    }
  }
  return h.last_crawl_ms + static_cast<int64_t>(st.interval_ms);
}

void RevisitEstimator::Schedule(uint32_t id, int64_t due_ms, bool dated) {
  if (due_ms < 0 || (!options_.revisits && !dated)) return;
  if (at_.size() < pages_) at_.resize(pages_, -1);
  at_[id] = due_ms;
  due_.push({due_ms, id, 0});
}

}  // namespace crawlrank
