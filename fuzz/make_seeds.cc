// Writes the seed corpus of every fuzz target, fuzz/corpus/<name>/<seed>: a handful of small
// valid inputs each, made with the library's own encoders so that they stay valid when a
// format changes (rerun this, review the diff, commit). Deterministic: the same files each
// run. Built beside the fuzzers (scripts/fuzz.sh's build dir):
//
//   cmake --build build-fuzz --target make_seeds && build-fuzz/fuzz/make_seeds fuzz/corpus
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/rank_store.h"
#include "crawlrank/robots.h"
#include "crawlrank/url.h"
#include "page_db/link_block.h"
#include "page_db/page_record.h"
#include "page_line.h"

namespace crawlrank {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << bytes;
}

std::string Le32(uint32_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i) s += static_cast<char>(v >> (8 * i));
  return s;
}

void UrlSeeds(const fs::path& dir) {
  // One URL: canonicalised under both profiles. A newline: base, then reference.
  Write(dir, "dot_segments", "http://example.com/a/./b/../c?q=1#frag");
  Write(dir, "idn_port_escapes",
        "HTTPS://B\xc3\xbc"
        "cher.Example:443/%7euser/%e4?b=2&a=1&a=");
  Write(dir, "ipv6_space", "http://[::1]:8080/x y");
  Write(dir, "userinfo_params", "http://user:pw@example.org/path;params?x=%zz");
  Write(dir, "ipv4_dots", "http://192.168.0.1./%2e%2E/index.html");
  Write(dir, "resolve_parent", "http://example.com/dir/page.html\n../other?q#f");
  Write(dir, "resolve_network_path", "https://a.example/b/c\n//cdn.example/x.js");
  Write(dir, "resolve_query", "http://example.com/p\n?only=query");
  Write(dir, "resolve_absolute", "http://example.com/\nHTTP://Other.Example/%41");
}

void LinkBlockSeeds(const fs::path& dir) {
  // Decode mode (0): block number, then a value.
  const auto block = [](uint32_t number,
                        const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& entries) {
    std::string value;
    for (const auto& [source, targets] : entries) AppendLinkBlockEntry(source, targets, &value);
    return std::string(1, '\0') + Le32(number) + value;
  };
  Write(dir, "run", block(0, {{10, {10, 11, 12, 13, 14}}}));
  Write(dir, "three_entries",
        block(1, {{32, {0, 5, 40}}, {33, {33}}, {63, {1, 2, 100, 1000, 100000}}}));
  Write(dir, "wide_gaps", block(2, {{64, {0, 1u << 30, (1u << 31) + 7, UINT32_MAX}}}));
  Write(dir, "last_block", block((1u << 27) - 1, {{UINT32_MAX, {0, UINT32_MAX - 1, UINT32_MAX}}}));
  std::vector<uint32_t> many;
  for (uint32_t i = 0; i < 40; ++i) many.push_back(i * i * 7 + i);
  Write(dir, "forty_targets", block(5, {{160, many}, {170, {3}}}));
  // Encode mode (1): block, shift, first slot, then per entry: count, first target (4
  // bytes), one byte per gap, slot step.
  Write(dir, "encode_lists",
        std::string("\x01", 1) + Le32(3) + "\x04\x02" + "\x03" + Le32(90) + "\x00\x07\xff" +
            "\x01" + "\x00" + Le32(UINT32_MAX) + "\x02");
}

void PageRecordSeeds(const fs::path& dir) {
  const auto record = [](uint32_t id, PageRecord r) {
    r.id = id;
    r.fingerprint = UrlFingerprint(r.url);
    std::string value;
    EncodePageRecord(r, &value);
    return Le32(id) + value;
  };
  PageRecord linked;
  linked.url = "http://example.com/";
  linked.depth = 1;
  linked.discovered_from = 0x0123456789abcdefu;
  linked.link_score = 0.25f;
  Write(dir, "linked_only", record(7, linked));
  PageRecord crawled;
  crawled.url = "https://www.example.org/a/b?c=d";
  crawled.first_crawl_ms = 1700000000123;
  crawled.last_crawl_ms = 1700000500456;
  crawled.n_crawls = 3;
  crawled.n_changes = 2;
  crawled.content_score = 0.75f;
  crawled.content_hash = 0xfedcba9876543210u;
  crawled.http_status = 200;
  crawled.n_errors = 1;
  Write(dir, "crawled", record(123456, crawled));
  PageRecord large = crawled;
  large.depth = UINT32_MAX;
  large.first_crawl_ms = INT64_MAX;
  large.last_crawl_ms = INT64_MAX;
  large.n_crawls = UINT32_MAX;
  large.http_status = UINT16_MAX;
  large.n_errors = UINT32_MAX;
  Write(dir, "largest_fields", record(UINT32_MAX, large));
}

