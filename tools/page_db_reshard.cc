// page_db_reshard: a cluster's PageDBs rewritten for another list of nodes
// (crawlrank/page_db_reshard.h).
#include <iostream>

#include "crawlrank/page_db_reshard.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CommandLine app(
      "Writes one PageDB per node of a new list (PREFIX.0, PREFIX.1, ... in the list's "
      "sorted order) from the PageDBs of every node of a cluster, or from one PageDB crawled "
      "alone: each node gets the pages, links, failures, payloads, host entries and "
      "counters of the hosts it owns, the crawl's settings and its own membership, and "
      "keeps a link to another node's page with that page as a ghost. A list of one node "
      "writes a PageDB that runs alone. Stop the nodes first; the sources are only read. "
      "Progress samples and rank files are not carried.",
      "page_db_reshard");
  std::vector<std::string> sources;
  std::string nodes, prefix;
  app.Add("dbs", sources, "the PageDB of every node (or one PageDB that ran alone)")->Required();
  app.Add("--nodes", nodes, "the new list: host:port,host:port,... (as crawlrank serve --nodes)")
      ->Required();
  app.Add("--out", prefix, "where to write: PREFIX.0, PREFIX.1, ... (none may exist)")->Required();
  return Run(app, argc, argv, [&] {
    std::vector<std::unique_ptr<PageDb>> open;
    std::vector<const PageDb*> dbs;
    for (const std::string& path : sources) {
      auto db = OpenForReading(path);
      if (!db.ok()) return Fail(app, db.status());
      dbs.push_back(db->get());
      open.push_back(*std::move(db));
    }
    ReshardReport report;
    const Status status = ReshardPageDbs(dbs, nodes, prefix, PageDbOptions(), &report);
    if (!status.ok()) {
      return status.code() == StatusCode::kInvalidArgument ? UsageError(app, status.message())
                                                           : Fail(app, status);
    }
    for (const ReshardReport::Node& node : report.nodes) {
      std::cout << node.path << (node.entry.empty() ? "" : " (node " + node.entry + ")") << ": "
                << node.pages << " pages, " << node.ghosts << " ghosts, " << node.links
                << " links\n";
    }
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
