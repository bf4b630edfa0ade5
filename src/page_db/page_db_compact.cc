// PageDb::CompactTo: a logical copy of every table, appended in key order.
//
// LMDB's own compacting copy (mdb_env_copy2 with MDB_CP_COMPACT) drops free pages but keeps
// each B-tree page as filled as it was; appending every entry in key order (MDB_APPEND)
// instead fills each leaf before starting the next.
#include <filesystem>

#include "crawlrank/page_db.h"
#include "page_db/page_db_impl.h"

namespace crawlrank {
namespace {

constexpr uint64_t kCommitBytes = uint64_t{64} << 20;  // bounds a transaction's dirty pages

// Copies table `name` from `from` into a new table of `to`, committing every kCommitBytes.
Status CopyTable(MDB_txn* from, MDB_dbi source, MDB_env* to, const char* name, bool ordered,
                 const std::string& where) {
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(from, source, where));
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Txn txn, lmdb::Txn::Begin(to, 0, where));
  MDB_dbi target;
  int rc = mdb_dbi_open(txn.get(), name, MDB_CREATE, &target);
  if (rc != 0) return lmdb::Error(rc, std::string("create table ") + name + " in", where);
  uint64_t bytes = 0;
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    const int put = mdb_put(txn.get(), target, &k, &v, ordered ? MDB_APPEND : 0);
    if (put != 0) return lmdb::Error(put, std::string("copy table ") + name + " to", where);
    bytes += k.mv_size + v.mv_size;
    if (bytes >= kCommitBytes) {
      CRAWLRANK_RETURN_IF_ERROR(txn.Commit(where));
      CRAWLRANK_ASSIGN_OR_RETURN(txn, lmdb::Txn::Begin(to, 0, where));
      bytes = 0;
    }
  }
  return txn.Commit(where);
}

}  // namespace

Status PageDb::CompactTo(const std::string& dir, bool check_data) const {
  const std::string where = "compact " + PageDbName(impl_->path) + " into \"" + dir + "\"";
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec)) {
    return AlreadyExistsError(where + ": the target exists and is not empty");
  }
  // LMDB's cursors below trust every page they copy: read them all with checks first. A
  // copy of damaged data would pass the damage on, looking new: check the same snapshot.
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewCheckedSnapshot(CheckLevel::kFull));
  if (check_data) CRAWLRANK_RETURN_IF_ERROR(CheckStoredData(snapshot));
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError(where + ": " + ec.message());
  MDB_txn* from = snapshot.impl_->txn.get();
  MDB_envinfo info;
  if (const int rc = mdb_env_info(impl_->env.get(), &info); rc != 0) {
    return lmdb::Error(rc, "read map size of", impl_->path);
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Env to,
                             lmdb::Env::Open(dir, MDB_NOSYNC, info.me_mapsize, kMaxTables));
  const PageDb::Impl& db = *impl_;
  CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.meta, to.get(), "meta", false, where));
  CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.pages, to.get(), "pages", true, where));
  CRAWLRANK_RETURN_IF_ERROR(
      CopyTable(from, db.fingerprints, to.get(), "fingerprints", true, where));
  CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.links, to.get(), "links", true, where));
  if (db.has_schedule) {  // a version 2 DB is copied as it is, without them
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.schedule, to.get(), "schedule", true, where));
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.hosts, to.get(), "hosts", true, where));
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.payloads, to.get(), "payloads", true, where));
  }
  if (db.has_config) {  // nor has a version 2 to 4 DB this one
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.config, to.get(), "config", true, where));
  }
  if (db.has_created) {  // nor has a version 2 to 5 DB this one
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.created, to.get(), "created", true, where));
  }
  if (db.has_counters) {  // nor has a version 2 to 6 DB these
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.counters, to.get(), "counters", true, where));
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.fetches, to.get(), "fetches", true, where));
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.progress, to.get(), "progress", true, where));
  }
  if (db.has_recent) {  // nor has a version 2 to 9 DB this one
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.recent, to.get(), "recent", true, where));
  }
  if (db.has_shares) {  // nor has a version 2 to 8 DB this one
    CRAWLRANK_RETURN_IF_ERROR(CopyTable(from, db.shares, to.get(), "shares", true, where));
  }
  if (const int rc = mdb_env_sync(to.get(), 1); rc != 0) return lmdb::Error(rc, "sync", dir);
  return Status::Ok();
}

}  // namespace crawlrank
