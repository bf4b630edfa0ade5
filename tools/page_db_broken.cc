// page_db_broken (`crawlrank broken`): the broken links of a crawl. A 404 is a crawled
// page (it answered), so neither `crawlrank failed` nor the summary lists it: this tool
// lists every page that answered 4xx or 5xx (crawled, or failed for good after its
// retries) with the crawled pages that link to it. Reads a snapshot beside a running crawl.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "crawlrank/scheduler.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

struct Broken {
  uint32_t id = 0;
  std::string url;
  uint16_t http_status = 0;
  bool failed = false;              // failed for good (429, 5xx after retries); else crawled (4xx)
  std::vector<uint32_t> referrers;  // pages linking to it, in id order
};

bool IsBrokenStatus(uint16_t status) {
  return status >= 400 && status <= 599;
}

// Every broken page of `snapshot`, with the pages linking to it; most linked first.
Result<std::vector<Broken>> FindBroken(const PageDb& db, const Snapshot& snapshot) {
  std::vector<Broken> broken;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& page) {
    if (page.crawled() && IsBrokenStatus(page.http_status)) {
      broken.push_back({page.id, page.url, page.http_status, false, {}});
    }
    return Status::Ok();
  }));
  CRAWLRANK_ASSIGN_OR_RETURN(const std::vector<FailedPage> failed,
                             Scheduler::FailedPages(db, snapshot));
  for (const FailedPage& page : failed) {
    if (IsBrokenStatus(page.http_status)) {
      broken.push_back({page.id, page.url, page.http_status, true, {}});
    }
  }
  // No reverse index is stored: the referrers come from one pass over every link.
  std::unordered_map<uint32_t, size_t> index;
  for (size_t i = 0; i < broken.size(); ++i) index.emplace(broken[i].id, i);
  if (!index.empty()) {
    EdgeCursor cursor = snapshot.Edges();
    for (; cursor.Valid(); cursor.Next()) {
      for (uint32_t target : cursor.targets()) {
        if (const auto it = index.find(target); it != index.end()) {
          broken[it->second].referrers.push_back(cursor.source());
        }
      }
    }
    CRAWLRANK_RETURN_IF_ERROR(cursor.status());
  }
  std::sort(broken.begin(), broken.end(), [](const Broken& x, const Broken& y) {
    return x.referrers.size() != y.referrers.size() ? x.referrers.size() > y.referrers.size()
                                                    : x.url < y.url;
  });
  return broken;
}

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
    Result<std::vector<Broken>> broken = FindBroken(**db, *snapshot);
    if (!broken.ok()) return Fail(app, broken.status());
    const auto url_of = [&](uint32_t id) -> Result<std::string> {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord page, snapshot->FindId(id));
      return page.url;
    };
    Output out;
    if (json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const Broken& page : *broken) {
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
      for (const Broken& page : *broken) {
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
