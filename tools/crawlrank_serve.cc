// crawlrank_serve (`crawlrank serve`): serves a PageDB's frontier over the URLFrontier gRPC
// API, so that crawlers in other processes and on other machines share it
// (docs/frontier.md).
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "crawlrank/crawl_config.h"
#include "crawlrank/crawl_end.h"
#include "crawlrank/db_rank.h"
#include "crawlrank/node_list.h"
#include "crawlrank/score_mode.h"
#include "crawlrank/url_pattern.h"
#include "serve/frontier_server.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

// Waits for SIGINT or SIGTERM (blocked in `signals`) and returns it, printing a progress
// line on stderr every `progress_s` seconds meanwhile (0: none).
int WaitForSignal(const sigset_t& signals, double progress_s, const FrontierServer& server) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t last_done = 0;
  auto last = start;
  for (;;) {
    if (progress_s <= 0) {
      int received = 0;
      if (sigwait(&signals, &received) == 0) return received;
      continue;
    }
    const auto ns = static_cast<long>(progress_s * 1e9);
    const timespec wait{ns / 1'000'000'000, ns % 1'000'000'000};
    const int received = sigtimedwait(&signals, nullptr, &wait);
    if (received == SIGINT || received == SIGTERM) return received;
    const SchedulerStats s = server.Stats();
    const auto now = std::chrono::steady_clock::now();
    const uint64_t done = s.crawled + s.failed;
    const double rate = static_cast<double>(done - std::min(done, last_done)) /
                        std::max(1e-3, std::chrono::duration<double>(now - last).count());
    std::fprintf(stderr,
                 "crawlrank_serve: %llu crawled, %llu failed, queue %llu, in flight %llu, "
                 "retrying %llu, hosts %llu, %.1f pages/s%s\n",
                 static_cast<unsigned long long>(s.crawled),
                 static_cast<unsigned long long>(s.failed),
                 static_cast<unsigned long long>(s.queued),
                 static_cast<unsigned long long>(s.in_flight),
                 static_cast<unsigned long long>(s.retrying),
                 static_cast<unsigned long long>(s.hosts), rate,
                 s.limit_reached ? ", max_pages reached" : (s.finished ? ", finished" : ""));
    std::fflush(stderr);
    last_done = done;
    last = now;
  }
}

