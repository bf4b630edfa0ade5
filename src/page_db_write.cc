// PageDb's write path: one WriteTxn per Write/Add/AddBatch call, run by RunWrite, which
// grows the map and retries when it fills.
#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <span>
#include <unordered_map>

#include "crawlrank/page_db.h"
#include "link_block.h"
#include "page_db_impl.h"
#include "page_record.h"
#include "url_fast_path.h"

namespace crawlrank {

using lmdb::Val;
using lmdb::View;

namespace {

// The URLs of a batch of pages canonicalised and hashed before the write lock is taken:
// that work needs no shared state, so it runs beside other threads' transactions, and the
// transaction only resolves fingerprints to ids. (Splitting one batch over two threads
// was measured slower on a 2-core machine: the commit's kernel work needs the other core.)
struct PreparedLink {
  std::string_view url;  // canonical
  uint64_t fingerprint;
  uint32_t check;  // UrlCheck(url)
  const Link* link;
};

struct PreparedPage {
  const CrawledPage* page = nullptr;
  bool links_only = false;
  Status status;  // not OK: the page's own URL is rejected
  std::string url;
  uint64_t fingerprint = 0;
  uint32_t check = 0;
  std::span<const PreparedLink> links;
  std::vector<AddReport::Rejected> rejected;  // links that could not be canonicalised (rare)
};

class PreparedBatch {
 public:
  PreparedBatch(std::span<const std::pair<const CrawledPage*, bool>> pages, UrlProfile profile) {
    size_t total_links = 0;
    for (const auto& [page, links_only] : pages) total_links += page->links.size();
    links_.reserve(total_links);  // no reallocation: the pages' spans stay valid
    pages_.reserve(pages.size());
    for (const auto& [page, links_only] : pages) {
      PreparedPage& prepared = pages_.emplace_back();
      prepared.page = page;
      prepared.links_only = links_only;
      auto url = CanonicalizeUrl(page->url, profile);
      if (!url.ok()) {
        prepared.status = url.status();
        continue;
      }
      prepared.url = *std::move(url);
      prepared.fingerprint = UrlFingerprint(prepared.url);
      prepared.check = UrlCheck(prepared.url);
      const size_t first_link = links_.size();
      for (const Link& link : page->links) {
        // Links already in canonical form (most of them) are used in place, without a copy.
        std::string_view canonical = link.url;
        if (profile != UrlProfile::kRfc3986 || !url_internal::IsCanonicalRfc3986(link.url)) {
          auto converted = CanonicalizeUrl(link.url, profile);
          if (!converted.ok()) {
            prepared.rejected.push_back({link.url, converted.status()});
            continue;
          }
          canonical = converted_.emplace_back(*std::move(converted));
        }
        links_.push_back({canonical, UrlFingerprint(canonical), UrlCheck(canonical), &link});
      }
      prepared.links = std::span(links_).subspan(first_link, links_.size() - first_link);
    }
  }
  const PreparedPage& at(size_t i) const { return pages_[i]; }
  template <typename Fn>
  Status ForEach(Fn&& fn) const {
    for (const PreparedPage& page : pages_) CRAWLRANK_RETURN_IF_ERROR(fn(page));
    return Status::Ok();
  }

 private:
  std::vector<PreparedPage> pages_;
  std::vector<PreparedLink> links_;
  std::deque<std::string> converted_;  // a deque: growing it moves no string
};

// One write transaction. Index and link-score changes are applied to the writer's
// in-memory mirror as they happen and undone by Rollback() if the transaction aborts.
class WriteTxn {
 public:
  WriteTxn(PageDb::Impl& db, lmdb::Txn txn, AddReport* report)
      : db_(db), txn_(std::move(txn)), report_(report), saved_counters_(db.counters),
        saved_max_links_block_(db.max_links_block), first_new_id_(db.counters.pages),
        saved_unindexed_(db.unindexed.size()) {}

  bool map_full() const { return map_full_; }

