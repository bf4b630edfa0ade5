// The URLFrontier service over one PageDB and its Scheduler: what each of the API's 19
// calls does to crawlrank's frontier (docs/frontier.md has the table).
//
// - One PageDB is one crawl, "DEFAULT"; a call naming another crawl ID is refused with
//   INVALID_ARGUMENT.
// - A queue is a host key: GetURLs hands out what the Scheduler's Next picks, so every
//   host's politeness (delay, requests in flight) holds across all clients.
// - Acknowledgements follow the PageDB's commit: nothing acknowledged is lost when the
//   process dies.
// - Threads: gRPC runs the handlers on a pool of threads. The Scheduler and the PageDb
//   take calls from any thread (scheduler.h, page_db.h); what the service adds is guarded
//   here: the active switch (atomic) and the check-then-write of discovered URLs (a mutex,
//   so that of two clients discovering one URL at once exactly one gets OK).
// - Ownership: the service owns the PageDb and the Scheduler; the gRPC server running it
//   must be shut down before it is destroyed.
#ifndef CRAWLRANK_SRC_SERVE_FRONTIER_SERVICE_H_
#define CRAWLRANK_SRC_SERVE_FRONTIER_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "crawlrank/crawl_config.h"
#include "crawlrank/node_list.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "serve/cluster_calls.h"
#include "serve/frontier_items.h"
#include "serve/peer_streams.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank {

struct FrontierServiceOptions {
  // Non-empty: every call must carry the metadata `authorization: Bearer <token>`, or it
  // is answered UNAUTHENTICATED. Empty: no check (the server then listens on loopback only;
  // crawlrank_serve enforces that).
  std::string token;
  // The lease of a GetURLs that leaves delay_requestable 0 (the API's "server's choice").
  // Default: 30 s, as URLFrontier's reference service and StormCrawler's default timeout.
  int64_t default_lease_ms = 30'000;
  // What ListNodes answers alone: this node's host:port.
  std::string node_address;
  // A node of a cluster (--nodes and --node): the list and this node's entry, checked
  // against those the PageDB stores (schedule/cluster_membership.h) and stored. Unset: the
  // membership stored, or none (one frontier alone).
  std::optional<NodeList> nodes;
  // How this node reaches its peers (token, TLS, the ack deadline; serve/peer_streams.h).
  PeerOptions peers;
};

class StreamAcks;  // frontier_service.cc: the acks of one PutURLs stream

class FrontierService final : public urlfrontier::URLFrontier::Service {
 public:
  // Opens the PageDB at `path` for writing (created when missing) and its Scheduler with
  // `scheduler_options` under the crawl's stored configuration (crawl_config.h), over which
  // the scheduler keys of `given` (those the user gave this run) are applied and stored.
  static Result<std::unique_ptr<FrontierService>> Open(const std::string& path,
                                                       const PageDbOptions& db_options,
                                                       const SchedulerOptions& scheduler_options,
                                                       const StoredConfig& given,
                                                       FrontierServiceOptions options);
  ~FrontierService() override;
  FrontierService(const FrontierService&) = delete;
  FrontierService& operator=(const FrontierService&) = delete;

  // The server drains: from now on GetURLs hands out nothing, and the streams peers keep
  // open to this node are cancelled (they never end on their own; what they carried and
  // this node did not acknowledge is answered FAIL on the peer, and sent again), and new
  // ones refused. Other calls still work.
  void StopHandingOut();
  // What ListNodes answers from now on (the bound address is known once gRPC listens).
  void set_node_address(std::string address) {
    std::lock_guard lock(node_mu_);
    options_.node_address = std::move(address);
  }
  // The one line saying how the run's configuration came from the stored one
  // (ResolvedConfig::Line: resumed with it, or what the keys given to Open changed); empty
  // for a new crawl.
  const std::string& config_line() const { return config_line_; }
  // The cluster this node belongs to (as resolved at Open), or nullopt alone.
  const std::optional<NodeList>& cluster() const { return options_.nodes; }
  // The scheduler's figures now (for crawlrank_serve's progress line).
  SchedulerStats Stats() const { return scheduler_->GetStats(); }

