// extract_bench: ExtractHtml's speed with each parser (the streaming scan, Gumbo's DOM) on
// the HTML pages of a few directories, one thread, CPU time of that thread.
//
//   extract_bench [--rounds 5] [--only scan|gumbo] DIR...
//   extract_bench --hostile
//
// Each directory's pages are read into memory first; then every round runs both parsers
// over all of them, the order swapped each round. Prints, per directory, the median MB/s
// (of HTML bytes per CPU second) of each parser and the median of the rounds' ratios.
// --only runs one parser (for a profiler); the other's columns are then 0. --hostile times
// one extraction of each of a few pages built to be slow (deep nesting never closed, then
// end tags that close nothing) with each parser.
#include <time.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "crawlrank/html_extract.h"

namespace crawlrank {
namespace {

namespace fs = std::filesystem;

struct Page {
  std::string url;
  std::string body;
};

std::vector<Page> ReadPages(const std::string& dir, size_t& bytes) {
  std::vector<Page> pages;
  bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(
           dir, fs::directory_options::follow_directory_symlink |
                    fs::directory_options::skip_permission_denied)) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || !(path.ends_with(".html") || path.ends_with(".htm"))) continue;
    std::ifstream in(path, std::ios::binary);
    Page page;
    page.url = "http://docs.test/" + path.substr(dir.size());
    page.body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    bytes += page.body.size();
    pages.push_back(std::move(page));
  }
  return pages;
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CPU seconds to extract every page once with `parser`; `tree` counts pages parsed with
// Gumbo's tree.
double Run(const std::vector<Page>& pages, HtmlParser parser, size_t& links, size_t& tree) {
  HtmlExtractOptions options;
  options.parser = parser;
  links = tree = 0;
  const double start = ThreadCpuSeconds();
  for (const Page& page : pages) {
    const HtmlPage extracted = bench::Check(ExtractHtml(page.body, page.url, "text/html", options));
    links += extracted.links.size();
    tree += extracted.tree_parsed ? 1 : 0;
  }
  return ThreadCpuSeconds() - start;
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

int Hostile() {
  const std::pair<const char*, std::string> pages[] = {
      {"100k nested <div>", Repeat("<div>", 100000)},
      {"<p><object>, 8k <span>, 200k </p>", "<p><object>" + Repeat("<span>", 8000) +
                                               Repeat("</p>", 200000)},
      {"8k <span>, 200k </x-foo>", Repeat("<span>", 8000) + Repeat("</x-foo>", 200000)},
      {"8k <span>, 200k <li>", Repeat("<span>", 8000) + Repeat("<li>", 200000)},
      {"8k <div>, 200k </b>", Repeat("<div>", 8000) + Repeat("</b>", 200000)},
      {"<svg>, 8k <g>, 200k </x>", "<svg>" + Repeat("<g>", 8000) + Repeat("</x>", 200000)},
      {"100k <a href>", Repeat("<a href=x>", 100000)},
  };
  std::printf("%-36s %7s %10s %10s\n", "page", "MB", "scan s", "Gumbo s");
  for (const auto& [name, html] : pages) {
    double seconds[2];
    for (const HtmlParser parser : {HtmlParser::kStreaming, HtmlParser::kGumbo}) {
      HtmlExtractOptions options;
      options.parser = parser;
      const double start = ThreadCpuSeconds();
      bench::Check(ExtractHtml(html, "http://hostile.test/", "text/html", options));
      seconds[parser == HtmlParser::kGumbo] = ThreadCpuSeconds() - start;
    }
    std::printf("%-36s %7.2f %10.3f %10.3f\n", name, static_cast<double>(html.size()) / 1e6,
                seconds[0], seconds[1]);
  }
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{"ExtractHtml's speed with the streaming scan and with Gumbo"};
  std::vector<std::string> dirs;
  int rounds = 5;
  bool hostile = false;
  app.add_option("dirs", dirs, "directories of HTML pages");
  app.add_flag("--hostile", hostile, "time pages built to be slow instead");
  app.add_option("--rounds", rounds, "rounds, the parsers' order swapped each round")
      ->check(CLI::Range(1, 1000));
  std::string only;
  app.add_option("--only", only, "run one parser only")->check(CLI::IsMember({"scan", "gumbo"}));
  CLI11_PARSE(app, argc, argv);
  if (hostile) return Hostile();
  if (dirs.empty()) {
    std::fprintf(stderr, "extract_bench: give directories of HTML pages, or --hostile\n");
    return 2;
  }

  std::printf("%-40s %6s %7s %10s %10s %7s %6s\n", "directory", "pages", "MB", "scan MB/s",
              "Gumbo MB/s", "ratio", "tree");
  for (const std::string& dir : dirs) {
    size_t bytes = 0;
    const std::vector<Page> pages = ReadPages(dir, bytes);
    if (pages.empty()) {
      std::fprintf(stderr, "extract_bench: no .html pages under %s\n", dir.c_str());
      return 1;
    }
    std::vector<double> scan, gumbo, ratio;
    size_t scan_links = 0, gumbo_links = 0, tree = 0, gumbo_tree = 0;
    for (int r = 0; r < rounds; ++r) {
      double s = 0, g = 0;
      if (!only.empty()) {
        (only == "scan" ? s : g) =
            Run(pages, only == "scan" ? HtmlParser::kStreaming : HtmlParser::kGumbo,
                only == "scan" ? scan_links : gumbo_links, only == "scan" ? tree : gumbo_tree);
        (only == "scan" ? gumbo_links : scan_links) = only == "scan" ? scan_links : gumbo_links;
      } else if (r % 2 == 0) {
        s = Run(pages, HtmlParser::kStreaming, scan_links, tree);
        g = Run(pages, HtmlParser::kGumbo, gumbo_links, gumbo_tree);
      } else {
        g = Run(pages, HtmlParser::kGumbo, gumbo_links, gumbo_tree);
        s = Run(pages, HtmlParser::kStreaming, scan_links, tree);
      }
      scan.push_back(s > 0 ? static_cast<double>(bytes) / 1e6 / s : 0);
      gumbo.push_back(g > 0 ? static_cast<double>(bytes) / 1e6 / g : 0);
      ratio.push_back(s > 0 ? g / s : 0);
    }
    if (scan_links != gumbo_links) {
      std::fprintf(stderr, "extract_bench: %s: %zu links streamed, %zu with Gumbo\n", dir.c_str(),
                   scan_links, gumbo_links);
      return 1;
    }
    std::printf("%-40s %6zu %7.1f %10.1f %10.1f %6.2fx %6zu\n", dir.c_str(), pages.size(),
                static_cast<double>(bytes) / 1e6, bench::Median(scan), bench::Median(gumbo),
                bench::Median(ratio), tree);
  }
  return 0;
}

}  // namespace
}  // namespace crawlrank

int main(int argc, char** argv) { return crawlrank::Main(argc, argv); }
