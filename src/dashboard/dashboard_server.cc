#include "dashboard/dashboard_server.h"

#include <httplib.h>

#include <arpa/inet.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <atomic>
#include <chrono>
#include <thread>

#include "crawlrank/rank_store.h"
#include "dashboard/dashboard_data.h"
#include "dashboard/dashboard_pages.h"
#include "dashboard/guarded_http_server.h"
#include "dashboard/html.h"

namespace crawlrank::dashboard {
namespace {

constexpr std::string_view kCookie = "crawlrank_dashboard";
constexpr const char* kHtml = "text/html; charset=utf-8";
constexpr const char* kJson = "application/json";

// The HTTP status of an error.
int HttpStatusOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument: return 400;
    case StatusCode::kNotFound: return 404;
    default: return 500;
  }
}

// Equal without an early exit on the first difference.
bool SameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The value of cookie `name` in a Cookie header, or empty.
std::string CookieValue(const std::string& header, std::string_view name) {
  std::istringstream in(header);
  std::string part;
  while (std::getline(in, part, ';')) {
    const size_t start = part.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    std::string_view item = std::string_view(part).substr(start);
    if (item.starts_with(name) && item.size() > name.size() && item[name.size()] == '=') {
      return std::string(item.substr(name.size() + 1));
    }
  }
  return {};
}

size_t SizeParam(const httplib::Request& req, const char* name, size_t fallback) {
  if (!req.has_param(name)) return fallback;
  try {
    const long long v = std::stoll(req.get_param_value(name));
    return v < 0 ? 0 : static_cast<size_t>(v);
  } catch (const std::exception&) {
    return fallback;
  }
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

bool HostHeaderAllowed(std::string_view value, const DashboardOptions& options) {
  if (value.empty()) return true;
  std::string name;
  if (value.front() == '[') {  // [v6] or [v6]:port: an address literal
    const size_t end = value.find(']');
    if (end == std::string_view::npos) return false;
    name = std::string(value.substr(1, end - 1));
  } else {
    name = std::string(value.substr(0, value.rfind(':')));
  }
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  in6_addr v6;
  in_addr v4;
  if (inet_pton(AF_INET, name.c_str(), &v4) == 1 || inet_pton(AF_INET6, name.c_str(), &v6) == 1) {
    return true;  // a page can reach an address literal as itself only: no rebinding
  }
  if (name == "localhost" || name == options.host) return true;
  for (const std::string& allowed : options.allowed_hosts) {
    if (allowed == "*") return true;
    std::string lower = allowed;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == name) return true;
  }
  return false;
}

struct DashboardServer::Impl {
  DashboardData data;
  DashboardOptions options;
  std::string chartjs;  // the file's bytes; empty when it could not be read
  GuardedHttpServer server;  // time and connection bounds (guarded_http_server.h)
  std::thread thread;
  std::atomic<bool> listen_returned{false};  // the thread's listen_after_bind is over
  int port = 0;

  std::string db_path;

  Impl(const PageDb& db, DashboardOptions o)
      : data(db), options(std::move(o)), db_path(db.path()) {}

  bool Authorized(const httplib::Request& req) const {
    if (options.token.empty()) return true;
    const std::string auth = req.get_header_value("Authorization");
    if (auth.starts_with("Bearer ") && SameSecret(auth.substr(7), options.token)) return true;
    return SameSecret(CookieValue(req.get_header_value("Cookie"), kCookie), options.token);
  }

  // Serves `view` as JSON (under /api/) and as a page rendered by `render`.
  template <typename Read, typename Render>
  void View(const std::string& path, Read read, Render render) {
    server.Get("/api/" + path, [read](const httplib::Request& req, httplib::Response& res) {
      Result<Json> json = read(req);
      if (!json.ok()) {
        res.status = HttpStatusOf(json.status());
        res.set_content(Json{{"error", ValidUtf8(json.status().ToString())}}.dump(), kJson);
        return;
      }
      res.set_content(json->dump(-1, ' ', false, Json::error_handler_t::replace), kJson);
    });
    server.Get(path == "summary" ? "/" : "/" + path,
               [read, render, path](const httplib::Request& req, httplib::Response& res) {
                 Result<Json> json = read(req);
                 if (!json.ok()) {
                   res.status = HttpStatusOf(json.status());
                   res.set_content(ErrorPage(path, json.status().ToString()), kHtml);
                   return;
                 }
                 res.set_content(render(req, *json), kHtml);
               });
  }

  // The top pages a request asks for: by default the display rank, or pagerank where none
  // is stored (a DB loaded or ranked by hand).
  Result<Json> Top(const httplib::Request& req) const {
    const std::string by = req.has_param("by") ? req.get_param_value("by") : std::string();
    return data.Top(by.empty() ? ShownRankName(db_path) : by, SizeParam(req, "n", 100));
  }

