// The FrontierService's calls that read and steer the crawl rather than write pages:
// stats, activity, listings, politeness, log level, removals and limits. In a cluster each
// follows the routing table (serve/cluster_calls.h; docs/frontier.md, "A cluster").
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <type_traits>

#include "crawlrank/clock.h"
#include "serve/cluster_calls.h"
#include "serve/frontier_queries.h"
#include "serve/frontier_service.h"

namespace crawlrank {
namespace {

using Stub = urlfrontier::URLFrontier::Stub;

// An answer that carries nothing to merge.
template <typename Response>
void Ignore(size_t, const Response&) {}

// Adds each node's count into `response`.
std::function<void(size_t, const urlfrontier::Long&)> Summing(urlfrontier::Long* response) {
  return [response](size_t, const urlfrontier::Long& n) {
    response->set_value(response->value() + n.value());
  };
}

}  // namespace

grpc::Status FrontierService::Routing(const grpc::ServerContext& context, bool local,
                                      const Cluster** cluster) const {
  bool from_peer = false;
  if (grpc::Status peer = CheckPeer(context, &from_peer); !peer.ok()) return peer;
  const Cluster* mine = cluster_.has_value() ? &*cluster_ : nullptr;
  *cluster = AnswersAlone(mine, local, from_peer) ? nullptr : mine;
  return grpc::Status::OK;
}

// ---- state

grpc::Status FrontierService::GetStats(grpc::ServerContext* context,
                                       const urlfrontier::QueueWithinCrawlParams* request,
                                       urlfrontier::Stats* response) {
  if (grpc::Status admit = Admit(*context, request->crawlid(), "QueueWithinCrawlParams.crawlID");
      !admit.ok()) {
    return admit;
  }
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const std::function<grpc::Status(urlfrontier::Stats*)> here = [&](urlfrontier::Stats* out) {
    return StatsHere(request->key(), out);
  };
  if (cluster == nullptr) return here(response);
  if (!request->key().empty()) {  // the queue's owner
    return AskNode(*cluster, OwnerOfKey(request->key()), &Stub::GetStats, *request, response,
                   here);
  }
  response->set_crawlid(std::string(kDefaultCrawlId));
  return AskEveryNode<urlfrontier::QueueWithinCrawlParams, urlfrontier::Stats>(
      *cluster, &Stub::GetStats, *request, here,
      [&](size_t, const urlfrontier::Stats& stats) { AddStats(stats, response); });
}

grpc::Status FrontierService::StatsHere(const std::string& key, urlfrontier::Stats* response) {
  response->set_crawlid(std::string(kDefaultCrawlId));
  if (!key.empty()) return QueueStats(key, response);
  const SchedulerStats stats = scheduler_->GetStats();
  response->set_size(stats.queued + stats.retrying + stats.in_flight);
  response->set_inprocess(static_cast<uint32_t>(
      std::min<uint64_t>(stats.in_flight, std::numeric_limits<uint32_t>::max())));
  response->set_numberofqueues(stats.hosts);
  auto& counts = *response->mutable_counts();
  counts["completed"] = stats.crawled + stats.failed;
  // A crawl whose max_pages is reached is over with pages still queued, which `size` alone
  // cannot say: "finished" counts the nodes that are done, "nodes" the nodes counted (both
  // summed over a cluster's nodes), so that a client ends when they are equal.
  counts["finished"] = stats.finished ? 1 : 0;
  counts["nodes"] = 1;
  // Every counter of the scheduler, by its own name.
  ForEachStatsField([&](const char* name, auto field) {
    using Value = std::remove_cvref_t<decltype(stats.*field)>;
    if constexpr (std::is_same_v<Value, uint64_t>) counts[name] = stats.*field;
  });
  return grpc::Status::OK;
}

grpc::Status FrontierService::QueueStats(const std::string& key, urlfrontier::Stats* response) {
  // The host's counts live in the schedule's tables: a snapshot of them (one pass over
  // the pages, as page_db_schedule reads them).
  Result<ScheduleView> view =
      Scheduler::Inspect(*db_, scheduler_options_, 0, std::numeric_limits<size_t>::max());
  if (!view.ok()) return ToGrpc(view.status().WithContext("GetStats " + QuoteForMessage(key)));
  for (const ScheduleView::HostState& host : view->hosts) {
    if (host.key != key) continue;
    response->set_size(host.queued + host.in_flight);
    response->set_inprocess(host.in_flight);
    response->set_numberofqueues(1);
    (*response->mutable_counts())["completed"] = host.done;
    return grpc::Status::OK;
  }
  response->set_numberofqueues(0);  // a queue with nothing left: all counts 0
  return grpc::Status::OK;
}

grpc::Status FrontierService::ListCrawls(grpc::ServerContext* context,
                                         const urlfrontier::Local* request,
                                         urlfrontier::StringList* response) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const std::function<grpc::Status(urlfrontier::StringList*)> here =
      [](urlfrontier::StringList* out) {
        out->add_values(std::string(kDefaultCrawlId));
        return grpc::Status::OK;
      };
  if (cluster == nullptr) return here(response);
  std::set<std::string> crawls;  // every node's, once each
  grpc::Status asked = AskEveryNode<urlfrontier::Local, urlfrontier::StringList>(
      *cluster, &Stub::ListCrawls, *request, here, [&](size_t, const urlfrontier::StringList& list) {
        crawls.insert(list.values().begin(), list.values().end());
      });
  for (const std::string& crawl : crawls) response->add_values(crawl);
  return asked;
}

