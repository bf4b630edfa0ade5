// The reading half of page_db_load: parses and checks its input lines (page lines, index
// pairs or URL pairs; page_db_load.cc lists the forms), writing nothing. Page lines and
// index pairs are kept whole in an Input; URL pairs are handed on in bounded batches as
// they are read, so that a load of any size streams through a bounded amount of memory.
// Apart from the tool's main so that fuzz/page_line_fuzz.cc can drive it.
#ifndef CRAWLRANK_TOOLS_LOAD_INPUT_H_
#define CRAWLRANK_TOOLS_LOAD_INPUT_H_

#include <cstdint>
#include <functional>
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
  std::string source;         // canonical
  std::vector<Link> targets;  // canonical, in input order
};

// The URL pairs of consecutive input lines, grouped by source: what page_db_load writes
// in one transaction.
struct UrlBatch {
  std::vector<UrlGroup> groups;  // one per distinct source, in order of first appearance
  uint64_t links = 0;            // URL pairs in the batch
  uint64_t first_line = 0;       // input line numbers (from 1) of its first and last pair
  uint64_t last_line = 0;
};

// Everything read from page lines and index pairs, checked, ready to write.
struct Input {
  std::vector<PageRecord> pages;  // page lines
  std::vector<std::pair<uint32_t, uint32_t>> id_links;
  uint32_t max_link_id = 0;  // the largest id in id_links
  uint64_t url_links = 0;    // URL pairs read (each in one of the batches handed on)
  uint64_t lines = 0;
};

// Reads the lines of one input.
class InputReader {
 public:
  // Receives each batch of URL pairs, in input order, to keep or move from. A status that
  // is not OK stops the reading; ReadAll returns it as it is.
  using UrlBatchSink = std::function<Status(UrlBatch& batch)>;
  // URL pairs per batch unless a batch's URLs reach kUrlBatchBytes first.
  static constexpr size_t kDefaultBatchLines = size_t{1} << 14;
  static constexpr size_t kUrlBatchBytes = size_t{16} << 20;

  // `first_id` is the page count of the DB loaded into (page lines continue from it);
  // `profile` is its URL profile. REQUIRES: batch_lines > 0.
  InputReader(std::string name, uint64_t first_id, UrlProfile profile, UrlBatchSink sink,
              size_t batch_lines = kDefaultBatchLines)
      : name_(std::move(name)),
        first_id_(first_id),
        profile_(profile),
        sink_(std::move(sink)),
        batch_lines_(batch_lines) {}

  // Reads every line of `in`, handing each full batch of URL pairs to the sink as it
  // goes and the last one at the end. InvalidArgument "NAME:LINE: why" at the first bad
  // line; the batches before the one that line was in have been handed on.
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
  // Hands the batch to the sink and starts an empty one.
  Status FlushBatch();

  std::string name_;
  uint64_t first_id_;
  UrlProfile profile_;
  UrlBatchSink sink_;
  size_t batch_lines_;
  Kind kind_ = Kind::kNone;
  Input input_;
  // The batch being read: its groups by canonical source, the URL bytes it holds, and the
  // source field of the last pair as written, whose group the next pair with the same
  // field joins without a look-up (a source's lines usually come together).
  UrlBatch batch_;
  std::unordered_map<std::string, size_t> group_of_;
  size_t batch_bytes_ = 0;
  std::string last_source_;
  size_t last_group_ = 0;
};

// The ids of a bare edge list stand for pages 0, 1, 2, ...: the loader creates a page for
// every id up to the largest. An id far past anything the links could number (two new
// pages a link, plus slack) is a typo or another kind of file: InvalidArgument, before
// billions of empty pages are created.
Status CheckDenseIds(const Input& input, uint64_t first_id);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_LOAD_INPUT_H_
