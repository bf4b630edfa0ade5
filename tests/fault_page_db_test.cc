// Fault tests of PageDb: a writer killed at random moments, readers beside a live writer,
// damaged files. Each writer runs in a forked child process, as a crawl would.
#include <fcntl.h>
#include <lmdb.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <algorithm>
#include <set>
#include <sstream>
#include <thread>

#include "base/coding.h"
#include "child_process.h"
#include "crawlrank/page_db.h"
#include "crawlrank/rank.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::BuildDb;
using testing::Child;
using testing::PageOfIndex;
using testing::PageUrl;
using testing::ReadFile;
using testing::Send;
using testing::TempDir;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// A writer killed with SIGKILL at random moments loses nothing it reported as written.

constexpr uint32_t kBatchPages = 25;
constexpr uint32_t kMaxPages = 1 << 20;

std::set<std::string> ExpectedLinks(uint32_t i) {
  std::set<std::string> urls;
  for (const Link& link : PageOfIndex(i).links) urls.insert(link.url);
  return urls;
}

// Child body: adds batch after batch, acknowledging each one that returned OK.
void WriteBatchesUntilKilled(const std::string& path, Durability durability, int ack_fd) {
  PageDbOptions options;
  options.durability = durability;
  options.initial_map_size = 64 << 10;  // tiny: the map must grow many times under the kill
  auto db = PageDb::Open(path, options);
  if (!db.ok()) ::_exit(2);
  auto info = (*db)->Info();
  if (!info.ok()) ::_exit(2);
  uint32_t batch = static_cast<uint32_t>(info->counters.crawled_pages / kBatchPages);
  for (;; ++batch) {
    std::vector<CrawledPage> pages;
    for (uint32_t i = batch * kBatchPages; i < (batch + 1) * kBatchPages; ++i) {
      pages.push_back(PageOfIndex(i));
    }
    if (!(*db)->AddBatch(pages).ok()) ::_exit(4);
    Send(ack_fd, batch);
    if ((batch + 1) * kBatchPages >= kMaxPages) ::_exit(0);
  }
}

// Checks that every page of batches [0, acked_batches) is there with its links, and that
// the DB holds whole batches only: at most one more than it held before the round
// (`present_batches`, which a round killed between a commit and its acknowledgement left
// unacknowledged) or than were acknowledged. Returns the batches it holds.
uint32_t ExpectAcknowledgedPages(PageDb& db, uint32_t acked_batches, uint32_t present_batches) {
  Result<Snapshot> opened = db.NewSnapshot();
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  if (!opened.ok()) return present_batches;
  const Snapshot& snapshot = *opened;
  const uint64_t crawled = snapshot.counters().crawled_pages;
  EXPECT_EQ(crawled % kBatchPages, 0u) << "a batch was half written";
  EXPECT_GE(crawled, uint64_t{acked_batches} * kBatchPages) << "an acknowledged batch is lost";
  EXPECT_LE(crawled, uint64_t{std::max(acked_batches, present_batches) + 1} * kBatchPages);
  const auto batches = static_cast<uint32_t>(crawled / kBatchPages);
  for (uint32_t i = 0; i < acked_batches * kBatchPages; ++i) {
    Result<PageRecord> page = snapshot.FindUrl(PageUrl(i));
    EXPECT_TRUE(page.ok()) << PageUrl(i) << ": " << page.status().ToString();
    if (!page.ok()) return batches;
    EXPECT_EQ(page->n_crawls, 1u) << page->url;
    EXPECT_EQ(page->content_hash, PageOfIndex(i).content_hash) << page->url;
    Result<std::vector<uint32_t>> links = snapshot.Links(page->id);
    EXPECT_TRUE(links.ok()) << page->url;
    if (!links.ok()) return batches;
    std::set<std::string> urls;
    for (uint32_t id : *links) {
      Result<PageRecord> target = snapshot.FindId(id);
      EXPECT_TRUE(target.ok()) << page->url << " links to page " << id;
      if (target.ok()) urls.insert(target->url);
    }
    EXPECT_EQ(urls, ExpectedLinks(i)) << page->url;
  }
  return batches;
}

