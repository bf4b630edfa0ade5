// BuildCsr: the in-memory CSR of the rank kernels, from one pass over a source.
#include "rank/rank_graph.h"

#include <string>

#include "base/parallel.h"
#include "rank/huge_pages.h"

namespace crawlrank {
namespace {

// Appends the out-links of a pass in source order, checking the source's contract and
// the memory budget as links arrive.
class OutLinkAppender {
 public:
  OutLinkAppender(CsrGraph& csr, uint32_t pages, uint64_t budget)
      : csr_(csr), pages_(pages), budget_(budget) {}

  void Take(const EdgeChunk& chunk) {
    if (!status_.ok()) return;
    for (size_t i = 0; i < chunk.size(); ++i) {
      const uint32_t s = chunk.sources[i];
      if (int64_t{s} <= last_ || s >= pages_) {
        status_ = FailedPreconditionError(
            "the edge source delivered page " + std::to_string(s) +
            (s >= pages_ ? " of " + std::to_string(pages_) : " out of order"));
        return;
      }
      Close(s);
      const auto targets = chunk.TargetsOf(i);
      for (uint32_t t : targets) {
        near_ += (t > s ? t - s : s - t) < kNear;
        if (t >= pages_) {
          status_ = FailedPreconditionError("the edge source delivered a link from page " +
                                            std::to_string(s) + " to page " + std::to_string(t) +
                                            ", outside its " + std::to_string(pages_) + " pages");
          return;
        }
      }
      csr_.out_degree[s] = static_cast<uint32_t>(targets.size());
      csr_.out_targets.insert(csr_.out_targets.end(), targets.begin(), targets.end());
    }
    if (CsrGraph::Bytes(pages_, csr_.out_targets.size()) > budget_) {
      status_ = ResourceExhaustedError(
          "a CSR of " + std::to_string(pages_) + " pages and at least " +
          std::to_string(csr_.out_targets.size()) + " links exceeds the memory budget of " +
          std::to_string(budget_) + " bytes");
    }
  }

  // Ends the rows of the pages before `next` (pages without links get empty rows).
  void Close(int64_t next) {
    for (int64_t p = last_ + 1; p <= next; ++p) csr_.out_offsets[p] = csr_.out_targets.size();
    last_ = next;
  }
  const Status& status() const { return status_; }
  // Links between pages less than kNear ids apart.
  uint64_t near() const { return near_; }
  static constexpr uint32_t kNear = 4096;

