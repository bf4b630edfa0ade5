// PageDb::Check and PageDb::Info: whole-DB verification and facts.
#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "base/coding.h"
#include "crawlrank/page_db.h"
#include "page_db/crawl_counters.h"
#include "page_db/received_shares.h"
#include "page_db/recent_fetches.h"
#include "page_db/page_db_impl.h"
#include "page_db/page_record.h"
#include "page_db/creation_marks.h"
#include "page_db/schedule_table.h"

namespace crawlrank {

namespace {
constexpr uint32_t kQuickSample = 64;  // records and link blocks read at each end
}  // namespace

Status CheckSampledRecords(const Snapshot& snapshot) {
  const uint64_t pages = snapshot.counters().pages;
  auto check_id = [&](uint64_t id) -> Status {
    CRAWLRANK_ASSIGN_OR_RETURN(PageRecord record, snapshot.FindId(static_cast<uint32_t>(id)));
    CRAWLRANK_RETURN_IF_ERROR(snapshot.Links(record.id).status());
    return Status::Ok();
  };
  for (uint64_t id = 0; id < std::min<uint64_t>(pages, kQuickSample); ++id) {
    CRAWLRANK_RETURN_IF_ERROR(check_id(id));
  }
  for (uint64_t id = std::max<uint64_t>(kQuickSample, pages) - kQuickSample; id < pages; ++id) {
    CRAWLRANK_RETURN_IF_ERROR(check_id(id));
  }
  return Status::Ok();
}

Result<Snapshot> PageDb::NewCheckedSnapshot(CheckLevel level) const {
  const auto scope =
      level == CheckLevel::kFull ? lmdb::VerifyScope::kFull : lmdb::VerifyScope::kSample;
  std::optional<Snapshot> snapshot;
  CRAWLRANK_RETURN_IF_ERROR(impl_->VerifyFile(
      [&]() -> Result<MDB_txn*> {
        snapshot.reset();
        CRAWLRANK_ASSIGN_OR_RETURN(Snapshot fresh, NewSnapshot());
        snapshot.emplace(std::move(fresh));
        return snapshot->impl_->txn.get();
      },
      scope));
  return *std::move(snapshot);
}

Status PageDb::Check(CheckLevel level) const {
  // The structure first, before LMDB reads a page through its map.
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewCheckedSnapshot(level));
  if (level == CheckLevel::kQuick) {
    return CheckSampledRecords(snapshot).WithContext("check " + PageDbName(impl_->path));
  }
  return CheckStoredData(snapshot);
}

namespace {

// The error of a full check of the PageDB at `path` that found damage.
Status StoredDataError(const std::string& path, const std::string& what) {
  return DataLossError("check " + PageDbName(path) + ": " + what);
}

// The pages of a snapshot, as the full check reads them once.
struct StoredPages {
  uint64_t pages = 0, crawled = 0;
  std::vector<std::pair<uint64_t, uint32_t>> fingerprints;  // (fingerprint, id), sorted
  std::vector<bool> is_crawled;                             // by id
};

// Reads every page record of `snapshot` (its transaction `txn`) and checks that the pages
// table and the header count them, and that no two share a fingerprint.
Result<StoredPages> CheckPages(const PageDbImpl& db, const Snapshot& snapshot, MDB_txn* txn) {
  const std::string& path = db.path;
  const PageDbCounters& counters = snapshot.counters();
  auto broken = [&path](const std::string& what) { return StoredDataError(path, what); };

  uint64_t pages = 0, crawled = 0;
  std::vector<std::pair<uint64_t, uint32_t>> fingerprints;  // (fingerprint, id) of each page
  fingerprints.reserve(ReserveBound(counters.pages));
  std::vector<bool> is_crawled;  // by id
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& record) -> Status {
    ++pages;  // ForEachPage checks that ids are dense
    if (record.crawled()) ++crawled;
    is_crawled.push_back(record.crawled());
    fingerprints.emplace_back(record.fingerprint, record.id);
    return Status::Ok();
  }));
  MDB_stat stat;
  if (const int rc = mdb_stat(txn, db.pages, &stat); rc != 0) {
    return lmdb::Error(rc, "read the size of the pages table of", path);
  }
  if (stat.ms_entries != pages) {
    return broken("the pages table holds " + std::to_string(stat.ms_entries) +
                  " records but the ids run to " + std::to_string(pages));
  }
  if (pages != counters.pages || crawled != counters.crawled_pages) {
    return broken("header counts " + std::to_string(counters.pages) + " pages (" +
                  std::to_string(counters.crawled_pages) + " crawled), found " +
                  std::to_string(pages) + " (" + std::to_string(crawled) + ")");
  }
  std::sort(fingerprints.begin(), fingerprints.end());
  if (auto twin =
          std::adjacent_find(fingerprints.begin(), fingerprints.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; });
      twin != fingerprints.end()) {
    return broken("two pages share fingerprint " + FormatFingerprint(twin->first));
  }
  return StoredPages{pages, crawled, std::move(fingerprints), std::move(is_crawled)};
}

