#include "serve/frontier_service.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "base/base64.h"
#include "crawlrank/clock.h"
#include "schedule/cluster_membership.h"
#include "serve/frontier_queries.h"
#include "serve/put_queue.h"

namespace crawlrank {
namespace {

using urlfrontier::AckMessage;

// What one PutURLs stream may have read and not yet written (put_queue.h).
constexpr size_t kMaxQueuedItems = 1000;
constexpr size_t kMaxQueuedBytes = size_t{8} << 20;
// The PutDiscovered batches one stream may have read and not yet answered: a group of
// them is written in one transaction.
constexpr size_t kMaxQueuedBatches = 32;

// The URL an item names, for its ack when the client gave no ID.
const std::string& UrlOf(const urlfrontier::URLItem& item) {
  return item.has_known() ? item.known().info().url() : item.discovered().info().url();
}

// Compares without stopping at the first difference, so the time taken tells nothing of
// how much of the token a guess got right.
bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char differ = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    differ |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return differ == 0;
}


// A PutURLs item read and checked, waiting for the writer.
struct QueuedPut {
  std::string id;
  PutItem item;
};

// The items of `queued` and their IDs, moved out.
void Split(std::vector<QueuedPut>& queued, std::vector<PutItem>* items,
           std::vector<std::string>* ids) {
  items->clear();
  ids->clear();
  for (QueuedPut& q : queued) {
    ids->push_back(std::move(q.id));
    items->push_back(std::move(q.item));
  }
}

}  // namespace

// The acks of one PutURLs stream. Alone, a node's writer thread sends them as it commits.
// In a cluster a thread of their own sends them: the writer thread queues those of the
// items it committed and the peers' readers queue their owners' answers, and queuing never
// waits on the client, so a client that reads its acks slowly holds up no peer's reader
// (whose other items belong to other clients). Counts the acks by status, and the
// forwarded items still waiting (at most kMaxQueuedItems).
class StreamAcks {
 public:
  StreamAcks(grpc::ServerReaderWriter<AckMessage, urlfrontier::URLItem>* stream, bool cluster)
      : stream_(stream) {
    if (cluster) sender_ = std::thread([this] { SendQueued(); });
  }
  ~StreamAcks() { Close(); }
  StreamAcks(const StreamAcks&) = delete;
  StreamAcks& operator=(const StreamAcks&) = delete;

  // Queues the ack of `id`; false once the client is gone (nothing is queued then).
  bool Send(const std::string& id, AckMessage::Status status) {
    std::lock_guard lock(mu_);
    return QueueLocked(id, status);
  }
  // `n` items go to their owners: waits while they would make more than kMaxQueuedItems
  // wait (unless none waits).
  void Forwarding(size_t n = 1) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return forwarded_ == 0 || forwarded_ + n <= kMaxQueuedItems; });
    forwarded_ += n;
  }
  // The owner's answer to a forwarded item.
  void Answered(const std::string& id, AckMessage::Status status) {
    std::lock_guard lock(mu_);
    QueueLocked(id, status);
    --forwarded_;
    changed_.notify_all();
  }
  // Waits for every forwarded item's answer (each comes within the peers' deadline).
  void WaitForForwarded() {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [this] { return forwarded_ == 0; });
  }
  // Sends what is queued, then stops the sending thread.
  void Close() {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    changed_.notify_all();
    if (sender_.joinable()) sender_.join();
  }
  uint64_t count(AckMessage::Status status) const {
    std::lock_guard lock(mu_);
    return counts_[status];
  }

 private:
  bool QueueLocked(const std::string& id, AckMessage::Status status) {
    ++counts_[status];
    if (gone_) return false;
    if (!sender_.joinable()) {  // alone: sent at once, by the one thread that acks
      gone_ = !Write(id, status);
      return !gone_;
    }
    queued_.emplace_back(id, status);
    changed_.notify_all();
    return true;
  }

  bool Write(const std::string& id, AckMessage::Status status) {
    AckMessage ack;
    ack.set_id(id);
    ack.set_status(status);
    // (A buffer hint on all but the last would save sends, but the synchronous API's
    // Write waits for a hinted message to go out: it would wait for the next one.)
    return stream_->Write(ack);
  }

  void SendQueued() {
    std::unique_lock lock(mu_);
    std::vector<std::pair<std::string, AckMessage::Status>> sending;
    for (;;) {
      changed_.wait(lock, [this] { return !queued_.empty() || closing_; });
      if (queued_.empty()) return;  // closing, and everything sent
      sending.swap(queued_);
      lock.unlock();
      bool sent = true;
      for (const auto& [id, status] : sending) {
        sent = Write(id, status);
        if (!sent) break;
      }
      sending.clear();
      lock.lock();
      if (!sent) {  // the client is gone: what is queued or comes is dropped
        gone_ = true;
        queued_.clear();
      }
    }
  }

  grpc::ServerReaderWriter<AckMessage, urlfrontier::URLItem>* const stream_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::pair<std::string, AckMessage::Status>> queued_;  // guarded by mu_
  size_t forwarded_ = 0;            // guarded by mu_
  uint64_t counts_[3] = {0, 0, 0};  // guarded by mu_: by AckMessage::Status (OK, SKIPPED, FAIL)
  bool gone_ = false;               // guarded by mu_
  bool closing_ = false;            // guarded by mu_
  std::thread sender_;              // in a cluster; last: starts once the rest is ready
};

