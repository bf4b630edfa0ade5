#include "schedule/cluster_membership.h"

#include "crawlrank/crawl_config.h"

namespace crawlrank {
namespace {

std::string Stored(const StoredConfig& config, std::string_view key) {
  const auto found = config.find(std::string(key));
  return found == config.end() ? std::string() : found->second;
}

// "node B of A (partition R)", as messages name a membership.
std::string Describe(std::string_view nodes, std::string_view node, std::string_view rule) {
  return "node " + std::string(node) + " of " + std::string(nodes) + " (partition " +
         std::string(rule) + ")";
}

}  // namespace

std::string PartitionRule(std::string_view host_key) {
  return "urlfrontier-2.6 " + std::string(host_key.empty() ? "host" : host_key);
}

uint64_t PageShare(uint64_t max_pages, const NodeList& nodes) {
  if (max_pages == 0) return 0;
  const uint64_t n = nodes.size();
  return max_pages / n + (nodes.self_index() < max_pages % n ? 1 : 0);
}

StoredConfig MembershipConfig(const NodeList& nodes, std::string_view host_key) {
  return {{std::string(kClusterNodesKey), nodes.Joined()},
          {std::string(kClusterNodeKey), nodes.self()},
          {std::string(kClusterPartitionKey), PartitionRule(host_key)}};
}

Result<std::optional<NodeList>> ResolveMembership(const StoredConfig& stored,
                                                  const std::optional<NodeList>& given,
                                                  std::string_view host_key, uint64_t pages,
                                                  std::string_view db_path) {
  const std::string where = QuoteForMessage(db_path);
  const std::string stored_nodes = Stored(stored, kClusterNodesKey);
  const std::string stored_node = Stored(stored, kClusterNodeKey);
  const std::string stored_rule = Stored(stored, kClusterPartitionKey);
  const std::string rule = PartitionRule(host_key);
  if (stored_nodes.empty()) {
    if (!given.has_value()) return std::optional<NodeList>();
    if (pages > 0 && given->size() > 1) {
      return FailedPreconditionError(
          "PageDB " + where + " holds " + std::to_string(pages) +
          (pages == 1 ? " page" : " pages") + " of a frontier that ran alone; other nodes of " + given->Joined() +
          " own some of their hosts: start each node of a new cluster on an empty PageDB");
    }
    return std::optional<NodeList>(*given);
  }
  Result<NodeList> kept = NodeList::Parse(stored_nodes, stored_node);
  if (!kept.ok()) {
    return InvalidArgumentError("PageDB " + where + ": the stored node list does not parse: " +
                                kept.status().message());
  }
  const std::string was = Describe(stored_nodes, stored_node, stored_rule);
  if (given.has_value() && (given->Joined() != stored_nodes || given->self() != stored_node)) {
    return FailedPreconditionError("PageDB " + where + " is " + was + ", not " +
                                   Describe(given->Joined(), given->self(), rule) +
                                   ": a node keeps its list and entry (its hosts would move "
                                   "to other nodes otherwise)");
  }
  if (stored_rule != rule) {
    return FailedPreconditionError("PageDB " + where + " is " + was +
                                   ": this run's host key mode would make the partition " +
                                   rule + ", which moves queues between nodes");
  }
  return std::optional<NodeList>(*std::move(kept));
}

size_t OwnerOfUrl(const NodeList& nodes, HostKeyMode mode, std::string_view url) {
  Result<std::string> key = HostKey(url, mode);
  if (!key.ok() || key->empty()) return nodes.self_index();
  return nodes.OwnerOf(kClusterCrawlId, *key);
}

}  // namespace crawlrank
