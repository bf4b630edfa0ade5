// The streaming extractor against Gumbo's DOM (HtmlParser::kStreaming against kGumbo) on
// every page of Debian documentation packages of different generators: Sphinx
// (python3.11-doc), DocBook (postgresql-doc-15), rustdoc and mdBook (rust-doc), and
// BoostBook, Doxygen and hand-written pages (libboost1.74-doc). Gumbo is the expectation:
// an independent implementation of the standard's tree builder.
//
// Every field of HtmlPage must match, links (URL, anchor text, score) in order, the
// content hash and the text sizes included: a changed hash would count as a change on
// every page's next revisit. A package that is not installed is skipped (scripts/
// install-deps.sh installs them); CRAWLRANK_DIFF_DIRS (directories separated by ':')
// replaces the list.
//
// The suite's run reads every 4th page (every 64th in a sanitizer build), to keep
// scripts/test.sh within its time; CRAWLRANK_DIFF_EVERY=1 reads every page (about a
// minute on 2 cores, 37,605 pages, 604 MB), as docs/crawler.md's figures did.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "crawlrank/html_extract.h"

namespace crawlrank {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Corpora() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CRAWLRANK_DIFF_DIRS")) {
    std::stringstream list(env);
    for (std::string dir; std::getline(list, dir, ':');) {
      if (!dir.empty()) dirs.push_back(dir);
    }
    return dirs;
  }
  return {"/usr/share/doc/python3.11/html", "/usr/share/doc/postgresql-doc-15/html",
          "/usr/share/doc/rust-doc/html", "/usr/share/doc/libboost1.74-doc"};
}

// The first difference between two extractions, or "".
std::string Difference(const HtmlPage& got, const HtmlPage& want) {
  std::ostringstream out;
  if (got.links.size() != want.links.size()) {
    out << "links: " << got.links.size() << " against " << want.links.size() << "; ";
  }
  for (size_t i = 0; i < std::min(got.links.size(), want.links.size()); ++i) {
    const ExtractedLink& g = got.links[i];
    const ExtractedLink& w = want.links[i];
    if (g.url != w.url || g.anchor_text != w.anchor_text || g.score != w.score) {
      out << "link " << i << ": " << g.url << " \"" << g.anchor_text << "\" against " << w.url
          << " \"" << w.anchor_text << "\"; ";
      break;
    }
  }
  const auto field = [&](const char* name, const auto& g, const auto& w) {
    if (g != w) out << name << ": " << g << " against " << w << "; ";
  };
  field("canonical", got.canonical, want.canonical);
  field("title", got.title, want.title);
  field("noindex", got.noindex, want.noindex);
  field("nofollow", got.nofollow, want.nofollow);
  field("content_hash", got.content_hash, want.content_hash);
  field("text_bytes", got.text_bytes, want.text_bytes);
  field("content_score", got.content_score, want.content_score);
  field("nofollow_links", got.nofollow_links, want.nofollow_links);
  field("dropped_links", got.dropped_links, want.dropped_links);
  field("bad_links", got.bad_links, want.bad_links);
  field("other_scheme_links", got.other_scheme_links, want.other_scheme_links);
  field("nesting_cut", got.nesting_cut, want.nesting_cut);
  field("charset", got.charset, want.charset);
  return out.str();
}

size_t Stride() {
  if (const char* env = std::getenv("CRAWLRANK_DIFF_EVERY")) {
    return std::max<size_t>(1, std::strtoull(env, nullptr, 10));
  }
#ifdef CRAWLRANK_TESTS_SANITIZED
  return 64;
#else
  return 4;
#endif
}

TEST(HtmlDifferential, EveryPageOfTheDocumentationPackagesAsGumbosDom) {
  const size_t every = Stride();
  const KeywordScorer keywords({"function", "type", "table", "index", "return"});
  size_t corpora = 0;
  for (const std::string& dir : Corpora()) {
    if (!fs::is_directory(dir)) {
      std::printf("%s: not installed, skipped\n", dir.c_str());
      continue;
    }
    ++corpora;
    size_t pages = 0, tree = 0, bytes = 0, differ = 0, seen = 0;
    for (const auto& entry : fs::recursive_directory_iterator(
             dir, fs::directory_options::follow_directory_symlink |
                      fs::directory_options::skip_permission_denied)) {
      const std::string path = entry.path().string();
      if (!entry.is_regular_file() || !(path.ends_with(".html") || path.ends_with(".htm"))) {
        continue;
      }
      if (seen++ % every != 0) continue;
      std::ifstream in(path, std::ios::binary);
      const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::string url = "http://docs.test/" + path.substr(dir.size() + 1);
      HtmlExtractOptions options;
      options.keywords = &keywords;
      options.max_links = 1000000;
      Result<HtmlPage> streamed = ExtractHtml(body, url, "text/html", options);
      options.parser = HtmlParser::kGumbo;
      Result<HtmlPage> tree_page = ExtractHtml(body, url, "text/html", options);
      ASSERT_TRUE(streamed.ok() && tree_page.ok()) << path;
      ++pages;
      bytes += body.size();
      tree += streamed->tree_parsed ? 1 : 0;
      if (const std::string diff = Difference(*streamed, *tree_page); !diff.empty()) {
        if (++differ <= 10) ADD_FAILURE() << path << ": " << diff;
      }
    }
    std::printf("%s: %zu of %zu pages, %.1f MB, %zu handed to Gumbo, %zu differ\n", dir.c_str(),
                pages, seen, static_cast<double>(bytes) / 1e6, tree, differ);
    EXPECT_EQ(differ, 0u) << dir;
  }
  if (corpora == 0) GTEST_SKIP() << "no documentation package installed";
}

}  // namespace
}  // namespace crawlrank
