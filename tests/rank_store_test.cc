#include "crawlrank/rank_store.h"

#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <array>
#include <bit>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "rank_db/rank_store_internal.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::TempDir;

StoredRank Example(RankAlgorithm algorithm, size_t pages, bool hubs) {
  StoredRank stored;
  RankResult& r = stored.rank;
  r.algorithm = algorithm;
  r.options.damping = 0.8;
  r.options.tolerance = 1e-7;
  r.options.max_iterations = 55;
  r.options.threads = 2;
  r.report.iterations = 31;
  r.report.residual = 9.5e-8;
  r.report.converged = true;
  r.report.seconds = 1.25;
  r.report.mode = RankMode::kCsr;
  r.report.pages = static_cast<uint32_t>(pages);
  r.report.links = 1234;
  for (size_t i = 0; i < pages; ++i) r.scores.push_back(1.0 / (i + 3));
  if (hubs) {
    for (size_t i = 0; i < pages; ++i) r.hubs.push_back(i * 1e-9);
  }
  stored.cross_host_only = true;
  stored.created_ms = 1700000000123;
  stored.graph = PageDbCounters{.pages = pages, .crawled_pages = pages / 2, .edges = 5678};
  return stored;
}

void ExpectSame(const StoredRank& a, const StoredRank& b) {
  EXPECT_EQ(a.rank.algorithm, b.rank.algorithm);
  EXPECT_EQ(a.rank.scores, b.rank.scores);
  EXPECT_EQ(a.rank.hubs, b.rank.hubs);
  EXPECT_EQ(a.rank.options.damping, b.rank.options.damping);
  EXPECT_EQ(a.rank.options.tolerance, b.rank.options.tolerance);
  EXPECT_EQ(a.rank.options.max_iterations, b.rank.options.max_iterations);
  EXPECT_EQ(a.rank.options.threads, b.rank.options.threads);
  EXPECT_EQ(a.rank.report.seconds, b.rank.report.seconds);
  EXPECT_EQ(a.rank.report.pages, b.rank.report.pages);
  EXPECT_EQ(a.rank.report.iterations, b.rank.report.iterations);
  EXPECT_EQ(a.rank.report.residual, b.rank.report.residual);
  EXPECT_EQ(a.rank.report.converged, b.rank.report.converged);
  EXPECT_EQ(a.rank.report.mode, b.rank.report.mode);
  EXPECT_EQ(a.rank.report.links, b.rank.report.links);
  EXPECT_EQ(a.cross_host_only, b.cross_host_only);
  EXPECT_EQ(a.created_ms, b.created_ms);
  ASSERT_EQ(a.graph.has_value(), b.graph.has_value());
  if (a.graph.has_value()) {
    EXPECT_EQ(a.graph->pages, b.graph->pages);
    EXPECT_EQ(a.graph->crawled_pages, b.graph->crawled_pages);
    EXPECT_EQ(a.graph->edges, b.graph->edges);
  }
}

// Little-endian writers for files built by hand from docs/format.md.
void Put32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
void Put64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

TEST(RankStoreTest, RoundTripsAndReplaces) {
  TempDir dir;
  EXPECT_EQ(LoadRank(dir.Sub("db"), RankAlgorithm::kPageRank).status().code(),
            StatusCode::kNotFound);
  std::filesystem::create_directory(dir.Sub("db"));
  const StoredRank pr = Example(RankAlgorithm::kPageRank, 1000, false);
  ASSERT_OK(SaveRank(dir.Sub("db"), pr));
  ASSERT_OK_AND_ASSIGN(StoredRank got, LoadRank(dir.Sub("db"), RankAlgorithm::kPageRank));
  ExpectSame(got, pr);
  const StoredRank hits = Example(RankAlgorithm::kHits, 10, true);
  ASSERT_OK(SaveRank(dir.Sub("db"), hits));
  ASSERT_OK_AND_ASSIGN(got, LoadRank(dir.Sub("db"), RankAlgorithm::kHits));
  ExpectSame(got, hits);
  StoredRank smaller = Example(RankAlgorithm::kPageRank, 3, false);
  ASSERT_OK(SaveRank(dir.Sub("db"), smaller));
  ASSERT_OK_AND_ASSIGN(got, LoadRank(dir.Sub("db"), RankAlgorithm::kPageRank));
  ExpectSame(got, smaller);
  // Nothing left behind but the two files.
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.Sub("db/ranks"))) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".rank") << entry.path();
  }
  EXPECT_EQ(files, 2u);
}