  // Records a fetched page (or, with links_only, just its out-links).
  Status Apply(const PreparedPage& page);
  Status Restore(const PageRecord& record);
  Status RestoreLinks(uint32_t source, std::vector<uint32_t> targets);
  // Writes the touched records, new ids and counters, and commits.
  Status Commit();
  // Undoes the in-memory changes of an aborted transaction.
  void Rollback();

 private:
  Status Check(int rc, std::string_view op) {
    if (rc == 0) return Status::Ok();
    if (rc == MDB_MAP_FULL) map_full_ = true;
    return lmdb::Error(rc, op, db_.path);
  }

  // Returns the id of canonical `url`, creating the page when new. A fingerprint shared
  // with a different URL is AlreadyExists.
  Result<uint32_t> Resolve(std::string_view url, uint64_t fingerprint, uint32_t check,
                           uint32_t depth, uint64_t discovered_from, float link_score);
  // Returns the record of id, loading it into the touched set.
  Result<PageRecord*> Touch(uint32_t id);
  // Writes the pages not yet in `fingerprints` there once they are a batch.
  Status IndexFingerprints();
  Status PutLinks(uint32_t source, std::vector<uint32_t>& targets);

  PageDb::Impl& db_;
  lmdb::Txn txn_;
  AddReport* report_;
  PageDbCounters saved_counters_;
  int64_t saved_max_links_block_;
  // The link blocks this transaction changes, written in key order at Commit. Lists it
  // replaces are kept decoded; the others are copied from the stored value as they are.
  struct DirtyBlock {
    std::string stored;      // the block's value when first touched; empty: none
    LinkBlockLayout layout;  // views into `stored` (a map node: it never moves)
    std::array<bool, kLinkBlockSources> replaced{};
    std::array<std::vector<uint32_t>, kLinkBlockSources> lists;  // where replaced
  };
  std::map<uint32_t, DirtyBlock> blocks_;
  Result<DirtyBlock*> LoadBlock(uint32_t block);
  Status WriteBlocks();
  uint32_t first_new_id_;
  size_t saved_unindexed_;
  bool indexed_all_ = false;  // Commit wrote every unindexed page to `fingerprints`
  std::vector<std::pair<uint32_t, float>> old_scores_;  // (id, score before this txn)
  // Records this transaction writes: pages it created (id first_new_id_ + i), and older
  // pages it changed. A pointer into either stays valid until the next Resolve.
  std::vector<PageRecord> created_;
  std::unordered_map<uint32_t, PageRecord> changed_;
  std::vector<uint32_t> targets_;  // scratch space of Apply
  bool map_full_ = false;
};

Result<PageRecord*> WriteTxn::Touch(uint32_t id) {
  if (id >= first_new_id_) return &created_[id - first_new_id_];
  auto it = changed_.find(id);
  if (it != changed_.end()) return &it->second;
  Key32 key(id);
  MDB_val k = key.val(), v;
  CRAWLRANK_RETURN_IF_ERROR(Check(mdb_get(txn_.get(), db_.pages, &k, &v), "read page of"));
  PageRecord record;
  CRAWLRANK_RETURN_IF_ERROR(
      DecodePageRecord(id, View(v), &record).WithContext("PageDB \"" + db_.path + "\""));
  return &changed_.emplace(id, std::move(record)).first->second;
}

Result<uint32_t> WriteTxn::Resolve(std::string_view url, uint64_t fingerprint, uint32_t check,
                                   uint32_t depth, uint64_t discovered_from, float link_score) {
  if (const FingerprintIndex::Entry* e = db_.index.Find(fingerprint)) {
    if (e->check != check) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord * other, Touch(e->id));
      return AlreadyExistsError("URL \"" + std::string(url) + "\": fingerprint " +
                                FormatFingerprint(fingerprint) + " collides with \"" +
                                other->url + "\"; not merged");
    }
    const uint32_t id = e->id;
    if (link_score > db_.link_scores[id]) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord * record, Touch(id));
      if (id < first_new_id_) old_scores_.emplace_back(id, db_.link_scores[id]);
      record->link_score = db_.link_scores[id] = link_score;
    }
    return id;
  }
  if (db_.counters.pages >= UINT32_MAX) {
    return ResourceExhaustedError("PageDB \"" + db_.path + "\": 2^32 - 1 pages, ids exhausted");
  }
  const auto id = static_cast<uint32_t>(db_.counters.pages++);
  db_.index.Insert(fingerprint, id, check);
  db_.unindexed.emplace_back(fingerprint, id);
  db_.link_scores.push_back(link_score);
  PageRecord& record = created_.emplace_back();
  record.fingerprint = fingerprint;
  record.id = id;
  record.url.assign(url);
  record.depth = depth;
  record.discovered_from = discovered_from;
  record.link_score = link_score;
  return id;
}

