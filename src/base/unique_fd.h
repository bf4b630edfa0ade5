// A file descriptor closed on destruction.
#ifndef CRAWLRANK_SRC_UNIQUE_FD_H_
#define CRAWLRANK_SRC_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace crawlrank {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Gives up ownership, for a caller that must see close()'s result.
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_UNIQUE_FD_H_
