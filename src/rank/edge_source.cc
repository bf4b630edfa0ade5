// Edge sources over a text edge list, an in-memory vector and a cross-group filter
// (edge_source.h). SnapshotEdgeSource, which reads a PageDB, is in
// src/rank_db/snapshot_edge_source.cc.
#include "crawlrank/edge_source.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>

#include "base/errno_text.h"

namespace crawlrank {
namespace {

constexpr size_t kChunkTargets = size_t{1} << 16;

// Closes a FILE* on destruction.
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using UniqueFile = std::unique_ptr<std::FILE, FileCloser>;

Result<UniqueFile> OpenText(const std::string& path) {
  UniqueFile file(std::fopen(path.c_str(), "r"));
  if (file == nullptr) {
    const std::string message = "cannot open edge list \"" + path + "\": " + ErrnoText();
    return errno == ENOENT ? NotFoundError(message) : IoError(message);
  }
  return file;
}

// getline's buffer, freed on destruction.
struct LineBuffer {
  char* data = nullptr;
  size_t capacity = 0;
  LineBuffer() = default;
  LineBuffer(const LineBuffer&) = delete;
  LineBuffer& operator=(const LineBuffer&) = delete;
  ~LineBuffer() { std::free(data); }
};

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// Reads one unsigned 32-bit id from `p`, skipping blanks before it.
bool ReadId(const char*& p, const char* end, uint32_t* id) {
  while (p != end && IsBlank(*p)) ++p;
  const auto [next, ec] = std::from_chars(p, end, *id);
  if (ec != std::errc() || next == p) return false;
  p = next;
  return true;
}

// Calls `fn(src, dst)` for every edge line of the file, in file order. Lines that are
// blank or start with '#' are skipped; anything else must be exactly two ids with
// non-decreasing sources. Errors name the file and line.
template <typename Fn>
Status ForEachEdgeLine(const std::string& path, Fn&& fn) {
  CRAWLRANK_ASSIGN_OR_RETURN(UniqueFile file, OpenText(path));
  LineBuffer buffer;
  uint64_t line_number = 0;
  int64_t previous_source = -1;
  ssize_t length;
  while ((length = getline(&buffer.data, &buffer.capacity, file.get())) != -1) {
    const char* line = buffer.data;
    ++line_number;
    const char* p = line;
    const char* end = line + length;
    while (end != p && (end[-1] == '\n' || IsBlank(end[-1]))) --end;
    while (p != end && IsBlank(*p)) ++p;
    if (p == end || *p == '#') continue;
    uint32_t source, target;
    const bool ok = ReadId(p, end, &source) && ReadId(p, end, &target) && p == end;
    const auto where = [&] {
      return "edge list \"" + path + "\" line " + std::to_string(line_number);
    };
    if (!ok) {
      return InvalidArgumentError(
          where() + ": expected two page ids `src dst`, got " +
          QuoteForMessage(std::string_view(line, static_cast<size_t>(end - line))));
    }
    if (int64_t{source} < previous_source) {
      return InvalidArgumentError(where() + ": source " + std::to_string(source) +
                                  " comes after source " + std::to_string(previous_source) +
                                  "; sort the file by source first");
    }
    previous_source = source;
    CRAWLRANK_RETURN_IF_ERROR(fn(source, target));
  }
  if (std::ferror(file.get())) return IoError("cannot read edge list \"" + path + "\"");
  return Status::Ok();
}

// Builds chunks from edges arriving grouped by source, in source order, and hands full
// ones to `sink`. Each source's targets are sorted and repeats dropped, as in a PageDB.
class ChunkBuilder {
 public:
  explicit ChunkBuilder(const EdgeChunkSink& sink) : sink_(sink) {}
  Status Add(uint32_t source, uint32_t target) {
    if (chunk_.sources.empty() || chunk_.sources.back() != source) {
      FinishSource();
      if (chunk_.targets.size() >= kChunkTargets) CRAWLRANK_RETURN_IF_ERROR(Flush());
      chunk_.sources.push_back(source);
      chunk_.ends.push_back(static_cast<uint32_t>(chunk_.targets.size()));
    }
    chunk_.targets.push_back(target);
    ++chunk_.ends.back();
    return Status::Ok();
  }
  Status Flush() {
    FinishSource();
    if (chunk_.sources.empty()) return Status::Ok();
    Status status = sink_(chunk_);
    chunk_.Clear();
    return status;
  }