Result<WriteTxn::DirtyBlock*> WriteTxn::LoadBlock(uint32_t block) {
  auto [it, inserted] = blocks_.try_emplace(block);
  DirtyBlock& dirty = it->second;
  if (!inserted || static_cast<int64_t>(block) > db_.max_links_block) return &dirty;
  Key32 key(block);
  MDB_val k = key.val(), v;
  const int rc = mdb_get(txn_.get(), db_.links, &k, &v);
  if (rc == MDB_NOTFOUND) return &dirty;
  CRAWLRANK_RETURN_IF_ERROR(Check(rc, "read links of"));
  dirty.stored.assign(View(v));
  CRAWLRANK_RETURN_IF_ERROR(ParseLinkBlock(block, dirty.stored, &dirty.layout)
                                .WithContext("PageDB \"" + db_.path + "\""));
  return &dirty;
}

Status WriteTxn::PutLinks(uint32_t source, std::vector<uint32_t>& targets) {
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  CRAWLRANK_ASSIGN_OR_RETURN(DirtyBlock * block, LoadBlock(source >> kLinkBlockShift));
  const uint32_t slot = source & (kLinkBlockSources - 1);
  const uint64_t old_count =
      block->replaced[slot] ? block->lists[slot].size() : block->layout.counts[slot];
  db_.counters.edges = db_.counters.edges - old_count + targets.size();
  block->lists[slot].assign(targets.begin(), targets.end());
  block->replaced[slot] = true;
  return Status::Ok();
}

Status WriteTxn::WriteBlocks() {
  std::string value;
  for (const auto& [block, dirty] : blocks_) {
    value.clear();
    for (uint32_t slot = 0; slot < kLinkBlockSources; ++slot) {
      if (!dirty.replaced[slot]) {
        value.append(dirty.layout.entries[slot]);
      } else if (!dirty.lists[slot].empty()) {
        AppendLinkBlockEntry((block << kLinkBlockShift) | slot, dirty.lists[slot], &value);
      }
    }
    Key32 key(block);
    MDB_val k = key.val();
    if (value.empty()) {
      if (!dirty.stored.empty()) {
        CRAWLRANK_RETURN_IF_ERROR(Check(mdb_del(txn_.get(), db_.links, &k, nullptr), "delete links in"));
      }
      continue;
    }
    MDB_val v = Val(value);
    unsigned flags = 0;
    if (static_cast<int64_t>(block) > db_.max_links_block) {
      flags = MDB_APPEND;
      db_.max_links_block = block;
    }
    CRAWLRANK_RETURN_IF_ERROR(Check(mdb_put(txn_.get(), db_.links, &k, &v, flags), "write links to"));
  }
  return Status::Ok();
}

