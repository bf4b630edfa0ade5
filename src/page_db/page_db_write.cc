// PageDb's write path (write_txn.h): one WriteTxn per Write/Add/AddBatch call, run by
// RunWrite, which grows the map and retries when it fills.
#include <algorithm>
#include <iterator>

#include "crawlrank/page_db.h"
#include "page_db/creation_marks.h"
#include "page_db/page_record.h"
#include "page_db/recent_fetches.h"
#include "page_db/write_txn.h"
#include "url/url_fast_path.h"

namespace crawlrank {

using lmdb::Val;
using lmdb::View;

PreparedBatch::PreparedBatch(std::span<const std::pair<const CrawledPage*, bool>> pages,
                             UrlProfile profile) {
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
    // Every write of a fetched page or of links passes here: the scheduler's reports too.
    prepared.status = ValidateCrawledPage(*page);
    if (!prepared.status.ok()) continue;
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

Status PreparedBatch::FirstError() const {
  for (const PreparedPage& page : pages_) CRAWLRANK_RETURN_IF_ERROR(page.status);
  return Status::Ok();
}

// ---- PageCache

Result<PageRecord> ReadStoredRecord(const PageDbImpl& db, MDB_txn* txn, uint32_t id) {
  Key32 key(id);
  MDB_val k = key.val(), v;
  if (const int rc = mdb_get(txn, db.pages, &k, &v); rc != 0) {
    return lmdb::Error(rc, "read page " + std::to_string(id) + " of", db.path);
  }
  PageRecord record;
  CRAWLRANK_RETURN_IF_ERROR(DecodePageRecord(id, View(v), &record).WithContext(db.Where()));
  return record;
}

Result<PageRecord*> PageCache::Touch(const PageDbImpl& db, MDB_txn* txn, uint32_t id) {
  if (id >= first_new_id_) return &created_[id - first_new_id_];
  auto it = changed_.find(id);
  if (it != changed_.end()) return &it->second;
  CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, ReadStoredRecord(db, txn, id));
  return &changed_.emplace(id, std::move(record)).first->second;
}

const PageRecord* PageCache::Find(uint32_t id) const {
  if (id >= first_new_id_)
    return id - first_new_id_ < created_.size() ? &created_[id - first_new_id_] : nullptr;
  auto it = changed_.find(id);
  return it == changed_.end() ? nullptr : &it->second;
}

Status PageCache::Write(WriteTxn& write) const {
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
    CRAWLRANK_RETURN_IF_ERROR(
        write.Check(mdb_put(write.txn(), write.db().pages, &k, &v, flags), "write page to"));
  }
  return Status::Ok();
}

// ---- LinkBuffer

Result<LinkBuffer::Block*> LinkBuffer::Load(const PageDbImpl& db, MDB_txn* txn, uint32_t block,
                                            int64_t max_block) {
  auto [it, inserted] = blocks_.try_emplace(block);
  Block& dirty = it->second;
  if (!inserted || static_cast<int64_t>(block) > max_block) return &dirty;
  Key32 key(block);
  MDB_val k = key.val(), v;
  const int rc = mdb_get(txn, db.links, &k, &v);
  if (rc == MDB_NOTFOUND) return &dirty;
  if (rc != 0) return lmdb::Error(rc, "read links of", db.path);
  dirty.stored.assign(View(v));
  CRAWLRANK_RETURN_IF_ERROR(
      ParseLinkBlock(block, dirty.stored, &dirty.layout).WithContext(db.Where()));
  return &dirty;
}

Result<LinkBuffer::Counts> LinkBuffer::Put(const PageDbImpl& db, MDB_txn* txn, uint32_t source,
                                           std::span<const uint32_t> sorted_targets, bool merge) {
  CRAWLRANK_ASSIGN_OR_RETURN(Block * block,
                             Load(db, txn, source >> kLinkBlockShift, db.writer.max_links_block));
  const uint32_t slot = source & (kLinkBlockSources - 1);
  std::vector<uint32_t>& list = block->lists[slot];
  Counts counts;
  counts.before = block->replaced[slot] ? list.size() : block->layout.counts[slot];
  if (merge && counts.before > 0) {
    if (!block->replaced[slot]) {
      CRAWLRANK_RETURN_IF_ERROR(
          FindInLinkBlock(source, block->stored, &list).WithContext(db.Where()));
    }
    std::vector<uint32_t> merged;
    merged.reserve(list.size() + sorted_targets.size());
    std::set_union(list.begin(), list.end(), sorted_targets.begin(), sorted_targets.end(),
                   std::back_inserter(merged));
    list = std::move(merged);
  } else {
    list.assign(sorted_targets.begin(), sorted_targets.end());
  }
  block->replaced[slot] = true;
  counts.after = list.size();
  counts.list = list;
  return counts;
}