// ---- opening

Result<std::unique_ptr<FrontierService>> FrontierService::Open(
    const std::string& path, const PageDbOptions& db_options,
    const SchedulerOptions& scheduler_options, const StoredConfig& given,
    FrontierServiceOptions options) {
  if (options.default_lease_ms <= 0) {
    return InvalidArgumentError("serve " + QuoteForMessage(path) +
                                ": the default lease must be above 0 ms");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::unique_ptr<PageDb> db, PageDb::Open(path, db_options));
  // The crawl's stored configuration, with what was given this run over it and stored.
  CRAWLRANK_ASSIGN_OR_RETURN(ResolvedConfig resolved, ResolveConfig(*db, given));
  SchedulerOptions applied = scheduler_options;
  CRAWLRANK_RETURN_IF_ERROR(ApplySchedulerConfig(resolved.config, &applied));
  applied.name_referrers = true;  // handed out as crawlrank.referrer
  // The cluster it belongs to: the one stored, which the one given must equal.
  const std::string host_key(applied.host_key == HostKeyMode::kHost ? "host" : "domain");
  {
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db->NewSnapshot());
    CRAWLRANK_ASSIGN_OR_RETURN(options.nodes,
                               ResolveMembership(resolved.stored, options.nodes, host_key,
                                                 snapshot.counters().pages, path));
  }
  // A crawl-wide page limit: this node's share of it (the stored value stays the crawl's).
  bool no_share = false;
  if (options.nodes.has_value() && applied.max_pages > 0) {
    applied.max_pages = PageShare(applied.max_pages, *options.nodes);
    no_share = applied.max_pages == 0;
  }
  bool write = !resolved.changes.empty();
  if (options.nodes.has_value()) {
    for (auto& [key, value] : MembershipConfig(*options.nodes, host_key)) {
      std::string& kept = resolved.config[key];
      write = write || kept != value;
      kept = std::move(value);
    }
  }
  if (write) CRAWLRANK_RETURN_IF_ERROR(db->WriteConfig(resolved.config));
  if (options.nodes.has_value() && options.nodes->size() > 1) {
    // The pages other nodes own are ghosts here: kept for the links, never queued.
    applied.elsewhere = [nodes = *options.nodes, mode = applied.host_key](std::string_view url) {
      return OwnerOfUrl(nodes, mode, url) != nodes.self_index();
    };
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::unique_ptr<Scheduler> scheduler, Scheduler::Open(*db, applied));
  std::unique_ptr<PeerStreams> peers;
  if (options.nodes.has_value() && options.nodes->size() > 1) {
    peers = std::make_unique<PeerStreams>(*options.nodes, options.peers);
  }
  std::unique_ptr<FrontierService> service(
      new FrontierService(std::move(db), std::move(scheduler), applied, std::move(options)));
  service->peers_ = std::move(peers);
  if (no_share) service->handing_out_.store(false);
  if (service->peers_ != nullptr) {
    service->cluster_.emplace(Cluster{*service->options_.nodes, *service->peers_});
  }
  service->config_line_ = resolved.Line(path, "an option given to crawlrank serve overrides it");
  return service;
}