  // What every answer carries, who may ask (the Host named, the token), and the answer to
  // a request that met damage.
  void Guard() {
    server.set_default_headers(
        {{"Content-Security-Policy",
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
         {"X-Content-Type-Options", "nosniff"},
         {"Referrer-Policy", "no-referrer"},
         {"Cache-Control", "no-store"}});
    server.set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) {
          const std::string host = req.get_header_value("Host");
          if (!HostHeaderAllowed(host, options)) {
            res.status = 421;  // Misdirected Request
            res.set_content("this dashboard does not answer to the name \"" + ValidUtf8(host) +
                                "\"; start it with --allow-host NAME to let it\n",
                            "text/plain");
            return httplib::Server::HandlerResponse::Handled;
          }
          if (req.path == "/login" || Authorized(req)) {
            return httplib::Server::HandlerResponse::Unhandled;
          }
          res.status = 401;
          res.set_header("WWW-Authenticate", "Bearer");
          res.set_content("this dashboard needs its token: /login?token=TOKEN, or an "
                          "Authorization: Bearer header\n",
                          "text/plain");
          return httplib::Server::HandlerResponse::Handled;
        });
    // A request that met damage LMDB asserts on (base/lmdb_assertion.h) gets its error; the
    // dashboard keeps serving the others.
    server.set_exception_handler(
        [](const httplib::Request& req, httplib::Response& res, std::exception_ptr thrown) {
          std::string what = "unexpected error";
          try {
            std::rethrow_exception(thrown);
          } catch (const std::exception& e) {
            what = e.what();
          } catch (...) {
          }
          res.status = 500;
          if (req.path.starts_with("/api/") || req.path == "/metrics") {
            res.set_content(Json{{"error", ValidUtf8(what)}}.dump(), kJson);
          } else {
            res.set_content(ErrorPage(req.path, what), kHtml);
          }
        });
  }

  // The console's views (issue #48): the latest fetches, broken links, a host, search.
  void ConsoleRoutes() {
    View("recent",
         [this](const httplib::Request& req) {
           return data.Recent(SizeParam(req, "after", 0), SizeParam(req, "n", 200));
         },
         [](const httplib::Request&, const Json& j) { return RecentPage(j); });
    View("broken",
         [this](const httplib::Request& req) {
           return data.Broken(SizeParam(req, "limit", 500), SizeParam(req, "referrers", 10));
         },
         [](const httplib::Request&, const Json& j) { return BrokenPage(j); });
    server.Get("/broken.csv", [this](const httplib::Request&, httplib::Response& res) {
      Result<std::string> csv = data.BrokenCsv();
      res.status = csv.ok() ? 200 : HttpStatusOf(csv.status());
      res.set_header("Content-Disposition", "attachment; filename=\"broken-links.csv\"");
      res.set_content(csv.ok() ? *csv : csv.status().ToString() + "\n", "text/csv; charset=utf-8");
    });
    View("host", [this](const httplib::Request& req) { return data.Host(req.get_param_value("name")); },
         [](const httplib::Request&, const Json& j) { return HostPage(j); });
    server.Get("/api/search", [this](const httplib::Request& req, httplib::Response& res) {
      Result<Json> json = data.Search(req.get_param_value("q"), SizeParam(req, "limit", 50));
      res.status = json.ok() ? 200 : HttpStatusOf(json.status());
      res.set_content(json.ok() ? json->dump(-1, ' ', false, Json::error_handler_t::replace)
                                : Json{{"error", ValidUtf8(json.status().ToString())}}.dump(),
                      kJson);
    });
    server.Get("/search", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string q = req.get_param_value("q");
      if (q.empty()) {
        res.set_content(SearchPage(Json(nullptr), ""), kHtml);
        return;
      }
      Result<Json> json = data.Search(q, SizeParam(req, "limit", 50));
      if (!json.ok()) {
        res.status = HttpStatusOf(json.status());
        res.set_content(ErrorPage("search", json.status().ToString()), kHtml);
        return;
      }
      res.set_content(SearchPage(*json, q), kHtml);
    });
  }

  void Routes() {
    const bool charts = !chartjs.empty();
    View("summary", [this](const httplib::Request&) { return data.Summary(); },
         [charts](const httplib::Request&, const Json& j) { return OverviewPage(j, charts); });
    server.Get("/api/progress", [this](const httplib::Request& req, httplib::Response& res) {
      Result<Json> json = data.Progress(static_cast<int64_t>(SizeParam(req, "since", 0)));
      res.status = json.ok() ? 200 : HttpStatusOf(json.status());
      res.set_content(json.ok() ? json->dump() : Json{{"error", json.status().ToString()}}.dump(),
                      kJson);
    });
    const auto hosts_query = [](const httplib::Request& req) {
      HostsQuery q;
      if (req.has_param("sort")) q.sort = req.get_param_value("sort");
      q.descending = req.get_param_value("order") != "asc";
      q.offset = SizeParam(req, "offset", 0);
      q.limit = SizeParam(req, "limit", 100);
      return q;
    };
    View("hosts", [this, hosts_query](const httplib::Request& req) { return data.Hosts(hosts_query(req)); },
         [hosts_query](const httplib::Request& req, const Json& j) {
           return HostsPage(j, hosts_query(req));
         });
    View("failures",
         [this](const httplib::Request& req) {
           return data.Failures(req.get_param_value("kind"), req.get_param_value("host"),
                                SizeParam(req, "limit", 200));
         },
         [](const httplib::Request& req, const Json& j) {
           return FailuresPage(j, req.get_param_value("kind"), req.get_param_value("host"));
         });
    View("top",
         [this](const httplib::Request& req) { return Top(req); },
         [charts](const httplib::Request&, const Json& j) { return TopPage(j, charts); });
    View("page",
         [this](const httplib::Request& req) -> Result<Json> {
           if (req.has_param("id")) {
             const size_t id = SizeParam(req, "id", SIZE_MAX);
             if (id > UINT32_MAX) return InvalidArgumentError("page: id is not a page id");
             return data.Page(static_cast<uint32_t>(id), "");
           }
           if (!req.has_param("url")) return InvalidArgumentError("page: give ?id= or ?url=");
           return data.Page(std::nullopt, req.get_param_value("url"));
         },
         [](const httplib::Request&, const Json& j) { return PagePage(j); });
    ConsoleRoutes();
    server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      Result<std::string> text = data.Metrics();
      res.status = text.ok() ? 200 : 500;
      res.set_content(text.ok() ? *text : text.status().ToString() + "\n",
                      "text/plain; version=0.0.4; charset=utf-8");
    });
    server.Get("/static/dashboard.js", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(DashboardScript()), "text/javascript; charset=utf-8");
    });
    server.Get("/static/dashboard.css", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(DashboardStyle()), "text/css; charset=utf-8");
    });
    server.Get("/static/chart.js", [this](const httplib::Request&, httplib::Response& res) {
      if (chartjs.empty()) {
        res.status = 404;
        return;
      }
      res.set_content(chartjs, "text/javascript; charset=utf-8");
    });
    server.Get("/login", [this](const httplib::Request& req, httplib::Response& res) {
      if (options.token.empty() || !SameSecret(req.get_param_value("token"), options.token)) {
        res.status = 401;
        res.set_content("wrong or missing token\n", "text/plain");
        return;
      }
      res.set_header("Set-Cookie", std::string(kCookie) + "=" + options.token +
                                       "; Path=/; HttpOnly; SameSite=Strict");
      res.set_redirect("/");
    });
  }
};

