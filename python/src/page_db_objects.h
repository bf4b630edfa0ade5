// The Python objects over an open PageDB that the PageDb bindings share
// (page_db_binding.cc, snapshot_binding.cc): a snapshot, the DB itself and a rank.
#ifndef CRAWLRANK_PYTHON_SRC_PAGE_DB_OBJECTS_H_
#define CRAWLRANK_PYTHON_SRC_PAGE_DB_OBJECTS_H_

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>

#include "core.h"
#include "crawlrank/page_db.h"
#include "crawlrank/rank_store.h"

namespace crawlrank::python {

// A Snapshot of an open DB. Locks, always taken in this order: the DB handle's `mu`, then
// the snapshot's own `mu_`. Calls hold both shared; close() takes only `mu_` (a writer
// holding the handle shared may be waiting for this very snapshot to close, to grow the
// map); PageDb.close() holds the handle exclusively and then takes `mu_`.
class PySnapshot final : public Dependent {
 public:
  // Opens a snapshot of `handle`'s DB and files it with the DB under one lock, so that a
  // PageDb.close() in another thread cannot come between the two.
  static std::unique_ptr<PySnapshot> Open(const std::shared_ptr<DbHandle>& handle) {
    return WithoutGil([&] {
      std::unique_lock lock(handle->mu);
      auto out = std::make_unique<PySnapshot>(Key(), handle, Take(handle->Get().NewSnapshot()));
      handle->dependents.insert(out.get());
      return out;
    });
  }
  ~PySnapshot() override {
    Close();
    handle_->Unregister(this, [] {});
  }
  PySnapshot(const PySnapshot&) = delete;
  PySnapshot& operator=(const PySnapshot&) = delete;

  void CloseForDb() override {
    std::unique_lock lock(mu_);
    snapshot_.reset();
  }
  void Close() {
    WithoutGil([&] {
      std::unique_lock lock(mu_);
      snapshot_.reset();
    });
  }
  bool closed() {
    return WithoutGil([&] {
      std::shared_lock lock(mu_);
      return !snapshot_.has_value();
    });
  }

  // Runs fn(const Snapshot&) with the GIL released.
  template <typename F>
  auto With(F&& fn) {
    return WithoutGil([&] {
      std::shared_lock db_lock(handle_->mu);
      std::shared_lock lock(mu_);
      if (!snapshot_) {
        throw StatusError(FailedPreconditionError(
            "snapshot of " + DbHandle::PageDbName(handle_->path) + " is closed"));
      }
      return fn(*snapshot_);
    });
  }
  // The same, fn(const PageDb&, const Snapshot&): for what reads the DB's own tables too.
  template <typename F>
  auto WithDb(F&& fn) {
    return With([&](const Snapshot& snapshot) { return fn(handle_->Get(), snapshot); });
  }

 private:
  struct Key {};  // only Open makes one

 public:
  PySnapshot(Key, std::shared_ptr<DbHandle> handle, Snapshot snapshot)
      : handle_(std::move(handle)), snapshot_(std::move(snapshot)) {}

 private:
  std::shared_ptr<DbHandle> handle_;
  std::shared_mutex mu_;
  std::optional<Snapshot> snapshot_;
};

class PyPageDb {
 public:
  explicit PyPageDb(std::shared_ptr<DbHandle> handle) : handle_(std::move(handle)) {}
  ~PyPageDb() { Close(); }
  PyPageDb(const PyPageDb&) = delete;
  PyPageDb& operator=(const PyPageDb&) = delete;

  DbHandle& handle() { return *handle_; }
  const std::shared_ptr<DbHandle>& shared() const { return handle_; }

  // Closes the snapshots and the scheduler still open on the DB, then the DB.
  void Close() {
    if (handle_ == nullptr) return;
    WithoutGil([&] {
      std::unique_lock lock(handle_->mu);
      for (Dependent* d : handle_->dependents) d->CloseForDb();
      handle_->db.reset();
    });
  }
  bool closed() {
    return WithoutGil([&] {
      std::shared_lock lock(handle_->mu);
      return handle_->db == nullptr;
    });
  }

 private:
  std::shared_ptr<DbHandle> handle_;
};

class PyRank {
 public:
  explicit PyRank(StoredRank rank) : rank_(std::move(rank)) {}
  const StoredRank& get() const { return rank_; }

 private:
  StoredRank rank_;
};

// The records' classes (PageRecord, CrawledPage, ...) and Snapshot (snapshot_binding.cc).
void BindRecords(py::module_& m);
void BindSnapshot(py::module_& m);

}  // namespace crawlrank::python

#endif  // CRAWLRANK_PYTHON_SRC_PAGE_DB_OBJECTS_H_
