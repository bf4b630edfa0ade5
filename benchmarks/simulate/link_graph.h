// The link graph crawlrank_simulate crawls: read from its file, with its seeds and the pages
// they reach.
//
// Input: one link a line, `src dst`, fields separated by spaces or tabs; blank lines and
// lines starting with '#' are skipped (only whole lines: a URL may hold a '#'). The first
// link decides how the whole file is read:
//   - URLs (`http://a.example/ http://b.example/x`), canonicalised with the PageDb's
//     default profile (rfc3986/1); two spellings of one canonical URL are one page;
//   - non-negative integer ids (`17 42`): page <id> becomes http://h<id % hosts>.sim/<id>,
//     so pages spread round-robin over --hosts hosts (politeness keys), whatever the ids.
// A page that is no link's source has no out-links. web_graph_gen writes either form.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_LINK_GRAPH_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_LINK_GRAPH_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank::bench {

struct LinkGraph {
  std::string path;
  bool ids = false;  // read as integer ids (else URLs)
  uint64_t lines = 0;
  uint64_t link_lines = 0;
  std::vector<std::string> urls;  // canonical URL by node, nodes in order of first mention
  std::unordered_map<uint64_t, uint32_t> node_of_fingerprint;
  std::unordered_map<uint64_t, uint32_t> node_of_id;  // id input only
  std::vector<uint64_t> offsets;                      // out-links as CSR, targets sorted
  std::vector<uint32_t> targets;
  uint32_t sources = 0;  // nodes with at least one out-link
  std::optional<uint32_t> first_source;
  std::vector<uint32_t> host;  // each node's host (HostKey), numbered in order of first mention

  uint32_t pages() const { return static_cast<uint32_t>(urls.size()); }
  uint64_t links() const { return targets.size(); }
  std::span<const uint32_t> OutLinks(uint32_t node) const {
    return {targets.data() + offsets[node], targets.data() + offsets[node + 1]};
  }
};

// Reads the graph at `path` ('-': standard input), one line at a time; `hosts` spreads the
// pages of id input over hosts. An error names the line it stopped at.
Result<LinkGraph> ReadLinkGraph(std::string path, uint32_t hosts);

// The nodes of the comma-separated seed URLs (or ids) in `list`; an empty list is the first
// link's source.
Result<std::vector<uint32_t>> ParseSeeds(const LinkGraph& graph, const std::string& list);

// Nodes reachable from `seeds` by out-links (the seeds included).
std::vector<bool> Reachable(const LinkGraph& graph, const std::vector<uint32_t>& seeds);

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_LINK_GRAPH_H_
