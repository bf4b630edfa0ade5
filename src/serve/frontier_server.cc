#include "serve/frontier_server.h"

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <utility>

namespace crawlrank {

bool IsLoopbackAddress(std::string_view address) {
  if (address.starts_with("unix:") || address.starts_with("unix-abstract:")) return true;
  std::string_view host = address;
  if (host.starts_with("[")) {  // [v6]:port
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    host = host.substr(1, close - 1);
    return host == "::1";
  }
  const size_t colon = host.rfind(':');
  if (colon != std::string_view::npos) host = host.substr(0, colon);
  if (host == "localhost") return true;
  // 127.0.0.0/8 in dotted decimal: four numbers, the first 127.
  if (!host.starts_with("127.")) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

Status CheckPeersSecured(const NodeList& nodes, bool secured) {
  if (secured) return Status::Ok();
  for (const std::string& peer : nodes.nodes()) {
    if (peer == nodes.self() || IsLoopbackAddress(peer)) continue;
    return FailedPreconditionError("node " + QuoteForMessage(peer) +
                                   " is reached over the network, so peers need a token or "
                                   "TLS");
  }
  return Status::Ok();
}

Result<std::unique_ptr<FrontierServer>> FrontierServer::Start(
    const std::string& db_path, const FrontierServerOptions& options) {
  CRAWLRANK_ASSIGN_OR_RETURN(std::unique_ptr<FrontierService> service,
                             FrontierService::Open(db_path, options.db, options.scheduler,
                                                   options.given, options.service));
  std::string address = options.address;
  if (address.empty()) {
    address = service->cluster().has_value() ? service->cluster()->self()
                                             : std::string(kDefaultAddress);
    if (!IsLoopbackAddress(address) && options.service.token.empty() &&
        options.tls_client_ca_pem.empty()) {
      return FailedPreconditionError(
          "serve " + QuoteForMessage(db_path) + ": this node's entry " + QuoteForMessage(address) +
          " is reachable from other machines: give a token, or client certificates, too");
    }
  }
  // Peers off loopback are reached with a token or TLS, also when the membership came
  // from the PageDB rather than from this run's options.
  if (service->cluster().has_value()) {
    const bool secured =
        !options.service.peers.token.empty() || !options.service.peers.tls_ca_pem.empty();
    if (Status peers = CheckPeersSecured(*service->cluster(), secured); !peers.ok()) {
      return peers.WithContext("serve " + QuoteForMessage(db_path));
    }
  }
  std::unique_ptr<FrontierServer> server(new FrontierServer());
  grpc::ServerBuilder builder;
  int port = 0;
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!options.tls_cert_pem.empty() || !options.tls_key_pem.empty()) {
    if (options.tls_cert_pem.empty() || options.tls_key_pem.empty()) {
      return InvalidArgumentError("serve " + QuoteForMessage(db_path) +
                                  ": TLS needs both a certificate and its private key");
    }
    grpc::SslServerCredentialsOptions ssl(
        options.tls_client_ca_pem.empty()
            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    ssl.pem_root_certs = options.tls_client_ca_pem;
    ssl.pem_key_cert_pairs.push_back({options.tls_key_pem, options.tls_cert_pem});
    credentials = grpc::SslServerCredentials(ssl);
  } else if (!options.tls_client_ca_pem.empty()) {
    return InvalidArgumentError("serve " + QuoteForMessage(db_path) +
                                ": a client CA needs TLS (a certificate and its key)");
  }
  builder.AddListeningPort(address, credentials, &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(kMaxMessageBytes));
  grpc::ResourceQuota quota("crawlrank_serve");
  quota.SetMaxThreads(options.max_threads);
  builder.SetResourceQuota(quota);
  builder.RegisterService(service.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || port == 0) {
    return FailedPreconditionError(
        "serve " + QuoteForMessage(db_path) + ": cannot listen on " +
        QuoteForMessage(address) +
        " (in use, not an address of this machine, or a TLS certificate or key gRPC refused)");
  }
  server->address_ = address;
  if (!address.starts_with("unix")) {
    const size_t colon = address.rfind(':');
    server->address_ = address.substr(0, colon) + ":" + std::to_string(port);
  }
  service->set_node_address(server->address_);
  server->service_ = std::move(service);
  return server;
}

void FrontierServer::Shutdown(std::chrono::milliseconds grace) {
  if (server_ == nullptr) return;
  service_->StopHandingOut();
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  server_->Wait();
  server_.reset();
  service_.reset();  // the Scheduler, then the PageDB (synced as it closes)
}

FrontierServer::~FrontierServer() {
  Shutdown(std::chrono::milliseconds(0));
}

}  // namespace crawlrank