TEST(PageDbFaultTest, KilledWriterLosesNothingItAcknowledged) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  const uint32_t seed = 20261123;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  const Durability modes[] = {Durability::kPeriodic, Durability::kNone, Durability::kSync};
  uint32_t acked = 0, present = 0;
  for (int round = 0; round < 12; ++round) {
    const auto delay = std::chrono::milliseconds(std::uniform_int_distribution<int>(1, 120)(rng));
    const Durability mode = modes[round % 3];
    SCOPED_TRACE("round " + std::to_string(round) + ", kill after " +
                 std::to_string(delay.count()) + " ms");
    {
      Child writer([&](int fd) { WriteBatchesUntilKilled(path, mode, fd); });
      std::this_thread::sleep_for(delay);
      const int status = writer.Kill();
      ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
          << "the writer ended by itself, status " << status;
      while (auto batch = writer.Read()) acked = std::max(acked, *batch + 1);
    }
    PageDbOptions options;
    options.create_if_missing = round == 0;  // every later round reopens the killed DB
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, options));
    ASSERT_OK(db->Check());
    present = ExpectAcknowledgedPages(*db, acked, present);
  }
  std::printf("acknowledged batches: %u\n", acked);
  EXPECT_GT(acked, 0u) << "the writer never got a batch in: the test proved nothing";
}

// ---------------------------------------------------------------------------------------
// A reader process sees whole transactions while a writer process writes.

constexpr uint32_t kSourcesPerBatch = 40;

// Source j gets id 4j and links to 4j+1, 4j+2, 4j+3 (its three new targets).
void WriteLinkBatches(const std::string& path, int ack_fd) {
  auto db = PageDb::Open(path);
  if (!db.ok()) ::_exit(2);
  for (uint32_t batch = 0;; ++batch) {
    WriteBatch write;
    for (uint32_t j = batch * kSourcesPerBatch; j < (batch + 1) * kSourcesPerBatch; ++j) {
      const std::string base = "http://r.test/s" + std::to_string(j);
      write.AddLinks(base, {{base + "/a"}, {base + "/b"}, {base + "/c"}});
    }
    if (!(*db)->Write(write).ok()) ::_exit(4);
    Send(ack_fd, batch);
  }
}

// Runs `command` and returns its standard output.
Result<std::string> Capture(const std::string& command) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return IoError("popen " + command);
  std::string out;
  char buffer[1 << 16];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (status != 0) return InternalError(command + " exited with " + std::to_string(status));
  return out;
}

TEST(PageDbFaultTest, ReaderProcessDumpsConsistentSnapshotsWhileWriterWrites) {
  const std::string tool = std::string(CRAWLRANK_TOOLS_DIR) + "/page_db_dump";
  if (!fs::exists(tool)) GTEST_SKIP() << tool << " is not built";
  TempDir dir;
  const std::string path = dir.Sub("db");
  Child writer([&](int fd) { WriteLinkBatches(path, fd); });
  std::optional<uint32_t> acked;
  uint64_t previous_lines = 0;
  for (int dump = 0; dump < 15; ++dump) {
    // Wait until a batch the previous dump cannot have seen is committed, so that every
    // dump sees a later state. (Acks still in the pipe may be for batches it saw.)
    const uint64_t seen_batches = previous_lines / (3 * kSourcesPerBatch);
    do {
      acked = writer.Read();
      ASSERT_TRUE(acked.has_value()) << "the writer died";
    } while (*acked < seen_batches || writer.Readable(std::chrono::milliseconds(0)));
    ASSERT_OK_AND_ASSIGN(std::string out, Capture(tool + " links " + path));
    std::istringstream lines(out);
    uint64_t from, to, n = 0;
    while (lines >> from >> to) {
      const uint64_t source = n / 3;
      ASSERT_EQ(from, 4 * source) << "dump " << dump << ", line " << n;
      ASSERT_EQ(to, 4 * source + 1 + n % 3) << "dump " << dump << ", line " << n;
      ++n;
    }
    ASSERT_EQ(n % (3 * kSourcesPerBatch), 0u) << "dump " << dump << " saw half a transaction";
    ASSERT_GE(n, uint64_t{*acked + 1} * 3 * kSourcesPerBatch)
        << "dump " << dump << " missed a committed batch";
    ASSERT_GT(n, previous_lines);
    previous_lines = n;
  }
}

// ---------------------------------------------------------------------------------------
// A damaged copy gives an error status, never a crash or silently wrong data.

