#include "crawlrank/edge_source.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "crawlrank/page_db.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::TempDir;
using Adjacency = std::map<uint32_t, std::vector<uint32_t>>;

// Reads every pass of `source` into a map, checking the chunk invariants on the way.
Adjacency ReadAll(EdgeSource& source) {
  Adjacency got;
  int64_t previous = -1;
  const Status status = source.Scan([&](EdgeChunk& chunk) {
    EXPECT_EQ(chunk.sources.size(), chunk.ends.size());
    for (size_t i = 0; i < chunk.size(); ++i) {
      EXPECT_GT(int64_t{chunk.sources[i]}, previous) << "sources increase";
      previous = chunk.sources[i];
      const auto targets = chunk.TargetsOf(i);
      for (uint32_t t : targets) EXPECT_LT(t, source.num_pages());
      got[chunk.sources[i]].assign(targets.begin(), targets.end());
    }
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return got;
}

std::string WriteFile(const TempDir& dir, const std::string& text) {
  const std::string path = dir.Sub("edges.txt");
  std::ofstream(path) << text;
  return path;
}

TEST(EdgeListSourceTest, ReadsSortsAndMergesRepeats) {
  TempDir dir;
  const std::string path = WriteFile(dir, "# a comment\n0 5\n0\t2\n\n0 5\n3 1  \n3 0\n7 3\n");
  ASSERT_OK_AND_ASSIGN(EdgeListSource source, EdgeListSource::Open(path));
  EXPECT_EQ(source.num_pages(), 8u);
  EXPECT_EQ(source.num_links(), 5u);
  const Adjacency want = {{0, {2, 5}}, {3, {0, 1}}, {7, {3}}};
  EXPECT_EQ(ReadAll(source), want);
  EXPECT_EQ(ReadAll(source), want) << "a second pass reads the same";
  ASSERT_OK_AND_ASSIGN(EdgeListSource padded, EdgeListSource::Open(path, 100));
  EXPECT_EQ(padded.num_pages(), 100u);
}

TEST(EdgeListSourceTest, ErrorsNameTheLine) {
  TempDir dir;
  const struct {
    const char* text;
    const char* expect;
  } cases[] = {
      {"0 1\n1 x\n", "line 2"},      {"0 1\n1 2 3\n", "line 2"},
      {"0 1\n-1 2\n", "line 2"},     {"0 1\n2 1\n1 0\n", "line 3: source 1 comes after source 2"},
      {"0 99999999999\n", "line 1"},
  };
  for (const auto& c : cases) {
    const Result<EdgeListSource> source = EdgeListSource::Open(WriteFile(dir, c.text));
    ASSERT_EQ(source.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(source.status().message().find(c.expect), std::string::npos)
        << source.status().ToString();
  }
  EXPECT_EQ(EdgeListSource::Open(dir.Sub("missing.txt")).status().code(), StatusCode::kNotFound);
}

TEST(EdgeListSourceTest, ChunksSplitBetweenSources) {
  TempDir dir;
  std::string text;
  Adjacency want;
  for (uint32_t s = 0; s < 3000; ++s) {
    for (uint32_t k = 0; k < 50; ++k) {
      const uint32_t t = (s * 31 + k * 7) % 3000;
      text += std::to_string(s) + " " + std::to_string(t) + "\n";
      want[s].push_back(t);
    }
    std::sort(want[s].begin(), want[s].end());
    want[s].erase(std::unique(want[s].begin(), want[s].end()), want[s].end());
  }
  ASSERT_OK_AND_ASSIGN(EdgeListSource source, EdgeListSource::Open(WriteFile(dir, text)));
  size_t chunks = 0;
  ASSERT_OK(source.Scan([&](EdgeChunk&) {
    ++chunks;
    return Status::Ok();
  }));
  EXPECT_GT(chunks, 1u);
  EXPECT_EQ(ReadAll(source), want);
}

TEST(SnapshotEdgeSourceTest, StreamsTheStoredLinks) {
  TempDir dir;
  PageDbOptions options;
  options.durability = Durability::kNone;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), options));
  Adjacency want;
  WriteBatch batch;
  for (uint32_t s = 0; s < 4000; ++s) {
    std::vector<uint32_t> targets;
    for (uint32_t k = 0; k < 40; ++k) targets.push_back((s + k * k) % 4000);
    std::sort(targets.begin(), targets.end());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    PageRecord record;
    record.url = "http://example.com/" + std::to_string(s);
    record.fingerprint = UrlFingerprint(record.url);
    record.id = s;
    batch.RestorePage(record);
    if (s % 5 != 0) {
      want[s] = targets;
    }
  }
  for (const auto& [s, targets] : want) batch.RestoreLinks(s, targets);
  ASSERT_OK(db->Write(batch));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  SnapshotEdgeSource source(snapshot);
  EXPECT_EQ(source.num_pages(), 4000u);
  uint64_t links = 0;
  for (const auto& [s, t] : want) links += t.size();
  EXPECT_EQ(source.num_links(), links);
  EXPECT_EQ(ReadAll(source), want);
}

}  // namespace
}  // namespace crawlrank
