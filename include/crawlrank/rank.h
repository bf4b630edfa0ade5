// crawlrank/rank.h: link-analysis ranks over any EdgeSource (edge_source.h).
//
// The update of every PageRank variant (SPEC §4, seed 000), with damping c, out-degree
// n_j and a teleport vector r summing to 1:
//
//   π_i ← c · Σ_{j→i} π_j / n_j  +  r_i · (1 − c · Σ_{j: n_j≠0} π_j)
//
// so the mass of dangling pages, and any mass an edge weighting does not pass on, goes to r.
// The algorithms differ by r and by the edge weights; docs/ranking.md has every formula.
//
// Execution: vertex arrays are flat and in memory. Edges are either streamed from the
// source on every iteration (memory O(pages): 16 bytes per page for PageRank) or loaded
// once into an in-memory CSR (12 bytes per page + 4 per link more, and faster; the build,
// one pass over the source and a transpose, holds up to 52 bytes per page + 8 per link).
// kAuto picks the CSR when that fits RankOptions::memory_budget. The CSR kernel gathers
// float contributions while an iteration changes the vector by more than 2^-19 in L1, and
// doubles after (docs/ranking.md). Both give the same ranks: to rounding
// with plain power iteration, to about the tolerance with the CSR's extrapolation.
//
// Threads: results are identical for a given source whatever the thread count (each
// page's sum is taken in source order; reductions run over fixed blocks in id order).
#ifndef CRAWLRANK_RANK_H_
#define CRAWLRANK_RANK_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "crawlrank/edge_source.h"
#include "crawlrank/status.h"

