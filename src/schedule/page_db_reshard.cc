// page_db_reshard's whole job (crawlrank/page_db_reshard.h): the sources' membership
// checked, the new list's owners and configurations worked out, and the new PageDBs
// written by page_db/reshard_writer.h.
#include "crawlrank/page_db_reshard.h"

#include <set>

#include "crawlrank/crawl_config.h"
#include "page_db/page_db_impl.h"
#include "page_db/reshard_writer.h"
#include "schedule/cluster_membership.h"

namespace crawlrank {
namespace {

std::string StoredValue(const StoredConfig& config, std::string_view key) {
  const auto found = config.find(std::string(key));
  return found == config.end() ? std::string() : found->second;
}

// FailedPrecondition unless `sources` are every node of one cluster, or one PageDB alone;
// returns the host key mode they were crawled with.
Result<HostKeyMode> CheckSources(std::span<const PageDb* const> sources) {
  std::string list;
  std::set<std::string> entries;
  std::optional<HostKeyMode> mode;
  for (const PageDb* db : sources) {
    const std::string name = PageDbName(db->path());
    CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig config, db->ReadConfig());
    CRAWLRANK_ASSIGN_OR_RETURN(const SchedulerOptions options, StoredSchedulerOptions(*db));
    if (mode.has_value() && options.host_key != *mode) {
      return FailedPreconditionError("reshard: " + name + " keys hosts otherwise than " +
                                     PageDbName(sources.front()->path()));
    }
    mode = options.host_key;
    const std::string nodes = StoredValue(config, kClusterNodesKey);
    if (nodes.empty()) {
      if (sources.size() == 1) return *mode;
      return FailedPreconditionError("reshard: " + name +
                                     " ran alone: it is no node of a cluster, and goes alone");
    }
    if (!list.empty() && nodes != list) {
      return FailedPreconditionError("reshard: " + name + " is a node of " +
                                     QuoteForMessage(nodes) + ", " +
                                     PageDbName(sources.front()->path()) + " of " +
                                     QuoteForMessage(list));
    }
    list = nodes;
    if (!entries.insert(StoredValue(config, kClusterNodeKey)).second) {
      return FailedPreconditionError("reshard: node " +
                                     QuoteForMessage(StoredValue(config, kClusterNodeKey)) +
                                     " is given twice (" + name + ")");
    }
  }
  CRAWLRANK_ASSIGN_OR_RETURN(const NodeList cluster, NodeList::Parse(list, *entries.begin()));
  if (entries.size() != cluster.size()) {
    return FailedPreconditionError("reshard: " + std::to_string(entries.size()) + " of the " +
                                   std::to_string(cluster.size()) + " nodes of " +
                                   QuoteForMessage(list) +
                                   " given; every node's PageDB is needed");
  }
  return *mode;
}

// The configuration of node `self` of `nodes`: the crawl's, with that node's membership
// (none when it is the only one).
StoredConfig NodeConfig(StoredConfig crawl, const NodeList& nodes, std::string_view host_key) {
  for (std::string_view key : {kClusterNodesKey, kClusterNodeKey, kClusterPartitionKey}) {
    crawl.erase(std::string(key));
  }
  if (nodes.size() == 1) return crawl;
  for (auto& [key, value] : MembershipConfig(nodes, host_key)) crawl[key] = std::move(value);
  return crawl;
}

}  // namespace

Status ReshardPageDbs(std::span<const PageDb* const> sources, std::string_view nodes,
                      std::string_view out_prefix, const PageDbOptions& options,
                      ReshardReport* report) {
  if (sources.empty()) return InvalidArgumentError("reshard: no PageDB given");
  CRAWLRANK_ASSIGN_OR_RETURN(const HostKeyMode mode, CheckSources(sources));
  const std::string first(nodes.substr(0, nodes.find(',')));
  CRAWLRANK_ASSIGN_OR_RETURN(const NodeList given, NodeList::Parse(nodes, first));
  // Numbered by the sorted list: node 0 takes what has no host.
  CRAWLRANK_ASSIGN_OR_RETURN(const NodeList list, NodeList::Make(given.nodes(), given.nodes()[0]));
  const std::string host_key = mode == HostKeyMode::kHost ? "host" : "domain";
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredConfig crawl, sources.front()->ReadConfig());
  std::vector<std::string> paths;
  std::vector<StoredConfig> configs;
  for (size_t i = 0; i < list.size(); ++i) {
    paths.push_back(std::string(out_prefix) + "." + std::to_string(i));
    CRAWLRANK_ASSIGN_OR_RETURN(const NodeList member, NodeList::Make(list.nodes(), list.nodes()[i]));
    configs.push_back(NodeConfig(crawl, member, host_key));
  }
  ReshardOwners owners;
  owners.nodes = list.size();
  owners.of_url = [&](std::string_view url) { return OwnerOfUrl(list, mode, url); };
  owners.of_host_key = [&](std::string_view key) {
    return key.empty() ? size_t{0} : list.OwnerOf(kClusterCrawlId, key);
  };
  std::vector<ReshardedNode> written;
  CRAWLRANK_RETURN_IF_ERROR(
      WriteReshardedPageDbs(sources, owners, paths, configs, options, &written));
  report->nodes.clear();
  for (size_t i = 0; i < list.size(); ++i) {
    report->nodes.push_back({paths[i], list.size() == 1 ? "" : list.nodes()[i], written[i].pages,
                             written[i].ghosts, written[i].links});
  }
  return Status::Ok();
}

}  // namespace crawlrank
