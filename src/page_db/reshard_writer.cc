// Rewriting a cluster's PageDBs for another list of nodes (page_db/reshard_writer.h).
// Each new PageDB is written from every source: its pages first (so that a link finds its
// target under its new id wherever the target was), then the links, the scheduler's
// tables and the fetch details in the same transaction; its counters and creation times
// in a second one, once the pages they describe are there.
#include "page_db/reshard_writer.h"

#include <filesystem>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "page_db/crawl_counters.h"
#include "page_db/creation_marks.h"
#include "page_db/page_db_impl.h"
#include "page_db/schedule_table.h"
#include "page_db/write_txn.h"

namespace crawlrank {
namespace {

constexpr uint32_t kNotHere = UINT32_MAX;

// One source, read from one snapshot for the whole reshard.
struct Source {
  const PageDb* db;
  Snapshot snapshot;
  std::vector<bool> ghost;  // by id: a ghost there (its owner holds the page)
  std::vector<CreationMark> marks;
};

// What the first transaction of one new PageDB decides, read by the second.
struct NodePlan {
  std::vector<std::vector<uint32_t>> new_id;  // [source][old id]: the new id, or kNotHere
  std::vector<int64_t> created_ms;            // by new id
  std::vector<uint32_t> ghosts;               // new ids
  uint64_t links = 0;
};

class NodeWriter {
 public:
  NodeWriter(std::span<Source> sources, const ReshardOwners& owners, size_t node)
      : sources_(sources), owners_(owners), node_(node) {}

  // The first transaction's body: pages, links, schedule, payloads, hosts, fetch details.
  Status WritePages(WriteTxn& write, const ScheduleTables& tables) {
    plan_ = NodePlan();
    ids_.clear();
    plan_.new_id.resize(sources_.size());
    for (size_t s = 0; s < sources_.size(); ++s) CRAWLRANK_RETURN_IF_ERROR(OwnPages(write, s));
    for (size_t s = 0; s < sources_.size(); ++s) CRAWLRANK_RETURN_IF_ERROR(Links(write, s));
    ScheduleEntry ghost;
    ghost.state = EntryState::kElsewhere;
    for (uint32_t id : plan_.ghosts) CRAWLRANK_RETURN_IF_ERROR(tables.PutEntry(write, id, ghost));
    std::unordered_set<std::string> hosts_seen;
    for (size_t s = 0; s < sources_.size(); ++s) {
      CRAWLRANK_RETURN_IF_ERROR(Schedule(write, tables, s, hosts_seen));
    }
    write.ForceHostFlush();
    return Status::Ok();
  }

  const NodePlan& plan() const { return plan_; }

 private:
  uint32_t NewId(size_t s, uint32_t old) const {
    const std::vector<uint32_t>& ids = plan_.new_id[s];
    return old < ids.size() ? ids[old] : kNotHere;
  }

  Status OwnPages(WriteTxn& write, size_t s) {
    Source& source = sources_[s];
    std::vector<uint32_t>& ids = plan_.new_id[s];
    ids.assign(source.snapshot.counters().pages, kNotHere);
    return source.snapshot.ForEachPage([&](const PageRecord& page) -> Status {
      if (page.id < source.ghost.size() && source.ghost[page.id]) return Status::Ok();
      if (owners_.of_url(page.url) != node_) return Status::Ok();
      if (const auto it = ids_.find(page.fingerprint); it != ids_.end()) {
        return InvalidArgumentError("page \"" + page.url + "\" is held by " +
                                    PageDbName(sources_[it->second.first].db->path()) +
                                    " and by " + PageDbName(source.db->path()) +
                                    ": they are not the nodes of one cluster");
      }
      CRAWLRANK_RETURN_IF_ERROR(Add(write, page, s));
      ids[page.id] = ids_.at(page.fingerprint).second;
      return Status::Ok();
    });
  }

  // Restores `page` of source `s` under the next id.
  Status Add(WriteTxn& write, PageRecord page, size_t s) {
    const uint32_t old = page.id;
    page.id = static_cast<uint32_t>(plan_.created_ms.size());
    CRAWLRANK_RETURN_IF_ERROR(write.Restore(page).WithContext(sources_[s].db->path()));
    ids_.emplace(page.fingerprint, std::make_pair(s, page.id));
    plan_.created_ms.push_back(CreatedMs(sources_[s].marks, old));
    return Status::Ok();
  }

  Status Links(WriteTxn& write, size_t s) {
    Source& source = sources_[s];
    std::vector<uint32_t> targets;
    EdgeCursor edges = source.snapshot.Edges();
    for (; edges.Valid(); edges.Next()) {
      const uint32_t from = NewId(s, edges.source());
      if (from == kNotHere) continue;  // another node's page, or a ghost there
      targets.clear();
      for (uint32_t old : edges.targets()) {
        uint32_t to = NewId(s, old);
        if (to == kNotHere) {
          CRAWLRANK_ASSIGN_OR_RETURN(to, Target(write, s, old));
        }
        targets.push_back(to);
      }
      plan_.links += targets.size();
      CRAWLRANK_RETURN_IF_ERROR(write.RestoreLinks(from, std::move(targets)));
      targets = {};
    }
    return edges.status();
  }

