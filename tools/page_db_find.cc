// page_db_find: prints `hash url` for every page whose URL matches a POSIX extended regex.
#include <regex.h>

#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// Owns a compiled POSIX regex; status() says whether the pattern compiled.
class Regex {
 public:
  explicit Regex(const std::string& pattern) {
    const int rc = regcomp(&compiled_, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc == 0) return;
    char why[256];
    regerror(rc, &compiled_, why, sizeof why);
    status_ = InvalidArgumentError("bad regex \"" + pattern + "\": " + why);
  }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  ~Regex() {
    if (status_.ok()) regfree(&compiled_);
  }
  const Status& status() const { return status_; }
  bool Matches(const std::string& text) const {
    return regexec(&compiled_, text.c_str(), 0, nullptr, 0) == 0;
  }

 private:
  regex_t compiled_{};
  Status status_;
};

int Main(int argc, char** argv) {
  CLI::App app("Prints `hash url` for every page whose URL matches REGEX (POSIX extended).",
               "page_db_find");
  std::string db_path, pattern;
  app.add_option("db", db_path, "PageDB directory")->required();
  app.add_option("regex", pattern, "POSIX extended regular expression")->required();
  return Run(app, argc, argv, [&] {
    const Regex regex(pattern);
    if (!regex.status().ok()) return UsageError(app, regex.status().message());
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    auto snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    Output out;
    Status status = snapshot->ForEachPage([&](const PageRecord& record) {
      if (regex.Matches(record.url)) {
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
