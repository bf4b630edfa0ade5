#include "crawlrank/page_db.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/coding.h"
#include "base/errno_text.h"
#include "page_db/link_block.h"
#include "page_db/crawl_counters.h"
#include "page_db/lmdb_verify.h"
#include "page_db/recent_fetches.h"
#include "page_db/creation_marks.h"
#include "page_db/page_db_impl.h"
#include "page_db/page_record.h"
#include "page_db/schedule_table.h"
#include "page_db/write_txn.h"

namespace crawlrank {
namespace {

using lmdb::Val;
using lmdb::View;

// Reads a string value from `meta`; NotFound when absent.
Result<std::string_view> GetMeta(MDB_txn* txn, MDB_dbi meta, std::string_view key,
                                 const std::string& path) {
  MDB_val k = Val(key), v;
  const int rc = mdb_get(txn, meta, &k, &v);
  if (rc != 0) return lmdb::Error(rc, "read meta key " + std::string(key) + " of", path);
  return View(v);
}

Result<uint64_t> GetMetaU64(MDB_txn* txn, MDB_dbi meta, std::string_view key,
                            const std::string& path) {
  CRAWLRANK_ASSIGN_OR_RETURN(std::string_view value, GetMeta(txn, meta, key, path));
  uint64_t v;
  if (!coding::GetFixed64(value, &v) || !value.empty()) {
    return DataLossError(PageDbName(path) + ": meta key " + std::string(key) + " damaged");
  }
  return v;
}

Status NotAPageDb(const std::string& path, std::string_view why) {
  return FailedPreconditionError("open " + PageDbName(path) + ": not a crawlrank PageDB (" +
                                 std::string(why) + ")");
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Reading

Result<lmdb::Txn> PageDb::Impl::BeginRead(std::shared_lock<std::shared_timed_mutex>& lock) const {
  for (int attempt = 0;; ++attempt) {
    lock = std::shared_lock(map_mutex);
    lmdb::Txn txn;
    const int rc = lmdb::Txn::BeginRaw(env.get(), MDB_RDONLY, &txn);
    if (rc == 0) return txn;
    if (rc != MDB_MAP_RESIZED || attempt >= 3) return lmdb::Error(rc, "begin read of", path);
    // The writer process grew the map: adopt its size. Needs no live txn in this process.
    lock.unlock();
    std::unique_lock exclusive(map_mutex);
    const int resize_rc = mdb_env_set_mapsize(env.get(), 0);
    if (resize_rc != 0) return lmdb::Error(resize_rc, "follow map resize of", path);
  }
}

Result<PageDbCounters> PageDb::Impl::ReadCounters(MDB_txn* txn) const {
  PageDbCounters c;
  CRAWLRANK_ASSIGN_OR_RETURN(c.pages, GetMetaU64(txn, meta, kMetaPages, path));
  CRAWLRANK_ASSIGN_OR_RETURN(c.crawled_pages, GetMetaU64(txn, meta, kMetaCrawledPages, path));
  CRAWLRANK_ASSIGN_OR_RETURN(c.edges, GetMetaU64(txn, meta, kMetaEdges, path));
  if (c.pages > UINT32_MAX) {
    // Ids are 32 bits: every reader narrows the count to them.
    return DataLossError(PageDbName(path) + ": header counts " + std::to_string(c.pages) +
                         " pages, more than 32-bit ids can number");
  }
  return c;
}

Result<PageRecord> Snapshot::Impl::GetById(uint32_t id) const {
  auto missing = [&] {
    return NotFoundError("page id " + std::to_string(id) + ": not in " + PageDbName(db->path));
  };
  if (id >= pages) return missing();
  Key32 key(id);
  MDB_val k = key.val(), v;
  const int rc = mdb_get(txn.get(), db->pages, &k, &v);
  if (rc == MDB_NOTFOUND) {
    return DataLossError(PageDbName(db->path) + ": page id " + std::to_string(id) +
                         " is missing, the header counts " + std::to_string(pages) + " pages");
  }
  if (rc != 0) return lmdb::Error(rc, "read page id " + std::to_string(id) + " of", db->path);
  PageRecord record;
  CRAWLRANK_RETURN_IF_ERROR(
      DecodePageRecord(id, View(v), &record).WithContext(PageDbName(db->path)));
  return record;
}

Result<PageRecord> Snapshot::Impl::Get(uint64_t fingerprint) const {
  auto record = LookUp(fingerprint);
  if (record.ok() && record->fingerprint != fingerprint) {
    return DataLossError(PageDbName(db->path) + ": fingerprint " + FormatFingerprint(fingerprint) +
                         " is filed under page id " + std::to_string(record->id) +
                         ", whose URL hashes to " + FormatFingerprint(record->fingerprint));
  }
  if (!record.ok() && record.status().code() == StatusCode::kNotFound) {
    return NotFoundError("page \"" + FormatFingerprint(fingerprint) + "\": not in " +
                         PageDbName(db->path));
  }
  return record;
}

Result<PageRecord> Snapshot::Impl::LookUp(uint64_t fingerprint) const {
  if (!db->read_only()) {
    // The writer's own index holds every page; ids past this snapshot are not in it.
    std::shared_lock index_lock(db->index_mutex);
    const FingerprintIndex::Entry* entry = db->index.Find(fingerprint);
    if (entry == nullptr || entry->id >= pages) return NotFoundError("");
    const uint32_t id = entry->id;
    index_lock.unlock();
    return GetById(id);
  }
  Key64 key(fingerprint);
  MDB_val k = key.val(), v;
  const int rc = mdb_get(txn.get(), db->fingerprints, &k, &v);
  if (rc == MDB_NOTFOUND) return FindUnindexed(fingerprint);
  if (rc != 0)
    return lmdb::Error(rc, "look up " + FormatFingerprint(fingerprint) + " in", db->path);
  std::string_view value = View(v);
  uint32_t id;
  if (!coding::GetFixed32(value, &id) || !value.empty() || id >= indexed_pages) {
    return DataLossError(PageDbName(db->path) + ": fingerprints entry " +
                         FormatFingerprint(fingerprint) + " is damaged");
  }
  return GetById(id);
}

Result<PageRecord> Snapshot::Impl::FindUnindexed(uint64_t fingerprint) const {
  if (!unindexed_loaded) {
    unindexed.clear();
    unindexed.reserve(ReserveBound(pages - indexed_pages));
    CRAWLRANK_RETURN_IF_ERROR(
        ForEachRecord(static_cast<uint32_t>(indexed_pages), [&](const PageRecord& record) {
          unindexed.emplace_back(record.fingerprint, record.id);
          return Status::Ok();
        }));
    // Sorted by fingerprint, then id: two pages with one fingerprint cannot come from the
    // writer (it rejects the second), and if damage made them, the first wins, as in the
    // writer's index.
    std::sort(unindexed.begin(), unindexed.end());
    unindexed_loaded = true;
  }
  const auto it = std::lower_bound(unindexed.begin(), unindexed.end(),
                                   std::pair<uint64_t, uint32_t>(fingerprint, 0));
  if (it == unindexed.end() || it->first != fingerprint) return NotFoundError("");
  return GetById(it->second);
}

Snapshot::Snapshot(std::unique_ptr<Impl> impl, PageDbCounters counters)
    : impl_(std::move(impl)), counters_(counters) {}
Snapshot::Snapshot(Snapshot&&) noexcept = default;
Snapshot& Snapshot::operator=(Snapshot&&) noexcept = default;
Snapshot::~Snapshot() = default;

Result<PageRecord> Snapshot::Find(uint64_t fingerprint) const {
  return impl_->Get(fingerprint);
}

Result<PageRecord> Snapshot::FindId(uint32_t id) const {
  return impl_->GetById(id);
}

Result<PageRecord> Snapshot::FindUrl(std::string_view url) const {
  CRAWLRANK_ASSIGN_OR_RETURN(std::string canonical, CanonicalizeUrl(url, impl_->db->profile));
  auto record = impl_->Get(UrlFingerprint(canonical));
  if (record.ok() && record->url != canonical) {
    return NotFoundError("URL \"" + canonical + "\": not in PageDB (its fingerprint belongs to \"" +
                         record->url + "\")");
  }
  if (!record.ok() && record.status().code() == StatusCode::kNotFound) {
    return NotFoundError("URL \"" + canonical + "\": not in " + PageDbName(impl_->db->path));
  }
  return record;
}

Result<std::vector<uint32_t>> Snapshot::Links(uint32_t id) const {
  Key32 key(id >> kLinkBlockShift);
  MDB_val k = key.val(), v;
  std::vector<uint32_t> targets;
  const int rc = mdb_get(impl_->txn.get(), impl_->db->links, &k, &v);
  if (rc == MDB_NOTFOUND) return targets;
  if (rc != 0)
    return lmdb::Error(rc, "read links of page " + std::to_string(id) + " in", impl_->db->path);
  CRAWLRANK_RETURN_IF_ERROR(
      FindInLinkBlock(id, View(v), &targets).WithContext(PageDbName(impl_->db->path)));
  return targets;
}

Status Snapshot::ForEachPage(const std::function<Status(const PageRecord&)>& fn) const {
  return impl_->ForEachRecord(0, fn);
}

Status Snapshot::ForEachPage(const std::function<Status(const PageRecord&)>& fn,
                             const DamageSink& damaged) const {
  return impl_->ForEachRecord(0, fn, damaged);
}

Status Snapshot::Impl::ForEachRecord(uint32_t first,
                                     const std::function<Status(const PageRecord&)>& fn,
                                     const DamageSink& damaged) const {
  const std::string& path = db->path;
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn.get(), db->pages, path));
  Key32 key(first);
  cursor.StartAt(key.val());
  MDB_val k, v;
  for (uint64_t expected = first;; ++expected) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return DataLossError("pages table of \"" + path + "\": key of wrong size");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    if (id >= pages) break;  // committed after this snapshot's header was read
    if (id != expected) {
      return DataLossError("pages table of \"" + path + "\": ids are not dense, id " +
                           std::to_string(id) + " follows " + std::to_string(expected) + " pages");
    }
    PageRecord record;
    Status decoded = DecodePageRecord(id, View(v), &record).WithContext(PageDbName(path));
    if (!decoded.ok() && damaged) {
      CRAWLRANK_RETURN_IF_ERROR(damaged(DamagedEntry{"pages", id, std::move(decoded)}));
      continue;
    }
    CRAWLRANK_RETURN_IF_ERROR(decoded);
    CRAWLRANK_RETURN_IF_ERROR(fn(record));
  }
  return Status::Ok();
}

