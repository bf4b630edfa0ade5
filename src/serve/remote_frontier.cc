#include "serve/remote_frontier.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>

#include "base/base64.h"
#include "crawlrank/clock.h"
#include "crawlrank/failure_kind.h"
#include "crawlrank/url.h"
#include "serve/frontier_items.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank {
namespace {

// When the server has nothing due, ask again this soon (the API has no next-ready time).
constexpr int64_t kPollMs = 200;
// The longest back-off between two attempts of a call.
constexpr int64_t kMaxRetryMs = 30'000;
// How long Probe waits for an answer.
constexpr int64_t kProbeMs = 5'000;
// The longest pause between two attempts of the channel to connect to a server away.
constexpr int kMaxReconnectMs = 5'000;

// Whether a failed attempt is worth another: the server away, restarting or too busy, or
// it could not write some items (ABORTED: made here from the acks, PutOnce).
bool Retryable(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::ABORTED ||
         status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

void AddMeta(urlfrontier::URLInfo* info, std::string_view name, std::string value) {
  (*info->mutable_metadata())[std::string(name)].add_values(std::move(value));
}

// A float as the shortest decimal text that reads back as the same float.
std::string DecimalText(float value) {
  char text[32];
  const auto result = std::to_chars(std::begin(text), std::end(text), value);
  return std::string(text, result.ptr);
}

}  // namespace

struct RemoteFrontier::Impl {
  RemoteFrontierOptions options;
  std::unique_ptr<urlfrontier::URLFrontier::Stub> stub;
  std::atomic<uint64_t> next_lease{1};
  mutable std::mutex mu;
  std::unordered_map<std::string, std::string> robots;  // by host
  mutable SchedulerStats last_stats;
  // Cancel(): the back-offs end, and no call is tried again.
  mutable std::mutex cancel_mu;
  mutable std::condition_variable cancel_cv;
  bool cancelled = false;  // guarded by cancel_mu

