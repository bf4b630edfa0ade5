// page_db_links: the backward and forward links of one page.
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// Prints `prefix hash url` for page `id`.
Status PrintPage(const Snapshot& snapshot, std::string_view prefix, uint32_t id, Output& out) {
  CRAWLRANK_ASSIGN_OR_RETURN(PageRecord page, snapshot.FindId(id));
  out << prefix << ' ' << FormatFingerprint(page.fingerprint) << ' ' << page.url << '\n';
  return Status::Ok();
}

Status PrintLinks(const Snapshot& snapshot, const PageRecord& page, Output& out) {
  // No reverse index is stored: backward links come from one pass over every link.
  std::vector<uint32_t> backward;
  EdgeCursor cursor = snapshot.Edges();
  for (; cursor.Valid(); cursor.Next()) {
    const auto targets = cursor.targets();
    if (std::binary_search(targets.begin(), targets.end(), page.id)) {
      backward.push_back(cursor.source());
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(cursor.status());
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<uint32_t> forward, snapshot.Links(page.id));

  out << "page " << FormatFingerprint(page.fingerprint) << ' ' << page.url << '\n';
  for (uint32_t id : backward) CRAWLRANK_RETURN_IF_ERROR(PrintPage(snapshot, "in", id, out));
  for (uint32_t id : forward) CRAWLRANK_RETURN_IF_ERROR(PrintPage(snapshot, "out", id, out));
  return out.Flush();
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Prints a page's links: `page HASH URL`, then `in HASH URL` for every page linking to "
      "it and `out HASH URL` for every page it links to, in id order.",
      "page_db_links");
  return RunOnPage(app, argc, argv, PrintLinks);
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