  // The new id of link target `old` of source `s`: the page another source gave this
  // node, or a ghost of it (created at its first link).
  Result<uint32_t> Target(WriteTxn& write, size_t s, uint32_t old) {
    CRAWLRANK_ASSIGN_OR_RETURN(const PageRecord page, sources_[s].snapshot.FindId(old));
    if (const auto it = ids_.find(page.fingerprint); it != ids_.end()) return it->second.second;
    PageRecord ghost;  // what a link tells of it: never crawled here
    ghost.url = page.url;
    ghost.fingerprint = page.fingerprint;
    ghost.depth = page.depth;
    ghost.discovered_from = page.discovered_from;
    ghost.link_score = page.link_score;
    CRAWLRANK_RETURN_IF_ERROR(Add(write, std::move(ghost), s));
    plan_.ghosts.push_back(static_cast<uint32_t>(plan_.created_ms.size() - 1));
    return plan_.ghosts.back();
  }

  Status Schedule(WriteTxn& write, const ScheduleTables& tables, size_t s,
                  std::unordered_set<std::string>& hosts_seen) {
    Source& source = sources_[s];
    const ScheduleTables theirs(*source.db);
    if (!theirs.Present()) return Status::Ok();
    CRAWLRANK_RETURN_IF_ERROR(
        theirs.ForEachEntry(source.snapshot, [&](uint32_t old, ScheduleEntry& entry) -> Status {
          const uint32_t id = NewId(s, old);
          if (id == kNotHere || entry.state == EntryState::kElsewhere) return Status::Ok();
          return tables.PutEntry(write, id, entry);
        }));
    CRAWLRANK_RETURN_IF_ERROR(theirs.ForEachPayload(
        source.snapshot, [&](uint32_t old, std::string_view payload) -> Status {
          const uint32_t id = NewId(s, old);
          return id == kNotHere ? Status::Ok() : tables.PutPayload(write, id, payload);
        }));
    CRAWLRANK_RETURN_IF_ERROR(
        theirs.ForEachHost(source.snapshot, [&](std::string_view key, HostEntry& entry) -> Status {
          if (owners_.of_host_key(key) != node_ || !hosts_seen.emplace(key).second) {
            return Status::Ok();
          }
          return tables.PutHost(write, key, entry);
        }));
    CRAWLRANK_RETURN_IF_ERROR(
        source.snapshot.ForEachReceivedShare([&](uint32_t old, float share) -> Status {
          const uint32_t id = NewId(s, old);
          return id == kNotHere ? Status::Ok() : write.AddReceivedShare(id, share);
        }));
    const std::vector<uint32_t>& ids = plan_.new_id[s];
    for (uint32_t old = 0; old < ids.size(); ++old) {
      if (ids[old] == kNotHere) continue;
      Result<FetchInfo> info = source.snapshot.FetchOf(old);
      if (!info.ok() && info.status().code() != StatusCode::kNotFound) return info.status();
      if (info.ok()) CRAWLRANK_RETURN_IF_ERROR(write.PutFetchInfo(ids[old], *info));
    }
    return Status::Ok();
  }

