// crawlrank/score_mode.h: how the scheduler orders queued pages.
#ifndef CRAWLRANK_SCORE_MODE_H_
#define CRAWLRANK_SCORE_MODE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank {

// How queued pages are ordered; the highest score goes first, ties by page id (the order
// pages were discovered in). A page's priority (QueuedExtra) goes before its score.
// docs/scheduler.md compares them on simulated crawls. The numbers are stable: they are
// what the crawl simulator and the Python bindings know a mode by.
enum class ScoreMode : uint8_t {
  // Online: each page's score follows from what the crawl has seen so far, kept up to
  // date as pages are fetched, with no global computation.
  kLinkScore = 1,     // the best link score any in-link gave the page (Aduana's default)
  kBreadthFirst = 2,  // lowest depth first: the baseline of the crawl-ordering literature
  kRandom = 3,        // a fixed pseudo-random order (by fingerprint): the other baseline
  kOpic = 4,          // OPIC (Abiteboul et al. 2003): cash a crawled page passes on equally
                      // to its out-links; a page's score is the cash it has received
  kInDegree = 5,      // links to the page from the pages fetched (a backlink count)
  // From the ranking engine (rank.h), recomputed as the graph grows (rerank_* options);
  // pages discovered since the last rank get an estimate (docs/scheduler.md):
  kPageRank = 6,          // partial PageRank of the known graph (Cho et al. 1998)
  kPersonalized = 7,      // personalized PageRank, teleport by content and link scores
  kTrustRank = 8,         // personalized PageRank from the seeds (depth 0)
  kHits = 9,              // HITS authority
  kTopicHits = 10,        // HITS with hubs weighing authorities by content/link scores
  kWeightedPageRank = 11,  // weighted PageRank (Xing & Ghorbani)
  // The default: partial PageRank blended with RankMass (Cho and Schonfeld 2007), the
  // lower bound on each page's PageRank from the seeds that the fetched pages' links
  // prove. The key is 0.4 x rank + 0.6 x mass / seeds; the mass keeps every site
  // reached from a seed in play, the rank finds the pages the site's own structure
  // lifts (docs/scheduler.md, "The default order").
  kBlend = 12,
  // Topical: best-first on link scores (Chakrabarti et al. 1999), the best score any
  // in-link gave the page, with ties among pages of a link score above 0 broken by a
  // mass that flows from the seeds and from the relevant pages fetched: a page at its
  // first crawl sends d x (its mass + its content score) / out-degree along each link.
  // The key is link score + 0.001 x mass (docs/scheduler.md, "Topical crawls").
  kTopical = 13
};

// "link-score", "breadth-first", "random", "opic", "indegree", "pagerank", "ppr",
// "trustrank", "hits", "topic-hits", "wpr", "blend", "topical".
std::string_view ScoreModeName(ScoreMode mode);
// InvalidArgument naming the accepted names.
Result<ScoreMode> ParseScoreMode(std::string_view name);
// Every mode, in enum order.
std::vector<ScoreMode> AllScoreModes();

}  // namespace crawlrank

#endif  // CRAWLRANK_SCORE_MODE_H_