// Reads everything a tool would; returns the first error.
Status ReadEverything(const std::string& path) {
  PageDbOptions options;
  options.read_only = true;
  CRAWLRANK_ASSIGN_OR_RETURN(auto db, PageDb::Open(path, options));
  CRAWLRANK_RETURN_IF_ERROR(db->Check());
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db->NewSnapshot());
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([](const PageRecord&) { return Status::Ok(); }));
  EdgeCursor cursor = snapshot.Edges();
  while (cursor.Valid()) cursor.Next();
  return cursor.status();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Damages table `table` of the DB in `path` through LMDB itself: the value under `key` (or, when
// empty, the 18th entry, in the middle of the table) becomes `value`, as a bug or a bad
// disk sector could leave it.
void PutRaw(const std::string& path, const char* table, const std::string& value,
            std::string_view key = {}) {
  MDB_env* env;
  ASSERT_EQ(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 8);
  ASSERT_EQ(mdb_env_open(env, path.c_str(), 0, 0644), 0);
  MDB_txn* txn;
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  MDB_dbi dbi;
  ASSERT_EQ(mdb_dbi_open(txn, table, 0, &dbi), 0);
  MDB_cursor* cursor;
  ASSERT_EQ(mdb_cursor_open(txn, dbi, &cursor), 0);
  MDB_val k{key.size(), const_cast<char*>(key.data())}, v;
  if (key.empty()) {
    ASSERT_EQ(mdb_cursor_get(cursor, &k, &v, MDB_FIRST), 0);
    for (int i = 0; i < 17; ++i) ASSERT_EQ(mdb_cursor_get(cursor, &k, &v, MDB_NEXT), 0);
  } else {
    ASSERT_EQ(mdb_cursor_get(cursor, &k, &v, MDB_SET), 0);
  }
  MDB_val nv{value.size(), const_cast<char*>(value.data())};
  ASSERT_EQ(mdb_cursor_put(cursor, &k, &nv, MDB_CURRENT), 0);
  mdb_cursor_close(cursor);
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
}

class PageDbCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    original_ = dir_.Sub("original");
    BuildDb(original_, 3000);
    ASSERT_OK(ReadEverything(original_));
    copy_ = dir_.Sub("copy");
    fs::copy(original_, copy_);
    data_ = copy_ + "/data.mdb";
    bytes_ = ReadFile(data_);
  }

  void PutRaw(const char* table, const std::string& value, std::string_view key = {}) {
    crawlrank::PutRaw(copy_, table, value, key);
  }

  void ExpectDataLoss(const std::string& what) {
    const Status status = ReadEverything(copy_);
    EXPECT_FALSE(status.ok()) << what << " went unnoticed";
    EXPECT_EQ(status.code(), StatusCode::kDataLoss) << what << ": " << status.ToString();
    std::printf("%s -> %s\n", what.c_str(), status.ToString().c_str());
  }

  TempDir dir_;
  std::string original_, copy_, data_, bytes_;
};

TEST_F(PageDbCorruptionTest, TruncatedFile) {
  for (double keep : {0.9, 0.5, 0.1}) {
    WriteFile(data_, bytes_.substr(0, static_cast<size_t>(bytes_.size() * keep)));
    ExpectDataLoss("data.mdb cut to " + std::to_string(keep));
  }
}

TEST_F(PageDbCorruptionTest, MetaPagesZeroed) {
  std::string damaged = bytes_;
  std::fill(damaged.begin(), damaged.begin() + 8192, '\0');
  WriteFile(data_, damaged);
  ExpectDataLoss("meta pages zeroed");
}

TEST_F(PageDbCorruptionTest, FileOfGarbage) {
  const uint32_t seed = 7;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  std::string damaged(bytes_.size(), '\0');
  for (char& c : damaged) c = static_cast<char>(rng());
  WriteFile(data_, damaged);
  ExpectDataLoss("data.mdb of random bytes");
}

TEST_F(PageDbCorruptionTest, UrlBytesChangedInPlace) {
  // Flip a character of a stored URL: the record no longer matches its key.
  const std::string needle = PageUrl(1234);
  const size_t at = bytes_.find(needle);
  ASSERT_NE(at, std::string::npos);
  std::string damaged = bytes_;
  damaged[at + needle.size() - 1] = '5';
  WriteFile(data_, damaged);
  ExpectDataLoss("a URL byte changed");
}

