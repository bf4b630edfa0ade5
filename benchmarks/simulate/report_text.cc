// The table of crawlrank_simulate (Report::PrintText, report.h): the graph and the crawl's
// settings, a row a run, the legend, a topic's harvest rates, the best baselines and notes.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "bench_util.h"
#include "report.h"

namespace crawlrank::bench {
namespace {

// `share` as a percentage with one decimal ("12.3%").
std::string Percent(double share) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", 100 * share);
  return buffer;
}

}  // namespace

void Report::PrintText() const {
  PrintHeader();
  PrintTable();
  PrintSummary();
  PrintNotes();
}

void Report::PrintHeader() const {
  const SchedulerOptions scheduler = options.ForMode(ScoreMode::kLinkScore, nullptr);
  const std::string limit =
      options.max_pages == 0 ? "" : ", at most " + std::to_string(options.max_pages) + " pages";
  std::printf("graph \"%s\": %u pages, %llu links, %u with out-links; read as %s\n", name.c_str(),
              graph.pages(), static_cast<unsigned long long>(graph.links()), graph.sources,
              graph.ids ? "page ids" : "URLs");
  std::printf("seeds: %zu (%s%s); reachable from them: %llu pages (%s)\n", seeds.size(),
              graph.urls[seeds[0]].c_str(), seeds.size() > 1 ? ", ..." : "",
              static_cast<unsigned long long>(reachable),
              Percent(static_cast<double>(reachable) / graph.pages()).c_str());
  std::printf(
      "hot pages: %u, the top %s of the whole graph by PageRank%s (damping 0.85, %u "
      "iterations, residual %.1e); %u of them reachable\n",
      truth.hot_pages, Percent(kHotShare).c_str(),
      options.hot_template_links ? " without template links" : "", truth.report.iterations,
      truth.report.residual, hot_reachable);
  if (options.template_links) std::printf("re-ranks drop template links\n");
  std::printf(
      "crawl: Next(%zu), clock +%lld ms a batch, link score %s; politeness %s "
      "(delay_ms %lld, per_host %u)%s\n",
      options.batch, static_cast<long long>(options.step_ms),
      options.link_score == LinkScoreRule::kConstant ? "0.5 for every link"
                                                     : "1/out-degree of the linking page",
      options.polite ? "on, the library's defaults" : "off for simulation",
      static_cast<long long>(scheduler.delay_ms), scheduler.per_host,
      limit.c_str());
}

void Report::PrintTable() const {
  std::printf("\n%-24s %8s %8s %8s %8s %7s %7s %7s %7s %9s %9s %8s %7s %7s %7s %8s\n", "order",
              "fetched", "50% hot", "80% hot", "90% hot", "PR@1%", "PR@5%", "PR@10%", "PR@25%",
              "80%/best", "PR10/best", "80%:orcl", "tau@10%", "reranks", "rank s",
              repeats > 1 ? "seconds*" : "seconds");
  const ModeRun* oracle = Oracle(runs);
  for (const ModeRun& run : runs) {
    if (!run.skipped.empty()) continue;
    const CrawlOutcome& o = run.outcome;
    const auto cell = [](const std::optional<uint64_t>& v) {
      return v ? std::to_string(*v) : std::string("never");
    };
    const auto share = [](const std::optional<double>& v) {
      return v ? Percent(*v) : std::string("n/a");
    };
    const auto ratio = [](const std::optional<double>& v) {
      char text[32] = "-";
      if (v) std::snprintf(text, sizeof text, "%.3f", *v);
      return std::string(text);
    };
    std::optional<double> of_oracle;
    if (oracle != nullptr && oracle->outcome.pages_to_hot[kRatioTarget] && o.pages_to_hot[kRatioTarget]) {
      of_oracle = static_cast<double>(*oracle->outcome.pages_to_hot[kRatioTarget]) /
                  static_cast<double>(*o.pages_to_hot[kRatioTarget]);
    }
    std::printf("%-24s %8llu %8s %8s %8s %7s %7s %7s %7s %9s %9s %8s %7s %7llu %7.2f %8.2f\n",
                run.Name().c_str(), static_cast<unsigned long long>(o.fetched),
                cell(o.pages_to_hot[0]).c_str(), cell(o.pages_to_hot[1]).c_str(),
                cell(o.pages_to_hot[2]).c_str(), share(o.rank_share_at[0]).c_str(),
                share(o.rank_share_at[1]).c_str(), share(o.rank_share_at[2]).c_str(),
                share(o.rank_share_at[3]).c_str(), ratio(run.ratio).c_str(),
                ratio(run.pr_ratio).c_str(), ratio(of_oracle).c_str(),
                ratio(o.tau_at[kShareAt10]).c_str(), static_cast<unsigned long long>(o.reranks),
                o.rerank_ms / 1000.0, Median(run.seconds));
  }
}

