// TempDir: the directory crawlrank_simulate's PageDbs go in, removed with them at the end.
#ifndef CRAWLRANK_BENCHMARKS_SIMULATE_TEMP_DIR_H_
#define CRAWLRANK_BENCHMARKS_SIMULATE_TEMP_DIR_H_

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "crawlrank/status.h"

namespace crawlrank::bench {

// A directory removed with everything in it when this goes out of scope.
class TempDir {
 public:
  static Result<TempDir> Create(const std::filesystem::path& parent) {
    std::string pattern = (parent / "crawlrank-simulate-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return IoError("create a directory in \"" + parent.string() + "\": " + std::strerror(errno));
    }
    return TempDir(pattern);
  }
  TempDir(TempDir&& o) noexcept : path_(std::exchange(o.path_, {})) {}
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TempDir(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SIMULATE_TEMP_DIR_H_
