// page_db_broken (`crawlrank broken`): the broken links of a crawl. A 404 is a crawled
// page (it answered), so neither `crawlrank failed` nor the summary lists it: this tool
// lists every page that answered 4xx or 5xx (crawled, or failed for good after its
// retries) with the crawled pages that link to it. Reads a snapshot beside a running crawl.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "crawlrank/broken_links.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CommandLine app(
      "Lists the broken links of a crawl: every page that answered 4xx or 5xx (crawled, or "
      "failed for good after its retries), with the pages that link to it, most linked "
      "first. Text: `STATUS URL (N linking pages)`, then `  from URL` for each (up to "
      "--max-referrers). Reads a snapshot: works beside a running crawl.",
      "page_db_broken");
  std::string db_path;
  uint64_t max_referrers = 10;
  bool json = false;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("--max-referrers", max_referrers, "linking pages listed per broken page (0: all)")
      ->ShowDefault();
  app.Flag("--json", json,
           "print a JSON array: url, http_status, state (crawled or failed), referrers "
           "(every linking page's URL), referrer_count");
  return Run(app, argc, argv, [&] {
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    Result<Snapshot> snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    Result<std::vector<BrokenPage>> broken = FindBrokenPages(**db, *snapshot);
    if (!broken.ok()) return Fail(app, broken.status());
    const auto url_of = [&](uint32_t id) -> Result<std::string> {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord page, snapshot->FindId(id));
      return page.url;
    };
    Output out;
    if (json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const BrokenPage& page : *broken) {
        nlohmann::ordered_json referrers = nlohmann::ordered_json::array();
        for (uint32_t id : page.referrers) {
          Result<std::string> url = url_of(id);
          if (!url.ok()) return Fail(app, url.status());
          referrers.push_back(*url);
        }
        list.push_back({{"url", page.url},
                        {"http_status", page.http_status},
                        {"state", page.failed ? "failed" : "crawled"},
                        {"referrers", std::move(referrers)},
                        {"referrer_count", page.referrers.size()}});
      }
      out << list.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
      for (const BrokenPage& page : *broken) {
        const size_t n = page.referrers.size();
        out << uint64_t{page.http_status} << ' ' << page.url << " (" << uint64_t{n}
            << (n == 1 ? " linking page" : " linking pages") << (page.failed ? ", failed" : "")
            << ")\n";
        const size_t shown = max_referrers == 0 ? n : std::min<size_t>(n, max_referrers);
        for (size_t i = 0; i < shown; ++i) {
          Result<std::string> url = url_of(page.referrers[i]);
          if (!url.ok()) return Fail(app, url.status());
          out << "  from " << *url << '\n';
        }
        if (shown < n) out << "  ... and " << uint64_t{n - shown} << " more\n";
      }
    }
    if (Status flushed = out.Flush(); !flushed.ok()) return Fail(app, flushed);
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