  // Runs `attempt(budget_ms)` (one try of a call, given what is left of give_up_ms for its
  // deadline; returning its gRPC status) until it succeeds, fails for a reason another try
  // would not change, or give_up_ms have passed since the first try.
  template <typename Attempt>
  Status Retrying(std::string_view rpc, Attempt&& attempt) const {
    const auto start = std::chrono::steady_clock::now();
    const auto spent_ms = [&] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start)
          .count();
    };
    int64_t pause_ms = std::max<int64_t>(1, options.retry_ms);
    for (int tries = 1;; ++tries) {
      const grpc::Status status =
          attempt(options.fail_fast ? options.wait_ms : options.give_up_ms - spent_ms());
      if (status.ok()) return Status::Ok();
      if (!Retryable(status)) return Failure(rpc, status);
      if (options.fail_fast) {
        std::string what = std::string(rpc) + " to the frontier at " +
                           QuoteForMessage(options.address) + ": " + status.error_message();
        return status.error_code() == grpc::StatusCode::ABORTED ? AbortedError(std::move(what))
                                                                 : UnavailableError(std::move(what));
      }
      const int64_t spent = spent_ms();
      std::unique_lock lock(cancel_mu);
      if (cancelled || spent + pause_ms > options.give_up_ms) {
        return IoError(std::string(rpc) + " to the frontier at " +
                       QuoteForMessage(options.address) + ": gave up after " +
                       std::to_string(tries) + (tries == 1 ? " try" : " tries") + " in " +
                       std::to_string(spent / 1000) + " s" + (cancelled ? " (stopping)" : "") +
                       ": " + status.error_message());
      }
      cancel_cv.wait_for(lock, std::chrono::milliseconds(pause_ms), [this] { return cancelled; });
      pause_ms = std::min(pause_ms * 2, kMaxRetryMs);
    }
  }

  // The server's token on a call, when it has one.
  void Authorize(grpc::ClientContext* context) const {
    if (!options.token.empty()) context->AddMetadata("authorization", "Bearer " + options.token);
  }

  // A context for one call: the token, wait-for-ready, the deadline (wait_ms, or
  // `budget_ms` when that is shorter: what is left of a retried call's time).
  void Prepare(grpc::ClientContext* context, int64_t budget_ms = INT64_MAX) const {
    Authorize(context);
    context->set_wait_for_ready(!options.fail_fast);
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::milliseconds(std::max<int64_t>(
                              1, std::min(options.wait_ms, budget_ms))));
  }

  Status Failure(std::string_view rpc, const grpc::Status& status) const {
    const std::string what = std::string(rpc) + " to the frontier at " +
                             QuoteForMessage(options.address) + ": " + status.error_message();
    if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      return InvalidArgumentError(what);
    }
    return IoError(what);
  }

  urlfrontier::URLInfo Info(std::string_view url) const {
    urlfrontier::URLInfo info;
    info.set_url(std::string(url));
    info.set_crawlid(options.crawl_id);
    return info;
  }

  // A failure report as URLFrontier has it: a known item whose metadata says why
  // (crawlrank.failure and the keys beside it, frontier_items.h).
  urlfrontier::URLItem FailureItem(const FailureReport& report) const {
    urlfrontier::URLItem item;
    urlfrontier::URLInfo* info = item.mutable_known()->mutable_info();
    *info = Info(report.url);
    AddMeta(info, kMetaFailure, report.reason.empty() ? "failed" : report.reason);
    AddMeta(info, kMetaRetryable, report.retryable ? "true" : "false");
    if (report.http_status >= 100) AddMeta(info, kMetaStatus, std::to_string(report.http_status));
    if (report.kind != FailureKind::kOther) {
      AddMeta(info, kMetaFailureKind, std::string(FailureKindName(report.kind)));
    }
    return item;
  }

  // One GetURLs stream into *got (what it read before a failure stays there), waiting at
  // most `budget_ms` for the server.
  grpc::Status GetUrlsOnce(const urlfrontier::GetParams& params, int64_t budget_ms,
                           std::vector<Request>* got) {
    std::vector<Request>& out = *got;
    grpc::ClientContext context;
    Prepare(&context, budget_ms);
    auto reader = stub->GetURLs(&context, params);
    urlfrontier::URLInfo info;
    while (reader->Read(&info)) {
      Request& r = out.emplace_back();
      r.url = info.url();
      r.fingerprint = UrlFingerprint(r.url);
      r.host = info.key();
      r.lease = next_lease++;
      if (const std::string* depth = LastValue(info, kMetaDepth)) {
        std::from_chars(depth->data(), depth->data() + depth->size(), r.depth);
      }
      if (const std::string* payload = LastValue(info, kMetaPayload)) {
        if (auto bytes = DecodeBase64(*payload)) r.payload = *std::move(bytes);
      }
      if (const std::string* priority = LastValue(info, kMetaPriority)) {
        std::from_chars(priority->data(), priority->data() + priority->size(), r.priority);
      }
      if (const std::string* referrer = LastValue(info, kMetaReferrer)) r.referrer = *referrer;
    }
    return reader->Finish();
  }

  // Sends `items` on one PutURLs stream, again while the server is away or acks an item
  // FAIL (every item is safe to send twice); an error unless every one is acked OK or
  // SKIPPED in the end.
  Status Put(const std::vector<urlfrontier::URLItem>& items) const {
    return Retrying("PutURLs", [&](int64_t budget_ms) { return PutOnce(items, budget_ms); });
  }
  grpc::Status PutOnce(const std::vector<urlfrontier::URLItem>& items, int64_t budget_ms) const {
    grpc::ClientContext context;
    Prepare(&context, budget_ms);
    auto stream = stub->PutURLs(&context);
    for (const auto& item : items) {
      if (!stream->Write(item)) break;
    }
    stream->WritesDone();
    urlfrontier::AckMessage ack;
    size_t acked = 0;
    bool failed = false;
    while (stream->Read(&ack)) {
      ++acked;
      failed = failed || ack.status() == urlfrontier::AckMessage::FAIL;
    }
    const grpc::Status status = stream->Finish();
    if (!status.ok()) return status;
    if (failed || acked != items.size()) {  // the server could not write them: again
      return grpc::Status(grpc::StatusCode::ABORTED,
                          std::to_string(acked) + " of " + std::to_string(items.size()) +
                              " items acknowledged" +
                              (failed ? ", some FAIL (the server's write)" : ""));
    }
    return grpc::Status::OK;
  }
};