Status WriteTxn::Apply(const PreparedPage& prepared) {
  CRAWLRANK_RETURN_IF_ERROR(prepared.status);
  const CrawledPage& page = *prepared.page;
  CRAWLRANK_ASSIGN_OR_RETURN(
      uint32_t id, Resolve(prepared.url, prepared.fingerprint, prepared.check, 0, 0, 0.f));
  CRAWLRANK_ASSIGN_OR_RETURN(PageRecord * record, Touch(id));
  if (!prepared.links_only) {
    const int64_t when = page.crawl_time_ms != 0 ? page.crawl_time_ms : NowMs();
    if (record->n_crawls == 0) {
      record->first_crawl_ms = when;
      ++db_.counters.crawled_pages;
    } else if (record->content_hash != page.content_hash) {
      ++record->n_changes;
    }
    ++record->n_crawls;
    record->last_crawl_ms = when;
    record->content_score = page.content_score;
    record->content_hash = page.content_hash;
    record->http_status = page.http_status;
    if (page.http_status >= 400) ++record->n_errors;
  }
  const uint32_t depth = record->depth + 1;
  if (report_ != nullptr) {
    report_->rejected_links.insert(report_->rejected_links.end(), prepared.rejected.begin(),
                                   prepared.rejected.end());
  }
  // Load the index slots of all the links first, so that the look-ups do not wait on
  // memory one by one.
  for (const PreparedLink& link : prepared.links) db_.index.Prefetch(link.fingerprint);
  targets_.clear();
  for (const PreparedLink& link : prepared.links) {
    auto target = Resolve(link.url, link.fingerprint, link.check, depth, prepared.fingerprint,
                          link.link->score);
    if (!target.ok()) {
      if (target.status().code() != StatusCode::kAlreadyExists) return target.status();
      if (report_ != nullptr) report_->rejected_links.push_back({link.link->url, target.status()});
      continue;
    }
    targets_.push_back(*target);
  }
  return PutLinks(id, targets_);
}

