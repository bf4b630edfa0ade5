// Reading a LinkGraph (link_graph.h) from its file, its seeds, and the pages they reach.
#include "link_graph.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <iostream>
#include <string_view>
#include <utility>

#include "crawlrank/url.h"

namespace crawlrank::bench {
namespace {

// Whether `field` is a page id: decimal digits only.
bool IsId(std::string_view field) {
  return !field.empty() &&
         std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Builds a LinkGraph from its file, one line at a time.
class GraphReader {
 public:
  GraphReader(std::string path, uint32_t hosts) : hosts_(hosts) { graph_.path = std::move(path); }

  Result<LinkGraph> Read() {
    std::ifstream file;
    std::istream* in = &std::cin;
    if (graph_.path != "-") {
      file.open(graph_.path);
      if (!file) return NotFoundError("read graph \"" + graph_.path + "\": cannot open it");
      in = &file;
    }
    std::string line;
    while (std::getline(*in, line)) {
      ++graph_.lines;
      CRAWLRANK_RETURN_IF_ERROR(ReadLine(line));
    }
    if (in->bad()) return IoError("read graph \"" + graph_.path + "\": read error");
    if (graph_.link_lines == 0) {
      return InvalidArgumentError("read graph \"" + graph_.path + "\": no links in it");
    }
    BuildCsr();
    return std::move(graph_);
  }

 private:
  Status LineError(std::string cause) const {
    return InvalidArgumentError("read graph \"" + graph_.path + "\": line " +
                                std::to_string(graph_.lines) + ": " + std::move(cause));
  }

  Status ReadLine(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::array<std::string_view, 2> fields;
    size_t count = 0;
    size_t pos = 0;
    for (;;) {
      pos = line.find_first_not_of(" \t", pos);
      if (pos == std::string_view::npos) break;
      const size_t end = std::min(line.size(), line.find_first_of(" \t", pos));
      if (count == 0 && line[pos] == '#') return Status::Ok();
      if (count < 2) fields[count] = line.substr(pos, end - pos);
      ++count;
      pos = end;
    }
    if (count == 0) return Status::Ok();
    if (count != 2) {
      return LineError("expected two fields (src dst), found " + std::to_string(count));
    }
    if (graph_.link_lines++ == 0) graph_.ids = IsId(fields[0]) && IsId(fields[1]);
    CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t src, NodeOf(fields[0]));
    CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t dst, NodeOf(fields[1]));
    if (!graph_.first_source) graph_.first_source = src;
    edges_.emplace_back(src, dst);
    return Status::Ok();
  }

