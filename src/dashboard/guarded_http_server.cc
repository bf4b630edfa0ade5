#include "dashboard/guarded_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <memory>

namespace crawlrank::dashboard {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A connection serves this many requests at most, then is closed (as cpp-httplib's own
// keep-alive count does).
constexpr size_t kMaxRequestsPerConnection = 100;

// The address of a socket's peer (`peer`) or its own end, as text, and its port.
std::string AddressOf(socket_t sock, bool peer, int* port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  sockaddr* raw = reinterpret_cast<sockaddr*>(&address);
  if ((peer ? ::getpeername(sock, raw, &length) : ::getsockname(sock, raw, &length)) != 0) {
    return "";
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    *port = ntohs(v4->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    *port = ntohs(v6->sin6_port);
  }
  return text;
}

// Waits until `sock` has `events` (or an error the next call reports) or `deadline` passes.
bool WaitFor(socket_t sock, short events, Clock::time_point deadline) {
  for (;;) {
    const int64_t left =
        std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd one{sock, events, 0};
    const int n = ::poll(&one, 1, static_cast<int>(std::min<int64_t>(left, INT_MAX)));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

// A connection whose reads all end by one deadline: the whole request must arrive by then.
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(socket_t sock, Clock::time_point read_deadline, milliseconds write_timeout)
      : sock_(sock), read_deadline_(read_deadline), write_timeout_(write_timeout) {}

  bool is_readable() const override { return WaitFor(sock_, POLLIN, read_deadline_); }
  bool is_writable() const override {
    return WaitFor(sock_, POLLOUT, Clock::now() + write_timeout_);
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    ssize_t n;
    do {
      n = ::recv(sock_, ptr, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  using httplib::Stream::write;
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = AddressOf(sock_, true, &port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = AddressOf(sock_, false, &port);
  }
  socket_t socket() const override { return sock_; }

 private:
  socket_t sock_;
  Clock::time_point read_deadline_;
  milliseconds write_timeout_;
};

}  // namespace

GuardedHttpServer::GuardedHttpServer(ServerBounds bounds) : bounds_(bounds) {
  // cpp-httplib takes the pool it is given and deletes it when it stops.
  new_task_queue = [threads = bounds_.threads] {
    return std::make_unique<httplib::ThreadPool>(threads).release();
  };
}

void GuardedHttpServer::WidenBacklog() {
  const socket_t listening = svr_sock_;
  if (listening != INVALID_SOCKET) ::listen(listening, 512);  // Linux takes a new backlog
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  int port = 0;
  const std::string client = AddressOf(sock, true, &port);
  bool admitted = false;
  {
    std::lock_guard lock(mu_);
    const auto it = open_.find(client);
    admitted = (it == open_.end() ? 0 : it->second) < bounds_.per_client;
    if (admitted) ++open_[client];  // a refused client adds no entry
  }
  bool served = false;
  if (admitted) {
    served = ServeConnection(sock);
    std::lock_guard lock(mu_);
    if (--open_[client] == 0) open_.erase(client);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return served;
}

bool GuardedHttpServer::ServeConnection(socket_t sock) {
  const milliseconds whole(bounds_.request_ms), idle(bounds_.keep_alive_ms);
  for (size_t n = 0; n < kMaxRequestsPerConnection; ++n) {
    // The first request's deadline runs from the connection's opening; a later one's from
    // its first byte, which must come within the keep-alive time.
    const Clock::time_point begun = Clock::now();
    if (n > 0 && !WaitFor(sock, POLLIN, begun + idle)) return true;
    // Stopped (svr_sock_ closed): no further request on a kept-alive connection, so that
    // Stop's join of the workers is not held up by a client that keeps asking.
    if (n > 0 && svr_sock_ == INVALID_SOCKET) return true;
    DeadlineStream stream(sock, begun + whole, whole);
    bool closed = false;
    if (!process_request(stream, n + 1 == kMaxRequestsPerConnection, closed, nullptr)) {
      return false;
    }
    if (closed) return true;
  }
  return true;
}

}  // namespace crawlrank::dashboard