Status PageDb::Impl::VerifyPageCounts(MDB_txn* txn, uint64_t pages_counted,
                                      uint64_t indexed_counted) const {
  MDB_stat records, filed;
  int rc = mdb_stat(txn, pages, &records);
  if (rc == 0) rc = mdb_stat(txn, fingerprints, &filed);
  if (rc != 0) return lmdb::Error(rc, "read table sizes of", path);
  // Both counts are stored in the file; the file's size is not. A record takes at least
  // 16 bytes of a B-tree page (node header, key, slot), so no more pages fit than that.
  MDB_envinfo info;
  rc = mdb_env_info(env.get(), &info);
  if (rc != 0) return lmdb::Error(rc, "read the size of", path);
  const uint64_t fit = (uint64_t{info.me_last_pgno} + 1) * records.ms_psize / 16;
  if (records.ms_entries != pages_counted || filed.ms_entries != indexed_counted ||
      indexed_counted > pages_counted || pages_counted > fit) {
    return DataLossError(PageDbName(path) + ": header counts " + std::to_string(pages_counted) +
                         " pages, " + std::to_string(indexed_counted) +
                         " of them indexed; the tables hold " + std::to_string(records.ms_entries) +
                         " and " + std::to_string(filed.ms_entries) +
                         ", and the file has room for " + std::to_string(fit));
  }
  return Status::Ok();
}

