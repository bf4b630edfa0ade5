#include "page_db/lmdb_env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "base/errno_text.h"
#include "base/lmdb_assertion.h"
#include "base/unique_fd.h"

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

namespace {

// LMDB sizes lock.mdb with ftruncate and then writes to it through a shared map: on a full
// file system the sparse file cannot take the first write and the process dies of SIGBUS.
// Allocating the blocks of a new lock file first turns that into an error. The size is
// more than LMDB's own for 254 readers (253 slots of 64 bytes after a 192-byte header), so
// LMDB never resizes it. An existing lock file keeps its size (other processes have mapped
// it and count its reader slots by it); only its holes are allocated.
constexpr off_t kLockFileBytes = 20480;

Status PrepareLockFile(const std::string& path, const std::string& where) {
  const std::string lock_path = path + "/lock.mdb";
  const UniqueFd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    const std::string cause = where + ": \"" + lock_path + "\": " + ErrnoText();
    if (errno == EACCES || errno == EROFS || errno == EPERM) {
      return FailedPreconditionError(
          cause + " (every process that opens a PageDB, a reader too, writes its lock.mdb)");
    }
    if (errno == ENOSPC || errno == EDQUOT) return ResourceExhaustedError(cause);
    return IoError(cause);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    return IoError(where + ": stat \"" + lock_path + "\": " + ErrnoText());
  }
  const off_t size = st.st_size == 0 ? kLockFileBytes : st.st_size;
  const int rc = ::posix_fallocate(fd.get(), 0, size);
  if (rc == ENOSPC || rc == EDQUOT) {
    return ResourceExhaustedError(where + ": \"" + lock_path +
                                  "\": no space left on device for LMDB's lock file");
  }
  if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
    return IoError(where + ": allocate \"" + lock_path + "\": " + std::strerror(rc));
  }
  return Status::Ok();
}

// LMDB's assert callback: liblmdb would abort() after it returns; it throws instead
// (base/lmdb_assertion.h says who catches it). `what` is LMDB's own text ("mdb.c:5921:
// Assertion 'IS_LEAF(mp)' failed in mdb_cursor_next()").
void OnLmdbAssertion(MDB_env* env, const char* what) {
  const char* path = nullptr;
  if (env == nullptr || mdb_env_get_path(env, &path) != 0 || path == nullptr) path = "?";
  throw LmdbAssertion(std::string("LMDB met a damaged page in PageDB \"") + path + "\" (" + what +
                      "); run page_db_check on it");
}

}  // namespace

Result<Env> Env::Open(const std::string& path, unsigned flags, uint64_t map_size,
                      unsigned max_dbs) {
  Env env;
  int rc = mdb_env_create(&env.env_);
  if (rc != 0) return Error(rc, "mdb_env_create", path);
  // (A no-op where liblmdb was built without assertions: nothing to route then.)
  (void)mdb_env_set_assert(env.env_, OnLmdbAssertion);
  if (map_size != 0 && (rc = mdb_env_set_mapsize(env.env_, map_size)) != 0) {
    return Error(rc, "mdb_env_set_mapsize", path);
  }
  if ((rc = mdb_env_set_maxdbs(env.env_, max_dbs)) != 0) {
    return Error(rc, "mdb_env_set_maxdbs", path);
  }
  if ((rc = mdb_env_set_maxreaders(env.env_, 254)) != 0) {
    return Error(rc, "mdb_env_set_maxreaders", path);
  }
  if ((flags & MDB_NOLOCK) == 0) {
    CRAWLRANK_RETURN_IF_ERROR(PrepareLockFile(path, "open \"" + path + "\""));
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

namespace {

// Free bytes on the file system holding `env`'s files, or UINT64_MAX when unknown.
uint64_t FreeBytes(MDB_env* env) {
  const char* dir = nullptr;
  struct statvfs fs;
  if (mdb_env_get_path(env, &dir) != 0 || dir == nullptr || ::statvfs(dir, &fs) != 0) {
    return UINT64_MAX;
  }
  return uint64_t{fs.f_bavail} * fs.f_frsize;
}

}  // namespace

Status Txn::Commit(std::string_view target) {
  MDB_env* env = mdb_txn_env(txn_);
  const int rc = mdb_txn_commit(std::exchange(txn_, nullptr));
  return rc == 0 ? Status::Ok() : CommitError(rc, env, target);
}

Status CommitError(int rc, MDB_env* env, std::string_view target) {
  // LMDB reports a short write of its pages as EIO: on a full disk that is the usual cause.
  constexpr uint64_t kNearlyFull = uint64_t{16} << 20;
  if (rc == ENOSPC || rc == EDQUOT || rc == EIO) {
    const uint64_t free_bytes = FreeBytes(env);
    if (rc != EIO || free_bytes < kNearlyFull) {
      std::string message =
          "commit to \"" + std::string(target) + "\": no space left on device (" + mdb_strerror(rc);
      if (free_bytes != UINT64_MAX) message += "; " + std::to_string(free_bytes) + " bytes free";
      message +=
          "); nothing of this transaction was written, everything committed before is "
          "intact";
      return ResourceExhaustedError(std::move(message));
    }
  }
  return Error(rc, "commit to", target);
}

Result<Cursor> Cursor::Open(MDB_txn* txn, MDB_dbi dbi, std::string_view target) {
  Cursor cursor;
  const int rc = mdb_cursor_open(txn, dbi, &cursor.cursor_);
  if (rc != 0) return Error(rc, "open cursor on", target);
  cursor.target_.assign(target);
  return cursor;
}

void Cursor::StartAt(MDB_val key) {
  start_.assign(static_cast<const char*>(key.mv_data), key.mv_size);
  op_ = MDB_SET_RANGE;
}

Result<bool> Cursor::Next(MDB_val* key, MDB_val* value) {
  if (op_ == MDB_SET_RANGE) *key = MDB_val{start_.size(), start_.data()};
  const int rc = mdb_cursor_get(cursor_, key, value, op_);
  op_ = MDB_NEXT;
  if (rc == MDB_NOTFOUND) return false;
  if (rc != 0) return Error(rc, "read the next entry of", target_);
  return true;
}

}  // namespace crawlrank::lmdb
