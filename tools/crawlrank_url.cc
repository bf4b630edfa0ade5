// crawlrank_url: canonical form, fingerprint and host key of URLs read from stdin.
//
//   crawlrank_url [--profile rfc3986|w3lib] [--base URL] [--host-key host|domain] < urls
//
// One output line per input line: `canonical<TAB>fingerprint<TAB>hostkey`, or
// `error<TAB>message` for a URL that is rejected (tabs and line breaks in the message are
// printed as spaces; a message quotes at most 200 bytes of a long line, then its length).
// Exit 1 when any line was rejected, 2 on bad usage.
#include <iostream>
#include <string>

#include "crawlrank/url.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

struct Settings {
  UrlProfile profile = UrlProfile::kRfc3986;
  HostKeyMode host_key = HostKeyMode::kHost;
  bool has_base = false;
  std::string base;
};

// Returns "canonical\tfingerprint\thostkey" for one input line.
Result<std::string> Describe(const Settings& settings, const std::string& line) {
  CRAWLRANK_ASSIGN_OR_RETURN(std::string canonical,
                             settings.has_base ? ResolveUrl(settings.base, line, settings.profile)
                                               : CanonicalizeUrl(line, settings.profile));
  CRAWLRANK_ASSIGN_OR_RETURN(std::string host, HostKey(canonical, settings.host_key));
  return canonical + '\t' + FormatFingerprint(UrlFingerprint(canonical)) + '\t' + host;
}

// Keeps an error message on one output line and in one column.
std::string OneField(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Reads URLs from stdin, one per line, and prints for each its canonical form, "
      "fingerprint and host key (tab-separated), or `error<TAB>message`.",
      "crawlrank_url");
  std::string profile_name = "rfc3986";
  std::string host_key_name = "host";
  Settings settings;
  app.Add("--profile", profile_name, "canonicalisation profile: rfc3986 or w3lib")->ShowDefault();
  app.Add("--base", settings.base,
          "resolve each line as a reference against this URL (rfc3986: RFC 3986 "
          "§5.2; w3lib: as Python's urljoin)");
  app.Add("--host-key", host_key_name, "host key: host, or domain (eTLD+1)")
      ->OneOf({"host", "domain"})
      ->ShowDefault();
  return Run(app, argc, argv, [&] {
    auto profile = ParseUrlProfile(profile_name);
    if (!profile.ok()) return UsageError(app, "--profile: " + profile.status().message());
    settings.profile = *profile;
    settings.host_key =
        host_key_name == "domain" ? HostKeyMode::kRegisteredDomain : HostKeyMode::kHost;
    settings.has_base = app.Count("--base") > 0;
    if (settings.has_base) {
      if (auto base = CanonicalizeUrl(settings.base, settings.profile); !base.ok()) {
        return UsageError(app, "--base: " + base.status().message());
      }
    }

    Output out;
    bool any_failed = false;
    std::string line;
    while (std::getline(std::cin, line)) {
      auto described = Describe(settings, line);
      if (described.ok()) {
        out << *described << '\n';
      } else {
        any_failed = true;
        out << "error\t" << OneField(described.status().message()) << '\n';
      }
    }
    if (Status flushed = out.Flush(); !flushed.ok()) return Fail(app, flushed);
    return any_failed ? kExitFailure : kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
