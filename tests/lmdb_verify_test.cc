// The structural check of data.mdb (src/page_db/lmdb_verify.cc), through PageDb::Open and
// PageDb::Check: each test damages one field of one B-tree page, located here with a
// reading of LMDB's layout written from lmdb.h's documentation, not with the walker.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "crawlrank/page_db.h"
#include "testutil.h"

namespace crawlrank {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::TempDir;

constexpr size_t kPage = 4096;

uint16_t U16(const std::string& b, size_t at) {
  uint16_t v;
  std::memcpy(&v, b.data() + at, 2);
  return v;
}
uint64_t U64(const std::string& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
void Put16(std::string& b, size_t at, uint16_t v) {
  std::memcpy(b.data() + at, &v, 2);
}
void Put64(std::string& b, size_t at, uint64_t v) {
  std::memcpy(b.data() + at, &v, 8);
}

// Where things are in a data.mdb image: meta page (the newer of the two), then a table's
// root by its name in the main tree's one leaf.
struct Layout {
  explicit Layout(const std::string& image) : bytes(image) {
    const size_t meta = U64(bytes, 144) > U64(bytes, kPage + 144) ? 0 : kPage;
    last_page = U64(bytes, meta + 136);
    main_root = U64(bytes, meta + 88 + 40);
  }
  // The root page of table `name` (the MDB_db record is the node's 48-byte value).
  uint64_t Root(const std::string& name) const {
    const size_t page = main_root * kPage;
    const size_t nodes = (U16(bytes, page + 12) - 16) / 2;
    for (size_t i = 0; i < nodes; ++i) {
      const size_t node = page + U16(bytes, page + 16 + 2 * i);
      const size_t key_size = U16(bytes, node + 6);
      if (bytes.compare(node + 8, key_size, name) == 0) return U64(bytes, node + 8 + key_size + 40);
    }
    ADD_FAILURE() << "no table " << name;
    return 0;
  }
  // Offset of node `i` of page `page`.
  size_t Node(uint64_t page, size_t i) const {
    return page * kPage + U16(bytes, page * kPage + 16 + 2 * i);
  }
  size_t Nodes(uint64_t page) const { return (U16(bytes, page * kPage + 12) - 16) / 2; }
  bool IsBranch(uint64_t page) const { return (U16(bytes, page * kPage + 10) & 1) != 0; }
  // Child page of branch node `i`.
  uint64_t Child(uint64_t page, size_t i) const {
    const size_t node = Node(page, i);
    return U16(bytes, node) | (uint64_t{U16(bytes, node + 2)} << 16) |
           (uint64_t{U16(bytes, node + 4)} << 32);
  }
  std::string bytes;
  uint64_t last_page = 0, main_root = 0;
};

class LmdbVerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    original_ = dir_.Sub("original");
    testing::BuildDb(original_, 3000);
    image_ = ReadFile(original_ + "/data.mdb");
    layout_ = std::make_unique<Layout>(image_);
    pages_root_ = layout_->Root("pages");
    ASSERT_TRUE(layout_->IsBranch(pages_root_)) << "the pages table should have depth 2";
  }

  // Writes `image` as a copy of the DB and returns the statuses of a read-only open and,
  // when that succeeds, of the full check.
  std::pair<Status, Status> OpenAndCheck(const std::string& image) {
    const std::string copy = dir_.Sub("copy" + std::to_string(++copies_));
    fs::create_directory(copy);
    std::ofstream(copy + "/data.mdb", std::ios::binary).write(image.data(), image.size());
    PageDbOptions options;
    options.read_only = true;
    auto db = PageDb::Open(copy, options);
    if (!db.ok()) return {db.status(), db.status()};
    return {Status::Ok(), (*db)->Check()};
  }

  // Expects DataLoss mentioning `expected` from the full check, and from the open too
  // when `sampled` (the damaged page lies on a path every open checks).
  void ExpectDamage(const std::string& image, const std::string& expected, bool sampled) {
    auto [open, check] = OpenAndCheck(image);
    if (sampled) {
      EXPECT_EQ(open.code(), StatusCode::kDataLoss) << open.ToString();
    }
    EXPECT_EQ(check.code(), StatusCode::kDataLoss) << check.ToString();
    EXPECT_NE(check.message().find(expected), std::string::npos) << check.ToString();
    std::printf("%s\n", check.ToString().c_str());
  }

  TempDir dir_;
  std::string original_, image_;
  std::unique_ptr<Layout> layout_;
  uint64_t pages_root_ = 0;
  int copies_ = 0;
};

TEST_F(LmdbVerifyTest, SoundFilePasses) {
  auto [open, check] = OpenAndCheck(image_);
  EXPECT_OK(open);
  EXPECT_OK(check);
}

