// The dashboard's HTTP server: cpp-httplib's, with the bounds a server reachable by others
// needs and cpp-httplib 0.11 does not give.
//
// cpp-httplib serves each connection on a pool thread, with a listen backlog of 5 and a
// read timeout per recv() only; it checks a request's token once the whole request is read.
// 300 idle or slow connections (a byte every few seconds) then hold every pool thread and
// the backlog, and an authorised request waits behind them. This server:
//   - gives each request `request_ms` to arrive whole (head and body) from its first byte
//     or from the connection's opening, then closes the connection;
//   - keeps at most `per_client` connections of one client address open, closing the
//     others at once (a browser opens 6 at most);
//   - serves from `threads` pool threads and a listen backlog of 512.
// Thread safety: as httplib::Server.
#ifndef CRAWLRANK_SRC_DASHBOARD_GUARDED_HTTP_SERVER_H_
#define CRAWLRANK_SRC_DASHBOARD_GUARDED_HTTP_SERVER_H_

#include <httplib.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace crawlrank::dashboard {

struct ServerBounds {
  int64_t request_ms = 10'000;    // for a request to arrive whole
  int64_t keep_alive_ms = 1'000;  // for the next request of a kept-alive connection
  size_t per_client = 16;         // connections of one client address at once
  size_t threads = 64;            // pool threads serving connections
};

class GuardedHttpServer : public httplib::Server {
 public:
  explicit GuardedHttpServer(ServerBounds bounds = {});
  // After bind_to_port / bind_to_any_port: a longer listen backlog than cpp-httplib's 5.
  void WidenBacklog();

 private:
  // cpp-httplib calls this on a pool thread for each connection accepted.
  bool process_and_close_socket(socket_t sock) override;
  bool ServeConnection(socket_t sock);

  const ServerBounds bounds_;
  std::mutex mu_;
  std::unordered_map<std::string, size_t> open_;  // connections by client address
};

}  // namespace crawlrank::dashboard

#endif  // CRAWLRANK_SRC_DASHBOARD_GUARDED_HTTP_SERVER_H_