Status WriteTxn::Restore(const PageRecord& in) {
  CRAWLRANK_ASSIGN_OR_RETURN(std::string url, CanonicalizeUrl(in.url, db_.profile));
  if (url != in.url) {
    return InvalidArgumentError("restore page \"" + in.url + "\": not canonical under " +
                                std::string(UrlProfileName(db_.profile)) + " (expected \"" +
                                url + "\")");
  }
  const uint64_t fingerprint = UrlFingerprint(url);
  if (in.fingerprint != fingerprint) {
    return InvalidArgumentError("restore page \"" + url + "\": hash " +
                                FormatFingerprint(in.fingerprint) + " does not match its URL (" +
                                FormatFingerprint(fingerprint) + ")");
  }
  if (in.id != db_.counters.pages) {
    return InvalidArgumentError("restore page \"" + url + "\": id " + std::to_string(in.id) +
                                " is not the next free id " + std::to_string(db_.counters.pages));
  }
  if (db_.index.Find(fingerprint) != nullptr) {
    return AlreadyExistsError("restore page \"" + url + "\": already in the PageDB");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(uint32_t id, Resolve(url, fingerprint, UrlCheck(url), in.depth,
                                                  in.discovered_from, in.link_score));
  created_[id - first_new_id_] = in;
  if (in.crawled()) ++db_.counters.crawled_pages;
  return Status::Ok();
}

Status WriteTxn::RestoreLinks(uint32_t source, std::vector<uint32_t> targets) {
  const uint64_t pages = db_.counters.pages;
  if (source >= pages) {
    return InvalidArgumentError("restore links of page " + std::to_string(source) +
                                ": no such page id (" + std::to_string(pages) + " pages)");
  }
  for (uint32_t t : targets) {
    if (t >= pages) {
      return InvalidArgumentError("restore link " + std::to_string(source) + " -> " +
                                  std::to_string(t) + ": no such page id (" +
                                  std::to_string(pages) + " pages)");
    }
  }
  return PutLinks(source, targets);
}

Status WriteTxn::IndexFingerprints() {
  if (db_.unindexed.size() < FingerprintFilingThreshold(db_.options, db_.indexed_pages)) {
    return Status::Ok();
  }
  // One sorted pass: the B-tree leaves are visited in order, each at most once.
  std::vector<std::pair<uint64_t, uint32_t>> sorted = db_.unindexed;
  std::sort(sorted.begin(), sorted.end());
  std::string value;
  for (const auto& [fingerprint, id] : sorted) {
    value.clear();
    coding::PutFixed32(value, id);
    Key64 key(fingerprint);
    MDB_val k = key.val(), v = Val(value);
    CRAWLRANK_RETURN_IF_ERROR(
        Check(mdb_put(txn_.get(), db_.fingerprints, &k, &v, MDB_NOOVERWRITE), "index page in"));
  }
  indexed_all_ = true;
  return Status::Ok();
}

Status WriteTxn::Commit() {
  CRAWLRANK_RETURN_IF_ERROR(WriteBlocks());
  // Records in id order: changed ones in place, new ones appended at the end.
  std::vector<const PageRecord*> records;
  records.reserve(changed_.size() + created_.size());
  for (const auto& [id, record] : changed_) records.push_back(&record);
  std::sort(records.begin(), records.end(),
            [](const PageRecord* a, const PageRecord* b) { return a->id < b->id; });
  for (const PageRecord& record : created_) records.push_back(&record);
  std::string value;
  for (const PageRecord* record : records) {
    value.clear();
    EncodePageRecord(*record, &value);
    Key32 key(record->id);
    MDB_val k = key.val(), v = Val(value);
    const unsigned flags = record->id >= first_new_id_ ? MDB_APPEND : 0;
    CRAWLRANK_RETURN_IF_ERROR(Check(mdb_put(txn_.get(), db_.pages, &k, &v, flags), "write page to"));
  }
  CRAWLRANK_RETURN_IF_ERROR(IndexFingerprints());
  const uint64_t indexed_pages = indexed_all_ ? db_.counters.pages : db_.indexed_pages;
  const std::pair<std::string_view, uint64_t> counters[] = {
      {kMetaPages, db_.counters.pages},
      {kMetaCrawledPages, db_.counters.crawled_pages},
      {kMetaEdges, db_.counters.edges},
      {kMetaIndexedPages, indexed_pages}};
  for (const auto& [name, count] : counters) {
    const std::string encoded = Fixed64Value(count);
    MDB_val k = Val(name), v = Val(encoded);
    CRAWLRANK_RETURN_IF_ERROR(Check(mdb_put(txn_.get(), db_.meta, &k, &v, 0), "write meta to"));
  }
  MDB_env* env = mdb_txn_env(txn_.get());
  if (const int rc = mdb_txn_commit(txn_.Release()); rc != 0) {
    if (rc == MDB_MAP_FULL) map_full_ = true;  // the free list's save can fill the map
    return lmdb::CommitError(rc, env, db_.path);
  }
  if (indexed_all_) {
    db_.indexed_pages = indexed_pages;
    db_.unindexed.clear();
  }
  return Status::Ok();
}

void WriteTxn::Rollback() {
  txn_.Abort();
  // The pages this transaction created are the tail of `unindexed` (it only shrinks after
  // a commit): take them out of the index, newest first.
  for (size_t i = db_.unindexed.size(); i > saved_unindexed_; --i) {
    db_.index.Erase(db_.unindexed[i - 1].first);
  }
  db_.link_scores.resize(first_new_id_);
  for (auto it = old_scores_.rbegin(); it != old_scores_.rend(); ++it) {
    db_.link_scores[it->first] = it->second;
  }
  db_.counters = saved_counters_;
  db_.max_links_block = saved_max_links_block_;
  db_.unindexed.resize(saved_unindexed_);
}

}  // namespace