 private:
  void FinishSource() {
    if (chunk_.sources.empty()) return;
    const size_t i = chunk_.size() - 1;
    const auto begin = chunk_.targets.begin() + (i == 0 ? 0 : chunk_.ends[i - 1]);
    std::sort(begin, chunk_.targets.end());
    chunk_.targets.erase(std::unique(begin, chunk_.targets.end()), chunk_.targets.end());
    chunk_.ends[i] = static_cast<uint32_t>(chunk_.targets.size());
  }
  const EdgeChunkSink& sink_;
  EdgeChunk chunk_;
};

// One pass over an edge-list file, as chunks.
Status ScanEdgeList(const std::string& path, const EdgeChunkSink& sink) {
  ChunkBuilder builder(sink);
  CRAWLRANK_RETURN_IF_ERROR(ForEachEdgeLine(
      path, [&](uint32_t source, uint32_t target) { return builder.Add(source, target); }));
  return builder.Flush();
}

}  // namespace

Result<EdgeListSource> EdgeListSource::Open(const std::string& path, uint32_t min_pages) {
  uint64_t pages = min_pages;
  uint64_t links = 0;
  CRAWLRANK_RETURN_IF_ERROR(ScanEdgeList(path, [&](EdgeChunk& chunk) {
    links += chunk.targets.size();
    pages = std::max<uint64_t>(pages, uint64_t{chunk.sources.back()} + 1);
    for (uint32_t target : chunk.targets) pages = std::max<uint64_t>(pages, uint64_t{target} + 1);
    return Status::Ok();
  }));
  if (pages > std::numeric_limits<uint32_t>::max()) {
    return InvalidArgumentError("edge list \"" + path + "\": page id 4294967295 is reserved");
  }
  return EdgeListSource(path, static_cast<uint32_t>(pages), links);
}

Status EdgeListSource::Scan(const EdgeChunkSink& sink) {
  uint64_t links = 0;
  CRAWLRANK_RETURN_IF_ERROR(ScanEdgeList(path_, [&](EdgeChunk& chunk) {
    links += chunk.targets.size();
    if (links > links_ || chunk.sources.back() >= pages_ ||
        *std::max_element(chunk.targets.begin(), chunk.targets.end()) >= pages_) {
      return FailedPreconditionError("edge list \"" + path_ + "\" changed since it was opened");
    }
    return sink(chunk);
  }));
  return Status::Ok();
}

VectorEdgeSource::VectorEdgeSource(uint32_t num_pages,
                                   std::vector<std::pair<uint32_t, uint32_t>> edges)
    : pages_(num_pages), edges_(std::move(edges)) {
  std::sort(edges_.begin(), edges_.end());
  edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
  for (const auto& [source, target] : edges_) {
    pages_ = std::max({pages_, source + 1, target + 1});
  }
}

Status VectorEdgeSource::Scan(const EdgeChunkSink& sink) {
  ChunkBuilder builder(sink);
  for (const auto& [source, target] : edges_) {
    CRAWLRANK_RETURN_IF_ERROR(builder.Add(source, target));
  }
  return builder.Flush();
}

CrossGroupEdgeSource::CrossGroupEdgeSource(EdgeSource& inner, std::vector<uint32_t> group)
    : inner_(inner), group_(std::move(group)), links_(inner.num_links()) {
  group_.resize(inner.num_pages(), UINT32_MAX);
}

Status CrossGroupEdgeSource::Scan(const EdgeChunkSink& sink) {
  uint64_t links = 0;
  CRAWLRANK_RETURN_IF_ERROR(inner_.Scan([&](EdgeChunk& chunk) {
    filtered_.Clear();
    for (size_t i = 0; i < chunk.size(); ++i) {
      const uint32_t source = chunk.sources[i];
      const uint32_t home = group_[source];
      const size_t before = filtered_.targets.size();
      for (uint32_t target : chunk.TargetsOf(i)) {
        if (group_[target] != home) filtered_.targets.push_back(target);
      }
      if (filtered_.targets.size() == before) continue;
      filtered_.sources.push_back(source);
      filtered_.ends.push_back(static_cast<uint32_t>(filtered_.targets.size()));
    }
    links += filtered_.targets.size();
    return filtered_.size() > 0 ? sink(filtered_) : Status::Ok();
  }));
  links_ = links;
  return Status::Ok();
}

}  // namespace crawlrank