void RankFileSeeds(const fs::path& dir) {
  const fs::path db = fs::temp_directory_path() / "crawlrank-make-seeds";
  fs::remove_all(db);
  fs::create_directories(db);
  // Selector: the algorithm's number - 1; top bit: the target rewrites the checksums.
  const auto file = [&](RankAlgorithm algorithm, size_t pages, bool hubs) {
    StoredRank stored;
    stored.rank.algorithm = algorithm;
    stored.rank.report.pages = static_cast<uint32_t>(pages);
    stored.rank.report.iterations = 12;
    stored.rank.report.converged = true;
    stored.rank.report.mode = RankMode::kCsr;
    stored.created_ms = 1700000000000;
    for (size_t i = 0; i < pages; ++i) stored.rank.scores.push_back(1.0 / (i + 2));
    if (hubs) stored.rank.hubs.assign(pages, 0.5);
    if (!SaveRank(db.string(), stored).ok()) std::abort();
    std::ifstream in(RankFilePath(db.string(), algorithm), std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    return std::string(1, static_cast<char>(static_cast<int>(algorithm) - 1)) + bytes;
  };
  Write(dir, "pagerank", file(RankAlgorithm::kPageRank, 4, false));
  Write(dir, "hits", file(RankAlgorithm::kHits, 3, true));
  Write(dir, "indegree_empty", file(RankAlgorithm::kInDegree, 0, false));
  std::string fixed = file(RankAlgorithm::kTrustRank, 2, false);
  fixed[0] = static_cast<char>(fixed[0] | 0x80);
  Write(dir, "trustrank_fixed_checksums", fixed);
  fs::remove_all(db);
}

void PageLineSeeds(const fs::path& dir) {
  // Selector: bit 0 w3lib/1, bits 1-2 the DB's page count, bits 3-4 the batch size.
  std::vector<PageRecord> pages(3);
  const char* urls[] = {"http://example.com/", "http://example.com/a?b=c", "https://example.org/"};
  for (uint32_t i = 0; i < pages.size(); ++i) {
    pages[i].id = i;
    pages[i].url = urls[i];
    pages[i].fingerprint = UrlFingerprint(pages[i].url);
  }
  pages[1].first_crawl_ms = 1700000000123;
  pages[1].last_crawl_ms = 1700000360000;
  pages[1].n_crawls = 2;
  pages[1].n_changes = 1;
  pages[1].content_score = 0.5f;
  pages[1].depth = 1;
  pages[1].discovered_from = pages[0].fingerprint;
  pages[1].link_score = 0.125f;
  pages[1].content_hash = 42;
  pages[1].http_status = 200;
  const auto dump = [&](bool full) {
    std::string text = tools::PageLineHeader(full) + "\n";
    for (const PageRecord& page : pages) {
      tools::AppendPageLine(page, full, text);
      text += '\n';
    }
    return text + "0 1\n0 2\n1 0\n";
  };
  Write(dir, "dump_basic", std::string(1, '\0') + dump(false));
  Write(dir, "dump_full", std::string(1, '\0') + dump(true));
  Write(dir, "edge_list_after_two", std::string(1, '\x04') + "# edges\r\n2 3\r\n3\t4\n\n4 2\n");
  Write(dir, "url_pairs_w3lib",
        std::string(1, '\x01') +
            "http://a.example/?b=1&a=2 http://b.example/x\n"
            "http://a.example/?a=2&b=1 http://b.example/y\n"
            "https://c.example/ http://a.example/?b=1&a=2\n");
  // Batches of two URL pairs; a.example's lines apart, in two batches.
  Write(dir, "url_pairs_batches_of_two",
        std::string(1, '\x10') +
            "http://a.example/ http://b.example/\nhttp://b.example/ http://a.example/\n"
            "http://a.example/ http://c.example/\nhttp://a.example/ http://d.example/\n");
}

void RobotsSeeds(const fs::path& dir) {
  // robots.txt text (each line also a path), and one cache form for Deserialize.
  Write(dir, "rfc_example",
        "User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\n"
        "User-Agent: foobot\nDisallow:/\nAllow:/example/page.html\n"
        "Allow:/example/allowed.gif\n\nUser-Agent: barbot\nUser-Agent: bazbot\n"
        "Disallow: /example/page.html\n\nUser-Agent: quxbot\n");
  Write(dir, "lenient",
        "\xEF\xBB\xBFuseragent crawlrank/2.0\r\ndissallow /a*b$\r\nCrawl-delay: 1.5\r"
        "Sitemap: https://example.com/s.xml # map\nallow: /%7Ea/%2f/\xE3\x83\x84\n"
        "disallow:\nUser-agent: *\nDisallow: /\n");
  Write(dir, "paths",
        "User-agent: crawlrank\nDisallow: /*?*sid=\nAllow: /$\n/\n/?sid=1\n/a?b=1&sid=2\n"
        "https://example.com/robots.txt\nhttp://h?sid=\n");
  Write(dir, "serialized",
        RobotsRules::Parse("User-agent: *\nCrawl-delay: 2\nDisallow: /a\nAllow: /b*c$\n"
                           "Sitemap: https://example.com/s\n",
                           "crawlrank")
            .Serialize());
}

// html_extract_fuzz: a selector byte (content-type charset, profile, follow_nofollow,
// max_links, context words; see html_extract_fuzz.cc), then the body.
void HtmlExtractSeeds(const fs::path& dir) {
  const auto seed = [](uint8_t selector, std::string_view body) {
    return std::string(1, static_cast<char>(selector)) + std::string(body);
  };
  Write(dir, "basic_page",
        seed(0x00,
             "<!DOCTYPE html><html><head><base href=\"/b/\"><title>The page</title>"
             "<link rel=canonical href=\"/c\"><meta name=robots content=noindex></head><body>"
             "<p>Some <b>text</b> and <a href=\"x.html\">a link</a> <a href=\"/y\" rel=nofollow>"
             "y</a> <a href=\"javascript:void(0)\">js</a><map><area href=\"/m\" alt=\"map\">"
             "</map></body></html>"));
  Write(dir, "meta_latin1",
        seed(0x03, "<meta charset=latin1><p>caf\xe9 <a href=\"caf\xe9.html\">\xe9t\xe9</a></p>"));
  Write(dir, "bom_utf16le",
        seed(0x04, std::string_view("\xff\xfe<\0a\0 \0h\0r\0e\0f\0=\0/\0x\0>\0\xe9\0", 26)));
  Write(dir, "shift_jis_w3lib", seed(0x16, "<p>\x93\xfa\x96\x7b <a href=/sjis>\x93\xfa</a></p>"));
  Write(dir, "nofollow_page",
        seed(0x20,
             "<meta name=robots content=none><a href=\"?b=2&amp;a=1#f\">q</a>"
             "<a href=\"//other.example/\">o</a><a href=\"http://[bad/\">b</a>"));
  Write(dir, "max_links",
        seed(0x40,
             "<a href=1>1</a><a href=2>2</a><a href=3>3</a><a href=4>4</a><a href=1>again</a>"
             "<table><td><a href=5>5</a></table>"
             "<script>document.write(\"<a href=6>\")</script>"));
  Write(dir, "invalid_utf8_nesting",
        seed(0x00,
             "<p>a\xff"
             "b\xe2\x82"
             "c<span><span><span><a href=/deep>deep</a></span></div></p>"
             "<!-- <a href=/comment> -->"));
}

// html_scan_fuzz: a selector byte (charset, follow_nofollow; see html_scan_fuzz.cc), then
// the body: markup that exercises the tokenizer's states and the tree builder's modes.
void HtmlScanSeeds(const fs::path& dir) {
  const auto seed = [](uint8_t selector, std::string_view body) {
    return std::string(1, static_cast<char>(selector)) + std::string(body);
  };
  Write(dir, "head_and_body",
        seed(0x00,
             "<!DOCTYPE html><html><head><base href=/b/><link rel=canonical href=c>"
             "<noscript><link rel=x href=n></noscript><title>T &amp; <b>t</b></title>"
             "<meta name=ROBOTS content=nofollow></head><body><a href=x rel=nofollow>x</a>"
             "<a href='&#x41;&copy=1&notit;'>r</a></body></html>"));
  Write(dir, "raw_text",
        seed(0x02,
             "<style><a href=s></style><textarea><a href=t></textarea><xmp><a href=x></xmp>"
             "<script><!--<script></script><a href=e></script>--></script><a href=after>a</a>"
             "<iframe><a href=i></iframe><noembed><a href=n></noembed><plaintext><a href=p>"));
  Write(dir, "comments",
        seed(0x00,
             "<!--><a href=1><!---><a href=2><!-- x --!><a href=3><!-- <a href=4> -->"
             "<?php <a href=5> ?><a href=6></ a href=7><!DOCTYPE x \">\"><a href=8>"));
  Write(dir, "foreign",
        seed(0x01,
             "<svg><title><a href=1>t</a></title><![CDATA[<a href=2>]]><foreignObject>"
             "<a href=3>f</a></foreignObject><p><a href=4>out</a></svg>"
             "<math><mi><a href=5>m</a></mi><annotation-xml encoding=text/html><a href=6>h"));
  Write(dir, "tables_and_select",
        seed(0x00,
             "<table><tr><td><a href=1>1</a><td>2</table><select><option><a href=3>3"
             "<style>s</style></select><table><caption>c</caption><col><tbody><tr><th>h"
             "</table><table>foster<a href=4>4</a></table><frameset><a href=5>"));
  Write(dir, "misnested",
        seed(0x00,
             "<p><a href=1>a<p>b</a><b><div>c</b>d</div><a href=2><a href=3>x</a>"
             "<form><form><div></form></div><li><a href=4>l<li>m</ul></li>"));
}

}  // namespace
}  // namespace crawlrank

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds CORPUS_DIR (fuzz/corpus)\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  crawlrank::UrlSeeds(out / "url");
  crawlrank::LinkBlockSeeds(out / "link_block");
  crawlrank::PageRecordSeeds(out / "page_record");
  crawlrank::RankFileSeeds(out / "rank_file");
  crawlrank::PageLineSeeds(out / "page_line");
  crawlrank::RobotsSeeds(out / "robots");
  crawlrank::HtmlExtractSeeds(out / "html_extract");
  crawlrank::HtmlScanSeeds(out / "html_scan");
  return 0;
}
