// crawlrank_dashboard (`crawlrank dashboard DB`): the crawl in a web browser, read-only,
// beside a running crawl or after it (src/dashboard/dashboard_server.h; docs/dashboard.md).
#include <signal.h>

#include <cstdio>
#include <optional>

#include "dashboard/dashboard_server.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CommandLine app(
      "Serves a web dashboard of a PageDB, read-only: progress over time, hosts, failures, "
      "top pages by each stored rank, one page's links, a JSON API behind every view and "
      "Prometheus metrics at /metrics. Runs beside a crawl (each request reads its own "
      "snapshot) or on a finished DB. Listens on 127.0.0.1 unless told otherwise; any other "
      "address needs --token, which every request must then carry (Authorization: Bearer, "
      "or the cookie /login?token=TOKEN sets). Ctrl-C stops it.",
      "crawlrank_dashboard");
  std::string db_path, listen = "127.0.0.1:7072", old_host, token;
  std::string chartjs = dashboard::DashboardOptions().chartjs;
  std::optional<uint32_t> old_port;
  app.Add("db", db_path, "PageDB directory")->Required();
  auto* listen_option =
      app.Add("--listen", listen,
              "HOST:PORT to listen on (an IPv6 host in brackets; port 0: any free one)")
          ->ShowDefault();
  app.Add("--host", old_host)->Deprecated(listen_option, "--listen HOST:PORT");
  app.Add("--port", old_port)->Deprecated(listen_option, "--listen HOST:PORT");
  app.Add("--token", token, "a secret every request must carry (required off 127.0.0.1)");
  std::vector<std::string> allowed_hosts;
  app.Add("--allow-host", allowed_hosts,
          "a name the dashboard answers to besides IP addresses, localhost and --listen's host (a "
          "request naming another Host gets 421: DNS rebinding); repeatable; '*': any");
  app.Footer("--host and --port (before issue #42) still work: --listen replaces them.\n");
  app.Add("--chartjs", chartjs, "Chart.js to serve for the charts (Debian's libjs-chart.js)")
      ->ShowDefault();
  return Run(app, argc, argv, [&] {
    Result<ListenAddress> parsed = ParseListenAddress(listen);
    if (!parsed.ok()) return UsageError(app, "--listen: " + parsed.status().message());
    if (!old_host.empty()) parsed->host = old_host;
    if (old_port.has_value()) {
      if (*old_port > 65535) return UsageError(app, "--port: above 65535");
      parsed->port = static_cast<int>(*old_port);
    }
    const std::string& host = parsed->host;
    const int port = parsed->port;
    if (!dashboard::IsLoopbackHost(host) && token.empty()) {
      return UsageError(app, "--listen \"" + host +
                                 "\" is reachable from other machines: give --token too");
    }
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    // The signals wait for this thread alone: blocked before the server's threads start.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    dashboard::DashboardOptions options;
    options.host = host;
    options.port = port;
    options.token = token;
    options.allowed_hosts = allowed_hosts;
    options.chartjs = chartjs;
    auto server = dashboard::DashboardServer::Start(**db, options);
    if (!server.ok()) return Fail(app, server.status());
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    std::printf("dashboard of %s on http://%s:%d/\n", db_path.c_str(), shown.c_str(),
                (*server)->port());
    std::fflush(stdout);
    int received = 0;
    while (sigwait(&signals, &received) != 0) {
    }
    (*server)->Stop();
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
