#include "lmdb_env.h"

namespace crawlrank::lmdb {

Status Error(int rc, std::string_view op, std::string_view target) {
  std::string message(op);
  message += " \"";
  message.append(target);
  message += "\": ";
  message += mdb_strerror(rc);
  switch (rc) {
    case MDB_NOTFOUND: return NotFoundError(std::move(message));
    case MDB_KEYEXIST: return AlreadyExistsError(std::move(message));
    case MDB_MAP_FULL:
    case MDB_TXN_FULL:
    case MDB_READERS_FULL:
    case MDB_DBS_FULL:
    case ENOMEM:
    case ENOSPC: return ResourceExhaustedError(std::move(message));
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_BAD_VALSIZE: return DataLossError(std::move(message));
    case MDB_VERSION_MISMATCH:
    case MDB_INCOMPATIBLE:
    case EACCES:
    case EROFS: return FailedPreconditionError(std::move(message));
    case MDB_MAP_RESIZED:
    case EAGAIN:
    case EBUSY: return UnavailableError(std::move(message));
    case ENOENT: return NotFoundError(std::move(message));
    default: break;
  }
  return rc > 0 ? IoError(std::move(message)) : InternalError(std::move(message));
}

Result<Env> Env::Open(const std::string& path, unsigned flags, uint64_t map_size,
                      unsigned max_dbs) {
  Env env;
  int rc = mdb_env_create(&env.env_);
  if (rc != 0) return Error(rc, "mdb_env_create", path);
  if (map_size != 0 && (rc = mdb_env_set_mapsize(env.env_, map_size)) != 0) {
    return Error(rc, "mdb_env_set_mapsize", path);
  }
  if ((rc = mdb_env_set_maxdbs(env.env_, max_dbs)) != 0) {
    return Error(rc, "mdb_env_set_maxdbs", path);
  }
  if ((rc = mdb_env_set_maxreaders(env.env_, 254)) != 0) {
    return Error(rc, "mdb_env_set_maxreaders", path);
  }
  if ((rc = mdb_env_open(env.env_, path.c_str(), flags, 0644)) != 0) {
    return Error(rc, "open", path);
  }
  return env;
}

int Txn::BeginRaw(MDB_env* env, unsigned flags, Txn* txn) {
  txn->Abort();
  return mdb_txn_begin(env, nullptr, flags, &txn->txn_);
}

Result<Txn> Txn::Begin(MDB_env* env, unsigned flags, std::string_view target) {
  Txn txn;
  const int rc = BeginRaw(env, flags, &txn);
  if (rc != 0) return Error(rc, "begin transaction on", target);
  return txn;
}

Status Txn::Commit(std::string_view target) {
  const int rc = mdb_txn_commit(std::exchange(txn_, nullptr));
  if (rc != 0) return Error(rc, "commit to", target);
  return Status::Ok();
}

Result<Cursor> Cursor::Open(MDB_txn* txn, MDB_dbi dbi, std::string_view target) {
  Cursor cursor;
  const int rc = mdb_cursor_open(txn, dbi, &cursor.cursor_);
  if (rc != 0) return Error(rc, "open cursor on", target);
  return cursor;
}

}  // namespace crawlrank::lmdb
