// TemplateLinkFilter: finds a graph's template links (docs/ranking.md, "Template links")
// and leaves them out of every pass.
#include "rank/template_links.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace crawlrank {
namespace {

constexpr uint32_t kNoHost = UINT32_MAX;

Status CheckTemplateOptions(const TemplateLinkOptions& o) {
  if (!(o.share > 0 && o.share < 1)) {
    return InvalidArgumentError("template link share " + std::to_string(o.share) +
                                " is outside (0, 1)");
  }
  if (o.min_pages == 0) return InvalidArgumentError("template link min_pages must be at least 1");
  return Status::Ok();
}

uint64_t Key(uint32_t host, uint32_t target) {
  return uint64_t{host} << 32 | target;
}

}  // namespace

Result<TemplateLinkFilter> TemplateLinkFilter::Find(EdgeSource& inner,
                                                    std::span<const uint32_t> hosts,
                                                    const TemplateLinkOptions& options,
                                                    uint64_t budget) {
  CRAWLRANK_RETURN_IF_ERROR(CheckTemplateOptions(options));
  const uint32_t n = inner.num_pages();
  for (size_t i = 0; i < hosts.size() && i < n; ++i) {
    if (hosts[i] >= n) {
      return InvalidArgumentError("hosts[" + std::to_string(i) + "] is " +
                                  std::to_string(hosts[i]) + "; host numbers must be below the " +
                                  std::to_string(n) + " pages");
    }
  }
  const auto host_of = [&](uint32_t page) { return page < hosts.size() ? hosts[page] : kNoHost; };
  const auto too_big = [&](uint64_t links) {
    return links > budget / sizeof(uint64_t)
               ? ResourceExhaustedError("finding template links among " + std::to_string(links) +
                                        " links needs 8 bytes a link, over the memory budget of " +
                                        std::to_string(budget) + " bytes")
               : Status::Ok();
  };
  CRAWLRANK_RETURN_IF_ERROR(too_big(inner.num_links()));
  // One key per link from a page with a host, and each host's pages with links.
  std::vector<uint64_t> keys;
  keys.reserve(inner.num_links());
  std::vector<uint32_t> pages(n, 0);
  CRAWLRANK_RETURN_IF_ERROR(inner.Scan([&](EdgeChunk& chunk) {
    for (size_t i = 0; i < chunk.size(); ++i) {
      const uint32_t host = host_of(chunk.sources[i]);
      const auto targets = chunk.TargetsOf(i);
      if (host == kNoHost || targets.empty()) continue;
      ++pages[host];
      for (uint32_t t : targets) keys.push_back(Key(host, t));
    }
    return too_big(keys.size());
  }));
  std::sort(keys.begin(), keys.end());
  TemplateLinkFilter filter(inner, hosts);
  filter.target_.assign(n, false);
  for (size_t i = 0; i < keys.size();) {
    size_t j = i + 1;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    const uint32_t host = static_cast<uint32_t>(keys[i] >> 32);
    const uint64_t count = j - i;
    if (pages[host] >= options.min_pages && double(count) > options.share * pages[host]) {
      filter.pairs_.push_back(keys[i]);
      filter.target_[static_cast<uint32_t>(keys[i])] = true;
      filter.dropped_ += count;
    }
    i = j;
  }
  return filter;
}

bool TemplateLinkFilter::IsTemplate(uint32_t source, uint32_t target) const {
  if (!target_[target] || source >= hosts_.size()) return false;
  return std::binary_search(pairs_.begin(), pairs_.end(), Key(hosts_[source], target));
}

Status TemplateLinkFilter::Scan(const EdgeChunkSink& sink) {
  if (pairs_.empty()) return inner_->Scan(sink);
  return inner_->Scan([&](EdgeChunk& chunk) {
    filtered_.Clear();
    for (size_t i = 0; i < chunk.size(); ++i) {
      const uint32_t source = chunk.sources[i];
      const size_t before = filtered_.targets.size();
      for (uint32_t t : chunk.TargetsOf(i)) {
        if (!IsTemplate(source, t)) filtered_.targets.push_back(t);
      }
      if (filtered_.targets.size() == before) continue;  // now dangling
      filtered_.sources.push_back(source);
      filtered_.ends.push_back(static_cast<uint32_t>(filtered_.targets.size()));
    }
    return filtered_.size() > 0 ? sink(filtered_) : Status::Ok();
  });
}

}  // namespace crawlrank
