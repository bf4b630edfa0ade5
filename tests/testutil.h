// Helpers shared by the tests: temporary directories and status matchers.
#ifndef CRAWLRANK_TESTS_TESTUTIL_H_
#define CRAWLRANK_TESTS_TESTUTIL_H_

#include <gtest/gtest.h>
#include <lmdb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank::testing {

// A fresh directory under $TMPDIR, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "crawlrank-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Returns path()/name as a string.
  std::string Sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Options of a test's DB: no fsync (the DB is thrown away with its TempDir).
inline PageDbOptions Fast() {
  PageDbOptions options;
  options.durability = Durability::kNone;
  return options;
}

// A copy of the committed DB of format `version` (tests/data/format-vN.db, whose README
// says what it holds) as `dir`/vN.db, to open and change: the committed file stays as it is.
inline std::string CopyCommittedDb(const TempDir& dir, int version) {
  const std::string name = "v" + std::to_string(version) + ".db";
  const std::string path = dir.Sub(name);
  std::filesystem::create_directories(path);
  std::filesystem::copy_file(std::string(CRAWLRANK_SOURCE_DIR) + "/tests/data/format-" + name +
                                 "/data.mdb",
                             path + "/data.mdb");
  return path;
}

// The bytes of a file ("" when it cannot be read).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The URL of page `i` of BuildDb's DB: seven hosts.
inline std::string PageUrl(uint32_t i) {
  return "http://h" + std::to_string(i % 7) + ".test/p" + std::to_string(i);
}

// A crawled page `i` with three links among the first 5000 pages and one external link.
inline CrawledPage PageOfIndex(uint32_t i) {
  CrawledPage page;
  page.url = PageUrl(i);
  page.crawl_time_ms = 1'000'000 + i;
  page.content_hash = i * 2654435761u;
  page.content_score = static_cast<float>(i % 100) / 100.f;
  for (uint32_t k : {i + 1, (i * 7 + 3) % 5000, i / 2}) page.links.push_back({PageUrl(k), 0.5f});
  page.links.push_back({"http://external.test/q" + std::to_string(i % 50), 0.25f});
  return page;
}

}  // namespace crawlrank::testing

#define ASSERT_OK(expr)                                                  \
  do {                                                                   \
    const ::crawlrank::Status assert_ok_status_ = (expr);                \
    ASSERT_TRUE(assert_ok_status_.ok()) << assert_ok_status_.ToString(); \
  } while (0)
#define EXPECT_OK(expr)                                                  \
  do {                                                                   \
    const ::crawlrank::Status expect_ok_status_ = (expr);                \
    EXPECT_TRUE(expect_ok_status_.ok()) << expect_ok_status_.ToString(); \
  } while (0)

// Declares `lhs` from a Result's value, failing the test when it holds an error.
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(CRAWLRANK_CONCAT_(assign_result_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL_(result, lhs, expr)     \
  auto result = (expr);                                   \
  ASSERT_TRUE(result.ok()) << result.status().ToString(); \
  lhs = std::move(result).value()

namespace crawlrank::testing {

// Builds a DB of `pages` crawled pages (PageOfIndex) in `path`, most of them in the
// fingerprint table. (After the ASSERT macros it uses.)
inline void BuildDb(const std::string& path, uint32_t pages) {
  PageDbOptions options;
  options.fingerprint_batch = 1000;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, options));
  std::vector<CrawledPage> batch;
  for (uint32_t i = 0; i < pages; ++i) batch.push_back(PageOfIndex(i));
  ASSERT_OK(db->AddBatch(batch));
}

// Writes `value` under `key` in table `table` of the LMDB environment at `path` with raw
// LMDB, bypassing crawlrank: tests that plant what the library would never write.
inline void PutRaw(const std::string& path, const char* table, std::string_view key,
                   std::string_view value) {
  MDB_env* env;
  ASSERT_EQ(mdb_env_create(&env), 0);
  ASSERT_EQ(mdb_env_set_maxdbs(env, 8), 0);
  ASSERT_EQ(mdb_env_open(env, path.c_str(), 0, 0644), 0);
  MDB_txn* txn;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  ASSERT_EQ(mdb_dbi_open(txn, table, 0, &dbi), 0);
  MDB_val k{key.size(), const_cast<char*>(key.data())};
  MDB_val v{value.size(), const_cast<char*>(value.data())};
  ASSERT_EQ(mdb_put(txn, dbi, &k, &v, 0), 0);
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
}

}  // namespace crawlrank::testing

#endif  // CRAWLRANK_TESTS_TESTUTIL_H_