grpc::Status FrontierService::SetActive(grpc::ServerContext* context,
                                        const urlfrontier::Active* request, urlfrontier::Empty*) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const std::function<grpc::Status(urlfrontier::Empty*)> here = [&](urlfrontier::Empty*) {
    active_.store(request->state());
    LogCall(urlfrontier::LogLevelParams::INFO, "SetActive",
            std::string(request->state() ? "on" : "off") + " from " + context->peer());
    return grpc::Status::OK;
  };
  if (cluster == nullptr) return here(nullptr);
  return AskEveryNode<urlfrontier::Active, urlfrontier::Empty>(
      *cluster, &Stub::SetActive, *request, here, Ignore<urlfrontier::Empty>);
}

grpc::Status FrontierService::GetActive(grpc::ServerContext* context,
                                        const urlfrontier::Local* request,
                                        urlfrontier::Boolean* response) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const std::function<grpc::Status(urlfrontier::Boolean*)> here = [&](urlfrontier::Boolean* out) {
    out->set_state(active_.load());
    return grpc::Status::OK;
  };
  if (cluster == nullptr) return here(response);
  bool all = true;  // active only when every node is
  grpc::Status asked = AskEveryNode<urlfrontier::Local, urlfrontier::Boolean>(
      *cluster, &Stub::GetActive, *request, here,
      [&](size_t, const urlfrontier::Boolean& active) { all = all && active.state(); });
  response->set_state(all);
  return asked;
}

grpc::Status FrontierService::ListNodes(grpc::ServerContext* context, const urlfrontier::Empty*,
                                        urlfrontier::StringList* response) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  if (options_.nodes.has_value()) {  // every node of the cluster, in the list's order
    for (const std::string& node : options_.nodes->nodes()) response->add_values(node);
    return grpc::Status::OK;
  }
  std::lock_guard lock(node_mu_);
  response->add_values(options_.node_address);
  return grpc::Status::OK;
}

// ---- reading the crawl (serve/frontier_queries.h)

grpc::Status FrontierService::ListQueues(grpc::ServerContext* context,
                                         const urlfrontier::Pagination* request,
                                         urlfrontier::QueueList* response) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  if (cluster == nullptr) return ListQueuesOf(*db_, scheduler_options_, *request, response);
  return ListQueuesAcross(*cluster, *request, response,
                          [&](const urlfrontier::Pagination& ask, urlfrontier::QueueList* out) {
                            return ListQueuesOf(*db_, scheduler_options_, ask, out);
                          });
}