TEST(RankStoreTest, ASaveRemovesTheTempFilesOfDeadProcessesOnly) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directories(db + "/ranks");
  // A process that has exited (and been reaped) is dead; this one and its parent live.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  // Temp files are named PID.TID; PID alone is how saves before issue #23 named them.
  const std::string ranks = db + "/ranks/";
  const std::vector<std::string> stale = {ranks + "hits.rank.tmp." + std::to_string(dead),
                                          ranks + "wpr.rank.tmp." + std::to_string(dead) + ".77"};
  const std::vector<std::string> kept = {
      ranks + "ppr.rank.tmp." + std::to_string(::getppid()),
      ranks + "hits.rank.tmp." + std::to_string(::getppid()) + ".78",
      ranks + "notes.tmp." + std::to_string(dead),                 // not a rank's temp file
      ranks + "ppr.rank.tmp." + std::to_string(dead) + ".x",       // nor this
      ranks + "ppr.rank.tmp." + std::to_string(dead) + ".12.13"};  // nor this
  for (const std::string& path : stale) std::ofstream(path) << std::string(4096, 'x');
  for (const std::string& path : kept) std::ofstream(path) << std::string(4096, 'x');
  ASSERT_OK(SaveRank(db, Example(RankAlgorithm::kPageRank, 10, false)));
  for (const std::string& path : stale) EXPECT_FALSE(std::filesystem::exists(path)) << path;
  for (const std::string& path : kept) EXPECT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_TRUE(std::filesystem::exists(RankFilePath(db, RankAlgorithm::kPageRank)));
}

// Two threads of one process used to write the same temp file (`.tmp.PID`): one truncated
// or renamed it under the other, which failed with IoError or left a mixed file.
TEST(RankStoreTest, ConcurrentSavesOfOneRankAllSucceedAndLeaveAWholeFile) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directories(db);
  const std::array<StoredRank, 2> ranks = {Example(RankAlgorithm::kPageRank, 20000, false),
                                           Example(RankAlgorithm::kPageRank, 30000, false)};
  constexpr int kSaves = 50;
  std::array<std::vector<Status>, 2> results;
  {
    std::vector<std::jthread> threads;
    for (size_t t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kSaves; ++i) results[t].push_back(SaveRank(db, ranks[t]));
      });
    }
  }
  for (const auto& statuses : results) {
    ASSERT_EQ(statuses.size(), size_t{kSaves});
    for (const Status& status : statuses) EXPECT_OK(status);
  }
  ASSERT_OK_AND_ASSIGN(StoredRank got, LoadRank(db, RankAlgorithm::kPageRank));
  ExpectSame(got, got.rank.scores.size() == ranks[0].rank.scores.size() ? ranks[0] : ranks[1]);
  size_t files = 0;  // no temp file left behind
  for (const auto& entry : std::filesystem::directory_iterator(db + "/ranks")) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".rank") << entry.path();
  }
  EXPECT_EQ(files, 1u);
}

TEST(RankStoreTest, DamagedFilesAreDataLossNamingTheFile) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directory(db);
  ASSERT_OK(SaveRank(db, Example(RankAlgorithm::kPageRank, 100, false)));
  const std::string path = RankFilePath(db, RankAlgorithm::kPageRank);
  const std::string good = testing::ReadFile(path);
  ASSERT_EQ(good.size(), 128u + 800u);
  const auto load_with = [&](const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return LoadRank(db, RankAlgorithm::kPageRank).status();
  };
  // Every single flipped byte, header or vector, is caught.
  for (size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] ^= 0x20;
    const Status status = load_with(bad);
    EXPECT_FALSE(status.ok()) << "byte " << at;
    if (at >= 12) {  // past the magic and the version
      EXPECT_EQ(status.code(), StatusCode::kDataLoss) << "byte " << at << ": " << status.ToString();
      EXPECT_NE(status.message().find(path), std::string::npos);
    }
  }
  for (size_t size : {size_t{0}, size_t{5}, size_t{111}, size_t{112}, size_t{127}, size_t{128},
                      good.size() - 1}) {
    EXPECT_EQ(load_with(good.substr(0, size)).code(), StatusCode::kDataLoss) << size;
  }
  EXPECT_EQ(load_with(good + "x").code(), StatusCode::kDataLoss);
  std::string newer = good;
  newer[8] = static_cast<char>(kRankFileFormatVersion + 1);
  const Status status = load_with(newer);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("format version " + std::to_string(kRankFileFormatVersion + 1)),
            std::string::npos)
      << status.ToString();
  EXPECT_OK(load_with(good));
}

