// Spider-trap defence: how many redirects in a row led to each redirect target not
// fetched yet, so that an endless chain of distinct redirects (/r/1 -> /r/2 -> ...) ends.
// Redirects are not followed inside a fetch: each 3xx is a crawled page whose one link is
// its target, scheduled like any link; this table links the steps back into a chain.
// Kept in the run's memory only: a resumed run counts from 0 again.
// Not thread-safe (the crawler's network thread owns it).
#ifndef CRAWLRANK_SRC_CRAWL_REDIRECT_CHAINS_H_
#define CRAWLRANK_SRC_CRAWL_REDIRECT_CHAINS_H_

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace crawlrank {

class RedirectChains {
 public:
  // Redirects in a row a chain may take: the page that would redirect once more fails
  // (redirect-limit) instead, so its target is never discovered.
  static constexpr uint32_t kMaxChain = 20;
  // Targets kept; past it the table starts over (a chain then restarts at 0).
  static constexpr size_t kMaxTargets = size_t{1} << 20;

  // Page `page` answered with a redirect to `target` (fingerprints). False when the chain
  // that led to `page` is already kMaxChain long: the redirect is not to be followed.
  bool Follow(uint64_t page, uint64_t target) {
    uint32_t chain = 0;
    if (const auto it = length_.find(page); it != length_.end()) {
      chain = it->second;
      length_.erase(it);
    }
    if (chain >= kMaxChain) return false;
    if (length_.size() >= kMaxTargets) length_.clear();
    uint32_t& next = length_[target];
    next = std::max(next, chain + 1);
    return true;
  }
  // Page `page` answered with anything but a redirect: its chain ends.
  void End(uint64_t page) {
    if (!length_.empty()) length_.erase(page);
  }

 private:
  std::unordered_map<uint64_t, uint32_t> length_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_REDIRECT_CHAINS_H_
