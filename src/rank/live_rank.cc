#include "crawlrank/live_rank.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "rank/rank_graph.h"

namespace crawlrank {

struct LiveRank::Impl {
  RankAlgorithm algorithm;
  RankOptions options;
  // Built with out-links; in_offsets and out_degree are extended to every page, and
  // out_degree is kept current. Pages from base_pages on have no out-row in it.
  CsrGraph csr;
  uint32_t base_pages = 0;
  uint32_t pages = 0;
  uint64_t links = 0;
  // The out-rows of pages changed since csr was built, by page id (an ordered map: the
  // patch, and so each sum, is taken in id order).
  std::map<uint32_t, std::vector<uint32_t>> changed;
  uint64_t changed_links = 0;  // Σ over `changed` of the new row's size
  std::vector<double> last;    // the last Solve's scores
  uint32_t rebuilds = 0;

  std::span<const uint32_t> BaseLinks(uint32_t page) const {
    return page < base_pages ? csr.OutLinks(page) : std::span<const uint32_t>();
  }
  std::span<const uint32_t> Links(uint32_t page) const {
    const auto it = changed.find(page);
    return it != changed.end() ? std::span<const uint32_t>(it->second) : BaseLinks(page);
  }
  // Makes csr cover every page: empty in-rows and no out-links for pages added since.
  void Extend() {
    csr.in_offsets.resize(uint64_t{pages} + 1, csr.in_offsets.empty() ? 0 : csr.in_offsets.back());
    csr.out_degree.resize(pages, 0);
  }
  Status Rebuild();
  CsrPatch Patch() const;
  class Source;
};

// The graph a LiveRank holds now, as a source for BuildCsr.
class LiveRank::Impl::Source final : public EdgeSource {
 public:
  explicit Source(const LiveRank::Impl& live) : live_(live) {}
  uint32_t num_pages() const override { return live_.pages; }
  uint64_t num_links() const override { return live_.links; }
  Status Scan(const EdgeChunkSink& sink) override {
    constexpr size_t kChunkLinks = size_t{1} << 16;
    EdgeChunk chunk;
    for (uint32_t page = 0; page < live_.pages; ++page) {
      const auto row = live_.Links(page);
      if (row.empty()) continue;
      chunk.sources.push_back(page);
      chunk.targets.insert(chunk.targets.end(), row.begin(), row.end());
      chunk.ends.push_back(static_cast<uint32_t>(chunk.targets.size()));
      if (chunk.targets.size() >= kChunkLinks) {
        CRAWLRANK_RETURN_IF_ERROR(sink(chunk));
        chunk.Clear();
      }
    }
    return chunk.size() == 0 ? Status::Ok() : sink(chunk);
  }