Result<Snapshot> PageDb::NewSnapshot() const {
  auto impl = std::make_unique<Snapshot::Impl>();
  impl->db = impl_.get();
  CRAWLRANK_ASSIGN_OR_RETURN(impl->txn, impl_->BeginRead(impl->lock));
  CRAWLRANK_ASSIGN_OR_RETURN(PageDbCounters counters, impl_->ReadCounters(impl->txn.get()));
  CRAWLRANK_ASSIGN_OR_RETURN(impl->indexed_pages, GetMetaU64(impl->txn.get(), impl_->meta,
                                                             kMetaIndexedPages, impl_->path));
  impl->pages = counters.pages;
  CRAWLRANK_RETURN_IF_ERROR(
      impl_->VerifyPageCounts(impl->txn.get(), impl->pages, impl->indexed_pages));
  return Snapshot(std::move(impl), counters);
}

Result<PageRecord> PageDb::Find(uint64_t fingerprint) const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewSnapshot());
  return snapshot.Find(fingerprint);
}
Result<PageRecord> PageDb::FindUrl(std::string_view url) const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewSnapshot());
  return snapshot.FindUrl(url);
}
Result<PageRecord> PageDb::FindId(uint32_t id) const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewSnapshot());
  return snapshot.FindId(id);
}

// ---------------------------------------------------------------------------------------
// Opening

namespace {

Status OpenTable(MDB_txn* txn, const char* name, unsigned flags, MDB_dbi* dbi,
                 const std::string& path) {
  const int rc = mdb_dbi_open(txn, name, flags, dbi);
  if (rc == MDB_NOTFOUND) return NotAPageDb(path, std::string("no \"") + name + "\" table");
  if (rc != 0) return lmdb::Error(rc, std::string("open table ") + name + " of", path);
  return Status::Ok();
}

// The scheduler's tables, new in format version 3 (docs/format.md).
constexpr uint32_t kFirstScheduleVersion = 3;
// Each version's tables open with `flags` 0 in a DB that has them, MDB_CREATE to add them.
Status OpenScheduleTables(PageDbImpl& db, MDB_txn* txn, unsigned flags) {
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "schedule", flags, &db.schedule, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "hosts", flags, &db.hosts, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "payloads", flags, &db.payloads, db.path));
  db.has_schedule = true;
  return Status::Ok();
}