DashboardServer::DashboardServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

DashboardServer::~DashboardServer() { Stop(); }

int DashboardServer::port() const { return impl_->port; }

void DashboardServer::Stop() {
  if (!impl_->thread.joinable()) return;
  // cpp-httplib's stop() does nothing until listen_after_bind has begun (is_running): a
  // Stop right after Start (a SIGTERM as the address is printed) would leave the thread
  // listening for ever. Wait for it to begin, or to have ended on its own.
  while (!impl_->server.is_running() && !impl_->listen_returned.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  impl_->server.stop();
  impl_->thread.join();
}

Result<std::unique_ptr<DashboardServer>> DashboardServer::Start(const PageDb& db,
                                                                const DashboardOptions& options) {
  if (!IsLoopbackHost(options.host) && options.token.empty()) {
    return InvalidArgumentError("dashboard: listening on " + options.host +
                                " lets other machines read the crawl: give a --token (or "
                                "listen on 127.0.0.1)");
  }
  if (options.port < 0 || options.port > 65535) {
    return InvalidArgumentError("dashboard: port " + std::to_string(options.port) +
                                " is not from 0 to 65535");
  }
  auto impl = std::make_unique<Impl>(db, options);
  if (!options.chartjs.empty()) {
    std::ifstream in(options.chartjs, std::ios::binary);
    std::ostringstream bytes;
    if (in && (bytes << in.rdbuf())) impl->chartjs = bytes.str();
  }
  impl->Guard();
  impl->server.set_payload_max_length(64 * 1024);
  // (Connections are kept alive 1 s between requests, and a request must arrive whole
  // within 10 s: GuardedHttpServer. Stop() waits for the connections open to end.)
  impl->Routes();
  const std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
  if (options.port == 0) {
    impl->port = impl->server.bind_to_any_port(host);
    if (impl->port <= 0) return UnavailableError("dashboard: cannot listen on " + host);
  } else if (!impl->server.bind_to_port(host, options.port)) {
    return UnavailableError("dashboard: cannot listen on " + host + ":" +
                            std::to_string(options.port) + " (in use?)");
  } else {
    impl->port = options.port;
  }
  Impl* raw = impl.get();
  impl->server.WidenBacklog();
  impl->thread = std::thread([raw] {
    raw->server.listen_after_bind();
    raw->listen_returned = true;
  });
  return std::unique_ptr<DashboardServer>(new DashboardServer(std::move(impl)));
}

}  // namespace crawlrank::dashboard