 private:
  CsrGraph& csr_;
  const uint32_t pages_;
  const uint64_t budget_;
  int64_t last_ = -1;
  uint64_t near_ = 0;
  Status status_;
};

// Pages in first-seen order: each page in id order, unless already placed, then its
// targets not yet placed. A page's targets get positions next to each other, and pages
// that link to each other (a site's) near each other. One sequential pass over the rows,
// where a breadth-first order visits them all over memory: measured on graph L with its
// ids permuted, 0.15 s against 1.5 s for a breadth-first order over the out-links, and
// 0.088 s per iteration after it against 0.098 s.
std::vector<uint32_t> LocalityOrder(const CsrGraph& csr, uint32_t n) {
  std::vector<uint32_t> order;
  order.reserve(n);
  std::vector<bool> placed(n, false);
  const auto place = [&](uint32_t page) {
    if (!placed[page]) {
      placed[page] = true;
      order.push_back(page);
    }
  };
  for (uint32_t s = 0; s < n; ++s) {
    place(s);
    for (uint32_t t : csr.OutLinks(s)) place(t);
  }
  return order;
}

// The targets of the out-links in csr.order's numbering, in place; returns each page's
// position in it.
std::vector<uint32_t> RenumberTargets(CsrGraph& csr, uint32_t n, unsigned threads) {
  std::vector<uint32_t> position(n);  // position[page] = its new id
  for (uint32_t i = 0; i < n; ++i) position[csr.order[i]] = i;
  constexpr uint64_t kSlice = uint64_t{1} << 20;
  const uint64_t m = csr.links;
  ParallelFor(threads, (m + kSlice - 1) / kSlice, [&](size_t j) {
    const uint64_t end = std::min(m, (j + 1) * kSlice);
    for (uint64_t e = j * kSlice; e < end; ++e) csr.out_targets[e] = position[csr.out_targets[e]];
  });
  return position;
}

// Source ranges of about equal numbers of links for the transpose's threads: parts + 1
// bounds.
std::vector<uint32_t> TransposeParts(const CsrGraph& csr, uint32_t n, unsigned threads) {
  const uint64_t m = csr.links;
  const auto parts = static_cast<unsigned>(std::clamp<uint64_t>(
      std::min<uint64_t>(threads, CsrGraph::kTransposeParts), 1, std::max<uint64_t>(1, m / 4096)));
  std::vector<uint32_t> first(parts + 1, n);
  first[0] = 0;
  for (unsigned k = 1; k < parts; ++k) {
    first[k] = static_cast<uint32_t>(
        std::lower_bound(csr.out_offsets.begin(), csr.out_offsets.end() - 1, m * k / parts) -
        csr.out_offsets.begin());
  }
  return first;
}

// Fills in_offsets and in_sources from the out-links (targets in the rows' numbering,
// sources mapped by `position` when it is not empty). Part k counts, then writes, the
// links of a contiguous range of sources in page-id order, starting in each target's row
// where the parts before it end: every row comes out in the page-id order of its sources,
// for any number of parts. (Renumbered, a row's new source ids need not ascend: the rows
// are read in page-id order, sequentially, where the new order would visit them all over
// memory.)
void Transpose(CsrGraph& csr, uint32_t n, std::span<const uint32_t> position,
               std::span<const uint32_t> first) {
  const uint64_t m = csr.links;
  const size_t parts = first.size() - 1;
  std::vector<std::vector<uint64_t>> cursor(parts);
  ParallelFor(parts, parts, [&](size_t k) {
    AssignHuge<uint64_t>(cursor[k], n);
    for (uint64_t e = csr.out_offsets[first[k]]; e < csr.out_offsets[first[k + 1]]; ++e) {
      ++cursor[k][csr.out_targets[e]];
    }
  });
  // Row starts, and each part's first slot in every row.
  AssignHuge<uint64_t>(csr.in_offsets, uint64_t{n} + 1);
  csr.in_offsets[n] = PartStarts(cursor, n, csr.in_offsets.data());
  // Huge pages for the in-link sources, which every iteration streams while it gathers
  // at random: on graph L with its ids permuted an iteration took 0.70× GAPBS's with
  // them, 0.75× without (alternating runs).
  csr.in_sources = HugeArray<uint32_t>(m);
  ParallelFor(parts, parts, [&](size_t k) {
    uint64_t* next = cursor[k].data();
    for (uint32_t s = first[k]; s < first[k + 1]; ++s) {
      const uint32_t id = position.empty() ? s : position[s];
      for (uint32_t t : csr.OutLinks(s)) csr.in_sources[next[t]++] = id;
    }
  });
}

}  // namespace

Result<CsrGraph> BuildCsr(EdgeSource& graph, CsrShape shape, unsigned threads, uint64_t budget,
                          RankRenumber renumber) {
  CsrGraph csr;
  const uint32_t n = graph.num_pages();
  AssignHuge<uint32_t>(csr.out_degree, n);
  AssignHuge<uint64_t>(csr.out_offsets, uint64_t{n} + 1);
  // The source's own count is a hint (a damaged header can say anything): reserve no more
  // than the budget allows.
  ReserveHuge(csr.out_targets, std::min<uint64_t>(graph.num_links(), budget / 8));
  OutLinkAppender append(csr, n, budget);
  CRAWLRANK_RETURN_IF_ERROR(
      StreamPass(graph, std::min(threads, 2u),
                 [&](const EdgeChunk& chunk, uint32_t, uint32_t) { append.Take(chunk); }));
  CRAWLRANK_RETURN_IF_ERROR(append.status());
  append.Close(n);
  csr.links = csr.out_targets.size();
  const bool with_out = shape == CsrShape::kInAndOutRows;
  const bool scattered = append.near() * 4 < csr.links;
  std::vector<uint32_t> position;
  if (!with_out &&
      (renumber == RankRenumber::kAlways || (renumber == RankRenumber::kAuto && scattered))) {
    csr.order = LocalityOrder(csr, n);
    position = RenumberTargets(csr, n, threads);
  }
  const std::vector<uint32_t> first = TransposeParts(csr, n, threads);
  const uint32_t parts = LinkBins::PartsFor(n);
  if (shape == CsrShape::kSplit && parts > 0 && parts <= LinkBins::kMaxParts) {
    csr.split = SplitOutLinks(csr.out_offsets, csr.out_targets, position, first);
  } else {
    Transpose(csr, n, position, first);
  }
  if (!csr.order.empty()) {
    std::vector<uint32_t> degree(n);
    for (uint32_t i = 0; i < n; ++i) degree[i] = csr.out_degree[csr.order[i]];
    csr.out_degree.swap(degree);
  }
  if (!with_out) {
    std::vector<uint64_t>().swap(csr.out_offsets);
    std::vector<uint32_t>().swap(csr.out_targets);
  }
  return csr;
}

}  // namespace crawlrank