FrontierService::FrontierService(std::unique_ptr<PageDb> db, std::unique_ptr<Scheduler> scheduler,
                                 const SchedulerOptions& scheduler_options,
                                 FrontierServiceOptions options)
    : db_(std::move(db)),
      scheduler_(std::move(scheduler)),
      scheduler_options_(scheduler_options),
      options_(std::move(options)) {}

// The scheduler goes first: it joins the PageDb's writes and must leave before it closes.
FrontierService::~FrontierService() {
  peers_.reset();  // no call runs now: nothing waits on a peer
  scheduler_.reset();
}

void FrontierService::StopHandingOut() {
  handing_out_.store(false);
  std::lock_guard lock(peer_calls_mu_);
  draining_ = true;
  for (grpc::ServerContext* call : peer_calls_) call->TryCancel();
}

// ---- checks every call makes

grpc::Status FrontierService::Authorize(const grpc::ServerContext& context) const {
  if (options_.token.empty()) return grpc::Status::OK;
  const std::string expected = "Bearer " + options_.token;
  const auto [begin, end] = context.client_metadata().equal_range("authorization");
  for (auto it = begin; it != end; ++it) {
    if (SameSecret(std::string_view(it->second.data(), it->second.size()), expected)) {
      return grpc::Status::OK;
    }
  }
  return Refused(grpc::StatusCode::UNAUTHENTICATED,
                 "this server needs the metadata \"authorization: Bearer <token>\" with its "
                 "token (crawlrank_serve --token)");
}

grpc::Status FrontierService::Admit(const grpc::ServerContext& context, std::string_view crawl_id,
                                    std::string_view field) const {
  if (grpc::Status auth = Authorize(context); !auth.ok()) return auth;
  return CheckCrawlId(crawl_id, field);
}

// ---- a cluster's nodes (docs/frontier.md, "A cluster")

size_t FrontierService::OwnerOf(std::string_view url) const {
  if (!options_.nodes.has_value()) return 0;
  return OwnerOfUrl(*options_.nodes, scheduler_options_.host_key, url);
}

size_t FrontierService::OwnerOfKey(std::string_view key) const {
  return options_.nodes.has_value() ? options_.nodes->OwnerOf(kDefaultCrawlId, key) : 0;
}

bool FrontierService::OwnsKey(std::string_view key) const {
  return !options_.nodes.has_value() || OwnerOfKey(key) == options_.nodes->self_index();
}

size_t FrontierService::OwnerOf(const PutItem& item) const {
  if (const Discovery* d = std::get_if<Discovery>(&item)) {
    return OwnerOf(d->source.empty() ? d->url : d->source);
  }
  const Fetch& fetch = std::get<Fetch>(item);
  return OwnerOf(fetch.failed ? fetch.failure.url : fetch.page.url);
}

bool FrontierService::AckGroup(std::span<const PutItem> items, std::span<const std::string> ids,
                               std::span<const AckMessage::Status> statuses,
                               std::span<const HandOn> hand_ons, StreamAcks& acks) {
  // A handed-on item's ack is its owner's; one whose link was not written is FAIL here.
  std::vector<HandOn> going;
  size_t next = 0;
  for (size_t i = 0; i < statuses.size(); ++i) {
    if (next < hand_ons.size() && hand_ons[next].index == i) {
      if (statuses[i] != AckMessage::FAIL) {
        going.push_back(hand_ons[next++]);
        continue;
      }
      ++next;
    }
    if (!acks.Send(ids[i], statuses[i])) return false;
  }
  if (going.empty()) return true;
  std::vector<std::string> going_ids;
  for (const HandOn& on : going) going_ids.push_back(ids[on.index]);
  acks.Forwarding(going.size());
  ForwardGrouped(PeerLane::kLastHop, HandOnUrls(items, going),
                 [&acks, going_ids = std::move(going_ids)](size_t index, AckMessage::Status status) {
                   acks.Answered(going_ids[index], status);
                 });
  return true;
}