// A table that one format version added: opened with `flags` 0 in a DB that has it,
// MDB_CREATE to add it; `has` says it is there.
Status OpenAddedTable(PageDbImpl& db, MDB_txn* txn, const char* name, unsigned flags,
                      MDB_dbi* dbi, bool* has) {
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, name, flags, dbi, db.path));
  *has = true;
  return Status::Ok();
}
// The stored configuration's table, new in format version 5.
constexpr uint32_t kFirstConfigVersion = 5;
Status OpenConfigTable(PageDbImpl& db, MDB_txn* txn, unsigned flags) {
  return OpenAddedTable(db, txn, "config", flags, &db.config, &db.has_config);
}
// The pages' creation marks, new in format version 6.
constexpr uint32_t kFirstCreatedVersion = 6;
Status OpenCreatedTable(PageDbImpl& db, MDB_txn* txn, unsigned flags) {
  return OpenAddedTable(db, txn, "created", flags, &db.created, &db.has_created);
}
// The shares other nodes of a cluster passed to its pages, new in format version 9.
constexpr uint32_t kFirstSharesVersion = 9;
Status OpenSharesTable(PageDbImpl& db, MDB_txn* txn, unsigned flags) {
  return OpenAddedTable(db, txn, "shares", flags, &db.shares, &db.has_shares);
}
// The latest fetches' table, new in format version 10.
constexpr uint32_t kFirstRecentVersion = 10;
Status OpenRecentTable(PageDbImpl& db, MDB_txn* txn, unsigned flags) {
  return OpenAddedTable(db, txn, "recent", flags, &db.recent, &db.has_recent);
}

// The crawl's counters, fetch details and progress samples, new in format version 7.
constexpr uint32_t kFirstCountersVersion = 7;
Status OpenCounterTables(PageDbImpl& db, MDB_txn* txn, unsigned flags) {
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "counters", flags, &db.counters, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "fetches", flags, &db.fetches, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "progress", flags, &db.progress, db.path));
  db.has_counters = true;
  return Status::Ok();
}

// Carries a DB of format version `from` over to the newest, in the writer's open
// transaction: version 2 gets the scheduler's tables, version 3 its failures' kinds,
// version 4 (and older) an empty configuration table, version 5 (and older) the creation
// marks' table, with one mark that dates the pages there from now, version 6 (and older)
// the counters' tables, counted from the pages and failures there; version 8 (and older)
// an empty table of received shares. Version 8 adds a schedule state, kDue, that version 7
// never wrote; version 9 another, kElsewhere, a counter of them and the shares table;
// version 10 an empty table of the latest fetches and the histograms' counters (which a
// version 9 value lacks and reads as 0: the fetches before the upgrade are in no bucket).
Status Upgrade(PageDbImpl& db, MDB_txn* txn, uint32_t from) {
  if (from < kFirstScheduleVersion) {
    CRAWLRANK_RETURN_IF_ERROR(OpenScheduleTables(db, txn, MDB_CREATE));
  } else if (from == kFirstScheduleVersion) {
    CRAWLRANK_RETURN_IF_ERROR(UpgradeScheduleEntries(txn, db.schedule, db.path));
  }
  if (from < kFirstConfigVersion) CRAWLRANK_RETURN_IF_ERROR(OpenConfigTable(db, txn, MDB_CREATE));
  if (from < kFirstCreatedVersion) {
    CRAWLRANK_RETURN_IF_ERROR(OpenCreatedTable(db, txn, MDB_CREATE));
    CRAWLRANK_ASSIGN_OR_RETURN(const PageDbCounters counters, db.ReadCounters(txn));
    if (counters.pages > 0) CRAWLRANK_RETURN_IF_ERROR(PutCreationMark(db, txn, 0, UnixNowMs()));
  }
  if (from < kFirstCountersVersion) {
    CRAWLRANK_RETURN_IF_ERROR(OpenCounterTables(db, txn, MDB_CREATE));
    CRAWLRANK_RETURN_IF_ERROR(RebuildCrawlCounters(db, txn));
  }
  if (from < kFirstSharesVersion) CRAWLRANK_RETURN_IF_ERROR(OpenSharesTable(db, txn, MDB_CREATE));
  if (from < kFirstRecentVersion) CRAWLRANK_RETURN_IF_ERROR(OpenRecentTable(db, txn, MDB_CREATE));
  std::string encoded;
  coding::PutFixed32(encoded, kPageDbFormatVersion);
  MDB_val k = Val(kMetaFormatVersion), v = Val(encoded);
  if (const int rc = mdb_put(txn, db.meta, &k, &v, 0); rc != 0) {
    return lmdb::Error(rc, "upgrade the format version of", db.path);
  }
  return Status::Ok();
}

