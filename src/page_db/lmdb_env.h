// Thin RAII wrappers over the LMDB C API, and LMDB error codes mapped to Status.
#ifndef CRAWLRANK_SRC_LMDB_ENV_H_
#define CRAWLRANK_SRC_LMDB_ENV_H_

#include <lmdb.h>

#include <string>
#include <string_view>
#include <utility>

#include "crawlrank/status.h"

namespace crawlrank::lmdb {

// Returns the Status for LMDB return code `rc`: `op "target": MDB_...: text`, with a code
// that says what to do (MDB_MAP_FULL -> ResourceExhausted, MDB_CORRUPTED -> DataLoss, ...).
Status Error(int rc, std::string_view op, std::string_view target);

// Returns the Status for a failed mdb_txn_commit of a transaction of `env`. LMDB reports a
// short write as EIO; when the file system is (nearly) full, this says so: ResourceExhausted
// "no space left on device", with the bytes free.
Status CommitError(int rc, MDB_env* env, std::string_view target);

inline MDB_val Val(std::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}
inline std::string_view View(const MDB_val& v) {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}

// Owns an MDB_env.
class Env {
 public:
  Env() = default;
  Env(Env&& other) noexcept : env_(std::exchange(other.env_, nullptr)) {}
  Env& operator=(Env&& other) noexcept {
    std::swap(env_, other.env_);
    return *this;
  }
  ~Env() {
    if (env_ != nullptr) mdb_env_close(env_);
  }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  // Creates and opens an environment in directory `path`.
  static Result<Env> Open(const std::string& path, unsigned flags, uint64_t map_size,
                          unsigned max_dbs);
  MDB_env* get() const { return env_; }

 private:
  MDB_env* env_ = nullptr;
};

// Owns an MDB_txn: aborted on destruction unless committed.
class Txn {
 public:
  Txn() = default;
  Txn(Txn&& other) noexcept : txn_(std::exchange(other.txn_, nullptr)) {}
  Txn& operator=(Txn&& other) noexcept {
    std::swap(txn_, other.txn_);
    return *this;
  }
  ~Txn() { Abort(); }
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;

  static Result<Txn> Begin(MDB_env* env, unsigned flags, std::string_view target);
  // Begins a transaction into `*txn` and returns LMDB's code (0 on success), for a caller
  // that acts on one code (MDB_MAP_RESIZED).
  static int BeginRaw(MDB_env* env, unsigned flags, Txn* txn);
  Status Commit(std::string_view target);
  void Abort() {
    if (txn_ != nullptr) mdb_txn_abort(std::exchange(txn_, nullptr));
  }
  MDB_txn* get() const { return txn_; }
  // Gives up ownership (for mdb_txn_commit, which frees the handle whatever it returns).
  MDB_txn* Release() { return std::exchange(txn_, nullptr); }

 private:
  MDB_txn* txn_ = nullptr;
};

// Owns an MDB_cursor (closed on destruction; must not outlive its read-only transaction).
class Cursor {
 public:
  Cursor() = default;
  Cursor(Cursor&& other) noexcept
      : cursor_(std::exchange(other.cursor_, nullptr)),
        target_(std::move(other.target_)),
        start_(std::move(other.start_)),
        op_(other.op_) {}
  Cursor& operator=(Cursor&& other) noexcept {
    std::swap(cursor_, other.cursor_);
    std::swap(target_, other.target_);
    std::swap(start_, other.start_);
    std::swap(op_, other.op_);
    return *this;
  }
  ~Cursor() {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
  }
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  static Result<Cursor> Open(MDB_txn* txn, MDB_dbi dbi, std::string_view target);
  MDB_cursor* get() const { return cursor_; }

  // Steps through the table in key order: the first call reads the first entry (after
  // StartAt, the first whose key is >= its key), each later call the next one. True with
  // the entry in *key and *value; false past the last; an error names `target`.
  //   MDB_val k, v;
  //   for (;;) {
  //     CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
  //     if (!more) break;
  //     ...
  //   }
  Result<bool> Next(MDB_val* key, MDB_val* value);
  // Makes the first Next() start at the first key >= `key` (bytes copied).
  void StartAt(MDB_val key);

 private:
  MDB_cursor* cursor_ = nullptr;
  std::string target_;
  std::string start_;
  MDB_cursor_op op_ = MDB_FIRST;
};

}  // namespace crawlrank::lmdb

#endif  // CRAWLRANK_SRC_LMDB_ENV_H_
