// page_db_path: how the crawl found a page: the chain of first discoveries from a root.
#include <unordered_set>

#include "tool_common.h"

namespace crawlrank::tools {
namespace {

Status PrintPath(const Snapshot& snapshot, const PageRecord& page, Output& out) {
  std::vector<PageRecord> chain{page};
  std::unordered_set<uint64_t> seen{page.fingerprint};
  while (chain.back().discovered_from != 0) {
    // A page met twice can only come from damaged (or hand-made) records.
    if (!seen.insert(chain.back().discovered_from).second) {
      return DataLossError("discovery path of " + FormatFingerprint(page.fingerprint) +
                           " loops at " + FormatFingerprint(chain.back().discovered_from));
    }
    auto parent = snapshot.Find(chain.back().discovered_from);
    if (!parent.ok()) {
      return DataLossError("page " + FormatFingerprint(chain.back().fingerprint) +
                           " was discovered from " +
                           FormatFingerprint(chain.back().discovered_from) +
                           ", which cannot be read: " + parent.status().message());
    }
    chain.push_back(*std::move(parent));
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    out << uint64_t{it->depth} << ' ' << FormatFingerprint(it->fingerprint) << ' ' << it->url
        << '\n';
  }
  return out.Flush();
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Prints how a page was discovered: one `depth hash url` line per page, from the page "
      "it was first reached from (depth 0, or the first page of a loaded graph) to the page.",
      "page_db_path");
  return RunOnPage(app, argc, argv, PrintPath);
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
