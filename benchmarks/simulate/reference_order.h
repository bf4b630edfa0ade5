// The independent check of a crawl's hand-out order: the order two score modes promise
// (scheduler.h), replayed without a PageDb or a Scheduler.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_REFERENCE_ORDER_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_REFERENCE_ORDER_H_

#include <cstdint>
#include <vector>

#include "crawlrank/score_mode.h"
#include "link_graph.h"
#include "results.h"
#include "simulation_options.h"

namespace crawlrank::bench {

// The order two modes promise (scheduler.h: highest score first, ties by page id, the
// order of discovery), replayed without a PageDb or a Scheduler as a check on both:
//   breadth-first: the lowest depth at discovery;
//   link-score:    the best score of the links to the page from crawled pages (seeds 1).
// Pages go out `batch` at a time, as Next hands them out; the links of a batch's pages
// are then applied in order, discovering new pages in the order they are named.
// Empty for the other modes.
std::vector<uint32_t> ReferenceOrder(const LinkGraph& graph, const std::vector<uint32_t>& seeds,
                                     ScoreMode mode, const SimulationOptions& options);

// Compares the crawl's hand-out order with ReferenceOrder, where the mode has one; a
// difference becomes an anomaly of the run.
void CheckOrder(const LinkGraph& graph, const std::vector<uint32_t>& seeds,
                const SimulationOptions& options, ModeRun& run);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_REFERENCE_ORDER_H_