// Checksums catch damage, not a file made to pass them: a NaN rank written with valid
// checksums is still refused, as it would break every ordering of pages by rank. Saving one
// is refused too.
// A global rank's file (format version 3): its run comes back, a rank of one PageDB stays
// version 2, and every flipped byte or cut of the run's block is caught.
TEST(RankStoreTest, GlobalRanksAreVersionThreeWithTheirRunAndEveryByteChecked) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directory(db);
  StoredRank stored = Example(RankAlgorithm::kHits, 50, true);
  stored.global = GlobalRun{.run_id = 0x1234'5678'9abc'def0, .shard = 2, .shards = 3,
                            .total = {.pages = 140, .crawled_pages = 90, .edges = 700}};
  ASSERT_OK(SaveRank(db, stored, "global/hits"));
  const std::string path = RankFilePath(db, "global/hits");
  EXPECT_EQ(path, db + "/ranks/global/hits.rank");
  ASSERT_OK_AND_ASSIGN(StoredRank got, LoadRank(db, "global/hits", RankAlgorithm::kHits));
  ExpectSame(got, stored);
  ASSERT_TRUE(got.global.has_value());
  EXPECT_EQ(got.global->run_id, stored.global->run_id);
  EXPECT_EQ(got.global->shard, 2u);
  EXPECT_EQ(got.global->shards, 3u);
  EXPECT_EQ(got.global->total.pages, 140u);
  EXPECT_EQ(got.global->total.crawled_pages, 90u);
  EXPECT_EQ(got.global->total.edges, 700u);
  const std::string good = testing::ReadFile(path);
  ASSERT_EQ(good.size(), 176u + 2 * 400u);
  EXPECT_EQ(good[8], 3);
  ASSERT_OK(SaveRank(db, Example(RankAlgorithm::kHits, 50, true)));
  EXPECT_EQ(testing::ReadFile(RankFilePath(db, RankAlgorithm::kHits))[8], 2);
  const auto load_with = [&](const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return LoadRank(db, "global/hits", RankAlgorithm::kHits).status();
  };
  for (size_t at = 12; at < 176; ++at) {
    std::string bad = good;
    bad[at] ^= 0x04;
    const Status status = load_with(bad);
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << "byte " << at << ": " << status.ToString();
  }
  for (size_t size : {size_t{128}, size_t{150}, size_t{175}, size_t{176}}) {
    EXPECT_EQ(load_with(good.substr(0, size)).code(), StatusCode::kDataLoss) << size;
  }
  EXPECT_OK(load_with(good));
  StoredRank outside = stored;
  outside.global->shard = 3;  // of 3
  EXPECT_EQ(SaveRank(db, outside, "global/hits").code(), StatusCode::kInvalidArgument);
}

// SaveRankAside writes the whole file beside its place and changes nothing a reader sees;
// CommitRank puts it in place.
TEST(RankStoreTest, ASaveAsideIsSeenOnlyOnceCommitted) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directory(db);
  const StoredRank first = Example(RankAlgorithm::kPageRank, 10, false);
  ASSERT_OK(SaveRank(db, first, "global/pagerank"));
  const StoredRank second = Example(RankAlgorithm::kPageRank, 20, false);
  ASSERT_OK_AND_ASSIGN(const std::string temp, SaveRankAside(db, second, "global/pagerank"));
  EXPECT_TRUE(std::filesystem::exists(temp));
  ASSERT_OK_AND_ASSIGN(StoredRank seen, LoadRank(db, "global/pagerank", RankAlgorithm::kPageRank));
  ExpectSame(seen, first);
  ASSERT_OK(CommitRank(temp, db, "global/pagerank"));
  EXPECT_FALSE(std::filesystem::exists(temp));
  ASSERT_OK_AND_ASSIGN(seen, LoadRank(db, "global/pagerank", RankAlgorithm::kPageRank));
  ExpectSame(seen, second);
}