  // ---- implemented
  grpc::Status GetURLs(grpc::ServerContext* context, const urlfrontier::GetParams* request,
                       grpc::ServerWriter<urlfrontier::URLInfo>* writer) override;
  grpc::Status PutURLs(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<urlfrontier::AckMessage, urlfrontier::URLItem>* stream) override;
  grpc::Status PutDiscovered(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<urlfrontier::BatchAck, urlfrontier::DiscoveredBatch>* stream)
      override;
  grpc::Status GetStats(grpc::ServerContext* context,
                        const urlfrontier::QueueWithinCrawlParams* request,
                        urlfrontier::Stats* response) override;
  grpc::Status ListCrawls(grpc::ServerContext* context, const urlfrontier::Local* request,
                          urlfrontier::StringList* response) override;
  grpc::Status SetActive(grpc::ServerContext* context, const urlfrontier::Active* request,
                         urlfrontier::Empty* response) override;
  grpc::Status GetActive(grpc::ServerContext* context, const urlfrontier::Local* request,
                         urlfrontier::Boolean* response) override;
  grpc::Status ListNodes(grpc::ServerContext* context, const urlfrontier::Empty* request,
                         urlfrontier::StringList* response) override;

  grpc::Status ListQueues(grpc::ServerContext* context, const urlfrontier::Pagination* request,
                          urlfrontier::QueueList* response) override;
  grpc::Status ListURLs(grpc::ServerContext* context, const urlfrontier::ListUrlParams* request,
                        grpc::ServerWriter<urlfrontier::URLItem>* writer) override;
  grpc::Status CountURLs(grpc::ServerContext* context, const urlfrontier::CountUrlParams* request,
                         urlfrontier::Long* response) override;
  grpc::Status GetURLStatus(grpc::ServerContext* context,
                            const urlfrontier::URLStatusRequest* request,
                            urlfrontier::URLItem* response) override;
  grpc::Status BlockQueueUntil(grpc::ServerContext* context,
                               const urlfrontier::BlockQueueParams* request,
                               urlfrontier::Empty* response) override;
  grpc::Status SetDelay(grpc::ServerContext* context, const urlfrontier::QueueDelayParams* request,
                        urlfrontier::Empty* response) override;

  grpc::Status SetLogLevel(grpc::ServerContext* context, const urlfrontier::LogLevelParams* request,
                           urlfrontier::Empty* response) override;

  // ---- UNIMPLEMENTED for now, each with its reason (after the token check)
  grpc::Status DeleteQueue(grpc::ServerContext* context,
                           const urlfrontier::QueueWithinCrawlParams* request,
                           urlfrontier::Long* response) override;
  grpc::Status DeleteCrawl(grpc::ServerContext* context,
                           const urlfrontier::DeleteCrawlMessage* request,
                           urlfrontier::Long* response) override;
  grpc::Status PurgeURLs(grpc::ServerContext* context, const urlfrontier::PurgeUrlParams* request,
                         urlfrontier::Long* response) override;
  grpc::Status SetCrawlLimit(grpc::ServerContext* context,
                             const urlfrontier::CrawlLimitParams* request,
                             urlfrontier::Empty* response) override;

 private:
  FrontierService(std::unique_ptr<PageDb> db, std::unique_ptr<Scheduler> scheduler,
                  const SchedulerOptions& scheduler_options, FrontierServiceOptions options);