// Creates the tables and header of a new DB inside `txn`.
Status CreateTables(PageDbImpl& db, MDB_txn* txn) {
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "meta", MDB_CREATE, &db.meta, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "pages", MDB_CREATE, &db.pages, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "fingerprints", MDB_CREATE, &db.fingerprints, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "links", MDB_CREATE, &db.links, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenScheduleTables(db, txn, MDB_CREATE));
  CRAWLRANK_RETURN_IF_ERROR(OpenConfigTable(db, txn, MDB_CREATE));
  CRAWLRANK_RETURN_IF_ERROR(OpenCreatedTable(db, txn, MDB_CREATE));
  CRAWLRANK_RETURN_IF_ERROR(OpenCounterTables(db, txn, MDB_CREATE));
  CRAWLRANK_RETURN_IF_ERROR(OpenSharesTable(db, txn, MDB_CREATE));
  CRAWLRANK_RETURN_IF_ERROR(OpenRecentTable(db, txn, MDB_CREATE));
  std::string version;
  coding::PutFixed32(version, kPageDbFormatVersion);
  const std::pair<std::string_view, std::string> header[] = {
      {kMetaMagic, std::string(kMagicValue)},
      {kMetaFormatVersion, version},
      {kMetaUrlProfile, std::string(UrlProfileName(db.options.url_profile))},
      {kMetaHash, std::string(kHashValue)},
      {kMetaCreated, Fixed64Value(static_cast<uint64_t>(UnixNowMs()))},
      {kMetaPages, Fixed64Value(0)},
      {kMetaCrawledPages, Fixed64Value(0)},
      {kMetaEdges, Fixed64Value(0)},
      {kMetaIndexedPages, Fixed64Value(0)}};
  for (const auto& [key, value] : header) {
    MDB_val k = Val(key), v = Val(value);
    const int rc = mdb_put(txn, db.meta, &k, &v, 0);
    if (rc != 0) return lmdb::Error(rc, "write header of", db.path);
  }
  return Status::Ok();
}

// Opens the tables of an existing DB and checks its header.
Status OpenTables(PageDbImpl& db, MDB_txn* txn) {
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "meta", 0, &db.meta, db.path));
  auto magic = GetMeta(txn, db.meta, kMetaMagic, db.path);
  if (!magic.ok() || *magic != kMagicValue) return NotAPageDb(db.path, "no crawlrank header");
  CRAWLRANK_ASSIGN_OR_RETURN(std::string_view version_value,
                             GetMeta(txn, db.meta, kMetaFormatVersion, db.path));
  uint32_t version = 0;
  if (!coding::GetFixed32(version_value, &version) || !version_value.empty()) {
    return DataLossError("open " + PageDbName(db.path) + ": format version field damaged");
  }
  const std::string prefix =
      "open " + PageDbName(db.path) + ": format version " + std::to_string(version);
  const std::string reads = " (it reads version " + std::to_string(kPageDbFormatVersion) + ")";
  if (version > kPageDbFormatVersion) {
    return FailedPreconditionError(prefix + " is newer than this crawlrank" + reads);
  }
  if (version + 1 < kFirstScheduleVersion) {
    return FailedPreconditionError(
        prefix + " is older than this crawlrank" + reads +
        "; carry it over with the crawlrank that wrote it: page_db_dump info --all and "
        "page_db_dump links, then page_db_load both into a new PageDB with this one");
  }
  // Versions 2 to 4 are read as they are, and written once upgraded (docs/format.md).
  const bool old_version = version < kPageDbFormatVersion;
  db.format_version = old_version && db.read_only() ? version : kPageDbFormatVersion;
  if (old_version && !db.read_only() && !db.options.upgrade) {
    return FailedPreconditionError(
        prefix + " is older than this crawlrank, which writes version " +
        std::to_string(kPageDbFormatVersion) + ". Run page_db_upgrade on it (" +
        (version < kFirstScheduleVersion    ? "adds the scheduler's empty tables"
         : version == kFirstScheduleVersion ? "files each failure with its kind"
         : version < kFirstCreatedVersion - 1
             ? "adds an empty table for the crawl's configuration"
         : version < kFirstCountersVersion - 1
             ? "adds a table of the pages' creation times, dating the pages there from now"
         : version < kFirstCountersVersion
             ? "adds the crawl's counters, counted from the pages there, and tables for "
               "fetch details and progress samples"
             : "sets its version to 10, whose additions are schedule states for pages due "
               "again at a set time (version 8) and for pages another node of a cluster owns "
               "(version 9), a table of the latest fetches and histograms of fetch time and "
               "size (version 10),") +
        " in place; pages and links stay as they are; older releases then cannot open it)");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::string_view hash, GetMeta(txn, db.meta, kMetaHash, db.path));
  if (hash != kHashValue) {
    return FailedPreconditionError("open " + PageDbName(db.path) + ": keys hashed with \"" +
                                   std::string(hash) + "\", this crawlrank computes \"" +
                                   std::string(kHashValue) + "\"");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::string_view profile,
                             GetMeta(txn, db.meta, kMetaUrlProfile, db.path));
  auto parsed = ParseUrlProfile(profile);
  if (!parsed.ok())
    return DataLossError("open " + PageDbName(db.path) + ": " + parsed.status().message());
  db.profile = *parsed;
  CRAWLRANK_ASSIGN_OR_RETURN(uint64_t created, GetMetaU64(txn, db.meta, kMetaCreated, db.path));
  db.created_ms = static_cast<int64_t>(created);
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "pages", 0, &db.pages, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "fingerprints", 0, &db.fingerprints, db.path));
  CRAWLRANK_RETURN_IF_ERROR(OpenTable(txn, "links", 0, &db.links, db.path));
  if (version >= kFirstScheduleVersion) CRAWLRANK_RETURN_IF_ERROR(OpenScheduleTables(db, txn, 0));
  if (version >= kFirstConfigVersion) CRAWLRANK_RETURN_IF_ERROR(OpenConfigTable(db, txn, 0));
  if (version >= kFirstCreatedVersion) CRAWLRANK_RETURN_IF_ERROR(OpenCreatedTable(db, txn, 0));
  if (version >= kFirstCountersVersion) CRAWLRANK_RETURN_IF_ERROR(OpenCounterTables(db, txn, 0));
  if (version >= kFirstSharesVersion) CRAWLRANK_RETURN_IF_ERROR(OpenSharesTable(db, txn, 0));
  if (version >= kFirstRecentVersion) CRAWLRANK_RETURN_IF_ERROR(OpenRecentTable(db, txn, 0));
  if (old_version && !db.read_only()) return Upgrade(db, txn, version);  // as asked
  return Status::Ok();
}

