// page_db_find: prints `hash url` for every page whose URL matches a pattern (RE2 syntax,
// crawlrank/url_pattern.h: linear time, so no pattern can stall a scan of a big PageDB).
#include "crawlrank/url_pattern.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CommandLine app(
      "Prints `hash url` for every page whose URL matches PATTERN (RE2 syntax, "
      "searched anywhere in the URL; anchor with ^ and $).",
      "page_db_find");
  std::string db_path, pattern_text;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("pattern", pattern_text, "regular expression, RE2 syntax")->Required();
  return Run(app, argc, argv, [&] {
    const Result<UrlPattern> pattern = UrlPattern::Compile(pattern_text);
    if (!pattern.ok()) return UsageError(app, pattern.status().message());
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    auto snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    Output out;
    Status status = snapshot->ForEachPage([&](const PageRecord& record) {
      if (pattern->Search(record.url)) {
        out << FormatFingerprint(record.fingerprint) << ' ' << record.url << '\n';
      }
      return Status::Ok();
    });
    if (status.ok()) status = out.Flush();
    return status.ok() ? kExitOk : Fail(app, status);
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