  // The index in the cluster's list of the node that owns `url` (this node's when alone,
  // or when the URL has no host key).
  size_t OwnerOf(std::string_view url) const;
  // The node that owns queue `key` (a host key), and whether it is this one.
  size_t OwnerOfKey(std::string_view key) const;
  bool OwnsKey(std::string_view key) const;
  // How a control or query call is answered (serve/cluster_calls.h): `*cluster` null when
  // this node answers alone (no cluster, `local`, or a peer's call), else the cluster to
  // route it through. FAILED_PRECONDITION for a peer with another node list.
  grpc::Status Routing(const grpc::ServerContext& context, bool local,
                       const Cluster** cluster) const;
  // GetStats of this node alone: of the queue `key`, or of the whole crawl when empty.
  grpc::Status StatsHere(const std::string& key, urlfrontier::Stats* response);
  // The node that writes `item` first: the owner of a discovered URL's source (it keeps
  // the link), else of the URL, or of the fetched page.
  size_t OwnerOf(const PutItem& item) const;
  // Whether the call comes from a peer (it names the node list): OK and *from_peer false
  // for a client; FAILED_PRECONDITION for a peer with another list, or one calling a node
  // that is not in a cluster.
  grpc::Status CheckPeer(const grpc::ServerContext& context, bool* from_peer) const;
  // A peer's stream is kept in peer_calls_ while it runs, so that a drain cancels it:
  // UNAVAILABLE once the node drains. Leave takes it out.
  grpc::Status EnterPeerCall(grpc::ServerContext* context);
  void LeavePeerCall(grpc::ServerContext* context);
  // The URLs of a client's `batch`, read and checked (ReadDiscovery) into `urls`;
  // RESOURCE_EXHAUSTED past kMaxBatchUrls, INVALID_ARGUMENT naming the first bad one.
  grpc::Status ReadBatch(const urlfrontier::DiscoveredBatch& batch, UrlProfile profile,
                         std::vector<PutItem>* urls) const;
  // The statuses of PutDiscovered URLs (`infos` as sent, `urls` as read from them), in
  // their order: in a cluster those other nodes own are sent to them (one batch each) and
  // answered by them, and the rest are written here in one transaction (FAIL for each
  // when that write fails). A peer's URLs (`from_peer`) are never sent on: one another
  // node owns is FAIL.
  std::vector<urlfrontier::AckMessage::Status> AnswerUrls(
      std::span<const urlfrontier::URLInfo* const> infos, std::vector<PutItem>& urls,
      bool from_peer);
  // OK when the call carries the token (or none is needed); UNAUTHENTICATED otherwise.
  grpc::Status Authorize(const grpc::ServerContext& context) const;
  // Authorize, then CheckCrawlId of the call's crawl ID (`field` names it).
  grpc::Status Admit(const grpc::ServerContext& context, std::string_view crawl_id,
                     std::string_view field) const;
  // Scheduler::Remove of `filter` for `rpc`: answers how many pages it removed
  // (`count_all`) or how many of them were not done yet.
  grpc::Status Remove(const grpc::ServerContext& context, std::string_view rpc,
                      const RemoveFilter& filter, bool count_all, urlfrontier::Long* response);