TEST(RankStoreTest, ValuesThatAreNotFiniteAreRefused) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directory(db);
  StoredRank stored = Example(RankAlgorithm::kHits, 4, true);
  stored.rank.hubs[2] = std::numeric_limits<double>::infinity();
  const Status save = SaveRank(db, stored);
  EXPECT_EQ(save.code(), StatusCode::kInvalidArgument) << save.ToString();

  ASSERT_OK(SaveRank(db, Example(RankAlgorithm::kPageRank, 4, false)));
  const std::string path = RankFilePath(db, RankAlgorithm::kPageRank);
  std::string bytes = testing::ReadFile(path);
  ASSERT_EQ(bytes.size(), 128u + 32u);
  // Page 1's score becomes NaN; then both checksums are recomputed as docs/format.md says
  // (payload: XXH3 of the hub bytes, none here, seeded with XXH3 of the score bytes;
  // header: XXH3 of bytes 0..119), each stored little-endian.
  const uint64_t nan = std::bit_cast<uint64_t>(std::numeric_limits<double>::quiet_NaN());
  auto put64 = [&](size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(v >> (8 * i));
  };
  put64(128 + 8, nan);
  put64(112, XXH3_64bits_withSeed(nullptr, 0, XXH3_64bits(bytes.data() + 128, 32)));
  put64(120, XXH3_64bits(bytes.data(), 120));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const Status load = LoadRank(db, RankAlgorithm::kPageRank).status();
  EXPECT_EQ(load.code(), StatusCode::kDataLoss) << load.ToString();
  EXPECT_NE(load.message().find("page 1 has nan"), std::string::npos) << load.ToString();
}

// A file of format version 1 (before the graph's counters), built byte by byte from
// docs/format.md: read as it is, with the graph unknown; damaged, it is DataLoss.
TEST(RankStoreTest, ReadsVersionOneFilesWithTheGraphUnknown) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directories(db + "/ranks");
  const std::vector<double> scores = {0.5, 0.3, 0.2};
  std::string v1 = "CRWLRANK";
  for (uint32_t v : {1u, 1u, 1u, 2u, 2u, 0u, 100u, 7u}) {
    Put32(v1, v);  // version, pagerank, 1 vector, converged, csr, threads, max, iterations
  }
  for (uint64_t v : {uint64_t{3}, uint64_t{4}}) Put64(v1, v);  // pages, links
  for (double d : {0.85, 1e-6, 5e-7, 0.5}) Put64(v1, std::bit_cast<uint64_t>(d));
  Put64(v1, 1700000000000);  // created
  Put64(v1, XXH3_64bits_withSeed(nullptr, 0, XXH3_64bits(scores.data(), 24)));
  Put64(v1, XXH3_64bits(v1.data(), 104));
  ASSERT_EQ(v1.size(), 112u);
  for (double d : scores) Put64(v1, std::bit_cast<uint64_t>(d));
  const std::string path = RankFilePath(db, RankAlgorithm::kPageRank);
  std::ofstream(path, std::ios::binary) << v1;
  ASSERT_OK_AND_ASSIGN(StoredRank got, LoadRank(db, RankAlgorithm::kPageRank));
  EXPECT_EQ(got.rank.scores, scores);
  EXPECT_TRUE(got.rank.hubs.empty());
  EXPECT_EQ(got.rank.report.pages, 3u);
  EXPECT_EQ(got.rank.report.links, 4u);
  EXPECT_EQ(got.rank.report.iterations, 7u);
  EXPECT_EQ(got.rank.report.mode, RankMode::kCsr);
  EXPECT_TRUE(got.rank.report.converged);
  EXPECT_FALSE(got.cross_host_only);
  EXPECT_EQ(got.rank.options.damping, 0.85);
  EXPECT_EQ(got.rank.report.seconds, 0.5);
  EXPECT_EQ(got.created_ms, 1700000000000);
  EXPECT_FALSE(got.graph.has_value());
  for (size_t at : {size_t{40}, size_t{100}, size_t{120}}) {
    std::string bad = v1;
    bad[at] ^= 1;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
    EXPECT_EQ(LoadRank(db, RankAlgorithm::kPageRank).status().code(), StatusCode::kDataLoss) << at;
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << v1.substr(0, 130);
  EXPECT_EQ(LoadRank(db, RankAlgorithm::kPageRank).status().code(), StatusCode::kDataLoss);
  // Saved again, it is version 2.
  ASSERT_OK(SaveRank(db, got));
  EXPECT_EQ(testing::ReadFile(path)[8], 2);
  ASSERT_OK_AND_ASSIGN(StoredRank again, LoadRank(db, RankAlgorithm::kPageRank));
  ExpectSame(again, got);
}