// Builds the writer's in-memory mirror of the committed pages.
Status LoadWriterState(PageDbImpl& db, MDB_txn* txn) {
  CRAWLRANK_ASSIGN_OR_RETURN(db.writer.counters, db.ReadCounters(txn));
  CRAWLRANK_ASSIGN_OR_RETURN(db.writer.indexed_pages,
                             GetMetaU64(txn, db.meta, kMetaIndexedPages, db.path));
  CRAWLRANK_RETURN_IF_ERROR(
      db.VerifyPageCounts(txn, db.writer.counters.pages, db.writer.indexed_pages));
  // LMDB's entry counts are stored in the file too: size nothing by them up front beyond
  // a bound; the index and the scores grow as the records are read.
  db.index.Reserve(ReserveBound(db.writer.counters.pages));
  db.link_scores.clear();
  db.link_scores.reserve(ReserveBound(db.writer.counters.pages));
  db.unindexed.clear();
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor pages, lmdb::Cursor::Open(txn, db.pages, db.path));
  MDB_val k, v;
  uint64_t n = 0;
  for (;; ++n) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, pages.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return DataLossError("pages table of \"" + db.path + "\": bad key size");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    if (id != n || id >= db.writer.counters.pages) {
      return DataLossError("open " + PageDbName(db.path) + ": page id " + std::to_string(id) +
                           " where " + std::to_string(n) + " was expected, of " +
                           std::to_string(db.writer.counters.pages) + " pages");
    }
    PageRecord record;
    CRAWLRANK_RETURN_IF_ERROR(
        DecodePageRecord(id, View(v), &record).WithContext(PageDbName(db.path)));
    if (db.index.Find(record.fingerprint) != nullptr) {
      return DataLossError("open " + PageDbName(db.path) + ": page id " + std::to_string(id) +
                           " repeats fingerprint " + FormatFingerprint(record.fingerprint));
    }
    db.index.Insert(record.fingerprint, id, UrlCheck(record.url));
    db.link_scores.push_back(record.link_score);  // ids run 0, 1, 2, ... (checked above)
    if (id >= db.writer.indexed_pages) db.unindexed.emplace_back(record.fingerprint, id);
  }
  if (n != db.writer.counters.pages) {
    return DataLossError("open " + PageDbName(db.path) + ": " + std::to_string(n) +
                         " page records but the header counts " +
                         std::to_string(db.writer.counters.pages));
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor links, lmdb::Cursor::Open(txn, db.links, db.path));
  const int rc = mdb_cursor_get(links.get(), &k, &v, MDB_LAST);
  if (rc == 0 && k.mv_size == 4) {
    db.writer.max_links_block = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
  } else if (rc != 0 && rc != MDB_NOTFOUND) {
    return lmdb::Error(rc, "read links of", db.path);
  }
  CRAWLRANK_RETURN_IF_ERROR(LoadLastCreationMark(db, txn));
  CRAWLRANK_RETURN_IF_ERROR(LoadCrawlCounters(db, txn));
  CRAWLRANK_RETURN_IF_ERROR(LoadRecentSeq(db, txn));
  return LoadLastProgress(db, txn);
}

void SyncLoop(PageDbImpl* db, std::stop_token stop) {
  std::unique_lock lock(db->sync_mutex);
  while (db->sync_cv.wait(lock, stop, [db] { return db->dirty; })) {
    // Let commits accumulate for one interval, then make them all durable at once.
    db->sync_cv.wait_for(lock, stop, db->options.sync_interval, [] { return false; });
    db->dirty = false;
    lock.unlock();
    mdb_env_sync(db->env.get(), 1);
    lock.lock();
  }
}

}  // namespace

