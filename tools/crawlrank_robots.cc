// crawlrank_robots: what a robots.txt file allows one crawler (crawlrank/robots.h).
//
//   crawlrank_robots ROBOTS_TXT [--agent TOKEN] < paths
//   crawlrank_robots ROBOTS_TXT [--agent TOKEN] --crawl-delay --sitemaps
//
// Reads paths (with their "?query") or absolute URLs from stdin, one per line, and prints
// `allowed<TAB>line` or `disallowed<TAB>line` for each. With --crawl-delay it prints
// `crawl-delay<TAB>seconds` (three decimals) or `crawl-delay<TAB>none`, with --sitemaps one
// `sitemap<TAB>url` line per Sitemap line; either of them replaces reading stdin.
// Exit 1 when the file cannot be read, 2 on bad usage.
#include <cctype>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "crawlrank/robots.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// Returns whether `line` is an absolute http(s) URL rather than a path.
bool IsUrl(const std::string& line) {
  const auto starts = [&](std::string_view prefix) {
    if (line.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(line[i])) != prefix[i]) return false;
    }
    return true;
  };
  return starts("http://") || starts("https://");
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Reads paths or URLs from stdin, one per line, and prints `allowed<TAB>line` or "
      "`disallowed<TAB>line` for each, as ROBOTS_TXT (RFC 9309) rules for --agent.",
      "crawlrank_robots");
  std::string file;
  std::string agent = "crawlrank";
  bool crawl_delay = false;
  bool sitemaps = false;
  app.Add("ROBOTS_TXT", file, "the robots.txt file")->Required();
  app.Add("--agent", agent, "the crawler's product token")->ShowDefault();
  app.Flag("--crawl-delay", crawl_delay,
           "print the agent's Crawl-delay in seconds, or none, instead of reading paths");
  app.Flag("--sitemaps", sitemaps, "print the Sitemap lines instead of reading paths");
  return Run(app, argc, argv, [&] {
    std::ifstream in(file, std::ios::binary);
    if (!in.is_open()) {
      return Fail(app, IoError("open robots.txt " + QuoteForMessage(file) + ": cannot open"));
    }
    const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
      return Fail(app, IoError("read robots.txt " + QuoteForMessage(file) + ": read error"));
    }
    const RobotsRules rules = RobotsRules::Parse(body, agent);

    Output out;
    if (crawl_delay) {
      out << "crawl-delay\t";
      if (const auto ms = rules.crawl_delay_ms()) {
        out << FormatSeconds(*ms) << '\n';
      } else {
        out << "none\n";
      }
    }
    if (sitemaps) {
      for (const std::string& sitemap : rules.sitemaps()) out << "sitemap\t" << sitemap << '\n';
    }
    if (!crawl_delay && !sitemaps) {
      std::string line;
      while (std::getline(std::cin, line)) {
        const bool allowed = rules.Allowed(IsUrl(line) ? RobotsPath(line) : line);
        out << (allowed ? "allowed\t" : "disallowed\t") << line << '\n';
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