grpc::Status FrontierService::ListURLs(grpc::ServerContext* context,
                                       const urlfrontier::ListUrlParams* request,
                                       grpc::ServerWriter<urlfrontier::URLItem>* writer) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const auto write = [&](const urlfrontier::URLItem& item) { return writer->Write(item); };
  const auto list_here = [&](const urlfrontier::ListUrlParams& ask, const WriteItem& out) {
    return ListUrlsOf(*db_, scheduler_options_, ask, out);
  };
  if (cluster == nullptr) return list_here(*request, write);
  if (!request->key().empty()) {  // the queue's owner
    const size_t owner = OwnerOfKey(request->key());
    if (owner == options_.nodes->self_index()) return list_here(*request, write);
    return ListUrlsOfNode(*cluster, owner, *request, write);
  }
  return ListUrlsAcross(
      *cluster, *request,
      [&](const urlfrontier::CountUrlParams& ask, urlfrontier::Long* out) {
        return CountUrlsOf(*db_, scheduler_options_, ask, out);
      },
      list_here, write);
}

grpc::Status FrontierService::CountURLs(grpc::ServerContext* context,
                                        const urlfrontier::CountUrlParams* request,
                                        urlfrontier::Long* response) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const std::function<grpc::Status(urlfrontier::Long*)> here = [&](urlfrontier::Long* out) {
    return CountUrlsOf(*db_, scheduler_options_, *request, out);
  };
  if (cluster == nullptr) return here(response);
  if (!request->key().empty()) {
    return AskNode(*cluster, OwnerOfKey(request->key()), &Stub::CountURLs, *request, response,
                   here);
  }
  return AskEveryNode<urlfrontier::CountUrlParams, urlfrontier::Long>(
      *cluster, &Stub::CountURLs, *request, here, Summing(response));
}

grpc::Status FrontierService::GetURLStatus(grpc::ServerContext* context,
                                           const urlfrontier::URLStatusRequest* request,
                                           urlfrontier::URLItem* response) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;  // the message has no `local`: peers answer alone
  if (grpc::Status routed = Routing(*context, false, &cluster); !routed.ok()) return routed;
  const std::function<grpc::Status(urlfrontier::URLItem*)> here = [&](urlfrontier::URLItem* out) {
    return UrlStatusOf(*db_, scheduler_options_, *request, out);
  };
  Result<std::string> url = CanonicalizeUrl(request->url(), db_->url_profile());
  if (cluster == nullptr || !url.ok()) return here(response);  // a bad URL: refused here
  return AskNode(*cluster, OwnerOf(*url), &Stub::GetURLStatus, *request, response, here);
}

// ---- politeness

grpc::Status FrontierService::BlockQueueUntil(grpc::ServerContext* context,
                                              const urlfrontier::BlockQueueParams* request,
                                              urlfrontier::Empty*) {
  if (grpc::Status admit = Admit(*context, request->crawlid(), "BlockQueueParams.crawlID");
      !admit.ok()) {
    return admit;
  }
  if (request->key().empty()) {
    return Refused(grpc::StatusCode::INVALID_ARGUMENT, "BlockQueueParams.key: empty");
  }
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  if (cluster != nullptr && !OwnsKey(request->key())) {  // the queue's owner holds it
    return SendToNode(*cluster, OwnerOfKey(request->key()), &Stub::BlockQueueUntil, *request);
  }
  // Seconds; past what milliseconds hold, it blocks for good.
  const uint64_t max_seconds = std::numeric_limits<int64_t>::max() / 1000;
  const int64_t until_ms =
      static_cast<int64_t>(std::min<uint64_t>(request->time(), max_seconds)) * 1000;
  const Status held = scheduler_->HoldHost(request->key(), until_ms);
  if (!held.ok()) {
    return ToGrpc(held.WithContext("BlockQueueUntil " + QuoteForMessage(request->key())));
  }
  LogCall(urlfrontier::LogLevelParams::INFO, "BlockQueueUntil",
          QuoteForMessage(request->key()) + " until " + std::to_string(request->time()) +
              " from " + context->peer());
  return grpc::Status::OK;
}