RemoteFrontier::RemoteFrontier(const RemoteFrontierOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!options.tls_ca_pem.empty()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls_ca_pem;
    credentials = grpc::SslCredentials(ssl);
  }
  // A server back after a long absence is reconnected to within seconds (gRPC's own
  // back-off grows to two minutes), which matters to a fail-fast client, whose calls never
  // start a connection themselves.
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectMs);
  impl_->stub = urlfrontier::URLFrontier::NewStub(
      grpc::CreateCustomChannel(options.address, credentials, arguments));
}

RemoteFrontier::~RemoteFrontier() = default;

Status RemoteFrontier::AddSeeds(const std::vector<std::string>& urls) {
  std::vector<urlfrontier::URLItem> items;
  for (const std::string& url : urls) {
    urlfrontier::URLItem& item = items.emplace_back();
    *item.mutable_discovered()->mutable_info() = impl_->Info(url);
  }
  return items.empty() ? Status::Ok() : impl_->Put(items);
}

Result<std::vector<Request>> RemoteFrontier::Next(size_t n) {
  if (n == 0) return std::vector<Request>{};  // max_queues 0 would mean "no limit"
  urlfrontier::GetParams params;
  // Exactly n at most: one per queue (what is handed out is leased, read or not).
  params.set_max_queues(static_cast<uint32_t>(std::min<size_t>(n, kMaxUrlsPerGet)));
  params.set_max_urls_per_queue(1);
  params.set_delay_requestable(
      static_cast<uint32_t>(std::max<int64_t>(1, impl_->options.lease_ms / 1000)));
  params.set_crawlid(impl_->options.crawl_id);
  std::vector<Request> out;
  // A stream cut after some URLs keeps them (they are leased to us): tried again only when
  // it gave none.
  const Status got = impl_->Retrying("GetURLs", [&](int64_t budget_ms) {
    grpc::Status status = impl_->GetUrlsOnce(params, budget_ms, &out);
    return out.empty() ? status : grpc::Status::OK;
  });
  if (!got.ok()) return got;
  return out;
}

Status RemoteFrontier::CrawledBatch(const std::vector<CrawlReport>& reports) {
  std::vector<urlfrontier::URLItem> items;
  for (const CrawlReport& report : reports) {
    const CrawledPage& page = report.page;
    // The links first, naming the page as their source, then the page.
    for (const Link& link : page.links) {
      urlfrontier::URLItem& item = items.emplace_back();
      urlfrontier::URLInfo* info = item.mutable_discovered()->mutable_info();
      *info = impl_->Info(link.url);
      AddMeta(info, kMetaSource, page.url);
      if (link.score != 0.f) AddMeta(info, kMetaLinkScore, DecimalText(link.score));
    }
    // The links refused, failed once their discovered items exist and before the page,
    // whose report stays the last item of its own (docs/frontier.md). The server writes a
    // failure alone, so the page's links and its report are two transactions there.
    for (const FailureReport& refusal : report.refused) {
      items.push_back(impl_->FailureItem(refusal));
    }
    urlfrontier::URLItem& item = items.emplace_back();
    urlfrontier::URLInfo* info = item.mutable_known()->mutable_info();
    *info = impl_->Info(page.url);
    AddMeta(info, kMetaStatus, std::to_string(page.http_status));
    if (page.content_hash != 0) AddMeta(info, kMetaContentHash, FormatFingerprint(page.content_hash));
    if (page.content_score != 0.f) {
      AddMeta(info, kMetaContentScore, DecimalText(page.content_score));
    }
    if (report.refetch_at_ms > 0) {  // seconds, rounded up: never earlier than asked
      item.mutable_known()->set_refetchable_from_date(
          static_cast<uint64_t>((report.refetch_at_ms + 999) / 1000));
    }
  }
  return items.empty() ? Status::Ok() : impl_->Put(items);
}

Status RemoteFrontier::Failed(const FailureReport& report) {
  return impl_->Put({impl_->FailureItem(report)});
}

Status RemoteFrontier::SetCrawlDelay(std::string_view host, int64_t delay_ms) {
  urlfrontier::QueueDelayParams params;
  params.set_key(std::string(host));
  // Seconds on the wire: rounded up, so that it is never shorter than robots.txt asks.
  params.set_delay_requestable(static_cast<uint32_t>((std::max<int64_t>(0, delay_ms) + 999) / 1000));
  params.set_crawlid(impl_->options.crawl_id);
  return impl_->Retrying("SetDelay", [&](int64_t budget_ms) {
    grpc::ClientContext context;
    impl_->Prepare(&context, budget_ms);
    urlfrontier::Empty empty;
    return impl_->stub->SetDelay(&context, params, &empty);
  });
}

