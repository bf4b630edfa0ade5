// The reading half of page_db_load: parses and checks its input lines (page lines, index
// pairs or URL pairs; page_db_load.cc lists the forms) into an Input, writing nothing.
// Apart from the tool's main so that fuzz/page_line_fuzz.cc can drive it.
#ifndef CRAWLRANK_TOOLS_LOAD_INPUT_H_
#define CRAWLRANK_TOOLS_LOAD_INPUT_H_

#include <cstdint>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/url.h"

namespace crawlrank::tools {

struct UrlGroup {
  std::string source;
  std::vector<Link> targets;
};

// Everything read from the input, checked, ready to write.
struct Input {
  std::vector<PageRecord> pages;  // page lines
  std::vector<std::pair<uint32_t, uint32_t>> id_links;
  uint32_t max_link_id = 0;          // the largest id in id_links
  std::vector<UrlGroup> url_groups;  // by source, in order of first appearance
  uint64_t url_links = 0;
  uint64_t lines = 0;
};

// Reads the lines of one input. `first_id` is the page count of the DB loaded into (page
// lines continue from it); `profile` is its URL profile.
class InputReader {
 public:
  InputReader(std::string name, uint64_t first_id, UrlProfile profile)
      : name_(std::move(name)), first_id_(first_id), profile_(profile) {}

  // Reads every line of `in`. InvalidArgument "NAME:LINE: why" at the first bad line.
  Status ReadAll(std::istream& in);

  Input& input() { return input_; }

 private:
  enum class Kind { kNone, kPages, kIdLinks, kUrlLinks };

  Status ReadLine(std::string_view line);
  static bool IsNumber(std::string_view s);
  Status Become(Kind kind);
  Status ReadPage(std::span<const std::string_view> fields);
  Status ReadIdLink(std::string_view src, std::string_view dst);
  Status ReadUrlLink(std::string_view src, std::string_view dst);

  std::string name_;
  uint64_t first_id_;
  UrlProfile profile_;
  Kind kind_ = Kind::kNone;
  Input input_;
  std::unordered_map<std::string, size_t> group_of_;
};

// The ids of a bare edge list stand for pages 0, 1, 2, ...: the loader creates a page for
// every id up to the largest. An id far past anything the links could number (two new
// pages a link, plus slack) is a typo or another kind of file: InvalidArgument, before
// billions of empty pages are created.
Status CheckDenseIds(const Input& input, uint64_t first_id);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_LOAD_INPUT_H_