PageDb::PageDb(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PageDb::~PageDb() {
  // The pages created in the last second, counted by host (crawl_counters.h); should this
  // fail, the next writer's open counts them.
  if (!impl_->read_only() && !impl_->pending_host_pages.empty()) {
    (void)RunWrite(*impl_, nullptr, [](WriteTxn& write) {
      write.ForceHostFlush();
      return Status::Ok();
    });
  }
  if (impl_->syncer.joinable()) {
    impl_->syncer.request_stop();
    impl_->syncer.join();
  }
  if (!impl_->read_only() && impl_->options.durability != Durability::kNone) {
    mdb_env_sync(impl_->env.get(), 1);
  }
}

namespace {

// The error of a writer's open that found damage (`cause`).
Status RefuseToWrite(const std::string& where, const Status& cause) {
  return DataLossError(where + " for writing: refused, the quick check failed (" + cause.message() +
                       "); run page_db_check on it for the full report");
}

// A PageDB's creation leaves this file in its directory until its first commit, so that a
// data.mdb left empty by a kill in between is told from an empty file of another origin.
constexpr char kCreatingMarker[] = "creating";

// Marks `path` as being created (kCreatingMarker, the directory synced).
Status MarkCreating(const std::string& path, const std::string& where) {
  UniqueFd marker(::open((path + "/" + kCreatingMarker).c_str(),
                         O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (marker.get() < 0) return IoError(where + ": " + kCreatingMarker + ": " + ErrnoText());
  UniqueFd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) ::fsync(dir.get());
  return Status::Ok();
}

// Checks the directory `path` (making it when asked to create) and its data.mdb before
// LMDB sees them; returns whether data.mdb exists with a PageDB in it (false: this open
// creates one, in a new file or in one whose creation was interrupted).
Result<bool> CheckDirectory(const std::string& path, const PageDbOptions& options,
                            const std::string& where) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return IoError(where + ": " + ErrnoText());
    if (options.read_only || !options.create_if_missing) {
      return NotFoundError(where + ": no such directory");
    }
    if (::mkdir(path.c_str(), 0755) != 0) return IoError(where + ": mkdir: " + ErrnoText());
  } else if (!S_ISDIR(st.st_mode)) {
    return FailedPreconditionError(where + ": not a directory (a PageDB is a directory)");
  }
  const std::string data_path = path + "/data.mdb";
  const bool exists = ::stat(data_path.c_str(), &st) == 0;
  if (!exists && (options.read_only || !options.create_if_missing)) {
    return NotFoundError(where + ": no PageDB in this directory (no data.mdb)");
  }
  if (exists && options.error_if_exists) return AlreadyExistsError(where + ": it already exists");
  if (exists && st.st_size == 0) {
    // LMDB would take an empty file for a new environment; a PageDB's never is, unless its
    // creation was cut short (a kill before LMDB wrote its first pages): the marker says so,
    // and a writer creates it again (nothing was in it).
    const bool interrupted = ::access((path + "/" + kCreatingMarker).c_str(), F_OK) == 0;
    if (!interrupted) return NotAPageDb(path, "data.mdb is an empty file");
    if (options.read_only || !options.create_if_missing) {
      return NotAPageDb(path, "data.mdb is an empty file: its creation was interrupted; open "
                              "it for writing to create it again");
    }
    return false;
  }
  if (exists && ::access(data_path.c_str(), options.read_only ? R_OK : R_OK | W_OK) != 0) {
    return FailedPreconditionError(where + ": \"" + data_path + "\": " + ErrnoText());
  }
  return exists;
}

// Takes writer.lock in `path`, held by the one writer process for as long as the lock
// is open.
Result<UniqueFd> LockWriter(const std::string& path, const std::string& where) {
  UniqueFd lock(::open((path + "/writer.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (lock.get() < 0) return IoError(where + ": writer.lock: " + ErrnoText());
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return FailedPreconditionError(
          where +
          " for writing: another process is writing it (writer.lock is held); "
          "open it read-only to inspect it");
    }
    return IoError(where + ": lock writer.lock: " + ErrnoText());
  }
  return lock;
}

// Opens the LMDB environment of `db` and checks the file's structure before LMDB reads
// any of it.
Status OpenEnvironment(PageDbImpl& db, const std::string& where) {
  const PageDbOptions& options = db.options;
  unsigned flags = MDB_NOTLS;
  if (options.read_only) flags |= MDB_RDONLY;
  if (options.durability != Durability::kSync) flags |= MDB_NOSYNC;
  CRAWLRANK_ASSIGN_OR_RETURN(
      db.env, lmdb::Env::Open(db.path, flags, options.read_only ? 0 : options.initial_map_size,
                              kMaxTables));
  int dead = 0;
  mdb_reader_check(db.env.get(), &dead);  // clear slots of readers that died
  CRAWLRANK_RETURN_IF_ERROR(lmdb::CheckFileSize(db.env.get(), db.path));
  // LMDB reads its pages through the map and trusts them. Before it reads any (the table
  // list, the header), the pages on a sample of paths through every table, the main tree
  // and `meta` whole, are read with pread and checked; for a writer, which reads every
  // record into its index below, the whole `pages` table too.
  static constexpr std::string_view kWriterReadsWhole[] = {"pages"};
  const auto whole = options.read_only ? std::span<const std::string_view>()
                                       : std::span<const std::string_view>(kWriterReadsWhole);
  lmdb::Txn reading;
  Status structure = db.VerifyFile(
      [&]() -> Result<MDB_txn*> {
        CRAWLRANK_ASSIGN_OR_RETURN(reading, lmdb::Txn::Begin(db.env.get(), MDB_RDONLY, db.path));
        return reading.get();
      },
      lmdb::VerifyScope::kSample, whole);
  reading.Abort();
  if (structure.code() == StatusCode::kDataLoss) {
    if (!options.read_only) return RefuseToWrite(where, structure);
    return DataLossError(where + ": it is damaged (" + structure.message() +
                         "); run page_db_check on it for the full report");
  }
  return structure;
}

// Opens the tables of `db` in `txn`, or creates them in an empty environment; a writer
// then loads its in-memory state from them.
Status OpenOrCreateTables(PageDbImpl& db, MDB_txn* txn, const std::string& where) {
  MDB_dbi probe;
  const int rc = mdb_dbi_open(txn, "meta", 0, &probe);
  if (rc == MDB_NOTFOUND && !db.read_only()) {
    MDB_dbi main;
    MDB_stat stat;
    if (mdb_dbi_open(txn, nullptr, 0, &main) != 0 || mdb_stat(txn, main, &stat) != 0 ||
        stat.ms_entries != 0) {
      return NotAPageDb(db.path, "an LMDB environment without a \"meta\" table");
    }
    CRAWLRANK_RETURN_IF_ERROR(CreateTables(db, txn));
    db.profile = db.options.url_profile;
  } else if (rc != 0 && rc != MDB_NOTFOUND) {
    return lmdb::Error(rc, "open table meta of", db.path);
  } else {
    CRAWLRANK_RETURN_IF_ERROR(OpenTables(db, txn));
  }
  if (!db.read_only()) {
    if (Status loaded = LoadWriterState(db, txn); !loaded.ok()) {
      return loaded.code() == StatusCode::kDataLoss ? RefuseToWrite(where, loaded) : loaded;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<PageDb>> PageDb::Open(const std::string& path,
                                             const PageDbOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  const std::string where = "open " + PageDbName(path);
  CRAWLRANK_ASSIGN_OR_RETURN(const bool exists, CheckDirectory(path, options, where));
  if (!options.read_only) {
    CRAWLRANK_ASSIGN_OR_RETURN(impl->writer_lock, LockWriter(path, where));
    if (!exists) CRAWLRANK_RETURN_IF_ERROR(MarkCreating(path, where));
  }
  CRAWLRANK_RETURN_IF_ERROR(OpenEnvironment(*impl, where));

  CRAWLRANK_ASSIGN_OR_RETURN(
      lmdb::Txn txn, lmdb::Txn::Begin(impl->env.get(), options.read_only ? MDB_RDONLY : 0, path));
  CRAWLRANK_RETURN_IF_ERROR(OpenOrCreateTables(*impl, txn.get(), where));
  CRAWLRANK_RETURN_IF_ERROR(txn.Commit(path));  // keeps the table handles open
  if (!options.read_only && !exists) {
    // Created: LMDB's pages and the tables are on disk (synced at the commit, or by the
    // first sync of a DB that defers them, before which a kill leaves a file LMDB reads
    // as empty).
    if (options.durability != Durability::kSync) {
      if (const int rc = mdb_env_sync(impl->env.get(), 1); rc != 0) {
        return lmdb::Error(rc, "sync", path);
      }
    }
    ::unlink((path + "/" + kCreatingMarker).c_str());
  }

  if (!options.read_only && options.durability == Durability::kPeriodic) {
    Impl* raw = impl.get();
    impl->syncer = std::jthread([raw](std::stop_token stop) { SyncLoop(raw, std::move(stop)); });
  }
  auto db = std::unique_ptr<PageDb>(new PageDb(std::move(impl)));
  if (!options.read_only && exists) {
    // Writing into a damaged DB would bury the damage under new data: refuse it. The
    // quick check's structural half ran above (no other process writes: this one holds
    // the writer lock); its data half is left.
    CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db->NewSnapshot());
    if (Status quick = CheckSampledRecords(snapshot); !quick.ok()) {
      return RefuseToWrite(where, quick);
    }
  }
  return db;
}

const std::string& PageDb::path() const {
  return impl_->path;
}
UrlProfile PageDb::url_profile() const {
  return impl_->profile;
}
bool PageDb::read_only() const {
  return impl_->read_only();
}

Status PageDb::Sync() {
  if (impl_->read_only()) return Status::Ok();
  const int rc = mdb_env_sync(impl_->env.get(), 1);
  if (rc != 0) return lmdb::Error(rc, "sync", impl_->path);
  return Status::Ok();
}

}  // namespace crawlrank