void Report::PrintSummary() const {
  const ModeRun* best = BestBaseline(runs);
  std::printf(
      "\nN%% hot: pages fetched when N%% of the hot pages were; PR@N%%: share of the graph's "
      "PageRank fetched with its first N%% of pages; 80%%/best: 80%% hot over the best "
      "baseline's; PR10/best: PR@10%% over the best baseline's; 80%%:orcl: the oracle's pages "
      "to 80%% hot over the order's (1: as good as the oracle); tau@10%%: Kendall's tau-b, over "
      "the pages discovered, of the scores the order held against the graph's PageRank, "
      "after 10%% of the pages; rank s: the re-ranks' seconds (one rank thread, in Next or with --background-rerank in the "
      "Scheduler's thread)\n");
  if (options.relevant != nullptr) PrintHarvest();
  const ModeRun* best_rank = BestBaselineByRank(runs);
  if (best != nullptr) {
    std::printf(
        "best baseline (fewest pages to 80%% hot among breadth-first, indegree, opic and the "
        "replayed orders but the oracle): %s; by PR@10%%: %s\n",
        best->Name().c_str(), best_rank ? best_rank->Name().c_str() : "none");
  } else {
    std::printf("no baseline reached 80%% hot\n");
  }
  if (repeats > 1) {
    std::printf(
        "seconds*: median of %zu crawls, each from AddSeeds to the end (the counts "
        "were the same in every crawl)\n",
        repeats);
  }
}

void Report::PrintNotes() const {
  for (const ModeRun& run : runs) {
    const std::string name = run.Name();
    if (run.outcome.refetched != 0) {
      std::printf("note: %s handed out %llu pages again after they were crawled\n", name.c_str(),
                  static_cast<unsigned long long>(run.outcome.refetched));
    }
    for (const std::string& anomaly : run.outcome.anomalies) {
      std::printf("note: %s: %s\n", name.c_str(), anomaly.c_str());
    }
  }
  std::string unimplemented;
  for (const ModeRun& run : runs) {
    if (run.unimplemented) {
      unimplemented +=
          (unimplemented.empty() ? "" : ", ") + std::to_string(static_cast<int>(run.mode));
    } else if (!run.skipped.empty()) {
      std::printf("skipped: %s\n", run.skipped.c_str());
    }
    if (run.order_checked && run.outcome.anomalies.empty()) {
      std::printf(
          "checked: %s handed out the pages in the order an independent replay of "
          "the mode gives\n",
          run.Name().c_str());
    }
  }
  if (!unimplemented.empty()) {
    std::printf(
        "skipped: score modes %s (ScoreMode values): this build of crawlrank does "
        "not implement them\n",
        unimplemented.c_str());
  }
}

void Report::PrintHarvest() const {
  const uint64_t relevant = static_cast<uint64_t>(
      std::count(options.relevant->begin(), options.relevant->end(), true));
  std::printf("\nharvest rate (relevant pages among those fetched; %llu of the graph's %u pages "
              "are relevant) after each 5%% of the %llu reachable pages:\n%-24s",
              static_cast<unsigned long long>(relevant), graph.pages(),
              static_cast<unsigned long long>(reachable), "order");
  for (int k = 5; k <= 100; k += 5) std::printf(" %5d%%", k);
  std::printf("    area\n");
  for (const ModeRun& run : runs) {
    if (!run.skipped.empty()) continue;
    const std::vector<double>& h = run.outcome.harvest;
    std::printf("%-24s", run.Name().c_str());
    for (size_t k = 5; k <= 100; k += 5) {
      if (k <= h.size()) {
        std::printf(" %6.3f", h[k - 1]);
      } else {
        std::printf(" %6s", "-");
      }
    }
    const std::optional<double> area = HarvestArea(h);
    if (area) {
      std::printf(" %7.4f\n", *area);
    } else {
      std::printf(" %7s\n", "-");
    }
  }
}

}  // namespace crawlrank::bench