grpc::Status FrontierService::SetDelay(grpc::ServerContext* context,
                                       const urlfrontier::QueueDelayParams* request,
                                       urlfrontier::Empty*) {
  if (grpc::Status admit = Admit(*context, request->crawlid(), "QueueDelayParams.crawlID");
      !admit.ok()) {
    return admit;
  }
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  if (cluster != nullptr && request->key().empty()) {  // the default: every node's
    const urlfrontier::QueueDelayParams here = ForPeer(*request);  // answered alone
    return AskEveryNode<urlfrontier::QueueDelayParams, urlfrontier::Empty>(
        *cluster, &Stub::SetDelay, *request,
        [&](urlfrontier::Empty*) { return SetDelay(context, &here, nullptr); },
        Ignore<urlfrontier::Empty>);
  }
  if (cluster != nullptr && !OwnsKey(request->key())) {  // a queue's: its owner's
    return SendToNode(*cluster, OwnerOfKey(request->key()), &Stub::SetDelay, *request);
  }
  const int64_t delay_ms = int64_t{request->delay_requestable()} * 1000;
  if (!request->key().empty()) {
    // A host's own delay: it never goes below the default (0 gives the default back).
    const Status set = scheduler_->SetCrawlDelay(request->key(), delay_ms);
    if (!set.ok()) return ToGrpc(set.WithContext("SetDelay " + QuoteForMessage(request->key())));
    LogCall(urlfrontier::LogLevelParams::INFO, "SetDelay",
            QuoteForMessage(request->key()) + " " + std::to_string(delay_ms) + " ms from " +
                context->peer());
    return grpc::Status::OK;
  }
  // The default: stored with the crawl first, so that a restart keeps it, then applied.
  std::lock_guard lock(config_mu_);
  Result<ResolvedConfig> resolved =
      ResolveConfig(*db_, StoredConfig{{"delay_ms", std::to_string(delay_ms)}});
  if (!resolved.ok()) return ToGrpc(resolved.status().WithContext("SetDelay"));
  if (!resolved->changes.empty()) {
    if (Status written = db_->WriteConfig(resolved->config); !written.ok()) {
      return ToGrpc(written.WithContext("SetDelay"));
    }
  }
  const Status applied = scheduler_->SetDefaultDelay(delay_ms);
  if (!applied.ok()) return ToGrpc(applied.WithContext("SetDelay"));
  LogCall(urlfrontier::LogLevelParams::INFO, "SetDelay",
          "default " + std::to_string(delay_ms) + " ms from " + context->peer());
  return grpc::Status::OK;
}

// ---- logging

void FrontierService::LogCall(urlfrontier::LogLevelParams::Level level, std::string_view rpc,
                              const std::string& what) const {
  if (level < log_level_.load()) return;
  std::fprintf(stderr, "crawlrank_serve: %s %.*s: %s\n", IsoMillis(UnixNowMs()).c_str(),
               static_cast<int>(rpc.size()), rpc.data(), what.c_str());
}

grpc::Status FrontierService::SetLogLevel(grpc::ServerContext* context,
                                          const urlfrontier::LogLevelParams* request,
                                          urlfrontier::Empty*) {
  if (grpc::Status auth = Authorize(*context); !auth.ok()) return auth;
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  if (cluster != nullptr) {  // every node's
    const urlfrontier::LogLevelParams here = ForPeer(*request);  // answered alone
    return AskEveryNode<urlfrontier::LogLevelParams, urlfrontier::Empty>(
        *cluster, &Stub::SetLogLevel, *request,
        [&](urlfrontier::Empty*) { return SetLogLevel(context, &here, nullptr); },
        Ignore<urlfrontier::Empty>);
  }
  // One logger: `package` names none of crawlrank's, and is not used.
  log_level_.store(request->level());
  LogCall(urlfrontier::LogLevelParams::INFO, "SetLogLevel",
          "level " + urlfrontier::LogLevelParams::Level_Name(request->level()) + " from " +
              context->peer());
  return grpc::Status::OK;
}

// ---- removals and limits

grpc::Status FrontierService::Remove(const grpc::ServerContext& context, std::string_view rpc,
                                     const RemoveFilter& filter, bool count_all,
                                     urlfrontier::Long* response) {
  const Result<RemoveCounts> removed = scheduler_->Remove(filter);
  if (!removed.ok()) return ToGrpc(removed.status().WithContext(std::string(rpc)));
  response->set_value(count_all ? removed->removed : removed->active);
  LogCall(urlfrontier::LogLevelParams::INFO, rpc,
          (filter.host.empty() ? std::string("the crawl") : QuoteForMessage(filter.host)) + ": " +
              std::to_string(removed->removed) + " removed (" + std::to_string(removed->active) +
              " not done yet) from " + context.peer());
  return grpc::Status::OK;
}