  std::span<Source> sources_;
  const ReshardOwners& owners_;
  const size_t node_;
  NodePlan plan_;
  // fingerprint -> (source, new id) of every page written so far
  std::unordered_map<uint64_t, std::pair<size_t, uint32_t>> ids_;
};

// The counters of the hosts node `node` owns, as the sources kept them.
Result<std::map<std::string, CrawlCounters, std::less<>>> CarriedCounters(
    std::span<Source> sources, const ReshardOwners& owners, size_t node) {
  std::map<std::string, CrawlCounters, std::less<>> carried;
  for (Source& source : sources) {
    CRAWLRANK_RETURN_IF_ERROR(source.snapshot.ForEachHostTotals(
        [&](std::string_view host, const CrawlCounters& counters) -> Status {
          // The URLs without a host go to the first node.
          const size_t owner = host.empty() ? 0 : owners.of_url("http://" + std::string(host) + "/");
          if (owner != node) return Status::Ok();
          // One host's counters are on one node, but for what other nodes keep of it (its
          // ghosts' pages, recounted anyway): summed.
          CrawlCounters& sum = carried[host.empty() ? std::string(kNoHostKey) : std::string(host)];
          for (size_t i = 0; i < sum.fetches.size(); ++i) sum.fetches[i] += counters.fetches[i];
          for (size_t i = 0; i < sum.failures.size(); ++i) sum.failures[i] += counters.failures[i];
          sum.wire_bytes += counters.wire_bytes;
          sum.decoded_bytes += counters.decoded_bytes;
          sum.fetch_ms += counters.fetch_ms;
          return Status::Ok();
        }));
  }
  return carried;
}

// The second transaction: the counters and the creation times of what the first wrote.
Status WriteCountersAndMarks(PageDbImpl& impl, const NodePlan& plan,
                             const std::map<std::string, CrawlCounters, std::less<>>& carried) {
  return RunWrite(impl, nullptr, [&](WriteTxn& write) -> Status {
    CRAWLRANK_RETURN_IF_ERROR(RewriteCrawlCounters(impl, write.txn(), carried));
    if (const int rc = mdb_drop(write.txn(), impl.created, 0); rc != 0) {
      return lmdb::Error(rc, "empty the creation marks of", impl.path);
    }
    int64_t last_second = -1;
    for (uint32_t id = 0; id < plan.created_ms.size(); ++id) {
      const int64_t ms = plan.created_ms[id];
      if (ms / 1000 == last_second) continue;
      CRAWLRANK_RETURN_IF_ERROR(PutCreationMark(impl, write.txn(), id, ms));
      last_second = ms / 1000;
    }
    return Status::Ok();
  });
}

Status WriteNode(std::span<Source> sources, const ReshardOwners& owners, size_t node,
                 const std::string& path, const StoredConfig& config, const PageDbOptions& options,
                 ReshardedNode* report) {
  CRAWLRANK_ASSIGN_OR_RETURN(std::unique_ptr<PageDb> db, PageDb::Open(path, options));
  PageDbImpl& impl = PageDbInternals::Of(*db);
  const ScheduleTables tables(*db);
  NodeWriter writer(sources, owners, node);
  CRAWLRANK_RETURN_IF_ERROR(RunWrite(impl, nullptr, [&](WriteTxn& write) {
    return writer.WritePages(write, tables);
  }));
  CRAWLRANK_ASSIGN_OR_RETURN(const auto carried, CarriedCounters(sources, owners, node));
  CRAWLRANK_RETURN_IF_ERROR(WriteCountersAndMarks(impl, writer.plan(), carried));
  CRAWLRANK_RETURN_IF_ERROR(db->WriteConfig(config));
  report->ghosts = writer.plan().ghosts.size();
  report->pages = writer.plan().created_ms.size() - report->ghosts;
  report->links = writer.plan().links;
  return db->Sync();
}

}  // namespace

Status WriteReshardedPageDbs(std::span<const PageDb* const> sources, const ReshardOwners& owners,
                             std::span<const std::string> paths,
                             std::span<const StoredConfig> configs, PageDbOptions options,
                             std::vector<ReshardedNode>* written) {
  if (sources.empty() || owners.nodes == 0 || paths.size() != owners.nodes ||
      configs.size() != owners.nodes || !owners.of_url || !owners.of_host_key) {
    return InvalidArgumentError("reshard: give at least one source, and a path, a "
                                "configuration and owners for each of the new nodes");
  }
  for (const std::string& path : paths) {
    if (std::filesystem::exists(path)) {
      return AlreadyExistsError("reshard: " + PageDbName(path) + " exists; nothing written");
    }
  }
  std::vector<Source> read;
  for (const PageDb* db : sources) {
    if (db->url_profile() != sources.front()->url_profile()) {
      return InvalidArgumentError("reshard: " + PageDbName(db->path()) + " has the URL profile " +
                                  std::string(UrlProfileName(db->url_profile())) + ", " +
                                  PageDbName(sources.front()->path()) + " " +
                                  std::string(UrlProfileName(sources.front()->url_profile())));
    }
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db->NewSnapshot());
    CRAWLRANK_ASSIGN_OR_RETURN(std::vector<CreationMark> marks, snapshot.CreationMarks());
    Source source{db, std::move(snapshot), {}, std::move(marks)};
    const ScheduleTables tables(*db);
    if (tables.Present()) {
      CRAWLRANK_RETURN_IF_ERROR(tables.ForEachEntry(
          source.snapshot, [&](uint32_t id, ScheduleEntry& entry) -> Status {
            if (entry.state != EntryState::kElsewhere) return Status::Ok();
            if (id >= source.ghost.size()) source.ghost.resize(id + 1);
            source.ghost[id] = true;
            return Status::Ok();
          }));
    }
    read.push_back(std::move(source));
  }
  options.create_if_missing = true;
  options.read_only = false;
  options.url_profile = sources.front()->url_profile();
  written->assign(owners.nodes, {});
  for (size_t node = 0; node < owners.nodes; ++node) {
    CRAWLRANK_RETURN_IF_ERROR(WriteNode(read, owners, node, paths[node], configs[node], options,
                                        &(*written)[node]));
  }
  return Status::Ok();
}

}  // namespace crawlrank