grpc::Status FrontierService::CheckPeer(const grpc::ServerContext& context,
                                        bool* from_peer) const {
  const auto [begin, end] = context.client_metadata().equal_range(kPeerNodesHeader);
  *from_peer = begin != end;
  if (!*from_peer) return grpc::Status::OK;
  const std::string theirs(begin->second.data(), begin->second.size());
  const auto from = context.client_metadata().find(kPeerFromHeader);
  const std::string peer = from == context.client_metadata().end()
                               ? context.peer()
                               : std::string(from->second.data(), from->second.size());
  const std::string mine = options_.nodes.has_value() ? options_.nodes->Joined() : "";
  if (theirs == mine) return grpc::Status::OK;
  return Refused(grpc::StatusCode::FAILED_PRECONDITION,
                 "peer " + QuoteForMessage(peer) + " has the node list " +
                     QuoteForMessage(theirs) + "; this node has " +
                     (mine.empty() ? std::string("none (it is not in a cluster)")
                                   : QuoteForMessage(mine)));
}

// ---- writes

Result<std::vector<AckMessage::Status>> FrontierService::Write(std::span<const PutItem> items,
                                                              std::vector<HandOn>* hand_ons) {
  std::vector<AckMessage::Status> statuses(items.size(), AckMessage::OK);
  std::unique_lock lock(write_mu_);
  WriteBatch batch;
  std::vector<QueuedExtra> extras;  // the payloads and priorities of the URLs that are new
  std::vector<RefetchDate> dates;   // the reports' refetchable_from_date
  std::vector<ReceivedShare> shares;  // what other nodes' pages passed to this node's
  {
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db_->NewSnapshot());
    std::unordered_set<uint64_t> named;  // the URLs this write creates or names already
    for (size_t i = 0; i < items.size(); ++i) {
      if (const Fetch* fetch = std::get_if<Fetch>(&items[i])) {
        // Crawled: the links its outlinks' discovered items brought, before or after this
        // report, stay (the report carries none of its own).
        batch.AddCrawledMergingLinks(fetch->page);
        if (fetch->refetch_at_ms > 0) dates.push_back({fetch->page.url, fetch->refetch_at_ms});
        named.insert(UrlFingerprint(fetch->page.url));
        continue;
      }
      const Discovery& d = std::get<Discovery>(items[i]);
      if (!d.source.empty() && peers_ != nullptr &&
          OwnerOf(d.url) != options_.nodes->self_index()) {
        // The link stays here, its target as a ghost; the target goes on to its owner,
        // one deeper than its source (0 when this write creates the source).
        batch.MergeLinks(d.source, {Link{.url = d.url, .score = d.link_score}});
        Result<PageRecord> source = snapshot.FindUrl(d.source);
        if (!source.ok() && source.status().code() != StatusCode::kNotFound) {
          return source.status();
        }
        hand_ons->push_back({i, source.ok() ? source->depth + 1 : 1});
        continue;
      }
      const uint64_t fingerprint = UrlFingerprint(d.url);
      bool known = !named.insert(fingerprint).second;
      if (!known) {
        Result<PageRecord> found = snapshot.Find(fingerprint);
        if (!found.ok() && found.status().code() != StatusCode::kNotFound) return found.status();
        known = found.ok();  // a URL colliding with another's fingerprint too: never added
      }
      if (known) statuses[i] = AckMessage::SKIPPED;
      if (!known && (!d.payload.empty() || d.priority != 0)) {
        extras.push_back({d.url, d.payload, d.priority});
      }
      // The link from the source is recorded even when its target is known: it is one
      // more in-link for the ranks.
      if (!d.source.empty()) {
        batch.MergeLinks(d.source, {Link{.url = d.url, .score = d.link_score}});
      } else if (d.depth.has_value()) {  // its source is on another node
        batch.AddDiscovered(d.url, *d.depth, d.link_score);
        if (d.share > 0) shares.push_back({d.url, d.share});
      } else if (!known) {
        batch.MergeLinks(d.url, {});  // a page without links of its own yet
      }
    }
  }  // the snapshot closes before the write: a writer must not hold one (page_db.h)
  if (batch.size() > 0) CRAWLRANK_RETURN_IF_ERROR(scheduler_->Write(batch, extras, dates, shares));
  // A client's key other than the URL's host key (StormCrawler partitioned by IP or by
  // domain) groups the hosts that share it: one politeness budget for all of them.
  for (const PutItem& item : items) {
    const Discovery* d = std::get_if<Discovery>(&item);
    if (d == nullptr || d->key.empty()) continue;
    Result<std::string> host = HostKey(d->url, scheduler_options_.host_key);
    if (!host.ok() || host->empty() || *host == d->key) continue;
    std::string& group = client_groups_[*host];
    if (group == d->key) continue;
    CRAWLRANK_RETURN_IF_ERROR(scheduler_->SetHostGroup(*host, d->key));
    group = d->key;
  }
  lock.unlock();
  if (batch.size() > 0) SendPassedShares();
  return statuses;
}

