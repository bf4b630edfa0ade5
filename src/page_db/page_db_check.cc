// PageDb::Check and PageDb::Info: whole-DB verification and facts.
#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "base/coding.h"
#include "crawlrank/page_db.h"
#include "page_db/page_db_impl.h"
#include "page_db/page_record.h"
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

Status PageDb::CheckStoredData(const Snapshot& snapshot) const {
  const std::string& path = impl_->path;
  const PageDbCounters& counters = snapshot.counters();
  auto broken = [&path](const std::string& what) {
    return DataLossError("check " + PageDbName(path) + ": " + what);
  };

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
  MDB_txn* txn = snapshot.impl_->txn.get();
  MDB_stat stat;
  if (const int rc = mdb_stat(txn, impl_->pages, &stat); rc != 0) {
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

  // The fingerprint table lists exactly the pages [0, indexed_pages), each under its own.
  // Its keys come in fingerprint order, so one merge with the sorted pages checks it.
  const uint64_t indexed = snapshot.impl_->indexed_pages;
  if (const int rc = mdb_stat(txn, impl_->fingerprints, &stat); rc != 0) {
    return lmdb::Error(rc, "read the size of the fingerprints table of", path);
  }
  if (stat.ms_entries != indexed) {
    return broken("the fingerprints table holds " + std::to_string(stat.ms_entries) +
                  " entries, the header says " + std::to_string(indexed));
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor entries,
                             lmdb::Cursor::Open(txn, impl_->fingerprints, path));
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
  if (edges != counters.edges) {
    return broken("header counts " + std::to_string(counters.edges) + " links, found " +
                  std::to_string(edges));
  }
  if (!impl_->has_schedule) return Status::Ok();

  // The scheduler's tables: every entry decodes; a schedule entry belongs to a page of
  // the DB that is not crawled (a crawled page's state is implied by its record).
  std::vector<uint32_t> failed;  // pages failed for good, in id order (the table's)
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor schedule, lmdb::Cursor::Open(txn, impl_->schedule, path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, schedule.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return broken("a schedule key is damaged");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    ScheduleEntry entry;
    if (Status decoded = DecodeScheduleEntry(id, lmdb::View(v), &entry); !decoded.ok()) {
      return broken(decoded.message());
    }
    if (id >= pages)
      return broken("schedule entry of page " + std::to_string(id) + ", beyond the last id");
    if (is_crawled[id] && entry.state != EntryState::kLeased) {  // leased: a revisit
      return broken("schedule entry of page " + std::to_string(id) + ", which is crawled");
    }
    if (entry.state == EntryState::kFailed) failed.push_back(id);
  }
  // A payload belongs to a page of the DB still to be handed out: the transaction that
  // records a crawl, or a failure for good, deletes it.
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor payloads, lmdb::Cursor::Open(txn, impl_->payloads, path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, payloads.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return broken("a payloads key is damaged");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    if (id >= pages)
      return broken("payload of page " + std::to_string(id) + ", beyond the last id");
    if (is_crawled[id])
      return broken("payload of page " + std::to_string(id) + ", which is crawled");
    if (std::binary_search(failed.begin(), failed.end(), id)) {
      return broken("payload of page " + std::to_string(id) + ", which failed for good");
    }
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor hosts, lmdb::Cursor::Open(txn, impl_->hosts, path));
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