namespace crawlrank {

enum class RankAlgorithm : uint8_t {
  kPageRank = 1,          // r uniform
  kPersonalized = 2,      // r ∝ RankInput::teleport (e.g. content scores)
  kTrustRank = 3,         // r uniform over the pages with RankInput::teleport > 0
  kHits = 4,              // Kleinberg's authorities (scores) and hubs
  kTopicHits = 5,         // hubs weigh each authority by RankInput::teleport
  kWeightedPageRank = 6,  // Xing & Ghorbani in/out-link weights (seed 002)
  kInDegree = 7,          // number of in-links, one pass
};

// "pagerank", "ppr", "trustrank", "hits", "topic-hits", "wpr", "indegree".
std::string_view RankAlgorithmName(RankAlgorithm algorithm);
// The inverse; InvalidArgument listing the names for anything else.
Result<RankAlgorithm> ParseRankAlgorithm(std::string_view name);
// Every algorithm's name, in enum order (for option help and validation).
std::vector<std::string_view> RankAlgorithmNames();

enum class RankMode : uint8_t {
  kAuto = 0,    // CSR when it fits the memory budget, else stream
  kStream = 1,  // one pass over the source per iteration
  kCsr = 2,     // one pass to build a CSR, then iterate in memory
};

// CSR mode, PageRank family: whether the CSR numbers the pages in an order of its own for
// the iterations (results come back by page id either way). A pull iteration's cost is its
// gathers of the contributions of each page's in-links: cheap when their ids lie near each
// other (a crawl's pages of one host, numbered as discovered), up to 2.5x dearer when they
// are scattered (ids from a hash, a merge, a random permutation).
enum class RankRenumber : uint8_t {
  // Renumber when under a quarter of the links join pages less than 4096 ids apart.
  kAuto = 0,
  kNever = 1,
  // First-seen order: each page in id order, unless placed already, then its targets not
  // placed yet, so a page's links land near it. Costs one pass over the links to order,
  // one to renumber them, and 8 bytes a page.
  kAlways = 2,
};
std::string_view RankRenumberName(RankRenumber renumber);  // "auto", "never", "always"
std::string_view RankModeName(RankMode mode);              // "auto", "stream", "csr"

// Template links (docs/ranking.md, "Template links"): the links a host puts on most of its
// pages, from its page template (navigation bar, footer: the index, license and copyright
// pages). On a documentation site they tie those pages at the top of every rank. With
// `drop`, before ranking, for each host with at least `min_pages` pages that have links,
// every link from that host to a target that more than `share` of those pages link to is
// dropped: the rank sees the graph without them, whatever the algorithm (a page whose links
// were all template links counts as dangling). Needs each page's host: RankInput::hosts.
//
// Cost: one more pass over the source, and a sort of 8 bytes per link (held only while
// the template links are found; ResourceExhausted when that exceeds memory_budget); then
// 8 bytes per template (host, target) pair and 1 bit per page, and each later pass looks up
// the links to pages that are some host's template target.
struct TemplateLinkOptions {
  bool drop = false;
  // A host needs this many pages with links: on a smaller site "most pages" is a handful,
  // and a site whose few pages all link to each other would lose every link.
  uint32_t min_pages = 10;
  // In (0, 1): "most pages" is more than this share of the host's pages with links. At 0.5
  // the Python manual loses 9 targets (index, license, copyright, modules, general index,
  // bugs, contents, library index, exceptions), at 0.75 the first 6, each on 529 of its 530
  // pages (docs/benchmarks.md, "Template links").
  double share = 0.5;
};

struct RankOptions {
  double damping = 0.85;    // c, in [0, 1]
  double tolerance = 1e-6;  // stop when the L1 norm of the change is at most this
  uint32_t max_iterations = 100;
  unsigned threads = 1;  // 0: one per core
  RankMode mode = RankMode::kAuto;
  // CSR mode, PageRank family: every this many iterations, replace the vector by the
  // quadratic extrapolation of the last four (Kamvar et al. 2003), which removes the two
  // slowest-decaying error components: fewer iterations to the same tolerance, and a vector
  // nearer the fixed point (docs/benchmarks.md). 0: plain power iteration, as stream mode
  // does; the two modes then agree to rounding. Costs three more vectors of doubles.
  uint32_t extrapolation_period = 10;
  RankRenumber renumber = RankRenumber::kAuto;
  uint64_t memory_budget = uint64_t{4} << 30;  // bytes kAuto may spend on a CSR
  TemplateLinkOptions template_links;          // default: every link counts
  // kPersonalized and kTrustRank: this share of the teleport goes to every page alike, the
  // rest by the given weights (TrustRank: the trusted pages). 0: the weights alone; 1:
  // plain PageRank. A crawl's blend of "from the seeds" and "any known page".
  double uniform_teleport = 0;
};

struct RankReport {
  uint32_t iterations = 0;          // passes over the edges after any CSR build
  double residual = 0;              // L1 change of the last iteration (authorities + hubs for HITS)
  bool converged = false;           // residual <= tolerance (always true for kInDegree)
  double seconds = 0;               // wall time, including reading the edges into a CSR
  RankMode mode = RankMode::kAuto;  // kStream or kCsr: what ran
  bool renumbered = false;          // CSR mode: the iterations ran over pages renumbered
  unsigned threads = 0;             // threads used (RankOptions::threads with 0 resolved)
  uint32_t pages = 0;
  uint64_t links = 0;             // links ranked over (template links dropped not counted)
  uint64_t template_links = 0;    // links dropped as template links (TemplateLinkOptions)
  uint32_t template_targets = 0;  // (host, target) pairs found to be template links
};

// Per-page inputs. Spans are indexed by page id and may be shorter than the graph (missing
// entries count as 0 for `teleport`, as absent for `start`).
struct RankInput {
  // kPersonalized: the teleport weights (any non-negative scale; all zero falls back to
  // uniform). kTrustRank: the trusted pages are those with a weight > 0 (at least one).
  // kTopicHits: the topic score r_j of each page (all zero: plain HITS).
  std::span<const double> teleport;
  // Warm start from an earlier result of the same algorithm (scores; for HITS also hubs).
  // Pages past its end start from the teleport vector (HITS: from 1/N); the vector is
  // then renormalised.
  std::span<const double> start;
  std::span<const double> start_hubs;
  // TemplateLinkOptions::drop: a host number per page (pages of one host share a number,
  // each below the number of pages; db_rank.h numbers the hosts of the pages' URLs). Pages
  // past its end count as one-page hosts, whose links are never template links.
  std::span<const uint32_t> hosts;
};

struct RankResult {
  RankAlgorithm algorithm = RankAlgorithm::kPageRank;
  RankOptions options;
  RankReport report;
  std::vector<double> scores;  // by page id; sums to 1 (HITS: the authorities; in-degree: counts)
  std::vector<double> hubs;    // HITS and topic HITS only; sums to 1
};

// Ranks the pages of `graph`. InvalidArgument for options out of range or inputs that are
// negative or not finite; errors of the source (e.g. DataLoss) as they come. Not
// converging within max_iterations is not an error: see report.converged.
Result<RankResult> ComputeRank(EdgeSource& graph, RankAlgorithm algorithm,
                               const RankOptions& options, const RankInput& input = {});

}  // namespace crawlrank

#endif  // CRAWLRANK_RANK_H_