std::vector<AckMessage::Status> FrontierService::WriteGroup(std::span<const PutItem> items,
                                                            std::string_view rpc,
                                                            std::vector<HandOn>* hand_ons) {
  std::vector<AckMessage::Status> statuses;
  statuses.reserve(items.size());
  size_t i = 0;
  while (i < items.size()) {
    const Fetch* fetch = std::get_if<Fetch>(&items[i]);
    if (fetch != nullptr && fetch->failed) {  // a failure goes through the scheduler alone
      const Status failed = scheduler_->Failed(fetch->failure);
      if (!failed.ok() && failed.code() != StatusCode::kNotFound) LogWriteFailure(rpc, failed);
      statuses.push_back(failed.ok()                                ? AckMessage::OK
                         : failed.code() == StatusCode::kNotFound ? AckMessage::SKIPPED
                                                                   : AckMessage::FAIL);
      ++i;
      continue;
    }
    // The run of items up to the next failure: one transaction.
    size_t end = i + 1;
    while (end < items.size()) {
      const Fetch* next = std::get_if<Fetch>(&items[end]);
      if (next != nullptr && next->failed) break;
      ++end;
    }
    std::vector<HandOn> run_hand_ons;
    Result<std::vector<AckMessage::Status>> written =
        Write(items.subspan(i, end - i), &run_hand_ons);
    if (!written.ok()) {
      LogWriteFailure(rpc, written.status());
      statuses.insert(statuses.end(), end - i, AckMessage::FAIL);
    } else {
      statuses.insert(statuses.end(), written->begin(), written->end());
      for (const HandOn& on : run_hand_ons) hand_ons->push_back({i + on.index, on.depth});
    }
    i = end;
  }
  return statuses;
}

// ---- handing out

size_t FrontierService::UrlsWanted(const urlfrontier::GetParams& request) const {
  // Never more of a queue than the scheduler lets be in flight to one host: the
  // politeness of every host holds whatever max_urls_per_queue asks.
  uint64_t per_queue = scheduler_options_.per_host;
  if (request.max_urls_per_queue() != 0) {
    per_queue = std::min<uint64_t>(per_queue, request.max_urls_per_queue());
  }
  const uint64_t queues = !request.key().empty() ? 1
                          : request.max_queues() != 0 ? request.max_queues()
                                                      : kMaxUrlsPerGet;
  return static_cast<size_t>(std::min<uint64_t>(per_queue * queues, kMaxUrlsPerGet));
}

grpc::Status FrontierService::GetURLs(grpc::ServerContext* context,
                                      const urlfrontier::GetParams* request,
                                      grpc::ServerWriter<urlfrontier::URLInfo>* writer) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  if (request->item_case() == urlfrontier::GetParams::kCrawlID) {
    if (grpc::Status crawl = CheckCrawlId(request->crawlid(), "GetParams.crawlID"); !crawl.ok()) {
      return crawl;
    }
  }
  // Nothing is due, the frontier is inactive or draining: an empty stream, and the client
  // polls again.
  if (!active_.load() || !handing_out_.load()) return grpc::Status::OK;
  const int64_t lease_ms = request->delay_requestable() != 0
                               ? int64_t{request->delay_requestable()} * 1000
                               : options_.default_lease_ms;
  const size_t wanted = UrlsWanted(*request);
  Result<std::vector<Request>> requests =
      request->key().empty() ? scheduler_->Next(wanted, lease_ms)
                             : scheduler_->NextOfHost(request->key(), wanted, lease_ms);
  if (!requests.ok()) return ToGrpc(requests.status().WithContext("GetURLs"));
  urlfrontier::URLInfo info;
  size_t sent = 0;
  for (const Request& r : *requests) {
    info.Clear();
    info.set_url(r.url);
    info.set_key(r.host);
    info.set_crawlid(std::string(kDefaultCrawlId));
    auto& metadata = *info.mutable_metadata();
    metadata[std::string(kMetaDepth)].add_values(std::to_string(r.depth));
    if (!r.payload.empty()) metadata[std::string(kMetaPayload)].add_values(EncodeBase64(r.payload));
    if (r.priority != 0) metadata[std::string(kMetaPriority)].add_values(std::to_string(r.priority));
    if (!r.referrer.empty()) metadata[std::string(kMetaReferrer)].add_values(r.referrer);
    // A client gone: what it did not get comes back when its lease ends.
    if (!writer->Write(info)) break;
    ++sent;
    LogCall(urlfrontier::LogLevelParams::TRACE, "GetURLs",
            "handed out " + QuoteForMessage(r.url) + " of " + QuoteForMessage(r.host) + " to " +
                context->peer());
  }
  LogCall(sent > 0 ? urlfrontier::LogLevelParams::INFO : urlfrontier::LogLevelParams::DEBUG,
          "GetURLs",
          std::to_string(sent) + " URLs to " + context->peer() + ", leased " +
              std::to_string(lease_ms / 1000) + " s");
  return grpc::Status::OK;
}