// Checks that the fingerprint table lists exactly the pages [0, indexed), each under its
// own fingerprint. Its keys come in fingerprint order, so one merge with the sorted
// `fingerprints` of the pages checks it.
Status CheckFingerprints(const PageDbImpl& db, const Snapshot& snapshot, MDB_txn* txn,
                         const std::vector<std::pair<uint64_t, uint32_t>>& fingerprints,
                         uint64_t indexed) {
  const std::string& path = db.path;
  auto broken = [&path](const std::string& what) { return StoredDataError(path, what); };
  MDB_stat stat;
  if (const int rc = mdb_stat(txn, db.fingerprints, &stat); rc != 0) {
    return lmdb::Error(rc, "read the size of the fingerprints table of", path);
  }
  if (stat.ms_entries != indexed) {
    return broken("the fingerprints table holds " + std::to_string(stat.ms_entries) +
                  " entries, the header says " + std::to_string(indexed));
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor entries, lmdb::Cursor::Open(txn, db.fingerprints, path));
  MDB_val k, v;
  auto page = fingerprints.begin();
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, entries.Next(&k, &v));
    if (!more) break;
    std::string_view value = lmdb::View(v);
    uint32_t id = 0;
    if (k.mv_size != 8 || !coding::GetFixed32(value, &id) || !value.empty() || id >= indexed) {
      return broken("a fingerprints entry is damaged");
    }
    const uint64_t fingerprint = coding::DecodeBigEndian64(static_cast<const char*>(k.mv_data));
    while (page != fingerprints.end() && page->first < fingerprint) ++page;
    if (page == fingerprints.end() || page->first != fingerprint || page->second != id) {
      auto filed = snapshot.FindId(id);
      return broken("fingerprint " + FormatFingerprint(fingerprint) + " is filed under page " +
                    std::to_string(id) + (filed.ok() ? " (\"" + filed->url + "\")" : "") +
                    ", which is not its page");
    }
  }
  return Status::Ok();
}

// Checks that every link of `snapshot` joins two of its `pages` pages and that the header
// counts them.
Status CheckLinks(const PageDbImpl& db, const Snapshot& snapshot, uint64_t pages) {
  auto broken = [&db](const std::string& what) { return StoredDataError(db.path, what); };
  uint64_t edges = 0;
  EdgeCursor cursor = snapshot.Edges();
  for (; cursor.Valid(); cursor.Next()) {
    if (cursor.source() >= pages) {
      return broken("links stored for page " + std::to_string(cursor.source()) +
                    ", beyond the last id");
    }
    for (uint32_t target : cursor.targets()) {
      if (target >= pages) {
        return broken("page " + std::to_string(cursor.source()) + " links to id " +
                      std::to_string(target) + ", beyond the last id");
      }
    }
    edges += cursor.targets().size();
  }
  CRAWLRANK_RETURN_IF_ERROR(cursor.status());
  const PageDbCounters& counters = snapshot.counters();
  if (edges != counters.edges) {
    return broken("header counts " + std::to_string(counters.edges) + " links, found " +
                  std::to_string(edges));
  }
  return Status::Ok();
}