grpc::Status FrontierService::DeleteQueue(grpc::ServerContext* context,
                                          const urlfrontier::QueueWithinCrawlParams* request,
                                          urlfrontier::Long* response) {
  if (grpc::Status admit = Admit(*context, request->crawlid(), "QueueWithinCrawlParams.crawlID");
      !admit.ok()) {
    return admit;
  }
  if (request->key().empty()) {
    return Refused(grpc::StatusCode::INVALID_ARGUMENT,
                   "QueueWithinCrawlParams.key: empty (DeleteCrawl removes the whole crawl)");
  }
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const std::function<grpc::Status(urlfrontier::Long*)> here = [&](urlfrontier::Long* out) {
    return Remove(*context, "DeleteQueue", {.host = request->key()}, false, out);
  };
  if (cluster == nullptr) return here(response);
  return AskEveryNode<urlfrontier::QueueWithinCrawlParams, urlfrontier::Long>(
      *cluster, &Stub::DeleteQueue, *request, here, Summing(response));
}

grpc::Status FrontierService::DeleteCrawl(grpc::ServerContext* context,
                                          const urlfrontier::DeleteCrawlMessage* request,
                                          urlfrontier::Long* response) {
  if (grpc::Status admit = Admit(*context, request->value(), "DeleteCrawlMessage.value");
      !admit.ok()) {
    return admit;
  }
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  const std::function<grpc::Status(urlfrontier::Long*)> here = [&](urlfrontier::Long* out) {
    return Remove(*context, "DeleteCrawl", {}, false, out);
  };
  if (cluster == nullptr) return here(response);
  return AskEveryNode<urlfrontier::DeleteCrawlMessage, urlfrontier::Long>(
      *cluster, &Stub::DeleteCrawl, *request, here, Summing(response));
}

grpc::Status FrontierService::PurgeURLs(grpc::ServerContext* context,
                                        const urlfrontier::PurgeUrlParams* request,
                                        urlfrontier::Long* response) {
  if (grpc::Status admit = Admit(*context, request->crawlid(), "PurgeUrlParams.crawlID");
      !admit.ok()) {
    return admit;
  }
  const Cluster* cluster = nullptr;  // the message has no `local`: peers answer alone
  if (grpc::Status routed = Routing(*context, false, &cluster); !routed.ok()) return routed;
  const std::function<grpc::Status(urlfrontier::Long*)> here = [&](urlfrontier::Long* out) {
    // Created more than `days` days ago; 0 days: every URL created before now.
    const int64_t cutoff = UnixNowMs() - int64_t{request->days()} * 86'400'000;
    if (cutoff <= 0) {  // before 1970: nothing is that old
      out->set_value(0);
      return grpc::Status::OK;
    }
    return Remove(*context, "PurgeURLs", {.host = request->key(), .created_before_ms = cutoff},
                  true, out);
  };
  if (cluster == nullptr) return here(response);
  return AskEveryNode<urlfrontier::PurgeUrlParams, urlfrontier::Long>(
      *cluster, &Stub::PurgeURLs, *request, here, Summing(response));
}

grpc::Status FrontierService::SetCrawlLimit(grpc::ServerContext* context,
                                            const urlfrontier::CrawlLimitParams* request,
                                            urlfrontier::Empty*) {
  if (grpc::Status admit = Admit(*context, request->crawlid(), "CrawlLimitParams.crawlID");
      !admit.ok()) {
    return admit;
  }
  if (request->key().empty()) {
    return Refused(grpc::StatusCode::INVALID_ARGUMENT, "CrawlLimitParams.key: empty");
  }
  const Cluster* cluster = nullptr;
  if (grpc::Status routed = Routing(*context, request->local(), &cluster); !routed.ok()) {
    return routed;
  }
  if (cluster != nullptr && !OwnsKey(request->key())) {  // the queue's owner holds it
    return SendToNode(*cluster, OwnerOfKey(request->key()), &Stub::SetCrawlLimit, *request);
  }
  const Status set = scheduler_->SetHostLimit(request->key(), request->limit());
  if (!set.ok()) return ToGrpc(set.WithContext("SetCrawlLimit " + QuoteForMessage(request->key())));
  LogCall(urlfrontier::LogLevelParams::INFO, "SetCrawlLimit",
          QuoteForMessage(request->key()) + " " + std::to_string(request->limit()) + " pages from " +
              context->peer());
  return grpc::Status::OK;
}


}  // namespace crawlrank