// A well-formed links block (format 2: slot 0, one target) whose one list names a target
// 2^31 past its source, far past the last page.
constexpr std::string_view kLinkPastTheLastPage("\x00\x01\x80\x80\x80\x80\x10", 7);

TEST_F(PageDbCorruptionTest, GarbageRecordValues) {
  struct Case {
    const char* table;
    std::string value;
  };
  const Case cases[] = {
      {"pages", ""},
      {"pages", std::string(3, '\xff')},
      {"pages", std::string(40, '\xff')},
      {"pages", std::string("\x09\x00garbage", 9)},
      {"links", ""},
      {"links", std::string(12, '\xff')},
      {"links", std::string(kLinkPastTheLastPage)},
      {"fingerprints", std::string(3, 'x')},
      {"fingerprints", std::string("\x05\x00\x00\x00", 4)},  // filed under another page
      {"fingerprints", std::string("\xff\xff\x00\x00", 4)},  // under an id beyond the last
  };
  for (const Case& c : cases) {
    fs::remove_all(copy_);
    fs::copy(original_, copy_);
    PutRaw(c.table, c.value);
    ExpectDataLoss(std::string(c.table) + " value of " + std::to_string(c.value.size()) +
                   " damaged bytes");
  }
}

// A reader finds the pages not yet filed in `fingerprints` through a list built from one
// scan of them: a damaged record there is DataLoss for any look-up, not a missed page.
TEST(PageDbUnfiledPagesTest, DamagedRecordIsDataLossForALookUp) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  {
    PageDbOptions options;
    options.fingerprint_batch = 1'000'000;  // nothing filed: every page is waiting
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, options));
    std::vector<CrawledPage> batch;
    for (uint32_t i = 0; i < 100; ++i) batch.push_back(PageOfIndex(i));
    ASSERT_OK(db->AddBatch(batch));
  }
  PageDbOptions reading;
  reading.read_only = true;
  auto find = [&](uint32_t i) -> Status {
    CRAWLRANK_ASSIGN_OR_RETURN(auto db, PageDb::Open(path, reading));
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db->NewSnapshot());
    if (snapshot.counters().pages == 0) return InternalError("empty DB");
    return snapshot.FindUrl(PageUrl(i)).status();
  };
  ASSERT_OK(find(99));  // the control: found through the list of waiting pages
  PutRaw(path, "pages", std::string(40, '\xff'));  // page 17's record
  const Status status = find(99);
  EXPECT_EQ(status.code(), StatusCode::kDataLoss) << status.ToString();
  std::printf("a damaged waiting record -> %s\n", status.ToString().c_str());
}

// A header that counts far more pages than the tables hold: every snapshot and a writer's
// open say so, before anything is sized by the count (it was 2^32 - 1 entries of 16 bytes).
TEST_F(PageDbCorruptionTest, HeaderCountsPagesThatAreNotThere) {
  std::string count;
  coding::PutFixed64(count, UINT32_MAX);
  PutRaw("meta", count, "pages");
  ExpectDataLoss("a header counting 2^32 - 1 pages");
  auto writer = PageDb::Open(copy_);
  EXPECT_EQ(writer.status().code(), StatusCode::kDataLoss) << writer.status().ToString();
}

TEST_F(PageDbCorruptionTest, DamagedLinksStopTheEdgeStreamAndTheRanks) {
  // A well-formed block whose one list names a page id past the last page: the stream
  // itself (not only Check) must refuse it before any kernel indexes an array with it.
  PutRaw("links", std::string(kLinkPastTheLastPage));
  PageDbOptions options;
  options.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(copy_, options));
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  EdgeCursor cursor = snapshot.Edges();
  while (cursor.Valid()) cursor.Next();
  EXPECT_EQ(cursor.status().code(), StatusCode::kDataLoss) << cursor.status().ToString();
  EXPECT_NE(cursor.status().message().find("past the"), std::string::npos);
  for (RankMode mode : {RankMode::kStream, RankMode::kCsr}) {
    for (unsigned threads : {1u, 2u}) {
      SnapshotEdgeSource source(snapshot);
      RankOptions rank;
      rank.mode = mode;
      rank.threads = threads;
      const Status status = ComputeRank(source, RankAlgorithm::kPageRank, rank).status();
      EXPECT_EQ(status.code(), StatusCode::kDataLoss)
          << RankModeName(mode) << " " << status.ToString();
    }
  }
}

}  // namespace
}  // namespace crawlrank