Status LinkBuffer::Write(WriteTxn& write) const {
  MDB_txn* txn = write.txn();
  const MDB_dbi links = write.db().links;
  int64_t* max_block = &write.db().writer.max_links_block;
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
        CRAWLRANK_RETURN_IF_ERROR(write.Check(mdb_del(txn, links, &k, nullptr), "delete links in"));
      }
      continue;
    }
    MDB_val v = Val(value);
    unsigned flags = 0;
    if (static_cast<int64_t>(block) > *max_block) {
      flags = MDB_APPEND;
      *max_block = block;
    }
    CRAWLRANK_RETURN_IF_ERROR(write.Check(mdb_put(txn, links, &k, &v, flags), "write links to"));
  }
  return Status::Ok();
}

// ---- WriteTxn

WriteTxn::WriteTxn(PageDbImpl& db, lmdb::Txn txn, AddReport* report)
    : db_(db),
      txn_(std::move(txn)),
      report_(report),
      saved_(db.writer),
      undo_{db.unindexed.size(), {}},
      pages_(static_cast<uint32_t>(db.writer.counters.pages)) {}

Status WriteTxn::Check(int rc, std::string_view op) {
  if (rc == 0) return Status::Ok();
  if (rc == MDB_MAP_FULL) map_full_ = true;
  return lmdb::Error(rc, op, db_.path);
}

WriteTxn::Fetched WriteTxn::fetched(size_t i) const {
  const uint32_t begin = i == 0 ? 0 : fetched_ends_[i - 1];
  const uint32_t id = fetched_ids_[i];
  // Apply touched every page it fetched: the cache has its record.
  return {id, std::span(fetched_targets_).subspan(begin, fetched_ends_[i] - begin),
          pages_.Find(id)};
}

Result<PageRecord> WriteTxn::Record(uint32_t id) const {
  if (const PageRecord* touched = pages_.Find(id)) return *touched;
  return ReadStoredRecord(db_, txn(), id);
}

Result<uint32_t> WriteTxn::Resolve(std::string_view url, uint64_t fingerprint, uint32_t check,
                                   uint32_t depth, uint64_t discovered_from, float link_score) {
  if (const FingerprintIndex::Entry* e = db_.index.Find(fingerprint)) {
    if (e->check != check) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord * other, pages_.Touch(db_, txn(), e->id));
      return AlreadyExistsError("URL \"" + std::string(url) + "\": fingerprint " +
                                FormatFingerprint(fingerprint) + " collides with \"" + other->url +
                                "\"; not merged");
    }
    const uint32_t id = e->id;
    if (link_score > db_.link_scores[id]) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageRecord * record, pages_.Touch(db_, txn(), id));
      if (id < pages_.first_new_id()) undo_.old_scores.emplace_back(id, db_.link_scores[id]);
      record->link_score = db_.link_scores[id] = link_score;
    }
    return id;
  }
  WriterState& writer = db_.writer;
  if (writer.counters.pages >= UINT32_MAX) {
    return ResourceExhaustedError(db_.Where() + ": 2^32 - 1 pages, ids exhausted");
  }
  const auto id = static_cast<uint32_t>(writer.counters.pages++);
  db_.index.Insert(fingerprint, id, check);
  db_.unindexed.emplace_back(fingerprint, id);
  db_.link_scores.push_back(link_score);
  PageRecord& record = pages_.Create();
  record.fingerprint = fingerprint;
  record.id = id;
  record.url.assign(url);
  record.depth = depth;
  record.discovered_from = discovered_from;
  record.link_score = link_score;
  return id;
}

Result<std::span<const uint32_t>> WriteTxn::PutLinks(uint32_t source,
                                                     std::vector<uint32_t>& targets, bool merge) {
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  CRAWLRANK_ASSIGN_OR_RETURN(const LinkBuffer::Counts counts,
                             links_.Put(db_, txn(), source, targets, merge));
  PageDbCounters& counters = db_.writer.counters;
  counters.edges = counters.edges - counts.before + counts.after;
  relinked_.push_back(source);
  return counts.list;
}