// ---- taking back

grpc::Status FrontierService::PutURLs(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<urlfrontier::AckMessage, urlfrontier::URLItem>* stream) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  bool from_peer = false;
  if (grpc::Status peer = CheckPeer(*context, &from_peer); !peer.ok()) return peer;
  if (from_peer) {
    if (grpc::Status entered = EnterPeerCall(context); !entered.ok()) return entered;
  }
  const auto forget = [&] {
    if (from_peer) LeavePeerCall(context);
  };
  const UrlProfile profile = db_->url_profile();
  PutQueue<QueuedPut> queue(kMaxQueuedItems, kMaxQueuedBytes);
  StreamAcks acks(stream, peers_ != nullptr);
  // This thread reads and checks; the writer writes what is queued, a group at a time,
  // and acknowledges each group once it is committed (put_queue.h). In a cluster, an item
  // another node owns goes to it, and its ack is the owner's (peer_streams.h).
  std::thread writer([&] {
    std::vector<QueuedPut> queued;
    std::vector<PutItem> items;
    std::vector<std::string> ids;
    std::vector<HandOn> hand_ons;
    while (queue.TakeAll(&queued)) {
      Split(queued, &items, &ids);
      hand_ons.clear();
      const std::vector<AckMessage::Status> statuses = WriteGroup(items, "PutURLs", &hand_ons);
      if (!AckGroup(items, ids, statuses, hand_ons, acks)) {  // the client is gone
        queue.Stop();
        return;
      }
    }
  });
  Status bad;
  urlfrontier::URLItem item;
  const size_t self = options_.nodes.has_value() ? options_.nodes->self_index() : 0;
  while (stream->Read(&item)) {
    Result<PutItem> read = ReadPutItem(item, profile);
    if (!read.ok()) {  // bad input ends the stream, once what came before is acknowledged
      bad = read.status();
      break;
    }
    std::string id = item.id().empty() ? UrlOf(item) : item.id();
    if (peers_ != nullptr) {
      if (const size_t owner = OwnerOf(*read); owner != self) {
        if (from_peer) {  // lists agree (CheckPeer): never sent on again
          LogCall(urlfrontier::LogLevelParams::WARN, "PutURLs",
                  "a peer sent " + QuoteForMessage(UrlOf(item)) + ", which node " +
                      options_.nodes->nodes()[owner] + " owns (acknowledged FAIL)");
          if (!acks.Send(id, AckMessage::FAIL)) break;
          continue;
        }
        acks.Forwarding();
        peers_->Forward(owner, item, [&acks, id](AckMessage::Status status) {
          acks.Answered(id, status);
        });
        continue;
      }
    }
    if (!queue.Push({std::move(id), *std::move(read)}, item.ByteSizeLong())) break;
  }
  queue.Close();
  writer.join();
  acks.WaitForForwarded();
  acks.Close();
  forget();
  if (!bad.ok()) LogCall(urlfrontier::LogLevelParams::WARN, "PutURLs", bad.ToString());
  LogCall(urlfrontier::LogLevelParams::INFO, "PutURLs",
          "from " + context->peer() + ": " + std::to_string(acks.count(AckMessage::OK)) +
              " OK, " + std::to_string(acks.count(AckMessage::SKIPPED)) + " SKIPPED, " +
              std::to_string(acks.count(AckMessage::FAIL)) + " FAIL");
  return bad.ok() ? grpc::Status::OK : ToGrpc(bad);
}