 private:
  const LiveRank::Impl& live_;
};

Status LiveRank::Impl::Rebuild() {
  Source source(*this);
  CRAWLRANK_ASSIGN_OR_RETURN(CsrGraph built, BuildCsr(source, CsrShape::kInAndOutRows,
                                                      ResolveThreads(options.threads)));
  csr = std::move(built);
  base_pages = pages;
  changed.clear();
  changed_links = 0;
  ++rebuilds;
  return Status::Ok();
}

CsrPatch LiveRank::Impl::Patch() const {
  CsrPatch patch;
  std::vector<uint32_t> only;
  // (page, t) for every t of `a` not in `b` (both increasing).
  const auto difference = [&](uint32_t page, std::span<const uint32_t> a,
                              std::span<const uint32_t> b, auto& out) {
    only.clear();
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
    for (uint32_t t : only) out.emplace_back(page, t);
  };
  for (const auto& [page, row] : changed) {
    difference(page, row, BaseLinks(page), patch.added);
    difference(page, BaseLinks(page), row, patch.removed);
  }
  return patch;
}

LiveRank::LiveRank(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LiveRank::LiveRank(LiveRank&&) noexcept = default;
LiveRank& LiveRank::operator=(LiveRank&&) noexcept = default;
LiveRank::~LiveRank() = default;

Result<LiveRank> LiveRank::Build(EdgeSource& graph, RankAlgorithm algorithm,
                                 const RankOptions& options) {
  if (!Supports(algorithm)) {
    return InvalidArgumentError("a live rank is pagerank, ppr or trustrank, not " +
                                std::string(RankAlgorithmName(algorithm)));
  }
  auto impl = std::make_unique<Impl>();
  impl->algorithm = algorithm;
  impl->options = options;
  CRAWLRANK_ASSIGN_OR_RETURN(impl->csr, BuildCsr(graph, CsrShape::kInAndOutRows,
                                                 ResolveThreads(options.threads),
                                                 options.memory_budget));
  impl->pages = impl->base_pages = graph.num_pages();
  impl->links = impl->csr.links;
  impl->Extend();
  return LiveRank(std::move(impl));
}

bool LiveRank::Supports(RankAlgorithm algorithm) { return RanksOverPatchedCsr(algorithm); }

uint32_t LiveRank::num_pages() const { return impl_->pages; }
uint64_t LiveRank::num_links() const { return impl_->links; }
uint32_t LiveRank::rebuilds() const { return impl_->rebuilds; }

std::span<const uint32_t> LiveRank::Links(uint32_t page) const {
  return page < impl_->pages ? impl_->Links(page) : std::span<const uint32_t>();
}

uint64_t LiveRank::Bytes() const {
  const Impl& s = *impl_;
  uint64_t bytes = s.csr.in_offsets.size() * 8 + s.csr.links * 4 + s.csr.out_degree.size() * 4 +
                   s.csr.out_offsets.size() * 8 + s.csr.out_targets.size() * 4 +
                   s.last.size() * 8;
  for (const auto& [page, row] : s.changed) bytes += 48 + row.size() * 4;
  return bytes;
}

Status LiveRank::Grow(uint32_t pages) {
  Impl& s = *impl_;
  if (pages < s.pages) {
    return InvalidArgumentError("a live rank of " + std::to_string(s.pages) +
                                " pages cannot shrink to " + std::to_string(pages));
  }
  s.pages = pages;
  s.Extend();
  return Status::Ok();
}

Status LiveRank::SetLinks(uint32_t page, std::span<const uint32_t> targets) {
  Impl& s = *impl_;
  const auto where = [&] { return "the out-links of page " + std::to_string(page); };
  if (page >= s.pages) {
    return InvalidArgumentError(where() + ": no such page (" + std::to_string(s.pages) +
                                " pages)");
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i] >= s.pages) {
      return InvalidArgumentError(where() + ": target " + std::to_string(targets[i]) +
                                  " is not a page (" + std::to_string(s.pages) + " pages)");
    }
    if (i > 0 && targets[i] <= targets[i - 1]) {
      return InvalidArgumentError(where() + ": targets must be strictly increasing, and " +
                                  std::to_string(targets[i]) + " follows " +
                                  std::to_string(targets[i - 1]));
    }
  }
  const auto now = s.Links(page);
  if (std::equal(now.begin(), now.end(), targets.begin(), targets.end())) return Status::Ok();
  s.links = s.links - now.size() + targets.size();
  s.csr.out_degree[page] = static_cast<uint32_t>(targets.size());
  const auto it = s.changed.find(page);
  if (it != s.changed.end()) {
    s.changed_links -= it->second.size();
    s.changed.erase(it);
  }
  const auto base = s.BaseLinks(page);
  if (!std::equal(base.begin(), base.end(), targets.begin(), targets.end())) {
    s.changed.emplace(page, std::vector<uint32_t>(targets.begin(), targets.end()));
    s.changed_links += targets.size();
  }
  return Status::Ok();
}

Result<RankResult> LiveRank::Solve(const RankInput& input) {
  Impl& s = *impl_;
  const auto started = std::chrono::steady_clock::now();
  // Build checked the budget; a graph that grew since is checked here, as a rebuild of it
  // would need (CsrGraph::Bytes).
  if (const uint64_t bytes = CsrGraph::Bytes(s.pages, s.links); bytes > s.options.memory_budget) {
    return ResourceExhaustedError("a live rank of " + std::to_string(s.pages) + " pages and " +
                                  std::to_string(s.links) + " links needs " +
                                  std::to_string(bytes) + " bytes, over the budget of " +
                                  std::to_string(s.options.memory_budget));
  }
  CsrPatch patch = s.Patch();
  // Past an eighth, the corrections cost about as much as the rows they correct: fold them
  // in (an in-memory transpose, a few iterations' time).
  if (patch.added.size() + patch.removed.size() > s.csr.links / 8) {
    CRAWLRANK_RETURN_IF_ERROR(s.Rebuild());
    patch = CsrPatch{};
  }
  RankInput in = input;
  if (in.start.empty()) in.start = s.last;
  CRAWLRANK_ASSIGN_OR_RETURN(RankResult result,
                             RankCsrGraph(s.csr, s.pages, patch, s.algorithm, s.options, in));
  s.last = result.scores;
  result.report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace crawlrank
