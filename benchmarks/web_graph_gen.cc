// web_graph_gen: writes a generated web-like graph as `src dst` lines (page indexes), or
// as `src_url dst_url` lines with --urls; page_db_load reads either.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "web_graph.h"

int main(int argc, char** argv) {
  CLI::App app("Writes a deterministic web-like link graph to standard output.", "web_graph_gen");
  crawlrank::bench::WebGraphOptions options;
  bool urls = false, no_self_loops = false;
  uint64_t permute_seed = 0;
  app.add_option("--pages", options.pages, "pages")->capture_default_str();
  app.add_option("--degree", options.mean_out_degree, "mean out-degree")->capture_default_str();
  app.add_option("--seed", options.seed, "seed")->capture_default_str();
  app.add_option("--local", options.local_fraction,
                 "share of the links (not drawn at random) that stay within their host")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--random-share", options.random_share,
                 "share of all links whose target is a page drawn uniformly at random")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_flag("--urls", urls, "print URLs instead of page indexes");
  app.add_flag("--no-self-loops", no_self_loops, "leave out links from a page to itself");
  auto* permute = app.add_option(
      "--permute", permute_seed,
      "renumber the pages by a random permutation with this seed (page indexes only): the "
      "same links, without the generator's host-by-host numbering");
  permute->excludes("--urls");
  CLI11_PARSE(app, argc, argv);

  const crawlrank::bench::WebGraph graph(options);
  std::vector<uint32_t> id;
  if (*permute) id = crawlrank::bench::RandomPermutation(graph.pages(), permute_seed);
  std::vector<uint32_t> targets;
  std::string out;
  char number[16];
  auto append_number = [&](uint32_t n) {
    auto [end, ec] = std::to_chars(number, number + sizeof number, id.empty() ? n : id[n]);
    out.append(number, end);
  };
  for (uint32_t page = 0; page < graph.pages(); ++page) {
    graph.OutLinks(page, targets);
    for (uint32_t target : targets) {
      if (no_self_loops && target == page) continue;
      if (urls) {
        out += graph.Url(page);
        out += ' ';
        out += graph.Url(target);
      } else {
        append_number(page);
        out += ' ';
        append_number(target);
      }
      out += '\n';
    }
    if (out.size() > (1 << 20)) {
      if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) return 1;
      out.clear();
    }
  }
  return std::fwrite(out.data(), 1, out.size(), stdout) == out.size() ? 0 : 1;
}