  Result<uint32_t> NodeOf(std::string_view field) {
    if (graph_.ids) {
      uint64_t id = 0;
      const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), id);
      if (!IsId(field) || ec != std::errc() || end != field.data() + field.size()) {
        return LineError("\"" + std::string(field) +
                         "\" is not a page id (the file's first link has ids, so every "
                         "field must be one, below 2^64)");
      }
      if (auto it = graph_.node_of_id.find(id); it != graph_.node_of_id.end()) return it->second;
      CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t node, AddUrl(SyntheticUrl(id)));
      graph_.node_of_id.emplace(id, node);
      return node;
    }
    const std::string raw(field);
    if (auto it = node_of_raw_.find(raw); it != node_of_raw_.end()) return it->second;
    CRAWLRANK_ASSIGN_OR_RETURN(const uint32_t node, AddUrl(raw));
    node_of_raw_.emplace(raw, node);
    return node;
  }

  std::string SyntheticUrl(uint64_t id) const {
    return "http://h" + std::to_string(id % hosts_) + ".sim/" + std::to_string(id);
  }

  // The node of `url`'s canonical form, created when new.
  Result<uint32_t> AddUrl(const std::string& url) {
    Result<std::string> canonical = CanonicalizeUrl(url);
    if (!canonical.ok()) return LineError(canonical.status().message());
    const uint64_t fingerprint = UrlFingerprint(*canonical);
    const auto [it, inserted] = graph_.node_of_fingerprint.try_emplace(fingerprint, 0);
    if (!inserted) {
      if (graph_.urls[it->second] != *canonical) {
        return LineError("\"" + *canonical + "\" has the fingerprint of \"" +
                         graph_.urls[it->second] + "\", which a PageDb cannot hold both of");
      }
      return it->second;
    }
    if (graph_.urls.size() == UINT32_MAX) return LineError("more than 2^32 - 1 pages");
    Result<std::string> host = HostKey(*canonical);
    if (!host.ok()) return LineError(host.status().message());
    graph_.host.push_back(
        host_number_.try_emplace(*std::move(host), static_cast<uint32_t>(host_number_.size()))
            .first->second);
    it->second = static_cast<uint32_t>(graph_.urls.size());
    graph_.urls.push_back(*std::move(canonical));
    return it->second;
  }

  void BuildCsr() {
    std::sort(edges_.begin(), edges_.end());
    edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
    graph_.offsets.assign(uint64_t{graph_.pages()} + 1, 0);
    graph_.targets.reserve(edges_.size());
    for (const auto& [src, dst] : edges_) {
      ++graph_.offsets[uint64_t{src} + 1];
      graph_.targets.push_back(dst);
    }
    for (size_t i = 1; i < graph_.offsets.size(); ++i) {
      if (graph_.offsets[i] != 0) ++graph_.sources;
      graph_.offsets[i] += graph_.offsets[i - 1];
    }
    edges_ = {};
  }

  uint32_t hosts_;
  LinkGraph graph_;
  std::unordered_map<std::string, uint32_t> node_of_raw_;
  std::unordered_map<std::string, uint32_t> host_number_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
};

}  // namespace

Result<LinkGraph> ReadLinkGraph(std::string path, uint32_t hosts) {
  return GraphReader(std::move(path), hosts).Read();
}

Result<std::vector<uint32_t>> ParseSeeds(const LinkGraph& graph, const std::string& list) {
  if (list.empty()) return std::vector<uint32_t>{*graph.first_source};
  std::vector<uint32_t> seeds;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t end = std::min(list.size(), list.find(',', pos));
    const std::string seed = list.substr(pos, end - pos);
    pos = end + 1;
    const auto error = [&](const std::string& cause) {
      return InvalidArgumentError("seed \"" + seed + "\": " + cause);
    };
    if (graph.ids) {
      uint64_t id = 0;
      const auto [p, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), id);
      if (!IsId(seed) || ec != std::errc() || p != seed.data() + seed.size()) {
        return error("not a page id (graph \"" + graph.path + "\" has ids)");
      }
      const auto it = graph.node_of_id.find(id);
      if (it == graph.node_of_id.end()) return error("not in graph \"" + graph.path + "\"");
      seeds.push_back(it->second);
      continue;
    }
    Result<std::string> canonical = CanonicalizeUrl(seed);
    if (!canonical.ok()) return error(canonical.status().message());
    const auto it = graph.node_of_fingerprint.find(UrlFingerprint(*canonical));
    if (it == graph.node_of_fingerprint.end() || graph.urls[it->second] != *canonical) {
      return error("not in graph \"" + graph.path + "\"");
    }
    seeds.push_back(it->second);
  }
  return seeds;
}

std::vector<bool> Reachable(const LinkGraph& graph, const std::vector<uint32_t>& seeds) {
  std::vector<bool> seen(graph.pages(), false);
  std::vector<uint32_t> stack;
  for (uint32_t seed : seeds) {
    if (!seen[seed]) stack.push_back(seed);
    seen[seed] = true;
  }
  while (!stack.empty()) {
    const uint32_t node = stack.back();
    stack.pop_back();
    for (uint32_t next : graph.OutLinks(node)) {
      if (!seen[next]) stack.push_back(next);
      seen[next] = true;
    }
  }
  return seen;
}

}  // namespace crawlrank::bench