namespace {

// Doubles the map of the writer's environment. Needs every transaction of this process
// finished: waits for them (map_mutex), and gives up if a Snapshot stays open.
Status GrowMap(PageDb::Impl& db) {
  std::unique_lock lock(db.map_mutex, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::seconds(30))) {
    return ResourceExhaustedError("grow map of PageDB \"" + db.path +
                                  "\": snapshots of this process stayed open for 30 s");
  }
  MDB_envinfo info;
  int rc = mdb_env_info(db.env.get(), &info);
  if (rc != 0) return lmdb::Error(rc, "read map size of", db.path);
  const uint64_t size = static_cast<uint64_t>(info.me_mapsize) * 2;
  rc = mdb_env_set_mapsize(db.env.get(), size);
  if (rc != 0) return lmdb::Error(rc, "grow map to " + std::to_string(size) + " bytes of", db.path);
  return Status::Ok();
}


// Runs `body` in a write transaction and commits it; on a full map, grows it and runs
// `body` again from the start.
Status RunWrite(PageDb::Impl& db, AddReport* report,
                const std::function<Status(WriteTxn&)>& body) {
  if (db.read_only()) {
    return FailedPreconditionError("write to PageDB \"" + db.path + "\": opened read-only");
  }
  std::lock_guard guard(db.write_mutex);
  for (;;) {
    AddReport local;
    Status status;
    bool map_full = false;
    {
      std::shared_lock lock(db.map_mutex);
      std::unique_lock index_lock(db.index_mutex);  // readers here must not see a half write
      CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Txn txn, lmdb::Txn::Begin(db.env.get(), 0, db.path));
      WriteTxn write(db, std::move(txn), report != nullptr ? &local : nullptr);
      status = body(write);
      if (status.ok()) status = write.Commit();
      if (!status.ok()) {
        map_full = write.map_full();
        write.Rollback();
      }
    }
    if (status.ok()) {
      if (report != nullptr) {
        std::move(local.rejected_links.begin(), local.rejected_links.end(),
                  std::back_inserter(report->rejected_links));
      }
      if (db.options.durability == Durability::kPeriodic) {
        std::lock_guard sync_guard(db.sync_mutex);
        db.dirty = true;
        db.sync_cv.notify_one();
      }
      return status;
    }
    if (!map_full) return status;
    CRAWLRANK_RETURN_IF_ERROR(GrowMap(db));
  }
}

}  // namespace

Status PageDb::Write(const WriteBatch& batch, AddReport* report) {
  std::vector<std::pair<const CrawledPage*, bool>> ops;
  ops.reserve(batch.ops_.size());
  for (const WriteBatch::Op& op : batch.ops_) ops.emplace_back(&op.page, op.links_only);
  const PreparedBatch prepared(ops, impl_->profile);
  return RunWrite(*impl_, report, [&](WriteTxn& write) {
    for (const auto& [kind, i] : batch.order_) {
      switch (kind) {
        case WriteBatch::Kind::kPage:
          CRAWLRANK_RETURN_IF_ERROR(write.Apply(prepared.at(i)));
          break;
        case WriteBatch::Kind::kRestorePage:
          CRAWLRANK_RETURN_IF_ERROR(write.Restore(batch.restores_[i]));
          break;
        case WriteBatch::Kind::kRestoreLinks:
          CRAWLRANK_RETURN_IF_ERROR(
              write.RestoreLinks(batch.restore_links_[i].first, batch.restore_links_[i].second));
          break;
      }
    }
    return Status::Ok();
  });
}

Status PageDb::Add(const CrawledPage& page, AddReport* report) {
  return AddBatch(std::span<const CrawledPage>(&page, 1), report);
}

Status PageDb::AddBatch(std::span<const CrawledPage> pages, AddReport* report) {
  std::vector<std::pair<const CrawledPage*, bool>> ops;
  ops.reserve(pages.size());
  for (const CrawledPage& page : pages) ops.emplace_back(&page, false);
  const PreparedBatch prepared(ops, impl_->profile);
  return RunWrite(*impl_, report, [&](WriteTxn& write) {
    return prepared.ForEach([&](const PreparedPage& page) { return write.Apply(page); });
  });
}

}  // namespace crawlrank
