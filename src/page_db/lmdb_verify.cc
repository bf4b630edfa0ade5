#include "page_db/lmdb_verify.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "base/errno_text.h"
#include "base/unique_fd.h"
#include "page_db/lmdb_env.h"

namespace crawlrank::lmdb {
namespace {

// LMDB 0.9's on-disk layout (mdb.c: MDB_page, MDB_node, MDB_meta, MDB_db), host byte order.
constexpr uint32_t kMagic = 0xBEEFC0DE;
constexpr uint32_t kDataVersion = 1;
constexpr size_t kPageHeader = 16;  // pgno (8), pad (2), flags (2), lower (2), upper (2)
constexpr size_t kNodeHeader = 8;   // lo (2), hi (2), flags (2), key size (2)
constexpr size_t kDbRecordSize = 48;
constexpr uint16_t kBranchPage = 0x01;
constexpr uint16_t kLeafPage = 0x02;
constexpr uint16_t kOverflowPage = 0x04;
constexpr uint16_t kMetaPage = 0x08;
constexpr uint16_t kInMemoryFlags = 0x10 | 0x8000;  // P_DIRTY, P_KEEP: never meaningful on disk
constexpr uint16_t kBigData = 0x01;
constexpr uint16_t kSubData = 0x02;
constexpr uint64_t kNoPage = ~uint64_t{0};  // P_INVALID: an empty tree's root
constexpr int kMaxDepth = 32;               // LMDB's cursor stack (CURSOR_STACK)
constexpr size_t kMaxKeySize = 511;         // mdb_env_get_maxkeysize without MDB_DEVEL
constexpr uint64_t kFirstDataPage = 2;      // pages 0 and 1 are the meta pages

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

struct DbRecord {
  uint16_t flags = 0;
  uint16_t depth = 0;
  uint64_t branch_pages = 0, leaf_pages = 0, overflow_pages = 0, entries = 0;
  uint64_t root = kNoPage;
};

DbRecord ParseDbRecord(const char* p) {
  DbRecord db;
  db.flags = Load<uint16_t>(p + 4);
  db.depth = Load<uint16_t>(p + 6);
  db.branch_pages = Load<uint64_t>(p + 8);
  db.leaf_pages = Load<uint64_t>(p + 16);
  db.overflow_pages = Load<uint64_t>(p + 24);
  db.entries = Load<uint64_t>(p + 32);
  db.root = Load<uint64_t>(p + 40);
  return db;
}

struct Meta {
  uint32_t page_size = 0;
  uint64_t last_page = 0;
  uint64_t txnid = 0;
  DbRecord free_db, main_db;
};

// Compares two keys as the tree's comparator does: native unsigned integers for
// MDB_INTEGERKEY trees (the free list), else bytes, a prefix first (mdb_cmp_memn).
int CompareKeys(std::string_view a, std::string_view b, bool integer_keys) {
  if (integer_keys && a.size() == b.size() && (a.size() == 8 || a.size() == 4)) {
    const uint64_t x = a.size() == 8 ? Load<uint64_t>(a.data()) : Load<uint32_t>(a.data());
    const uint64_t y = b.size() == 8 ? Load<uint64_t>(b.data()) : Load<uint32_t>(b.data());
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  return a.compare(b);  // char_traits<char> compares as unsigned bytes, as memcmp does
}

// Reads up to `size` bytes at `offset`; fewer only at the end of the file.
Result<size_t> ReadAt(int fd, const std::string& path, uint64_t offset, char* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("read \"" + path + "\": " + ErrnoText());
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

// Keys of a subtree lie in [low, high); an absent bound is open.
struct KeyRange {
  const std::string* low = nullptr;
  const std::string* high = nullptr;
};

class Walker {
 public:
  Walker(int fd, const std::string& path, const Meta& meta, uint64_t file_pages, VerifyScope scope,
         std::span<const std::string_view> whole_tables)
      : fd_(fd),
        path_(path),
        meta_(meta),
        psize_(meta.page_size),
        file_pages_(file_pages),
        scope_(scope),
        whole_tables_(whole_tables),
        random_(meta.txnid) {}

  // Walks the main tree, every table it names, and (full scope) the free list.
  Status Run() {
    CRAWLRANK_RETURN_IF_ERROR(WalkTree("(main)", meta_.main_db, Kind::kMain));
    // Moved out first: a table's walk must not see its own list change.
    // (A sampled walk meets the main tree's leaves once per path: keep each table once.)
    std::vector<std::pair<std::string, DbRecord>> tables = std::move(tables_);
    std::stable_sort(tables.begin(), tables.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    tables.erase(std::unique(tables.begin(), tables.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; }),
                 tables.end());
    for (const auto& [name, db] : tables) {
      CRAWLRANK_RETURN_IF_ERROR(WalkTree(name, db, Kind::kTable));
    }
    if (scope_ == VerifyScope::kFull) {
      CRAWLRANK_RETURN_IF_ERROR(WalkTree("(free list)", meta_.free_db, Kind::kFreeList));
      if (seen_.empty()) seen_.assign(meta_.last_page + 1, false);  // both trees empty
      for (uint64_t page = kFirstDataPage; page <= meta_.last_page; ++page) {
        if (!seen_[page]) {
          return Broken("page " + std::to_string(page) +
                        " belongs to no table and is not on the free list");
        }
      }
    }
    return Status::Ok();
  }

 private:
  enum class Kind { kMain, kTable, kFreeList };

  struct Tree {
    std::string_view name;
    const DbRecord* db;
    Kind kind;
    bool integer_keys;
    bool whole;  // every page, or sampled paths
    // Counted by a full walk, compared with the record.
    uint64_t branch_pages = 0, leaf_pages = 0, overflow_pages = 0, entries = 0;
  };

  Status Broken(const std::string& what) const {
    return DataLossError("LMDB file \"" + path_ + "\": " + what);
  }
  Status BrokenPage(const Tree& tree, uint64_t page, const std::string& what) const {
    return Broken("page " + std::to_string(page) + " of table \"" + std::string(tree.name) +
                  "\": " + what);
  }

  Status WalkTree(std::string_view name, const DbRecord& db, Kind kind) {
    const bool whole =
        scope_ == VerifyScope::kFull ||
        std::find(whole_tables_.begin(), whole_tables_.end(), name) != whole_tables_.end();
    Tree tree{name, &db, kind, (db.flags & MDB_INTEGERKEY) != 0, whole};
    const unsigned allowed = kind == Kind::kFreeList ? MDB_INTEGERKEY : 0;
    if ((db.flags & ~allowed) != 0) {
      return Broken("table \"" + std::string(name) + "\" has flags " + std::to_string(db.flags) +
                    ", which no table of a PageDB has");
    }
    if (db.root == kNoPage) {
      if (db.depth != 0 || db.entries != 0 || db.branch_pages != 0 || db.leaf_pages != 0 ||
          db.overflow_pages != 0) {
        return Broken("table \"" + std::string(name) + "\" is empty but counts pages or entries");
      }
      return Status::Ok();
    }
    if (db.depth == 0 || db.depth > kMaxDepth) {
      return Broken("table \"" + std::string(name) + "\" has depth " + std::to_string(db.depth));
    }
    buffers_.resize(std::max<size_t>(buffers_.size(), db.depth));
    if (tree.whole && seen_.empty()) seen_.assign(meta_.last_page + 1, false);
    if (tree.whole) {
      CRAWLRANK_RETURN_IF_ERROR(VisitPage(tree, db.root, 1, KeyRange{}, -1));
      if (tree.branch_pages != db.branch_pages || tree.leaf_pages != db.leaf_pages ||
          tree.overflow_pages != db.overflow_pages || tree.entries != db.entries) {
        return Broken(
            "table \"" + std::string(name) + "\" counts " + std::to_string(db.branch_pages) +
            " branch, " + std::to_string(db.leaf_pages) + " leaf and " +
            std::to_string(db.overflow_pages) + " overflow pages and " +
            std::to_string(db.entries) + " entries; its tree has " +
            std::to_string(tree.branch_pages) + ", " + std::to_string(tree.leaf_pages) + ", " +
            std::to_string(tree.overflow_pages) + " and " + std::to_string(tree.entries));
      }
      return Status::Ok();
    }
    // Sampled: the first path, the last path, and random ones. Path p picks child 0, the
    // last child, or a random child at every branch.
    for (int path = 0; path < kSampledPaths + 2; ++path) {
      CRAWLRANK_RETURN_IF_ERROR(VisitPage(tree, db.root, 1, KeyRange{}, path));
    }
    return Status::Ok();
  }

  Status ReadPage(const Tree& tree, uint64_t page, std::string& buffer) {
    if (page < kFirstDataPage || page > meta_.last_page) {
      return Broken("table \"" + std::string(tree.name) + "\" refers to page " +
                    std::to_string(page) + ", outside pages 2.." + std::to_string(meta_.last_page));
    }
    if (page >= file_pages_) {
      return Broken("table \"" + std::string(tree.name) + "\" refers to page " +
                    std::to_string(page) + ", past the end of the file (" +
                    std::to_string(file_pages_) + " pages): it was cut short");
    }
    buffer.resize(psize_);
    CRAWLRANK_ASSIGN_OR_RETURN(size_t read,
                               ReadAt(fd_, path_, page * psize_, buffer.data(), psize_));
    if (read < psize_) return Broken("the file ends inside page " + std::to_string(page));
    if (Load<uint64_t>(buffer.data()) != page) {
      return BrokenPage(
          tree, page,
          "its header says it is page " + std::to_string(Load<uint64_t>(buffer.data())));
    }
    return Status::Ok();
  }

  // Marks `count` pages from `first` as used, once each (trees walked whole: a page
  // reached twice is damage, and a damaged branch cannot make the walk revisit a subtree
  // without end).
  Status MarkUsed(const Tree& tree, uint64_t first, uint64_t count) {
    if (!tree.whole) return Status::Ok();
    for (uint64_t page = first; page < first + count; ++page) {
      if (page < kFirstDataPage || page > meta_.last_page) {
        return Broken("table \"" + std::string(tree.name) + "\" uses page " + std::to_string(page) +
                      ", outside pages 2.." + std::to_string(meta_.last_page));
      }
      if (seen_[page]) {
        return Broken("page " + std::to_string(page) + " is reached twice (table \"" +
                      std::string(tree.name) + "\")");
      }
      seen_[page] = true;
    }
    return Status::Ok();
  }

  // Where a page's free space ends and how many nodes it holds.
  struct PageLayout {
    uint16_t upper;
    size_t nodes;
  };

  // Checks page `page` at `depth` (the root is 1) and, in full scope, everything below it;
  // in sampled scope, `path` says which child to descend into.
  Status VisitPage(Tree& tree, uint64_t page, int depth, KeyRange range, int path) {
    CRAWLRANK_RETURN_IF_ERROR(MarkUsed(tree, page, 1));
    std::string& buffer = buffers_[depth - 1];
    CRAWLRANK_RETURN_IF_ERROR(ReadPage(tree, page, buffer));
    const char* p = buffer.data();
    const bool leaf = depth == tree.db->depth;
    CRAWLRANK_ASSIGN_OR_RETURN(const PageLayout layout, CheckPageHeader(tree, page, depth, p));
    std::vector<std::pair<uint64_t, std::string_view>> children;  // branch: (page, key)
    CRAWLRANK_RETURN_IF_ERROR(CheckNodes(tree, page, p, layout, leaf, range, children));
    if (leaf) return Status::Ok();
    return VisitChildren(tree, depth, range, path, children);
  }

  // Checks the header of `page` (read into `p`), at `depth`: its flags say leaf or branch
  // as its depth does, its free-space bounds fit the page, it holds entries. Counts it.
  Result<PageLayout> CheckPageHeader(Tree& tree, uint64_t page, int depth, const char* p) {
    const bool leaf = depth == tree.db->depth;
    const uint16_t flags = Load<uint16_t>(p + 10) & ~kInMemoryFlags;
    const uint16_t expected = leaf ? kLeafPage : kBranchPage;
    if (flags != expected) {
      return BrokenPage(tree, page,
                        "flags " + std::to_string(flags) + " where a " +
                            (leaf ? "leaf" : "branch") + " page at depth " + std::to_string(depth) +
                            " of " + std::to_string(tree.db->depth) + " was expected");
    }
    const uint16_t lower = Load<uint16_t>(p + 12);
    const uint16_t upper = Load<uint16_t>(p + 14);
    if (lower < kPageHeader || (lower - kPageHeader) % 2 != 0 || upper < lower || upper > psize_) {
      return BrokenPage(tree, page,
                        "free-space bounds " + std::to_string(lower) + ".." +
                            std::to_string(upper) + " do not fit the page");
    }
    const size_t nodes = (lower - kPageHeader) / 2;
    if (nodes == 0) return BrokenPage(tree, page, "it holds no entries");
    if (leaf) {
      ++tree.leaf_pages;
    } else {
      ++tree.branch_pages;
    }
    return PageLayout{upper, nodes};
  }

  // Checks the nodes of `page` (read into `p`): every node lies inside the page, after the
  // free space; keys increase and lie in `range`. A leaf's entries are checked here, a
  // branch's (child page, key) are added to `children`.
  Status CheckNodes(Tree& tree, uint64_t page, const char* p, PageLayout layout, bool leaf,
                    KeyRange range, std::vector<std::pair<uint64_t, std::string_view>>& children) {
    const size_t nodes = layout.nodes;
    std::string_view previous;
    for (size_t i = 0; i < nodes; ++i) {
      const size_t at = Load<uint16_t>(p + kPageHeader + 2 * i);
      auto node_error = [&](const std::string& what) {
        return BrokenPage(
            tree, page, "entry " + std::to_string(i) + " of " + std::to_string(nodes) + " " + what);
      };
      if (at < layout.upper || at + kNodeHeader > psize_) {
        return node_error("starts outside the page");
      }
      const uint16_t lo = Load<uint16_t>(p + at), hi = Load<uint16_t>(p + at + 2);
      const uint16_t node_flags = Load<uint16_t>(p + at + 4);
      const size_t key_size = Load<uint16_t>(p + at + 6);
      if (key_size > kMaxKeySize || at + kNodeHeader + key_size > psize_) {
        return node_error("has a key of " + std::to_string(key_size) +
                          " bytes running past the page");
      }
      const std::string_view key(p + at + kNodeHeader, key_size);
      // A branch's first key is never compared (it stands for everything below the
      // second), so only later keys are ordered and bounded.
      if (leaf || i > 0) {
        if ((leaf ? i > 0 : i > 1) && CompareKeys(previous, key, tree.integer_keys) >= 0) {
          return node_error("is out of key order");
        }
        if ((range.low != nullptr && CompareKeys(key, *range.low, tree.integer_keys) < 0) ||
            (range.high != nullptr && CompareKeys(key, *range.high, tree.integer_keys) >= 0)) {
          return node_error("has a key outside the range its parent gives this page");
        }
        previous = key;
      }
      if (!leaf) {
        const uint64_t child = lo | (uint64_t{hi} << 16) | (uint64_t{node_flags} << 32);
        children.emplace_back(child, key);
        continue;
      }
      CRAWLRANK_RETURN_IF_ERROR(
          CheckLeafNode(tree, page, i, nodes, p, at, lo | (uint32_t{hi} << 16), node_flags, key));
    }
    return Status::Ok();
  }

  // Visits the `children` of a branch page at `depth` whose keys lie in `range`: all of
  // them for a tree walked whole, else the one `path` picks.
  Status VisitChildren(Tree& tree, int depth, KeyRange range, int path,
                       const std::vector<std::pair<uint64_t, std::string_view>>& children) {
    // Child i holds the keys from key i (none for the first) up to key i + 1.
    std::vector<std::string> bounds(children.size());
    for (size_t i = 1; i < children.size(); ++i) bounds[i] = std::string(children[i].second);
    auto visit = [&](size_t i) {
      KeyRange child_range{i == 0 ? range.low : &bounds[i],
                           i + 1 < children.size() ? &bounds[i + 1] : range.high};
      return VisitPage(tree, children[i].first, depth + 1, child_range, path);
    };
    if (tree.whole) {
      for (size_t i = 0; i < children.size(); ++i) CRAWLRANK_RETURN_IF_ERROR(visit(i));
      return Status::Ok();
    }
    size_t pick = 0;
    if (path == 1) {
      pick = children.size() - 1;
    } else if (path > 1) {
      pick = std::uniform_int_distribution<size_t>(0, children.size() - 1)(random_);
    }
    return visit(pick);
  }

  // Checks one leaf entry, whose node starts at offset `at` of page `p`: its data inside
  // the page, or its overflow pages; a table record in the main tree; a page list in the
  // free list.
  Status CheckLeafNode(Tree& tree, uint64_t page, size_t index, size_t nodes, const char* p,
                       size_t at, uint32_t data_size, uint16_t node_flags, std::string_view key) {
    auto node_error = [&](const std::string& what) {
      return BrokenPage(
          tree, page,
          "entry " + std::to_string(index) + " of " + std::to_string(nodes) + " " + what);
    };
    ++tree.entries;
    const size_t data_at = at + kNodeHeader + key.size();
    const bool big = (node_flags & kBigData) != 0;
    // The main tree names tables (F_SUBDATA) and may hold plain entries (not a PageDB,
    // which the caller then says); other trees hold plain entries only.
    const bool table = tree.kind == Kind::kMain && node_flags == kSubData;
    if (!table && (node_flags & ~kBigData) != 0) {
      return node_error("has flags " + std::to_string(node_flags) +
                        ", which no entry of this table has");
    }
    std::string value;  // the data, where it must be read
    if (!big) {
      if (data_at + data_size > psize_) {
        return node_error("has " + std::to_string(data_size) +
                          " bytes of data running past the page");
      }
      value.assign(p + data_at, data_size);
    } else {
      if (data_at + sizeof(uint64_t) > psize_) {
        return node_error("has an overflow page number running past the page");
      }
      const uint64_t first = Load<uint64_t>(p + data_at);
      const uint64_t count = (kPageHeader - 1 + uint64_t{data_size}) / psize_ + 1;
      if (first < kFirstDataPage || first > meta_.last_page ||
          count > meta_.last_page - first + 1) {
        return node_error("names overflow pages " + std::to_string(first) + " (+" +
                          std::to_string(count) + ") for " + std::to_string(data_size) +
                          " bytes, which do not fit pages 2.." + std::to_string(meta_.last_page));
      }
      std::string overflow;
      CRAWLRANK_RETURN_IF_ERROR(ReadPage(tree, first, overflow));
      const uint16_t flags = Load<uint16_t>(overflow.data() + 10) & ~kInMemoryFlags;
      const uint32_t stored_count = Load<uint32_t>(overflow.data() + 12);
      if (flags != kOverflowPage || stored_count != count) {
        return BrokenPage(tree, first,
                          "is not the start of " + std::to_string(count) +
                              " overflow pages (flags " + std::to_string(flags) + ", " +
                              std::to_string(stored_count) + " pages)");
      }
      if (first + count - 1 >= file_pages_) {
        return Broken("overflow pages " + std::to_string(first) + ".." +
                      std::to_string(first + count - 1) + " run past the end of the file");
      }
      CRAWLRANK_RETURN_IF_ERROR(MarkUsed(tree, first, count));
      tree.overflow_pages += count;
      if (tree.kind == Kind::kFreeList && scope_ == VerifyScope::kFull) {
        value.resize(data_size);
        CRAWLRANK_ASSIGN_OR_RETURN(
            size_t read, ReadAt(fd_, path_, first * psize_ + kPageHeader, value.data(), data_size));
        if (read < data_size) return Broken("the file ends inside the free list");
      }
    }
    if (table) {
      if (data_size != kDbRecordSize) {
        return node_error("is a table record of the wrong size");
      }
      // Walked after the main tree: the walk reuses the page buffers.
      tables_.emplace_back(std::string(key), ParseDbRecord(value.data()));
      return Status::Ok();
    }
    if (tree.kind == Kind::kFreeList && scope_ == VerifyScope::kFull) {
      if (key.size() != 8 || value.size() < 8 || value.size() % 8 != 0 ||
          Load<uint64_t>(value.data()) != value.size() / 8 - 1) {
        return node_error("is not a list of free pages");
      }
      for (size_t offset = 8; offset < value.size(); offset += 8) {
        CRAWLRANK_RETURN_IF_ERROR(MarkUsed(tree, Load<uint64_t>(value.data() + offset), 1));
      }
    }
    return Status::Ok();
  }

  int fd_;
  const std::string& path_;
  Meta meta_;
  uint32_t psize_;
  uint64_t file_pages_;
  VerifyScope scope_;
  std::span<const std::string_view> whole_tables_;
  std::mt19937_64 random_;
  std::vector<bool> seen_;            // pages reached so far (by trees walked whole)
  std::vector<std::string> buffers_;  // one page buffer per depth
  std::vector<std::pair<std::string, DbRecord>> tables_;  // named by the main tree
};

// Reads and checks the meta page `index` (0 or 1) of a file with pages of `page_size`.
Result<Meta> ReadMeta(int fd, const std::string& path, uint32_t page_size, int index) {
  char page[kPageHeader + 136];
  CRAWLRANK_ASSIGN_OR_RETURN(size_t read,
                             ReadAt(fd, path, uint64_t{page_size} * index, page, sizeof page));
  const std::string which = "LMDB file \"" + path + "\": meta page " + std::to_string(index);
  if (read < sizeof page) return DataLossError(which + " is cut short");
  if ((Load<uint16_t>(page + 10) & ~kInMemoryFlags) != kMetaPage ||
      Load<uint32_t>(page + 16) != kMagic) {
    return DataLossError(which + " is not an LMDB meta page");
  }
  if (Load<uint32_t>(page + 20) != kDataVersion) {
    return DataLossError(which + " has LMDB data version " +
                         std::to_string(Load<uint32_t>(page + 20)));
  }
  Meta meta;
  meta.free_db = ParseDbRecord(page + 40);
  meta.main_db = ParseDbRecord(page + 88);
  meta.page_size = Load<uint32_t>(page + 40);  // the free list's md_pad holds it
  meta.last_page = Load<uint64_t>(page + 136);
  meta.txnid = Load<uint64_t>(page + 144);
  if (meta.page_size != page_size) {
    return DataLossError(which + " gives a page size of " + std::to_string(meta.page_size) +
                         ", LMDB opened it with " + std::to_string(page_size));
  }
  return meta;
}

}  // namespace

Status VerifyStructure(MDB_txn* txn, const std::string& data_path, VerifyScope scope,
                       std::span<const std::string_view> whole_tables) {
  MDB_stat stat;
  if (const int rc = mdb_env_stat(mdb_txn_env(txn), &stat); rc != 0) {
    return Error(rc, "read the page size of", data_path);
  }
  const UniqueFd fd(::open(data_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return IoError("open \"" + data_path + "\": " + ErrnoText());
  const int raw_fd = fd.get();
  struct stat st;
  if (::fstat(raw_fd, &st) != 0) {
    return IoError("stat \"" + data_path + "\": " + ErrnoText());
  }
  const uint32_t page_size = stat.ms_psize;
  const uint64_t file_pages = static_cast<uint64_t>(st.st_size) / page_size;

  // The transaction reads the meta page its id names (LMDB writes transaction N's meta to
  // page N % 2); a later commit of another process may already have rewritten the other.
  const uint64_t txnid = mdb_txn_id(txn);
  Meta meta;
  bool found = false;
  for (int index = 0; index < 2; ++index) {
    CRAWLRANK_ASSIGN_OR_RETURN(Meta candidate, ReadMeta(raw_fd, data_path, page_size, index));
    if (candidate.txnid == txnid) {
      meta = candidate;
      found = true;
    }
  }
  if (!found) {
    return UnavailableError("verify \"" + data_path + "\": transaction " + std::to_string(txnid) +
                            " is on neither meta page any more (a writer committed twice "
                            "meanwhile); try again");
  }
  if (meta.last_page >= file_pages) {
    return DataLossError("LMDB file \"" + data_path + "\": its last page is " +
                         std::to_string(meta.last_page) + " but it holds " +
                         std::to_string(file_pages) + " pages: it was cut short");
  }
  return Walker(raw_fd, data_path, meta, file_pages, scope, whole_tables).Run();
}

// A data.mdb shorter than its last committed page (a copy cut short, a full disk during a
// copy) would make LMDB read past the end of the mapping and crash with SIGBUS; report it.
// The file only grows while open, so reading the size after the meta page is safe.
Status CheckFileSize(MDB_env* env, const std::string& path) {
  MDB_envinfo info;
  MDB_stat stat;
  if (mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &stat) != 0) return Status::Ok();
  struct stat st;
  if (::stat((path + "/data.mdb").c_str(), &st) != 0) {
    return IoError("open PageDB \"" + path + "\": stat data.mdb: " + ErrnoText());
  }
  const uint64_t needed = (uint64_t{info.me_last_pgno} + 1) * stat.ms_psize;
  if (static_cast<uint64_t>(st.st_size) < needed) {
    return DataLossError("open PageDB \"" + path + "\": data.mdb is truncated (" +
                         std::to_string(st.st_size) + " bytes, its last page ends at " +
                         std::to_string(needed) + ")");
  }
  return Status::Ok();
}

}  // namespace crawlrank::lmdb
