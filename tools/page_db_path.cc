// page_db_path: how the crawl found a page: the chain of first discoveries from a root.
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

Status PrintPath(const Snapshot& snapshot, const PageRecord& page, Output& out) {
  std::vector<PageRecord> chain{page};
  while (chain.back().discovered_from != 0) {
    // A chain longer than the DB has pages can only come from damaged records.
    if (chain.size() > snapshot.counters().pages) {
      return DataLossError("discovery path of " + FormatFingerprint(page.fingerprint) +
                           " loops");
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
  CLI::App app(
      "Prints how a page was discovered: one `depth hash url` line per page, from the page "
      "it was first reached from (depth 0, or the first page of a loaded graph) to the page.",
      "page_db_path");
  return RunOnPage(app, argc, argv, PrintPath);
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) { return crawlrank::tools::Main(argc, argv); }