// The ranks of the crawl served, as every front end leaves them at a crawl's end
// (crawl_end.h): the score mode's own rank for a rank mode, and the display rank.
int RankAtExit(const CommandLine& app, const std::string& db_path) {
  auto db = OpenForReading(db_path);
  if (!db.ok()) return Fail(app, db.status());
  std::fprintf(stderr, "crawlrank_serve: computing the crawl's ranks (a second signal skips it)\n");
  Result<SchedulerOptions> stored = StoredSchedulerOptions(**db);
  if (!stored.ok()) return Fail(app, stored.status());
  Result<CrawlEndRanks> ranks = RankCrawlEnd(**db, *stored);
  if (!ranks.ok()) return Fail(app, ranks.status());
  if (ranks->mode_rank.has_value()) {
    std::fprintf(stderr, "crawlrank_serve: ranked the score mode's %s rank: %s\n",
                 std::string(RankAlgorithmName(ranks->mode_rank->rank.algorithm)).c_str(),
                 RankFilePath(db_path, ranks->mode_rank->rank.algorithm).c_str());
  }
  std::fprintf(stderr, "crawlrank_serve: ranked %llu pages in %.2f s: %s\n",
               static_cast<unsigned long long>(ranks->display.rank.scores.size()),
               ranks->seconds, RankFilePath(db_path, kDisplayRankName).c_str());
  return kExitOk;
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Serves the frontier of a PageDB (created when missing) over the URLFrontier gRPC API "
      "2.6: crawlers get URLs best first and polite per host, and report what they fetched. "
      "Listens on 127.0.0.1 unless told otherwise; any other address needs --token or "
      "client certificates (--tls-client-ca). "
      "SIGTERM or SIGINT stops taking calls, lets running ones finish (5 s at most), closes "
      "the DB, computes the crawl's ranks as every front end leaves them (the score mode's "
      "own when it ranks, and the display rank; unless --no-rank-at-exit; a second signal "
      "exits at once) and exits 0. A progress line goes to stderr every --progress seconds.",
      "crawlrank_serve");
  std::string db_path, address, old_address, token, tls_cert, tls_key,
      tls_client_ca, score, nodes, node, peer_tls_ca;
  double peer_deadline_s = 10;
  std::optional<double> delay_s;
  std::optional<int64_t> delay_ms;
  std::optional<uint32_t> per_host, max_depth;
  std::optional<int64_t> max_pages, max_pages_per_host;
  std::vector<std::string> allow, deny;
  double lease_s = 30;
  std::optional<int64_t> old_lease_s;
  double progress_s = 10;
  bool rank_at_exit = true;
  app.Add("db", db_path, "PageDB directory")->Required();
  auto* listen = app.Add("--listen", address,
                         "HOST:PORT to listen on (an IPv6 host in brackets; port 0: any free "
                         "one); default: this node's entry in a cluster (--node, or the one "
                         "its PageDB stores), else 127.0.0.1:7071");
  app.Add("--address", old_address)->Deprecated(listen, "--listen HOST:PORT");
  app.Add("--nodes", nodes,
          "HOST:PORT,HOST:PORT,...: the nodes of a cluster serving one frontier (URLFrontier "
          "2.6's distributed mode), the same list on every node; stored, and a restart with "
          "another list is refused (docs/frontier.md, \"A cluster\")");
  app.Add("--node", node,
          "this node's entry in --nodes (its identity; --listen defaults to it); stored");
  app.Add("--peer-tls-ca", peer_tls_ca,
          "PEM file: the CA that signed the other nodes' certificates: this node reaches them "
          "over TLS, showing --tls-cert as its client certificate");
  app.Add("--peer-deadline", peer_deadline_s,
          "seconds an item sent to its owner waits for the owner's ack before it is "
          "acknowledged FAIL (the client sends it again)")
      ->ShowDefault()
      ->Positive();
  app.Add("--token", token,
          "shared secret every call must send as \"authorization: Bearer TOKEN\"");
  app.Add("--tls-cert", tls_cert, "PEM file: the server's certificate chain (TLS only, then)");
  app.Add("--tls-key", tls_key, "PEM file: the private key of --tls-cert");
  app.Add("--tls-client-ca", tls_client_ca,
          "PEM file: every client must show a certificate this CA signed (mutual TLS)");
  auto* delay = app.Add("--delay", delay_s,
                        "seconds between two URLs of one host (stored with the crawl as "
                        "delay_ms; default 1)");
  app.Add("--delay-ms", delay_ms)->Deprecated(delay, "--delay SECONDS");
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
  auto* lease = app.Add("--lease", lease_s,
                        "seconds a URL stays handed out when GetURLs leaves "
                        "delay_requestable 0")
                    ->ShowDefault()
                    ->Positive();
  app.Add("--default-lease", old_lease_s)->Deprecated(lease, "--lease SECONDS")->Positive();
  app.Footer(
      "--address, --delay-ms and --default-lease (before issue #42) still work: --listen, "
      "--delay (seconds) and --lease replace them.\n");
  app.Add("--progress", progress_s,
          "seconds between two progress lines on stderr (crawled, queued, in flight, failed, "
          "hosts, pages a second); 0: none")
      ->ShowDefault();
  app.Flag("!--no-rank-at-exit", rank_at_exit,
           "at SIGTERM or SIGINT, exit without computing the crawl's ranks (the score mode's "
           "own, and the display rank: PageRank without template links, the rank crawlrank "
           "top lists by); a second signal during them exits at once");
  return Run(app, argc, argv, [&] {
    if (!std::isfinite(progress_s) || progress_s < 0) {
      return UsageError(app, "--progress must be 0 or more seconds");
    }
    if (nodes.empty() != node.empty()) return UsageError(app, "--nodes and --node go together");
    std::optional<NodeList> cluster;
    if (!nodes.empty()) {
      Result<NodeList> parsed = NodeList::Parse(nodes, node);
      if (!parsed.ok()) return UsageError(app, "--nodes: " + parsed.status().message());
      cluster = *std::move(parsed);
      const Status peers = CheckPeersSecured(*cluster, !token.empty() || !peer_tls_ca.empty());
      if (!peers.ok()) {
        return UsageError(app, peers.message() +
                                   ": give --token, or --peer-tls-ca with --tls-cert and "
                                   "--tls-key");
      }
    }
    if (!old_address.empty()) address = old_address;
    if (old_lease_s.has_value()) lease_s = static_cast<double>(*old_lease_s);
    if (!std::isfinite(lease_s)) return UsageError(app, "--lease must be a number of seconds");
    if (delay_s.has_value()) {
      if (!std::isfinite(*delay_s) || *delay_s < 0) {
        return UsageError(app, "--delay must be 0 or more seconds");
      }
      delay_ms = std::llround(*delay_s * 1000);
    }
    // No address: the node's stored entry in a cluster, else 127.0.0.1:7071 (FrontierServer
    // checks the stored entry as this checks a given one).
    if (!address.empty() && !IsLoopbackAddress(address) && token.empty() &&
        tls_client_ca.empty()) {
      return UsageError(app, "--listen \"" + address +
                                 "\" is reachable from other machines: give --token, or "
                                 "--tls-client-ca with --tls-cert and --tls-key, too");
    }
    if (tls_cert.empty() != tls_key.empty()) {
      return UsageError(app, "--tls-cert and --tls-key go together");
    }
    if (!tls_client_ca.empty() && tls_cert.empty()) {
      return UsageError(app, "--tls-client-ca needs --tls-cert and --tls-key");
    }
    if (!delay_s.has_value() && delay_ms.has_value() && *delay_ms < 0) {
      return UsageError(app, "--delay-ms is negative");
    }
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
    options.service.nodes = std::move(cluster);
    if (!std::isfinite(peer_deadline_s)) return UsageError(app, "--peer-deadline is not a number");
    options.service.peers.token = token;
    options.service.peers.ack_deadline_ms = std::max<int64_t>(1, std::llround(peer_deadline_s * 1000));
    if (!peer_tls_ca.empty()) {
      Result<std::string> ca = ReadPemFile(peer_tls_ca);
      if (!ca.ok()) return Fail(app, ca.status());
      options.service.peers.tls_ca_pem = *std::move(ca);
      options.service.peers.tls_cert_pem = options.tls_cert_pem;
      options.service.peers.tls_key_pem = options.tls_key_pem;
    }
    options.service.default_lease_ms = std::max<int64_t>(1, std::llround(lease_s * 1000));
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
    if (const std::string line = (*server)->config_line(); !line.empty()) {
      std::fprintf(stderr, "crawlrank_serve: %s\n", line.c_str());
    }
    std::printf("listening on %s\n", (*server)->address().c_str());
    std::fflush(stdout);
    const int received = WaitForSignal(signals, progress_s, **server);
    std::fprintf(stderr, "crawlrank_serve: %s: draining\n",
                 received == SIGINT ? "SIGINT" : "SIGTERM");
    (*server)->Shutdown(std::chrono::seconds(5));
    server->reset();  // the PageDB is closed: the rank opens it read-only
    if (!rank_at_exit) return kExitOk;
    // A second signal now ends the process at once (the default action): the rank file is
    // replaced atomically, so nothing is left half written.
    pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
    return RankAtExit(app, db_path);
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
