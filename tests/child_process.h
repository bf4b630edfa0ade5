// A child process for tests that need a second process: a writer to kill, a reader
// beside a writer (LMDB allows one open of a DB per process).
#ifndef CRAWLRANK_TESTS_CHILD_PROCESS_H_
#define CRAWLRANK_TESTS_CHILD_PROCESS_H_

#include <signal.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>

namespace crawlrank::testing {

// A forked child running `body`; killed and reaped on destruction. The child reports to
// the parent through a pipe of uint32_t values.
class Child {
 public:
  explicit Child(const std::function<void(int ack_fd)>& body) {
    int fds[2];
    if (::pipe(fds) != 0) std::abort();
    pid_ = ::fork();
    if (pid_ < 0) std::abort();
    if (pid_ == 0) {
      ::close(fds[0]);
      body(fds[1]);
      ::_exit(0);
    }
    ::close(fds[1]);
    read_fd_ = fds[0];
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    Kill();
    ::close(read_fd_);
  }

  // Returns the next value the child sent, or nullopt at end of stream (the child died).
  std::optional<uint32_t> Read() {
    uint32_t value;
    size_t got = 0;
    while (got < sizeof value) {
      const ssize_t n = ::read(read_fd_, reinterpret_cast<char*>(&value) + got, sizeof value - got);
      if (n <= 0) return std::nullopt;
      got += static_cast<size_t>(n);
    }
    return value;
  }
  // Returns true when a value can be read without blocking for `timeout`.
  bool Readable(std::chrono::milliseconds timeout) {
    fd_set set;
    FD_ZERO(&set);
    FD_SET(read_fd_, &set);
    timeval tv{0, static_cast<suseconds_t>(timeout.count() * 1000)};
    return ::select(read_fd_ + 1, &set, nullptr, nullptr, &tv) > 0;
  }
  // Waits for the child to end by itself; returns its wait status.
  int Wait() {
    if (pid_ <= 0) return wait_status_;
    ::waitpid(pid_, &wait_status_, 0);
    pid_ = -1;
    return wait_status_;
  }
  // SIGKILLs the child and reaps it; returns its wait status.
  int Kill() {
    if (pid_ <= 0) return wait_status_;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &wait_status_, 0);
    pid_ = -1;
    return wait_status_;
  }

 private:
  pid_t pid_ = -1;
  int read_fd_ = -1;
  int wait_status_ = 0;
};

// In a child: sends `value` to the parent (exits with status 3 when the pipe is gone).
inline void Send(int fd, uint32_t value) {
  if (::write(fd, &value, sizeof value) != sizeof value) ::_exit(3);
}

}  // namespace crawlrank::testing

#endif  // CRAWLRANK_TESTS_CHILD_PROCESS_H_
