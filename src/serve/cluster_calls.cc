#include "serve/cluster_calls.h"

#include <algorithm>
#include <vector>

#include "serve/frontier_queries.h"

namespace crawlrank {
namespace {

// A listing streams for longer than one call waits for an ack.
int64_t ListingDeadlineMs(const PeerStreams& peers) { return peers.deadline_ms() * 6; }

}  // namespace

// False from `write` ends the listing early (the client went away): not an error.
grpc::Status ListUrlsOfNode(const Cluster& cluster, size_t node,
                            const urlfrontier::ListUrlParams& request, const WriteItem& write) {
  const urlfrontier::ListUrlParams sent = ForPeer(request);
  return cluster.peers.CallNode(
      node, ListingDeadlineMs(cluster.peers),
      [&](urlfrontier::URLFrontier::Stub& stub, grpc::ClientContext& context) {
        auto reader = stub.ListURLs(&context, sent);
        urlfrontier::URLItem item;
        bool stopped = false;  // by us: the client went away
        while (reader->Read(&item)) {
          if (!write(item)) {
            stopped = true;
            context.TryCancel();
            break;
          }
        }
        const grpc::Status status = reader->Finish();
        // Cancelled by the peer (it stopped), the listing is cut short: an error.
        return stopped ? grpc::Status::OK : status;
      });
}

void AddStats(const urlfrontier::Stats& stats, urlfrontier::Stats* into) {
  into->set_size(into->size() + stats.size());
  into->set_inprocess(into->inprocess() + stats.inprocess());
  into->set_numberofqueues(into->numberofqueues() + stats.numberofqueues());
  auto& counts = *into->mutable_counts();
  for (const auto& [name, value] : stats.counts()) counts[name] += value;
}

grpc::Status ListQueuesAcross(const Cluster& cluster, const urlfrontier::Pagination& request,
                              urlfrontier::QueueList* response, const QueuesHere& here) {
  const uint32_t size = request.size() != 0 ? request.size() : kDefaultListSize;
  uint64_t skip = request.start();  // of the sequence, still to pass over
  uint64_t wanted = size;           // still to take
  uint64_t total = 0;
  for (size_t node = 0; node < cluster.nodes.size(); ++node) {
    urlfrontier::Pagination ask = request;
    ask.set_start(static_cast<uint32_t>(std::min<uint64_t>(skip, UINT32_MAX)));
    ask.set_size(static_cast<uint32_t>(std::max<uint64_t>(wanted, 1)));  // 0: the default
    urlfrontier::QueueList page;
    const std::function<grpc::Status(urlfrontier::QueueList*)> local =
        [&](urlfrontier::QueueList* out) { return here(ask, out); };
    if (grpc::Status status =
            AskNode(cluster, node, &urlfrontier::URLFrontier::Stub::ListQueues, ask, &page, local);
        !status.ok()) {
      return status;
    }
    total += page.total();
    if (skip >= page.total()) {
      skip -= page.total();
      continue;
    }
    skip = 0;
    for (const std::string& queue : page.values()) {
      if (wanted == 0) break;
      response->add_values(queue);
      --wanted;
    }
  }
  response->set_total(total);
  response->set_start(request.start());
  response->set_size(static_cast<uint32_t>(response->values_size()));
  response->set_crawlid(request.crawlid().empty() ? "DEFAULT" : request.crawlid());
  return grpc::Status::OK;
}

grpc::Status ListUrlsAcross(const Cluster& cluster, const urlfrontier::ListUrlParams& request,
                            const CountHere& count_here, const ListHere& list_here,
                            const WriteItem& write) {
  // Each node's count of matches first: the page's slice of each node follows from them.
  urlfrontier::CountUrlParams count;
  count.set_key(request.key());
  count.set_crawlid(request.crawlid());
  if (request.has_filter()) count.set_filter(request.filter());
  if (request.has_ignorecase()) count.set_ignorecase(request.ignorecase());
  std::vector<uint64_t> counts;
  const std::function<grpc::Status(urlfrontier::Long*)> local_count =
      [&](urlfrontier::Long* out) { return count_here(count, out); };
  if (grpc::Status status = AskEveryNode<urlfrontier::CountUrlParams, urlfrontier::Long>(
          cluster, &urlfrontier::URLFrontier::Stub::CountURLs, count, local_count,
          [&](size_t, const urlfrontier::Long& n) { counts.push_back(n.value()); });
      !status.ok()) {
    return status;
  }
  uint64_t skip = request.start();
  uint64_t wanted = std::min(request.size() != 0 ? request.size() : kDefaultListSize, kMaxListSize);
  bool open = true;  // the client still reads
  for (size_t node = 0; node < cluster.nodes.size() && wanted > 0 && open; ++node) {
    if (skip >= counts[node]) {
      skip -= counts[node];
      continue;
    }
    urlfrontier::ListUrlParams ask = request;
    ask.set_start(static_cast<uint32_t>(skip));
    ask.set_size(static_cast<uint32_t>(std::min<uint64_t>(wanted, counts[node] - skip)));
    skip = 0;
    const auto take = [&](const urlfrontier::URLItem& item) {
      if (wanted == 0) return false;
      --wanted;
      open = write(item);
      return open;
    };
    grpc::Status status = node == cluster.nodes.self_index()
                              ? list_here(ask, take)
                              : ListUrlsOfNode(cluster, node, ask, take);
    if (!status.ok()) return status;
  }
  return grpc::Status::OK;
}

}  // namespace crawlrank
