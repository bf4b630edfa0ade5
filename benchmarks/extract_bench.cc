// extract_bench: ExtractHtml's speed with each parser (the streaming scan, Gumbo's DOM) on
// the HTML pages of a few directories, one thread, CPU time of that thread.
//
//   extract_bench [--rounds 5] [--only scan|gumbo] DIR...
//
// Each directory's pages are read into memory first; then every round runs both parsers
// over all of them, the order swapped each round. Prints, per directory, the median MB/s
// (of HTML bytes per CPU second) of each parser and the median of the rounds' ratios.
// --only runs one parser (for a profiler); the other's columns are then 0.
#include <time.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
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

int Main(int argc, char** argv) {
  CLI::App app{"ExtractHtml's speed with the streaming scan and with Gumbo"};
  std::vector<std::string> dirs;
  int rounds = 5;
  app.add_option("dirs", dirs, "directories of HTML pages")->required();
  app.add_option("--rounds", rounds, "rounds, the parsers' order swapped each round")
      ->check(CLI::Range(1, 1000));
  std::string only;
  app.add_option("--only", only, "run one parser only")->check(CLI::IsMember({"scan", "gumbo"}));
  CLI11_PARSE(app, argc, argv);

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
