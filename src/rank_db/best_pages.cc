#include "crawlrank/best_pages.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "base/ascii.h"
#include "crawlrank/url.h"

namespace crawlrank {

namespace {

bool TakesKind(PagesShown pages, const PageRecord& page) {
  switch (pages) {
    case PagesShown::kAny: return true;
    case PagesShown::kFetchedOk: return page.fetched_ok();
    case PagesShown::kCrawled: return page.crawled();
    case PagesShown::kUncrawled: return !page.crawled();
  }
  return false;
}

}  // namespace

bool TakesPage(const BestPagesFilter& filter, const PageRecord& page) {
  if (!TakesKind(filter.pages, page)) return false;
  if (filter.host.empty()) return true;
  // A canonical URL's host key is lower case without a trailing dot already: only the
  // filter's host is brought to that form.
  std::string_view wanted = filter.host;
  while (!wanted.empty() && wanted.back() == '.') wanted.remove_suffix(1);
  const Result<std::string> key = HostKey(page.url);
  return key.ok() && AsciiEqualsIgnoreCase(*key, wanted);
}

Result<std::vector<BestPage>> BestPages(const Snapshot& snapshot, std::span<const double> scores,
                                        size_t n, const BestPagesFilter& filter) {
  const uint64_t pages = snapshot.counters().pages;
  const size_t covered = static_cast<size_t>(std::min<uint64_t>(scores.size(), pages));
  std::vector<uint32_t> order;
  if (filter.pages == PagesShown::kAny && filter.host.empty()) {
    order.resize(covered);
    std::iota(order.begin(), order.end(), 0u);
  } else {
    CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
      if (page.id < covered && TakesPage(filter, page)) order.push_back(page.id);
      return Status::Ok();
    }));
  }
  if (!filter.excluded.empty()) {
    std::erase_if(order, [&](uint32_t id) {
      return std::binary_search(filter.excluded.begin(), filter.excluded.end(), id);
    });
  }
  // Higher first, NaN last, ties by id: a strict weak order whatever the scores hold.
  const auto better = [&](uint32_t a, uint32_t b) {
    const double x = scores[a], y = scores[b];
    const bool x_nan = std::isnan(x), y_nan = std::isnan(y);
    if (x_nan != y_nan) return y_nan;
    if (!x_nan && x != y) return x > y;
    return a < b;
  };
  const auto end = order.begin() + static_cast<std::ptrdiff_t>(std::min(n, order.size()));
  std::partial_sort(order.begin(), end, order.end(), better);
  std::vector<BestPage> best;
  best.reserve(static_cast<size_t>(end - order.begin()));
  for (auto it = order.begin(); it != end; ++it) {
    Result<PageRecord> record = snapshot.FindId(*it);
    if (!record.ok()) {
      return record.status().WithContext("list the best pages: page " + std::to_string(*it));
    }
    best.push_back({scores[*it], *std::move(record)});
  }
  return best;
}

}  // namespace crawlrank