  // A discovered URL another node owns whose link this node wrote (the URL held here as
  // a ghost): items[index] goes on to its owner (HandOnUrl) at `depth`, and its status is
  // the owner's.
  struct HandOn {
    size_t index;
    uint32_t depth;
  };
  // Writes discovered URLs and crawled pages (no failure reports) in one transaction: the
  // discovered URLs that are new, the links from their sources, and the pages crawled;
  // returns each item's status: OK (added, or recorded) or SKIPPED (a discovered URL known
  // already, or named before in `items`), and appends the items to hand on to `hand_ons`
  // (a cluster), in index order. A failed write is the error.
  Result<std::vector<urlfrontier::AckMessage::Status>> Write(std::span<const PutItem> items,
                                                            std::vector<HandOn>* hand_ons);
  // Writes PutURLs items: each run between failure reports in one transaction, each failure
  // through the scheduler (SKIPPED for a URL the PageDB does not hold). Each item's status;
  // FAIL for the items of a write that failed (logged under `rpc`). The items to hand on
  // as Write's, indexed in `items`.
  std::vector<urlfrontier::AckMessage::Status> WriteGroup(std::span<const PutItem> items,
                                                          std::string_view rpc,
                                                          std::vector<HandOn>* hand_ons);
  // Acknowledges one written group of a PutURLs stream (`ids` of `items`): each item's
  // status, or for one handed on, its owner's answer when it comes. False once the client
  // is gone.
  bool AckGroup(std::span<const PutItem> items, std::span<const std::string> ids,
                std::span<const urlfrontier::AckMessage::Status> statuses,
                std::span<const HandOn> hand_ons, StreamAcks& acks);
  // Sends what this node's pages passed to ghosts (Scheduler::TakePassedShares) on to the
  // ghosts' owners, without waiting: a share whose owner does not answer is lost (logged).
  // REQUIRES: write_mu_ not held (a peer's stream may wait for this node's writes).
  void SendPassedShares();
  // A URL on its way to node `owner`; its answer is for `index` (the caller's).
  struct Outgoing {
    size_t owner;
    size_t index;
    urlfrontier::URLInfo url;
  };
  using Answered = std::function<void(size_t index, urlfrontier::AckMessage::Status)>;
  // Sends `outgoing` on `lane`, one batch per owner (split where a batch would pass what a
  // node takes); `answered` gets each URL's status from its owner, once, on a peer's
  // reader thread (or this one).
  void ForwardGrouped(PeerLane lane, std::vector<Outgoing> outgoing, Answered answered);
  // The items of `hand_ons` (into `items`, written here) as they go on to their URLs'
  // owners, without source (HandOnUrl); each is for its index in `hand_ons`.
  std::vector<Outgoing> HandOnUrls(std::span<const PutItem> items,
                                   std::span<const HandOn> hand_ons) const;
  // How many URLs one GetURLs asks the scheduler for.
  size_t UrlsWanted(const urlfrontier::GetParams& request) const;
  // Prints `crawlrank_serve: <rpc>: <what>` on stderr when the level SetLogLevel set is
  // `level` or lower (the default, WARN, prints only what goes wrong).
  void LogCall(urlfrontier::LogLevelParams::Level level, std::string_view rpc,
               const std::string& what) const;
  // GetStats of one queue (host key): read from a snapshot of the schedule.
  grpc::Status QueueStats(const std::string& key, urlfrontier::Stats* response);

  std::unique_ptr<PageDb> db_;
  std::unique_ptr<Scheduler> scheduler_;
  // The streams to the other nodes of a cluster of two or more; null otherwise. Declared
  // after the scheduler: destroyed first, it answers what still waits before the DB closes.
  std::unique_ptr<PeerStreams> peers_;
  std::optional<Cluster> cluster_;  // the nodes and peers_, when peers_ is set
  const SchedulerOptions scheduler_options_;
  FrontierServiceOptions options_;
  std::string config_line_;
  std::atomic<bool> active_{true};       // SetActive
  std::atomic<bool> handing_out_{true};  // false once the server drains
  std::atomic<int> log_level_{urlfrontier::LogLevelParams::WARN};  // SetLogLevel
  std::mutex write_mu_;               // Write: look-up and write as one step
  // Guarded by write_mu_: the politeness group each host was last given from a client's
  // key (Write sets a host's group only when it changes).
  std::unordered_map<std::string, std::string> client_groups_;
  std::mutex config_mu_;                 // SetDelay: read, merge and write the configuration
  std::mutex peer_calls_mu_;
  std::set<grpc::ServerContext*> peer_calls_;  // guarded: the peers' streams open
  bool draining_ = false;                      // guarded by peer_calls_mu_
  mutable std::mutex node_mu_;           // guards options_.node_address
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_FRONTIER_SERVICE_H_