TEST_F(LmdbVerifyTest, FreeSpaceBoundsOutsideThePage) {
  std::string image = image_;
  Put16(image, pages_root_ * kPage + 12, 0xFFF0);  // lower: 32k nodes
  ExpectDamage(image, "free-space bounds", /*sampled=*/true);
}

TEST_F(LmdbVerifyTest, NodeOffsetIntoTheHeader) {
  std::string image = image_;
  Put16(image, pages_root_ * kPage + 16, 4);
  ExpectDamage(image, "starts outside the page", true);
}

TEST_F(LmdbVerifyTest, KeyRunningPastThePage) {
  std::string image = image_;
  Put16(image, layout_->Node(pages_root_, 1) + 6, 4000);
  ExpectDamage(image, "running past the page", true);
}

TEST_F(LmdbVerifyTest, KeysOutOfOrder) {
  std::string image = image_;
  const size_t at = pages_root_ * kPage + 16;
  const uint16_t second = U16(image, at + 2), third = U16(image, at + 4);
  Put16(image, at + 2, third);
  Put16(image, at + 4, second);
  ExpectDamage(image, "out of key order", true);
}

TEST_F(LmdbVerifyTest, ChildPastTheLastPage) {
  std::string image = image_;
  const size_t node = layout_->Node(pages_root_, 0);
  Put16(image, node, static_cast<uint16_t>(layout_->last_page + 5));
  Put16(image, node + 2, 0);
  Put16(image, node + 4, 0);
  ExpectDamage(image, "outside pages 2..", true);
}

TEST_F(LmdbVerifyTest, PageHeaderNamesAnotherPage) {
  std::string image = image_;
  Put64(image, pages_root_ * kPage, pages_root_ + 1);
  ExpectDamage(image, "its header says it is page", true);
}

// A middle child of the root made to point at its neighbour: both paths lead to one leaf,
// the keys of the lost leaf vanish. The open's sampled paths may miss it; the full walk
// finds the page reached twice (or the keys outside their range) and the page nobody
// reaches.
TEST_F(LmdbVerifyTest, ChildSharedByTwoBranchEntries) {
  std::string image = image_;
  ASSERT_GE(layout_->Nodes(pages_root_), 4u);
  const uint64_t neighbour = layout_->Child(pages_root_, 3);
  const size_t node = layout_->Node(pages_root_, 2);
  Put16(image, node, static_cast<uint16_t>(neighbour & 0xFFFF));
  Put16(image, node + 2, static_cast<uint16_t>(neighbour >> 16));
  auto [open, check] = OpenAndCheck(image);
  EXPECT_EQ(check.code(), StatusCode::kDataLoss) << check.ToString();
  const std::string& m = check.message();
  EXPECT_TRUE(m.find("reached twice") != std::string::npos ||
              m.find("outside the range") != std::string::npos)
      << m;
}

// A leaf's entry count off by one: LMDB's own counts no longer match the tree.
TEST_F(LmdbVerifyTest, TableCountsDisagreeWithTheTree) {
  std::string image = image_;
  // The `links` table record in the main leaf: its md_entries (offset 32 of the record).
  const size_t page = layout_->main_root * kPage;
  for (size_t i = 0; i < layout_->Nodes(layout_->main_root); ++i) {
    const size_t node = page + U16(image, page + 16 + 2 * i);
    const size_t key_size = U16(image, node + 6);
    if (image.compare(node + 8, key_size, "links") == 0) {
      Put64(image, node + 8 + key_size + 32, U64(image, node + 8 + key_size + 32) + 1);
    }
  }
  ExpectDamage(image, "entries", false);
}

// A writer reads every record into its index at open: it walks the whole pages table
// first, so damage in any of its leaves is refused, not faulted on.
TEST_F(LmdbVerifyTest, AWriterRefusesDamageInAnyLeafOfThePagesTable) {
  for (size_t child : {size_t{1}, layout_->Nodes(pages_root_) / 2}) {
    std::string image = image_;
    Put16(image, layout_->Child(pages_root_, child) * kPage + 12, 0xFFF0);
    const std::string copy = dir_.Sub("writer" + std::to_string(child));
    fs::create_directory(copy);
    std::ofstream(copy + "/data.mdb", std::ios::binary).write(image.data(), image.size());
    auto db = PageDb::Open(copy);
    ASSERT_FALSE(db.ok()) << "leaf under root entry " << child;
    EXPECT_EQ(db.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(db.status().message().find("for writing: refused"), std::string::npos)
        << db.status().ToString();
    EXPECT_NE(db.status().message().find("free-space bounds"), std::string::npos)
        << db.status().ToString();
  }
}

TEST_F(LmdbVerifyTest, FileCutShortAtAPageBoundary) {
  ExpectDamage(image_.substr(0, image_.size() - kPage), "truncated", true);
}

}  // namespace
}  // namespace crawlrank