Status WriteTxn::Apply(const PreparedPage& prepared, bool merge_links, uint32_t depth,
                       float link_score) {
  CRAWLRANK_RETURN_IF_ERROR(prepared.status);
  const CrawledPage& page = *prepared.page;
  CRAWLRANK_ASSIGN_OR_RETURN(uint32_t id, Resolve(prepared.url, prepared.fingerprint,
                                                  prepared.check, depth, 0, link_score));
  CRAWLRANK_ASSIGN_OR_RETURN(PageRecord * record, pages_.Touch(db_, txn(), id));
  if (!prepared.links_only) {
    const int64_t when = page.crawl_time_ms != 0 ? page.crawl_time_ms : UnixNowMs();
    const std::string_view host = CounterHostView(prepared.url);
    counter_deltas_.AddFetch(host, page.http_status, page.fetch);
    recent_.push_back(RecentFetch{.time_ms = when,
                                  .page = id,
                                  .http_status = page.http_status,
                                  .wire_bytes = page.fetch.wire_bytes,
                                  .decoded_bytes = page.fetch.decoded_bytes,
                                  .fetch_ms = page.fetch.fetch_ms,
                                  .content_type = page.fetch.content_type});
    CRAWLRANK_RETURN_IF_ERROR(PutFetchInfo(id, page.fetch));
    if (record->n_crawls == 0) {
      record->first_crawl_ms = when;
      ++db_.writer.counters.crawled_pages;
      counter_deltas_.Add(host, counter_field::kCrawledPages, 1);
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
  const uint32_t link_depth = record->depth + 1;
  if (report_ != nullptr) {
    report_->rejected_links.insert(report_->rejected_links.end(), prepared.rejected.begin(),
                                   prepared.rejected.end());
  }
  // Load the index slots of all the links first, so that the look-ups do not wait on
  // memory one by one.
  for (const PreparedLink& link : prepared.links) db_.index.Prefetch(link.fingerprint);
  targets_.clear();
  for (const PreparedLink& link : prepared.links) {
    auto target = Resolve(link.url, link.fingerprint, link.check, link_depth,
                          prepared.fingerprint, link.link->score);
    if (!target.ok()) {
      if (target.status().code() != StatusCode::kAlreadyExists) return target.status();
      if (report_ != nullptr) report_->rejected_links.push_back({link.link->url, target.status()});
      continue;
    }
    targets_.push_back(*target);
  }
  CRAWLRANK_ASSIGN_OR_RETURN(const std::span<const uint32_t> links,
                             PutLinks(id, targets_, merge_links));
  if (!prepared.links_only) {
    // All its out-links now: with merge_links, those an earlier call gave it too (a
    // URLFrontier client sends a page's links before the page: frontier_service.cc).
    fetched_ids_.push_back(id);
    fetched_targets_.insert(fetched_targets_.end(), links.begin(), links.end());
    fetched_ends_.push_back(static_cast<uint32_t>(fetched_targets_.size()));
  }
  return Status::Ok();
}

Result<uint32_t> WriteTxn::Discover(const PreparedPage& prepared, float link_score) {
  CRAWLRANK_RETURN_IF_ERROR(prepared.status);
  return Resolve(prepared.url, prepared.fingerprint, prepared.check, 0, 0, link_score);
}

Status WriteTxn::Restore(const PageRecord& in) {
  if (Status valid = ValidatePageRecord(in); !valid.ok()) {
    return InvalidArgumentError("restore " + valid.message());
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::string url, CanonicalizeUrl(in.url, db_.profile));
  if (url != in.url) {
    return InvalidArgumentError("restore page \"" + in.url + "\": not canonical under " +
                                std::string(UrlProfileName(db_.profile)) + " (expected \"" + url +
                                "\")");
  }
  const uint64_t fingerprint = UrlFingerprint(url);
  if (in.fingerprint != fingerprint) {
    return InvalidArgumentError("restore page \"" + url + "\": hash " +
                                FormatFingerprint(in.fingerprint) + " does not match its URL (" +
                                FormatFingerprint(fingerprint) + ")");
  }
  PageDbCounters& counters = db_.writer.counters;
  if (in.id != counters.pages) {
    return InvalidArgumentError("restore page \"" + url + "\": id " + std::to_string(in.id) +
                                " is not the next free id " + std::to_string(counters.pages));
  }
  if (db_.index.Find(fingerprint) != nullptr) {
    return AlreadyExistsError("restore page \"" + url + "\": already in the PageDB");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(uint32_t id, Resolve(url, fingerprint, UrlCheck(url), in.depth,
                                                  in.discovered_from, in.link_score));
  CRAWLRANK_ASSIGN_OR_RETURN(PageRecord * record, pages_.Touch(db_, txn(), id));
  *record = in;
  if (in.crawled()) {
    ++counters.crawled_pages;
    const std::string_view host = CounterHostView(url);
    counter_deltas_.Add(host, counter_field::kCrawledPages, 1);
    counter_deltas_.Add(host, counter_field::kFetches + static_cast<size_t>(StatusClassOf(in.http_status)),
                        in.n_crawls);
  }
  return Status::Ok();
}

Status WriteTxn::RestoreLinks(uint32_t source, std::vector<uint32_t> targets) {
  const uint64_t pages = db_.writer.counters.pages;
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
  return PutLinks(source, targets).status();
}

Status WriteTxn::FileFingerprints() {
  if (db_.unindexed.size() < FingerprintFilingThreshold(db_.options, db_.writer.indexed_pages)) {
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
        Check(mdb_put(txn(), db_.fingerprints, &k, &v, MDB_NOOVERWRITE), "index page in"));
  }
  db_.writer.indexed_pages = db_.writer.counters.pages;
  filed_all_ = true;
  return Status::Ok();
}

Status WriteTxn::Commit() {
  WriterState& writer = db_.writer;
  CRAWLRANK_RETURN_IF_ERROR(links_.Write(*this));
  CRAWLRANK_RETURN_IF_ERROR(pages_.Write(*this));
  CRAWLRANK_RETURN_IF_ERROR(FileFingerprints());
  if (db_.write_hook != nullptr) CRAWLRANK_RETURN_IF_ERROR(db_.write_hook->BeforeCommit(*this));
  CountCreatedPages();
  CRAWLRANK_RETURN_IF_ERROR(WriteCounters());
  CRAWLRANK_RETURN_IF_ERROR(WriteRecentFetches(*this, recent_));
  if (const int64_t now = UnixNowMs();
      writer.counters.pages > pages_.first_new_id() && CreationMarkDue(writer, now)) {
    char key[4];
    coding::EncodeBigEndian32(pages_.first_new_id(), key);
    const std::string value = CreationMarkValue(now);
    MDB_val k{sizeof key, key}, v = Val(value);
    CRAWLRANK_RETURN_IF_ERROR(
        Check(mdb_put(txn(), db_.created, &k, &v, MDB_APPEND), "write a creation mark to"));
    writer.last_created_mark_ms = now;
  }
  const std::pair<std::string_view, uint64_t> counters[] = {
      {kMetaPages, writer.counters.pages},
      {kMetaCrawledPages, writer.counters.crawled_pages},
      {kMetaEdges, writer.counters.edges},
      {kMetaIndexedPages, writer.indexed_pages}};
  for (const auto& [name, count] : counters) {
    const std::string encoded = Fixed64Value(count);
    MDB_val k = Val(name), v = Val(encoded);
    CRAWLRANK_RETURN_IF_ERROR(Check(mdb_put(txn(), db_.meta, &k, &v, 0), "write meta to"));
  }
  MDB_env* env = mdb_txn_env(txn());
  if (const int rc = mdb_txn_commit(txn_.Release()); rc != 0) {
    if (rc == MDB_MAP_FULL) map_full_ = true;  // the free list's save can fill the map
    return lmdb::CommitError(rc, env, db_.path);
  }
  if (filed_all_) db_.unindexed.clear();
  if (db_.write_hook != nullptr) db_.write_hook->Committed();
  return Status::Ok();
}

void WriteTxn::Rollback() {
  txn_.Abort();
  // The pages this transaction created are the tail of `unindexed` (it only shrinks after
  // a commit): take them out of the index, newest first.
  for (size_t i = db_.unindexed.size(); i > undo_.unindexed_size; --i) {
    db_.index.Erase(db_.unindexed[i - 1].first);
  }
  db_.unindexed.resize(undo_.unindexed_size);
  db_.link_scores.resize(pages_.first_new_id());
  for (auto it = undo_.old_scores.rbegin(); it != undo_.old_scores.rend(); ++it) {
    db_.link_scores[it->first] = it->second;
  }
  db_.writer = saved_;
  UncountCreatedPages();
  if (db_.write_hook != nullptr) db_.write_hook->RolledBack();
}

Status AttachWriteHook(PageDb& db, WriteHook* hook, const std::function<Status()>& load,
                       const std::function<Status(WriteTxn&)>& join) {
  PageDbImpl& impl = PageDbInternals::Of(db);
  if (impl.read_only()) {
    return FailedPreconditionError(impl.Where() +
                                   ": opened read-only; nothing can join its writes");
  }
  std::lock_guard guard(impl.write_mutex);
  if (impl.write_hook != nullptr) {
    return FailedPreconditionError(impl.Where() +
                                   ": already has a component joined to its writes "
                                   "(one scheduler per PageDB)");
  }
  if (load) CRAWLRANK_RETURN_IF_ERROR(load());
  if (join) CRAWLRANK_RETURN_IF_ERROR(RunWriteLocked(impl, nullptr, join));
  impl.write_hook = hook;
  return Status::Ok();
}

void DetachWriteHook(PageDb& db, const WriteHook* hook) {
  PageDbImpl& impl = PageDbInternals::Of(db);
  std::lock_guard guard(impl.write_mutex);
  if (impl.write_hook == hook) impl.write_hook = nullptr;
}

Result<Snapshot> NewSnapshotBetweenWrites(PageDb& db, const std::function<void()>& between) {
  std::lock_guard guard(PageDbInternals::Of(db).write_mutex);
  between();
  return db.NewSnapshot();
}

namespace {

// Doubles the map of the writer's environment. Needs every transaction of this process
// finished: waits for them (map_mutex), and gives up if a Snapshot stays open.
Status GrowMap(PageDbImpl& db) {
  std::unique_lock lock(db.map_mutex, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::seconds(30))) {
    return ResourceExhaustedError("grow map of " + db.Where() +
                                  ": snapshots of this process stayed open for 30 s");
  }
  MDB_envinfo info;
  int rc = mdb_env_info(db.env.get(), &info);
  if (rc != 0) return lmdb::Error(rc, "read map size of", db.path);
  const uint64_t size = static_cast<uint64_t>(info.me_mapsize) * 2;
  rc = mdb_env_set_mapsize(db.env.get(), size);
  if (rc != 0) return lmdb::Error(rc, "grow map to " + std::to_string(size) + " bytes of", db.path);
  return Status::Ok();
}

}  // namespace

Status ReserveMapHeadroom(PageDbImpl& db) {
  if (db.read_only()) return Status::Ok();
  std::lock_guard guard(db.write_mutex);
  for (;;) {
    MDB_envinfo info;
    MDB_stat stat;
    if (const int rc = mdb_env_info(db.env.get(), &info); rc != 0) {
      return lmdb::Error(rc, "read map size of", db.path);
    }
    if (const int rc = mdb_env_stat(db.env.get(), &stat); rc != 0) {
      return lmdb::Error(rc, "read page size of", db.path);
    }
    const uint64_t used = (uint64_t{info.me_last_pgno} + 1) * stat.ms_psize;
    if (used * 2 <= info.me_mapsize) return Status::Ok();
    CRAWLRANK_RETURN_IF_ERROR(GrowMap(db));
  }
}

Status RunWrite(PageDbImpl& db, AddReport* report, const std::function<Status(WriteTxn&)>& body) {
  if (db.read_only())
    return FailedPreconditionError("write to " + db.Where() + ": opened read-only");
  std::lock_guard guard(db.write_mutex);
  return RunWriteLocked(db, report, body);
}

Status RunWriteLocked(PageDbImpl& db, AddReport* report,
                      const std::function<Status(WriteTxn&)>& body) {
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

Status PageDb::Write(const WriteBatch& batch, AddReport* report) {
  return PageDbInternals::Write(*this, batch, {}, report);
}

Status PageDbInternals::Write(PageDb& db, const WriteBatch& batch,
                              const std::function<void()>& each_run, AddReport* report) {
  std::vector<std::pair<const CrawledPage*, bool>> ops;
  ops.reserve(batch.ops_.size());
  for (const WriteBatch::Op& op : batch.ops_) ops.emplace_back(&op.page, op.links_only);
  const PreparedBatch prepared(ops, db.impl_->profile);
  CRAWLRANK_RETURN_IF_ERROR(prepared.FirstError());
  return RunWrite(*db.impl_, report, [&](WriteTxn& write) {
    if (each_run) each_run();
    for (const auto& [kind, i] : batch.order_) {
      switch (kind) {
        case WriteBatch::Kind::kPage:
          CRAWLRANK_RETURN_IF_ERROR(write.Apply(prepared.at(i), batch.ops_[i].merge,
                                                batch.ops_[i].depth, batch.ops_[i].link_score));
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
  CRAWLRANK_RETURN_IF_ERROR(prepared.FirstError());
  return RunWrite(*impl_, report, [&](WriteTxn& write) {
    for (size_t i = 0; i < prepared.size(); ++i)
      CRAWLRANK_RETURN_IF_ERROR(write.Apply(prepared.at(i)));
    return Status::Ok();
  });
}

}  // namespace crawlrank
