// The ranking entry points (rank.h, rank_graph.h): the algorithms' and modes' names,
// ComputeRank over an EdgeSource (streamed or through a CSR it builds, template links
// dropped when asked) and RankCsrGraph over a CSR kept in memory. The kernels are in
// rank_kernels.h and the files it names.
#include "crawlrank/rank.h"

#include <chrono>
#include <string>

#include "rank/rank_graph.h"
#include "rank/rank_kernels.h"
#include "rank/template_links.h"

namespace crawlrank {
namespace {

constexpr std::pair<RankAlgorithm, std::string_view> kAlgorithmNames[] = {
    {RankAlgorithm::kPageRank, "pagerank"},    {RankAlgorithm::kPersonalized, "ppr"},
    {RankAlgorithm::kTrustRank, "trustrank"},  {RankAlgorithm::kHits, "hits"},
    {RankAlgorithm::kTopicHits, "topic-hits"}, {RankAlgorithm::kWeightedPageRank, "wpr"},
    {RankAlgorithm::kInDegree, "indegree"},
};

bool IsHits(RankAlgorithm a) {
  return a == RankAlgorithm::kHits || a == RankAlgorithm::kTopicHits;
}

}  // namespace

std::string_view RankAlgorithmName(RankAlgorithm algorithm) {
  for (const auto& [a, name] : kAlgorithmNames) {
    if (a == algorithm) return name;
  }
  return "unknown";
}

std::vector<std::string_view> RankAlgorithmNames() {
  std::vector<std::string_view> names;
  for (const auto& [a, n] : kAlgorithmNames) names.push_back(n);
  return names;
}

Result<RankAlgorithm> ParseRankAlgorithm(std::string_view name) {
  std::string known;
  for (const auto& [a, n] : kAlgorithmNames) {
    if (n == name) return a;
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  return InvalidArgumentError("unknown rank algorithm \"" + std::string(name) +
                              "\"; known: " + known);
}

std::string_view RankRenumberName(RankRenumber renumber) {
  switch (renumber) {
    case RankRenumber::kAuto: return "auto";
    case RankRenumber::kNever: return "never";
    case RankRenumber::kAlways: return "always";
  }
  return "unknown";
}

std::string_view RankModeName(RankMode mode) {
  switch (mode) {
    case RankMode::kAuto: return "auto";
    case RankMode::kStream: return "stream";
    case RankMode::kCsr: return "csr";
  }
  return "unknown";
}

namespace rank_internal {
namespace {

// ComputeRank over `graph` as given, timed from `started`.
Result<RankResult> RankSource(EdgeSource& graph, RankAlgorithm algorithm,
                              const RankOptions& options, const RankInput& input,
                              std::chrono::steady_clock::time_point started) {
  CRAWLRANK_RETURN_IF_ERROR(CheckOptions(options));
  if (RankAlgorithmName(algorithm) == "unknown") {
    return InvalidArgumentError("unknown rank algorithm " + std::to_string(int(algorithm)));
  }
  RankResult result;
  result.algorithm = algorithm;
  result.options = options;
  RankReport& report = result.report;
  report.pages = graph.num_pages();
  report.links = graph.num_links();
  const uint32_t n = report.pages;
  CRAWLRANK_ASSIGN_OR_RETURN(Teleport r, MakeTeleport(algorithm, input.teleport, n, options.uniform_teleport));

  const bool hits = IsHits(algorithm);
  RankMode mode = options.mode;
  if (algorithm == RankAlgorithm::kInDegree) {
    mode = RankMode::kStream;  // one pass either way
  } else if (mode == RankMode::kAuto) {
    mode = CsrGraph::Bytes(n, report.links) <= options.memory_budget ? RankMode::kCsr
                                                                     : RankMode::kStream;
  }
  report.mode = mode;
  report.threads = ResolveThreads(options.threads);
  CsrGraph csr;
  if (mode == RankMode::kCsr) {
    // kAuto chose by the source's own count of links, which a damaged PageDB header can
    // understate: the build checks the budget again with the links it counted.
    // The PageRank kernel iterates over the in-links split by partitions; HITS and
    // weighted PageRank's weights read pull rows.
    const CsrShape shape = hits                             ? CsrShape::kInAndOutRows
                           : RanksOverPatchedCsr(algorithm) ? CsrShape::kSplit
                                                            : CsrShape::kInRows;
    Result<CsrGraph> built = BuildCsr(
        graph, shape, report.threads,
        options.mode == RankMode::kAuto ? options.memory_budget : UINT64_MAX, options.renumber);
    if (built.ok()) {
      csr = std::move(built).value();
      report.links = csr.links;
    } else if (built.status().code() == StatusCode::kResourceExhausted &&
               options.mode == RankMode::kAuto) {
      report.mode = mode = RankMode::kStream;
    } else {
      return built.status();
    }
  }
  Run run{&graph,
          options,
          report.threads,
          n,
          mode == RankMode::kCsr ? &csr : nullptr,
          nullptr,
          report,
          !input.start.empty()};

  if (algorithm == RankAlgorithm::kInDegree) {
    CRAWLRANK_ASSIGN_OR_RETURN(result.scores, InDegree(run));
  } else if (hits) {
    const auto uniform = [n](uint32_t) { return 1.0 / n; };
    CRAWLRANK_ASSIGN_OR_RETURN(result.scores, MakeStart(input.start, n, uniform));
    CRAWLRANK_ASSIGN_OR_RETURN(result.hubs, MakeStart(input.start_hubs, n, uniform));
    CRAWLRANK_RETURN_IF_ERROR(Hits(run, r, result.scores, result.hubs));
  } else {
    EdgeWeights weights;
    if (algorithm == RankAlgorithm::kWeightedPageRank) {
      CRAWLRANK_ASSIGN_OR_RETURN(weights, WeightedPageRankWeights(graph, run.csr));
    }
    CRAWLRANK_ASSIGN_OR_RETURN(result.scores, PageRankFamilyByPage(run, std::move(r), weights,
                                                                    input.start));
  }
  // A filtering source counts its links on its first pass: take the count that ran.
  if (mode == RankMode::kStream) report.links = graph.num_links();
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace
}  // namespace rank_internal

Result<RankResult> ComputeRank(EdgeSource& graph, RankAlgorithm algorithm,
                               const RankOptions& options, const RankInput& input) {
  const auto started = std::chrono::steady_clock::now();
  if (!options.template_links.drop) {
    return rank_internal::RankSource(graph, algorithm, options, input, started);
  }
  CRAWLRANK_RETURN_IF_ERROR(rank_internal::CheckOptions(options));
  CRAWLRANK_ASSIGN_OR_RETURN(
      TemplateLinkFilter filter,
      TemplateLinkFilter::Find(graph, input.hosts, options.template_links, options.memory_budget));
  CRAWLRANK_ASSIGN_OR_RETURN(RankResult result,
                             rank_internal::RankSource(filter, algorithm, options, input, started));
  result.report.template_links = filter.dropped();
  result.report.template_targets = static_cast<uint32_t>(filter.pairs().size());
  return result;
}

Result<RankResult> RankCsrGraph(const CsrGraph& csr, uint32_t pages, const CsrPatch& patch,
                                RankAlgorithm algorithm, const RankOptions& options,
                                const RankInput& input) {
  const auto started = std::chrono::steady_clock::now();
  CRAWLRANK_RETURN_IF_ERROR(rank_internal::CheckOptions(options));
  if (options.template_links.drop) {
    return InvalidArgumentError(
        "a graph kept in memory ranks over all its links: "
        "template links are dropped only by ComputeRank");
  }
  if (!RanksOverPatchedCsr(algorithm)) {
    return InvalidArgumentError("a graph kept in memory ranks by pagerank, ppr or trustrank, not " +
                                std::string(RankAlgorithmName(algorithm)));
  }
  RankResult result;
  result.algorithm = algorithm;
  result.options = options;
  RankReport& report = result.report;
  report.pages = pages;
  report.links = csr.links + patch.added.size() - patch.removed.size();
  report.mode = RankMode::kCsr;
  report.threads = ResolveThreads(options.threads);
  CRAWLRANK_ASSIGN_OR_RETURN(
      rank_internal::Teleport r,
      rank_internal::MakeTeleport(algorithm, input.teleport, pages, options.uniform_teleport));
  rank_internal::Run run{
      nullptr, options, report.threads, pages, &csr, &patch, report, !input.start.empty()};
  CRAWLRANK_ASSIGN_OR_RETURN(result.scores,
                             rank_internal::PageRankFamilyByPage(
                                 run, std::move(r), rank_internal::EdgeWeights{}, input.start));
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace crawlrank
