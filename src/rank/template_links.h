// The template-link discount of RankOptions::template_links (rank.h): an edge source that
// passes on the links of another without its hosts' template links.
#ifndef CRAWLRANK_SRC_RANK_TEMPLATE_LINKS_H_
#define CRAWLRANK_SRC_RANK_TEMPLATE_LINKS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "crawlrank/edge_source.h"
#include "crawlrank/rank.h"
#include "crawlrank/status.h"

namespace crawlrank {

// The links of `inner` less the template links: for each host H (hosts[page], as in
// RankInput::hosts) with at least options.min_pages pages that have links, the links from
// H's pages to a target that more than options.share of those pages link to.
class TemplateLinkFilter final : public EdgeSource {
 public:
  // Finds the template links in one pass over `inner`, collecting a (host, target) key
  // per link and sorting them. `inner` and `hosts` must outlive the filter.
  // InvalidArgument for options out of range or a host number not below the page count;
  // ResourceExhausted when the keys need more than `budget` bytes; errors of `inner`.
  static Result<TemplateLinkFilter> Find(EdgeSource& inner, std::span<const uint32_t> hosts,
                                         const TemplateLinkOptions& options, uint64_t budget);

  uint32_t num_pages() const override { return inner_->num_pages(); }
  uint64_t num_links() const override { return inner_->num_links() - dropped_; }
  Status Scan(const EdgeChunkSink& sink) override;

  uint64_t dropped() const { return dropped_; }  // links one pass leaves out
  // The template (host, target) pairs, as host << 32 | target, increasing.
  const std::vector<uint64_t>& pairs() const { return pairs_; }

 private:
  TemplateLinkFilter(EdgeSource& inner, std::span<const uint32_t> hosts)
      : inner_(&inner), hosts_(hosts) {}
  bool IsTemplate(uint32_t source, uint32_t target) const;

  EdgeSource* inner_;
  std::span<const uint32_t> hosts_;
  std::vector<uint64_t> pairs_;
  std::vector<bool> target_;  // by page: the target of some pair
  uint64_t dropped_ = 0;
  EdgeChunk filtered_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_RANK_TEMPLATE_LINKS_H_