// Checks the scheduler's tables: every entry decodes; a schedule entry belongs to a page
// of the DB that is not crawled (a crawled page's state is implied by its record).
Status CheckSchedulerTables(const PageDbImpl& db, MDB_txn* txn, const StoredPages& stored) {
  const std::string& path = db.path;
  auto broken = [&path](const std::string& what) { return StoredDataError(path, what); };
  const uint64_t pages = stored.pages;
  const std::vector<bool>& is_crawled = stored.is_crawled;
  MDB_val k, v;
  std::vector<uint32_t> settled;  // pages failed for good, removed or ghosts, in id order
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor schedule, lmdb::Cursor::Open(txn, db.schedule, path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, schedule.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return broken("a schedule key is damaged");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    ScheduleEntry entry;
    if (Status decoded = DecodeScheduleEntry(id, lmdb::View(v), &entry, db.format_version);
        !decoded.ok()) {
      return broken(decoded.message());
    }
    if (id >= pages)
      return broken("schedule entry of page " + std::to_string(id) + ", beyond the last id");
    // Leased: a revisit; due: a revisit's date; removed: a crawled page may be removed too.
    if (is_crawled[id] && entry.state != EntryState::kLeased &&
        entry.state != EntryState::kRemoved && entry.state != EntryState::kDue) {
      return broken("schedule entry of page " + std::to_string(id) + ", which is crawled");
    }
    if (!is_crawled[id] && entry.state == EntryState::kDue) {
      return broken("schedule entry of page " + std::to_string(id) +
                    ": due again, but it was never crawled");
    }
    if (entry.state == EntryState::kFailed || entry.state == EntryState::kRemoved ||
        entry.state == EntryState::kElsewhere) {
      settled.push_back(id);
    }
  }
  // A payload belongs to a page of the DB still to be handed out: the transaction that
  // records a crawl, a failure for good or a removal deletes it.
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor payloads, lmdb::Cursor::Open(txn, db.payloads, path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, payloads.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return broken("a payloads key is damaged");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    if (id >= pages)
      return broken("payload of page " + std::to_string(id) + ", beyond the last id");
    if (is_crawled[id])
      return broken("payload of page " + std::to_string(id) + ", which is crawled");
    if (std::binary_search(settled.begin(), settled.end(), id)) {
      return broken("payload of page " + std::to_string(id) +
                    ", which failed for good, was removed or is a ghost");
    }
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor hosts, lmdb::Cursor::Open(txn, db.hosts, path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, hosts.Next(&k, &v));
    if (!more) break;
    HostEntry entry;
    if (Status decoded = DecodeHostEntry(lmdb::View(k), lmdb::View(v), &entry); !decoded.ok()) {
      return broken(decoded.message());
    }
  }
  return Status::Ok();
}

}  // namespace

Status PageDb::CheckStoredData(const Snapshot& snapshot) const {
  MDB_txn* txn = snapshot.impl_->txn.get();
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredPages stored, CheckPages(*impl_, snapshot, txn));
  CRAWLRANK_RETURN_IF_ERROR(
      CheckFingerprints(*impl_, snapshot, txn, stored.fingerprints, snapshot.impl_->indexed_pages));
  CRAWLRANK_RETURN_IF_ERROR(CheckLinks(*impl_, snapshot, stored.pages));
  CRAWLRANK_RETURN_IF_ERROR(snapshot.Config().status());  // each entry of its form
  CRAWLRANK_RETURN_IF_ERROR(CheckCreationMarks(*impl_, txn, stored.pages));
  CRAWLRANK_RETURN_IF_ERROR(CheckCrawlCounters(*impl_, txn, stored.pages));
  CRAWLRANK_RETURN_IF_ERROR(CheckReceivedShares(*impl_, txn, stored.pages));
  CRAWLRANK_RETURN_IF_ERROR(CheckRecentFetches(*impl_, txn, stored.pages));
  if (!impl_->has_schedule) return Status::Ok();
  return CheckSchedulerTables(*impl_, txn, stored);
}

Result<PageDbInfo> PageDb::Info() const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewSnapshot());
  PageDbInfo info;
  info.path = impl_->path;
  info.format_version = impl_->format_version;
  info.url_profile = impl_->profile;
  info.hash = std::string(kHashValue);
  info.created_ms = impl_->created_ms;
  info.counters = snapshot.counters();
  MDB_envinfo env;
  if (mdb_env_info(impl_->env.get(), &env) == 0) info.map_size = env.me_mapsize;
  struct stat st;
  if (::stat((impl_->path + "/data.mdb").c_str(), &st) == 0) {
    info.file_bytes = static_cast<uint64_t>(st.st_size);
  }
  auto table_bytes = [&](MDB_dbi dbi) -> uint64_t {
    MDB_stat s;
    if (mdb_stat(snapshot.impl_->txn.get(), dbi, &s) != 0) return 0;
    return uint64_t{s.ms_psize} * (s.ms_branch_pages + s.ms_leaf_pages + s.ms_overflow_pages);
  };
  info.links_bytes = table_bytes(impl_->links);
  info.pages_bytes = table_bytes(impl_->pages) + table_bytes(impl_->fingerprints);
  return info;
}

}  // namespace crawlrank