std::string RemoteFrontier::HostRobots(std::string_view host) const {
  std::lock_guard lock(impl_->mu);
  const auto it = impl_->robots.find(std::string(host));
  return it == impl_->robots.end() ? std::string() : it->second;
}

Status RemoteFrontier::SetHostRobots(std::string_view host, std::string_view bytes) {
  std::lock_guard lock(impl_->mu);
  impl_->robots[std::string(host)] = std::string(bytes);
  return Status::Ok();
}

Status RemoteFrontier::Probe() const {
  urlfrontier::QueueWithinCrawlParams params;
  params.set_crawlid(impl_->options.crawl_id);
  grpc::ClientContext context;
  impl_->Authorize(&context);  // no wait-for-ready: what answers, answers now
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(kProbeMs));
  urlfrontier::Stats reply;
  const grpc::Status status = impl_->stub->GetStats(&context, params, &reply);
  if (status.ok()) return Status::Ok();
  const std::string& message = status.error_message();
  const std::string where = "the frontier at " + QuoteForMessage(impl_->options.address);
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    return FailedPreconditionError(where + " answers gRPC, but not the URLFrontier API (" +
                                   message + "): is it a crawlrank serve?");
  }
  if (message.find("Failed parsing HTTP/2") != std::string::npos ||
      message.find("http1") != std::string::npos) {
    return FailedPreconditionError(where + " answers, but not as a gRPC server (an HTTP/1 web "
                                   "server?): give the address of a crawlrank serve (" +
                                   message + ")");
  }
  if (Retryable(status)) return Status::Ok();  // nothing there yet: the calls wait for it
  return impl_->Failure("GetStats", status);
}

void RemoteFrontier::Cancel() {
  {
    std::lock_guard lock(impl_->cancel_mu);
    impl_->cancelled = true;
  }
  impl_->cancel_cv.notify_all();
}

Result<SchedulerStats> RemoteFrontier::ReadStats() const {
  urlfrontier::QueueWithinCrawlParams params;
  params.set_crawlid(impl_->options.crawl_id);
  params.set_local(impl_->options.local_stats);
  grpc::ClientContext context;
  impl_->Prepare(&context);
  urlfrontier::Stats reply;
  const grpc::Status status = impl_->stub->GetStats(&context, params, &reply);
  if (!status.ok()) {
    if (Retryable(status)) {
      return UnavailableError("GetStats to the frontier at " +
                              QuoteForMessage(impl_->options.address) + ": " +
                              status.error_message());
    }
    return impl_->Failure("GetStats", status);
  }
  SchedulerStats stats;
  const auto count = [&](const char* name) -> uint64_t {
    const auto it = reply.counts().find(name);
    return it == reply.counts().end() ? 0 : it->second;
  };
  ForEachStatsField([&](const char* name, auto field) {
    using Value = std::remove_cvref_t<decltype(stats.*field)>;
    if constexpr (std::is_same_v<Value, uint64_t>) stats.*field = count(name);
  });
  // Done when nothing is left, or when every node counted says it is done (its max_pages
  // reached with pages queued); a server without the "nodes" count says the first only.
  const uint64_t nodes = count("nodes"), done = count("finished");
  stats.finished = reply.size() == 0 || (nodes > 0 && done == nodes);
  stats.limit_reached = nodes > 0 && done == nodes && reply.size() > 0;
  stats.next_ready_ms = stats.finished ? -1 : UnixNowMs() + kPollMs;
  return stats;
}

SchedulerStats RemoteFrontier::GetStats() const {
  Result<SchedulerStats> stats = ReadStats();
  std::lock_guard lock(impl_->mu);
  if (stats.ok()) impl_->last_stats = *stats;
  return impl_->last_stats;
}

Result<std::vector<std::string>> RemoteFrontier::ListNodes() const {
  grpc::ClientContext context;
  impl_->Authorize(&context);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(kProbeMs));
  urlfrontier::StringList reply;
  const grpc::Status status = impl_->stub->ListNodes(&context, urlfrontier::Empty(), &reply);
  if (!status.ok()) return impl_->Failure("ListNodes", status);
  return std::vector<std::string>(reply.values().begin(), reply.values().end());
}

}  // namespace crawlrank
