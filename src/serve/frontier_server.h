// A running URLFrontier server: the FrontierService over a PageDB, behind gRPC on one
// address. crawlrank_serve (tools/) is its command line; docs/frontier.md its manual.
//
//   auto server = FrontierServer::Start("crawl.db", {.address = "127.0.0.1:7071"});
//   ... wait for SIGTERM ...
//   (*server)->Shutdown(std::chrono::seconds(5));   // drains, then closes the DB
//
// Security: the address is the caller's to choose; IsLoopbackAddress tells whether one
// reaches this machine only (crawlrank_serve refuses any other without a token or client
// certificates). With a certificate and key it speaks TLS only, and with a client CA it
// also requires every client to show a certificate that CA signed (mutual TLS).
// Thread safety: Shutdown may be called from any thread, once; the destructor shuts down
// a server still running.
#ifndef CRAWLRANK_SRC_SERVE_FRONTIER_SERVER_H_
#define CRAWLRANK_SRC_SERVE_FRONTIER_SERVER_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "crawlrank/node_list.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler_options.h"
#include "crawlrank/status.h"
#include "serve/frontier_service.h"

namespace grpc {
class Server;
}

namespace crawlrank {

inline constexpr std::string_view kDefaultAddress = "127.0.0.1:7071";

struct FrontierServerOptions {
  // host:port to listen on; port 0 picks a free one (address() tells which). Empty: the
  // node's entry in its cluster (service.nodes, or the membership the PageDB stores), else
  // kDefaultAddress.
  std::string address = std::string(kDefaultAddress);
  PageDbOptions db;
  SchedulerOptions scheduler;
  // Scheduler keys given this run (crawl_config.h): applied over the stored ones, stored.
  StoredConfig given;
  FrontierServiceOptions service;  // its node_address is set to the bound address
  // gRPC threads serving calls at once (a stream holds one for as long as it is open).
  int max_threads = 64;
  // TLS: the server's certificate chain and private key (PEM text). Both empty: plain
  // text. A client CA (PEM) also requires and verifies client certificates.
  std::string tls_cert_pem, tls_key_pem, tls_client_ca_pem;
};

// Whether `address` (host:port, [v6]:port or unix:path) reaches this machine only:
// 127.0.0.0/8, ::1, localhost, or a Unix socket.
bool IsLoopbackAddress(std::string_view address);

// OK when each other node of `nodes` is on loopback or `secured` (the peers are reached
// with a token or over TLS); else FailedPrecondition naming the first node reached over the
// network.
Status CheckPeersSecured(const NodeList& nodes, bool secured);

class FrontierServer {
 public:
  // Opens the PageDB at `db_path` (created when missing) and its Scheduler, and listens.
  // The PageDB's errors (page_db.h) or FailedPrecondition when the address cannot be bound,
  // or when no address was given and the stored entry it listens on instead reaches other
  // machines with neither a token nor a client CA.
  static Result<std::unique_ptr<FrontierServer>> Start(const std::string& db_path,
                                                       const FrontierServerOptions& options);
  ~FrontierServer();
  FrontierServer(const FrontierServer&) = delete;
  FrontierServer& operator=(const FrontierServer&) = delete;

  // The address listened on, with the port bound.
  const std::string& address() const { return address_; }
  // FrontierService::config_line: how the run's configuration came from the stored one.
  std::string config_line() const {
    return service_ != nullptr ? service_->config_line() : std::string();
  }

  // The scheduler's figures now; REQUIRES: not shut down.
  SchedulerStats Stats() const { return service_->Stats(); }

  // Stops taking calls and hands nothing more out; calls running get up to `grace` to
  // finish, then are cancelled; then the Scheduler and the PageDB close (every
  // acknowledged write is committed already).
  void Shutdown(std::chrono::milliseconds grace);

 private:
  FrontierServer() = default;
  std::unique_ptr<FrontierService> service_;
  std::unique_ptr<grpc::Server> server_;  // declared after: goes first
  std::string address_;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_FRONTIER_SERVER_H_