grpc::Status FrontierService::ReadBatch(const urlfrontier::DiscoveredBatch& batch,
                                        UrlProfile profile, std::vector<PutItem>* urls) const {
  if (static_cast<size_t>(batch.items_size()) > kMaxBatchUrls) {
    return Refused(grpc::StatusCode::RESOURCE_EXHAUSTED,
                   "DiscoveredBatch " + QuoteForMessage(batch.id()) + ": " +
                       std::to_string(batch.items_size()) + " URLs; at most " +
                       std::to_string(kMaxBatchUrls) + " a batch");
  }
  urls->reserve(static_cast<size_t>(batch.items_size()));
  for (int i = 0; i < batch.items_size(); ++i) {
    Result<Discovery> discovery = ReadDiscovery(
        batch.items(i), profile, "DiscoveredBatch.items[" + std::to_string(i) + "]");
    if (!discovery.ok()) return ToGrpc(discovery.status());
    urls->emplace_back(*std::move(discovery));
  }
  return grpc::Status::OK;
}

grpc::Status FrontierService::PutDiscovered(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<urlfrontier::BatchAck, urlfrontier::DiscoveredBatch>* stream) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  bool from_peer = false;
  if (grpc::Status peer = CheckPeer(*context, &from_peer); !peer.ok()) return peer;
  if (from_peer) {
    if (grpc::Status entered = EnterPeerCall(context); !entered.ok()) return entered;
  }
  const UrlProfile profile = db_->url_profile();
  // This thread reads and checks each batch; the writer takes every batch queued at once
  // and answers them together (AnswerUrls: one transaction, one batch to each owner), then
  // acknowledges each in order. Under load, groups grow and commits and messages to peers
  // go down.
  struct Queued {
    urlfrontier::DiscoveredBatch batch;
    std::vector<PutItem> urls;
  };
  PutQueue<Queued> queue(kMaxQueuedBatches, kMaxQueuedBytes);
  uint64_t batches = 0, total = 0;  // written by the writer, read once it is joined
  std::thread writer([&] {
    std::vector<Queued> group;
    std::vector<const urlfrontier::URLInfo*> infos;
    std::vector<PutItem> urls;
    while (queue.TakeAll(&group)) {
      infos.clear();
      urls.clear();
      for (Queued& q : group) {
        for (const urlfrontier::URLInfo& info : q.batch.items()) infos.push_back(&info);
        for (PutItem& url : q.urls) urls.push_back(std::move(url));
      }
      const std::vector<AckMessage::Status> statuses = AnswerUrls(infos, urls, from_peer);
      size_t next = 0;
      for (const Queued& q : group) {
        urlfrontier::BatchAck ack;
        ack.set_id(q.batch.id());
        for (int i = 0; i < q.batch.items_size(); ++i) ack.add_statuses(statuses[next++]);
        if (!stream->Write(ack)) {  // the client is gone
          queue.Stop();
          return;
        }
        ++batches;
        total += static_cast<uint64_t>(q.batch.items_size());
      }
    }
  });
  grpc::Status bad;
  urlfrontier::DiscoveredBatch batch;
  while (stream->Read(&batch)) {
    // Bad input ends the stream, once what came before is acknowledged.
    std::vector<PutItem> urls;
    if (bad = ReadBatch(batch, profile, &urls); !bad.ok()) break;
    const size_t bytes = batch.ByteSizeLong();
    if (!queue.Push({std::move(batch), std::move(urls)}, bytes)) break;
    batch = urlfrontier::DiscoveredBatch();
  }
  queue.Close();
  writer.join();
  if (from_peer) LeavePeerCall(context);
  if (!bad.ok()) LogCall(urlfrontier::LogLevelParams::WARN, "PutDiscovered", bad.error_message());
  LogCall(urlfrontier::LogLevelParams::INFO, "PutDiscovered",
          std::to_string(batches) + " batches, " + std::to_string(total) + " URLs from " +
              context->peer());
  return bad;
}

}  // namespace crawlrank
