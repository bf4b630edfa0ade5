// crawlrank_serve (`crawlrank serve`): serves a PageDB's frontier over the URLFrontier gRPC
// API, so that crawlers in other processes and on other machines share it
// (docs/frontier.md).
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "crawlrank/crawl_config.h"
#include "crawlrank/score_mode.h"
#include "crawlrank/url_pattern.h"
#include "serve/frontier_server.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

int Main(int argc, char** argv) {
  CommandLine app(
      "Serves the frontier of a PageDB (created when missing) over the URLFrontier gRPC API "
      "2.6: crawlers get URLs best first and polite per host, and report what they fetched. "
      "Listens on 127.0.0.1 unless told otherwise; any other address needs --token or "
      "client certificates (--tls-client-ca). "
      "SIGTERM or SIGINT stops taking calls, lets running ones finish (5 s at most), closes "
      "the DB and exits 0.",
      "crawlrank_serve");
  std::string db_path, address = "127.0.0.1:7071", token, tls_cert, tls_key, tls_client_ca, score;
  std::optional<int64_t> delay_ms;
  std::optional<uint32_t> per_host, max_depth;
  std::optional<int64_t> max_pages, max_pages_per_host;
  std::vector<std::string> allow, deny;
  int64_t lease_s = 30;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("--address", address, "host:port to listen on (port 0: any free one)")->ShowDefault();
  app.Add("--token", token,
          "shared secret every call must send as \"authorization: Bearer TOKEN\"");
  app.Add("--tls-cert", tls_cert, "PEM file: the server's certificate chain (TLS only, then)");
  app.Add("--tls-key", tls_key, "PEM file: the private key of --tls-cert");
  app.Add("--tls-client-ca", tls_client_ca,
          "PEM file: every client must show a certificate this CA signed (mutual TLS)");
  app.Add("--delay-ms", delay_ms,
          "minimum time between two URLs of one host (stored with the crawl; "
          "default 1000)");
  app.Add("--per-host", per_host,
          "URLs of one host out at once (stored with the crawl; default 1)");
  app.Add("--score-mode", score,
          "queue order, as crawlrank crawl's --score-mode (stored with the crawl; default "
          "blend)");
  app.Add("--allow", allow,
          "hand out only URLs matching one of these (RE2, searched in the URL; stored with the "
          "crawl)");
  app.Add("--deny", deny, "never hand out URLs matching one of these (RE2; stored)");
  app.Add("--max-pages", max_pages, "pages to crawl in all (0: no limit; stored)");
  app.Add("--max-pages-per-host", max_pages_per_host,
          "pages to crawl of one host (0: no limit; stored)");
  app.Add("--max-depth", max_depth, "link distance from a seed (0: no limit; stored)");
  app.Add("--default-lease", lease_s,
          "seconds a URL stays handed out when GetURLs leaves delay_requestable 0")
      ->ShowDefault()
      ->Positive();
  return Run(app, argc, argv, [&] {
    if (!IsLoopbackAddress(address) && token.empty() && tls_client_ca.empty()) {
      return UsageError(app, "--address \"" + address +
                                 "\" is reachable from other machines: give --token, or "
                                 "--tls-client-ca with --tls-cert and --tls-key, too");
    }
    if (tls_cert.empty() != tls_key.empty()) {
      return UsageError(app, "--tls-cert and --tls-key go together");
    }
    if (!tls_client_ca.empty() && tls_cert.empty()) {
      return UsageError(app, "--tls-client-ca needs --tls-cert and --tls-key");
    }
    if (delay_ms.has_value() && *delay_ms < 0) return UsageError(app, "--delay-ms is negative");
    if (per_host.has_value() && *per_host == 0) return UsageError(app, "--per-host is 0");
    for (const auto& [name, list] : {std::pair{"--allow", &allow}, std::pair{"--deny", &deny}}) {
      for (const std::string& pattern : *list) {
        if (Result<UrlPattern> compiled = UrlPattern::Compile(pattern); !compiled.ok()) {
          return UsageError(app, std::string(name) + ": " + compiled.status().message());
        }
      }
    }
    for (const auto& [name, value] :
         {std::pair{"--max-pages", max_pages}, std::pair{"--max-pages-per-host", max_pages_per_host}}) {
      if (value.has_value() && *value < 0) return UsageError(app, std::string(name) + " is negative");
    }
    if (!score.empty()) {
      if (Result<ScoreMode> mode = ParseScoreMode(score); !mode.ok()) {
        return UsageError(app, "--score-mode: " + mode.status().message());
      }
    }
    FrontierServerOptions options;
    const std::pair<const std::string*, std::string*> pems[] = {
        {&tls_cert, &options.tls_cert_pem},
        {&tls_key, &options.tls_key_pem},
        {&tls_client_ca, &options.tls_client_ca_pem}};
    for (const auto& [path, pem] : pems) {
      if (path->empty()) continue;
      Result<std::string> text = ReadPemFile(*path);
      if (!text.ok()) return Fail(app, text.status());
      *pem = *std::move(text);
    }
    options.address = address;
    options.service.token = token;
    options.service.default_lease_ms = lease_s * 1000;
    if (delay_ms) options.given["delay_ms"] = std::to_string(*delay_ms);
    if (per_host) options.given["per_host"] = std::to_string(*per_host);
    if (!score.empty()) options.given["score"] = score;
    if (!allow.empty()) options.given["allow"] = JoinConfigList(allow);
    if (!deny.empty()) options.given["deny"] = JoinConfigList(deny);
    if (max_pages) options.given["max_pages"] = std::to_string(*max_pages);
    if (max_pages_per_host) options.given["max_pages_per_host"] = std::to_string(*max_pages_per_host);
    if (max_depth) options.given["max_depth"] = std::to_string(*max_depth);
    // The signals wait for this thread alone: blocked before gRPC starts its threads, which
    // inherit the mask.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    auto server = FrontierServer::Start(db_path, options);
    if (!server.ok()) return Fail(app, server.status());
    if (const std::string changes = (*server)->config_changes(); !changes.empty()) {
      std::fprintf(stderr, "crawlrank_serve: changed the configuration stored in %s: %s\n",
                   db_path.c_str(), changes.c_str());
    }
    std::printf("listening on %s\n", (*server)->address().c_str());
    std::fflush(stdout);
    int received = 0;
    while (sigwait(&signals, &received) != 0) {
    }
    std::fprintf(stderr, "crawlrank_serve: %s: draining\n",
                 received == SIGINT ? "SIGINT" : "SIGTERM");
    (*server)->Shutdown(std::chrono::seconds(5));
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
