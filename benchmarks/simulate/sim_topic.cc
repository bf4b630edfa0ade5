// A topic's files for crawlrank_simulate (sim_topic.h): the scores and the relevant pages
// read, and the harvest curve.
#include "sim_topic.h"

#include <charconv>
#include <cmath>
#include <fstream>

namespace crawlrank::bench {
namespace {

// The whitespace-separated fields of `line`; none for a blank or '#' line.
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  size_t pos = 0;
  for (;;) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) break;
    const size_t end = std::min(line.size(), line.find_first_of(" \t", pos));
    if (fields.empty() && line[pos] == '#') break;
    fields.push_back(line.substr(pos, end - pos));
    pos = end;
  }
  return fields;
}

}  // namespace

Result<TopicScores> ReadTopicScores(const std::string& path, uint32_t pages,
                                    const NodeLookup& node_of) {
  std::ifstream in(path);
  if (!in) return NotFoundError("read scores \"" + path + "\": cannot open it");
  TopicScores scores;
  scores.content.assign(pages, 0.f);
  std::string line;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    const std::vector<std::string_view> f = Fields(line);
    if (f.empty()) continue;
    const auto error = [&](const std::string& what) {
      return InvalidArgumentError("read scores \"" + path + "\": line " + std::to_string(number) +
                                  ": " + what);
    };
    if (f.size() != 2 && f.size() != 3) return error("expected URL SCORE or SRC DST SCORE");
    double score = 0;
    const std::string_view text = f.back();
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), score);
    if (ec != std::errc() || end != text.data() + text.size() || !(score >= 0 && score <= 1)) {
      return error("\"" + std::string(text) + "\" is not a score from 0 to 1");
    }
    std::array<uint32_t, 2> nodes{};
    for (size_t i = 0; i + 1 < f.size(); ++i) {
      const std::optional<uint32_t> node = node_of(f[i]);
      if (!node) return error("\"" + std::string(f[i]) + "\" is not a page of the graph");
      nodes[i] = *node;
    }
    if (f.size() == 2) {
      scores.content[nodes[0]] = static_cast<float>(score);
    } else {
      scores.links[uint64_t{nodes[0]} << 32 | nodes[1]] = static_cast<float>(score);
    }
  }
  if (in.bad()) return IoError("read scores \"" + path + "\": read error");
  return scores;
}

Result<std::vector<bool>> ReadRelevant(const std::string& path, std::span<const std::string> urls) {
  std::ifstream in(path);
  if (!in) return NotFoundError("read relevant pages \"" + path + "\": cannot open it");
  std::vector<std::string> prefixes;
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string_view> f = Fields(line);
    if (f.size() > 1) {
      return InvalidArgumentError("read relevant pages \"" + path + "\": \"" + line +
                                  "\": one URL prefix a line");
    }
    if (!f.empty()) prefixes.emplace_back(f[0]);
  }
  if (prefixes.empty()) return InvalidArgumentError("read relevant pages \"" + path + "\": no prefix");
  std::vector<bool> relevant(urls.size(), false);
  uint64_t count = 0;
  for (size_t node = 0; node < urls.size(); ++node) {
    for (const std::string& prefix : prefixes) {
      if (urls[node].starts_with(prefix)) {
        relevant[node] = true;
        ++count;
        break;
      }
    }
  }
  if (count == 0) {
    return InvalidArgumentError("read relevant pages \"" + path + "\": no page of the graph starts with " +
                                prefixes.front() + (prefixes.size() > 1 ? " or the others" : ""));
  }
  return relevant;
}

std::vector<double> HarvestCurve(std::span<const uint32_t> order, const std::vector<bool>& relevant,
                                 uint64_t crawl_pages, size_t points) {
  std::vector<double> curve;
  uint64_t hits = 0;
  size_t next = 1;
  for (uint64_t i = 0; i < order.size() && next <= points; ++i) {
    if (relevant[order[i]]) ++hits;
    while (next <= points &&
           i + 1 == static_cast<uint64_t>(std::llround(static_cast<double>(crawl_pages) *
                                                       static_cast<double>(next) / static_cast<double>(points)))) {
      curve.push_back(static_cast<double>(hits) / static_cast<double>(i + 1));
      ++next;
    }
  }
  return curve;
}

}  // namespace crawlrank::bench