// The graph's counters: unknown round-trips as unknown; counters that cannot be the
// graph of the rank are refused by the writer and, checksums made to pass, by the reader.
TEST(RankStoreTest, TheGraphIsKnownOrUnknownAndFitsTheRank) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directory(db);
  StoredRank unknown = Example(RankAlgorithm::kPageRank, 4, false);
  unknown.graph.reset();
  ASSERT_OK(SaveRank(db, unknown));
  ASSERT_OK_AND_ASSIGN(StoredRank got, LoadRank(db, RankAlgorithm::kPageRank));
  EXPECT_FALSE(got.graph.has_value());
  StoredRank wrong = Example(RankAlgorithm::kPageRank, 4, false);
  wrong.graph->pages = 5;
  EXPECT_EQ(SaveRank(db, wrong).code(), StatusCode::kInvalidArgument);
  wrong.graph->pages = 4;
  wrong.graph->crawled_pages = 5;
  EXPECT_EQ(SaveRank(db, wrong).code(), StatusCode::kInvalidArgument);
  // Crawled pages (offset 104) above the pages, or only one of the two counters unknown.
  ASSERT_OK(SaveRank(db, Example(RankAlgorithm::kPageRank, 4, false)));
  const std::string path = RankFilePath(db, RankAlgorithm::kPageRank);
  const std::string good = testing::ReadFile(path);
  for (const auto& [at, value] :
       {std::pair<size_t, uint64_t>{104, 5}, {104, UINT64_MAX}, {96, UINT64_MAX}}) {
    std::string bad = good.substr(0, at);
    Put64(bad, value);
    bad += good.substr(at + 8);
    const std::string header = bad.substr(0, 120);
    bad = header;
    Put64(bad, XXH3_64bits(header.data(), 120));
    bad += good.substr(128);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
    const Status status = LoadRank(db, RankAlgorithm::kPageRank).status();
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << at << " " << status.ToString();
    EXPECT_NE(status.message().find("out of range"), std::string::npos) << status.ToString();
  }
}

// ParseRankFile (what the fuzz target drives) is LoadRank's decoder over bytes: the same
// ranks and the same statuses, messages included, for a good file and damaged ones.
TEST(RankStoreTest, ParsingBytesAgreesWithLoadingTheFile) {
  TempDir dir;
  const std::string db = dir.Sub("db");
  std::filesystem::create_directory(db);
  ASSERT_OK(SaveRank(db, Example(RankAlgorithm::kHits, 5, true)));
  const std::string path = RankFilePath(db, RankAlgorithm::kHits);
  const std::string good = testing::ReadFile(path);
  ASSERT_OK_AND_ASSIGN(StoredRank parsed, ParseRankFile(good, RankAlgorithm::kHits, path));
  ASSERT_OK_AND_ASSIGN(StoredRank loaded, LoadRank(db, RankAlgorithm::kHits));
  ExpectSame(parsed, loaded);
  std::string flipped = good;
  flipped[150] ^= 1;
  for (const std::string& bad : {good.substr(0, 0), good.substr(0, 7), good.substr(0, 111),
                                 good.substr(0, good.size() - 8), good + "x", flipped}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
    const Status from_file = LoadRank(db, RankAlgorithm::kHits).status();
    const Status from_bytes = ParseRankFile(bad, RankAlgorithm::kHits, path).status();
    EXPECT_FALSE(from_file.ok()) << bad.size();
    EXPECT_EQ(from_bytes.ToString(), from_file.ToString()) << bad.size();
  }
  EXPECT_EQ(ParseRankFile(good, RankAlgorithm::kPageRank, path).status().code(),
            StatusCode::kDataLoss);  // another algorithm's file
}

}  // namespace
}  // namespace crawlrank
