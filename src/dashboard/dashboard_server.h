// `crawlrank dashboard DB`: an HTTP server (Debian's cpp-httplib) that shows a PageDB,
// read-only, beside a running crawl or after it. Each request opens and closes its own
// snapshot (DashboardData). Views: / (the crawl at a glance, progress charts), /hosts,
// /failures, /top, /page; each has its JSON under /api/ (summary, progress, hosts,
// failures, top, page); /metrics is Prometheus' text format. docs/dashboard.md has them
// all.
//
// Safe by default: it listens on 127.0.0.1; any other address needs a token, which every
// request must then carry (an `Authorization: Bearer TOKEN` header, or the cookie that
// /login?token=TOKEN sets). Pages are served with a Content-Security-Policy that allows
// only the server's own scripts, and every value in them is escaped.
#ifndef CRAWLRANK_SRC_DASHBOARD_DASHBOARD_SERVER_H_
#define CRAWLRANK_SRC_DASHBOARD_DASHBOARD_SERVER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank::dashboard {

struct DashboardOptions {
  std::string host = "127.0.0.1";
  int port = 7072;  // 0: any free port (DashboardServer::port says which)
  // Required unless `host` is a loopback address (127.0.0.0/8, ::1, localhost).
  std::string token;
  // Names a request's Host header may carry besides an IP address and "localhost" (DNS
  // rebinding: a web page in the operator's browser that makes its own name resolve to
  // 127.0.0.1 sends that name, and is refused). "*" accepts any name.
  std::vector<std::string> allowed_hosts;
  // Chart.js, served as /static/chart.js; a page without it shows its tables only.
  std::string chartjs = "/usr/share/javascript/chart.js/chart.min.js";
};

class DashboardServer {
 public:
  // Binds and starts serving `db` (which must outlive the server) on a thread of its own.
  // InvalidArgument for a non-loopback host without a token; Unavailable when the address
  // cannot be bound.
  static Result<std::unique_ptr<DashboardServer>> Start(const PageDb& db,
                                                        const DashboardOptions& options);
  ~DashboardServer();
  DashboardServer(const DashboardServer&) = delete;
  DashboardServer& operator=(const DashboardServer&) = delete;

  int port() const;
  // Stops accepting and waits for the requests in progress.
  void Stop();

 private:
  struct Impl;
  explicit DashboardServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackHost(const std::string& host);

// Whether a request's Host header (`value`: "name", "name:port", "[v6]:port") names the
// dashboard as `options` allow: an IP address literal, "localhost", the address it listens
// on, or one of allowed_hosts (case-insensitive). A missing Host (HTTP/1.0) is accepted.
bool HostHeaderAllowed(std::string_view value, const DashboardOptions& options);

}  // namespace crawlrank::dashboard

#endif  // CRAWLRANK_SRC_DASHBOARD_DASHBOARD_SERVER_H_
