// The FrontierService's traffic to the other nodes of a cluster (docs/frontier.md, "A
// cluster"): PutDiscovered batches split by owner and sent on as batches, the ghosts'
// hand-ons, the shares passed to ghosts, and the peers' own streams.
#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

#include "serve/frontier_service.h"

namespace crawlrank {
namespace {

using urlfrontier::AckMessage;

// A batch sent to a peer stays well under what a node takes in one message
// (kMaxMessageBytes) and one batch (kMaxBatchUrls).
constexpr size_t kPeerBatchBytes = size_t{1} << 20;

// Counts the answers one call still waits for.
class Pending {
 public:
  void Add(size_t n) {
    std::lock_guard lock(mu_);
    waiting_ += n;
  }
  void Done() {
    std::lock_guard lock(mu_);
    if (--waiting_ == 0) changed_.notify_all();
  }
  void Wait() {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [this] { return waiting_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  size_t waiting_ = 0;  // guarded by mu_
};

}  // namespace

grpc::Status FrontierService::EnterPeerCall(grpc::ServerContext* context) {
  std::lock_guard lock(peer_calls_mu_);
  if (draining_) return Refused(grpc::StatusCode::UNAVAILABLE, "this node is stopping");
  peer_calls_.insert(context);
  return grpc::Status::OK;
}

void FrontierService::LeavePeerCall(grpc::ServerContext* context) {
  std::lock_guard lock(peer_calls_mu_);
  peer_calls_.erase(context);
}

void FrontierService::ForwardGrouped(PeerLane lane, std::vector<Outgoing> outgoing,
                                     Answered answered) {
  if (outgoing.empty()) return;
  // By owner, each owner's in the order given.
  std::stable_sort(outgoing.begin(), outgoing.end(),
                   [](const Outgoing& a, const Outgoing& b) { return a.owner < b.owner; });
  const auto shared = std::make_shared<const Answered>(std::move(answered));
  size_t begin = 0;
  while (begin < outgoing.size()) {
    const size_t owner = outgoing[begin].owner;
    std::vector<urlfrontier::URLInfo> urls;
    std::vector<size_t> indexes;
    size_t bytes = 0;
    size_t end = begin;
    while (end < outgoing.size() && outgoing[end].owner == owner && urls.size() < kMaxBatchUrls) {
      const size_t size = outgoing[end].url.ByteSizeLong();
      if (!urls.empty() && bytes + size > kPeerBatchBytes) break;
      bytes += size;
      indexes.push_back(outgoing[end].index);
      urls.push_back(std::move(outgoing[end].url));
      ++end;
    }
    peers_->ForwardBatch(owner, lane, std::move(urls),
                         [shared, indexes = std::move(indexes)](
                             std::span<const AckMessage::Status> statuses) {
                           for (size_t k = 0; k < indexes.size(); ++k) {
                             (*shared)(indexes[k], statuses[k]);
                           }
                         });
    begin = end;
  }
}

std::vector<FrontierService::Outgoing> FrontierService::HandOnUrls(
    std::span<const PutItem> items, std::span<const HandOn> hand_ons) const {
  std::vector<Outgoing> outgoing;
  outgoing.reserve(hand_ons.size());
  for (size_t k = 0; k < hand_ons.size(); ++k) {
    const Discovery& d = std::get<Discovery>(items[hand_ons[k].index]);
    outgoing.push_back({OwnerOf(d.url), k, HandOnUrl(d, hand_ons[k].depth)});
  }
  return outgoing;
}

void FrontierService::SendPassedShares() {
  if (peers_ == nullptr) return;
  const std::vector<PassedShare> passed = scheduler_->TakePassedShares();
  if (passed.empty()) return;
  Result<Snapshot> snapshot = db_->NewSnapshot();
  std::vector<Outgoing> outgoing;
  std::vector<std::string> urls;  // by index, for the log
  for (const PassedShare& share : passed) {
    Result<PageRecord> ghost =
        snapshot.ok() ? snapshot->FindId(share.page) : Result<PageRecord>(snapshot.status());
    if (!ghost.ok()) {  // a share is an estimate: one lost is logged, not retried
      LogCall(urlfrontier::LogLevelParams::WARN, "PutURLs",
              "a share for page " + std::to_string(share.page) + " is lost: " +
                  ghost.status().ToString());
      continue;
    }
    outgoing.push_back(
        {OwnerOf(ghost->url), urls.size(), ShareUrl(ghost->url, ghost->depth, share.share)});
    urls.push_back(ghost->url);
  }
  ForwardGrouped(PeerLane::kLastHop, std::move(outgoing),
                 [this, urls = std::move(urls)](size_t index, AckMessage::Status status) {
                   if (status != AckMessage::FAIL) return;
                   LogCall(urlfrontier::LogLevelParams::DEBUG, "PutURLs",
                           "a share for " + QuoteForMessage(urls[index]) +
                               " is lost: its owner did not answer");
                 });
}

std::vector<AckMessage::Status> FrontierService::AnswerUrls(
    std::span<const urlfrontier::URLInfo* const> infos, std::vector<PutItem>& urls,
    bool from_peer) {
  std::vector<AckMessage::Status> answers(urls.size(), AckMessage::FAIL);
  std::mutex answers_mu;  // the peers' readers answer while this thread writes
  Pending pending;
  const auto answer = [&](size_t i, AckMessage::Status status) {
    {
      std::lock_guard lock(answers_mu);
      answers[i] = status;
    }
    pending.Done();
  };
  std::vector<size_t> here;
  std::vector<PutItem> mine;
  std::vector<Outgoing> first_hops;
  for (size_t i = 0; i < urls.size(); ++i) {
    const size_t owner = peers_ == nullptr ? 0 : OwnerOf(urls[i]);
    if (peers_ == nullptr || owner == options_.nodes->self_index()) {
      here.push_back(i);
      mine.push_back(std::move(urls[i]));
    } else if (from_peer) {  // lists agree (CheckPeer): never sent on again
      LogCall(urlfrontier::LogLevelParams::WARN, "PutDiscovered",
              "a peer sent " + QuoteForMessage(infos[i]->url()) +
                  ", which node " + options_.nodes->nodes()[owner] +
                  " owns (acknowledged FAIL)");
    } else {
      first_hops.push_back({owner, i, *infos[i]});
    }
  }
  // Sent before this node writes its own, so that the owners write theirs meanwhile.
  pending.Add(first_hops.size());
  ForwardGrouped(PeerLane::kFirstHop, std::move(first_hops), answer);
  // The links to URLs other nodes own are written here, and the URLs go on to their
  // owners, who answer for them.
  std::vector<HandOn> hand_ons;
  Result<std::vector<AckMessage::Status>> statuses =
      mine.empty() ? std::vector<AckMessage::Status>() : Write(mine, &hand_ons);
  if (!statuses.ok()) LogWriteFailure("PutDiscovered", statuses.status());
  std::vector<bool> handed_on(here.size());
  if (statuses.ok() && !hand_ons.empty()) {
    for (const HandOn& on : hand_ons) handed_on[on.index] = true;
    pending.Add(hand_ons.size());
    ForwardGrouped(PeerLane::kLastHop, HandOnUrls(mine, hand_ons),
                   [&](size_t k, AckMessage::Status status) {
                     answer(here[hand_ons[k].index], status);
                   });
  }
  {
    std::lock_guard lock(answers_mu);
    for (size_t j = 0; j < here.size(); ++j) {
      if (!handed_on[j]) answers[here[j]] = statuses.ok() ? (*statuses)[j] : AckMessage::FAIL;
    }
  }
  pending.Wait();  // within the peers' deadlines
  return answers;
}

}  // namespace crawlrank
