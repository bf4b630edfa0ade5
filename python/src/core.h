// Shared pieces of the crawlrank._core bindings: how a Status becomes a Python exception,
// and the handle through which every object reaches an open PageDb.
#ifndef CRAWLRANK_PYTHON_SRC_CORE_H_
#define CRAWLRANK_PYTHON_SRC_CORE_H_

#include <pybind11/pybind11.h>

#include <exception>
#include <memory>
#include <optional>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "crawlrank/failure_kind.h"
#include "crawlrank/page_db.h"
#include "crawlrank/schedule_types.h"
#include "crawlrank/status.h"
#include "crawlrank/url.h"

namespace crawlrank::python {

namespace py = pybind11;

// A non-OK Status on its way to Python: the module's translator raises the exception
// class of its code (crawlrank.NotFoundError, ...) with the status message.
class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return status_.message().c_str(); }

 private:
  Status status_;
};

inline void Check(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}
template <typename T>
T Take(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// "host" or "domain" (the registered domain); InvalidArgument for anything else.
inline HostKeyMode HostKeyModeOf(std::string_view name) {
  if (name == "host") return HostKeyMode::kHost;
  if (name == "domain") return HostKeyMode::kRegisteredDomain;
  throw StatusError(InvalidArgumentError("host key mode \"" + std::string(name) +
                                         "\": expected \"host\" or \"domain\""));
}

// The failure kind a name gives (failure_kind.h); InvalidArgument naming the known ones.
inline FailureKind FailureKindOf(std::string_view name) {
  if (const std::optional<FailureKind> kind = ParseFailureKind(name)) return *kind;
  std::string known;
  ForEachFailureKind([&](FailureKind k) {
    known += known.empty() ? "" : ", ";
    known += FailureKindName(k);
  });
  throw StatusError(
      InvalidArgumentError("failure kind \"" + std::string(name) + "\": expected one of " + known));
}

// A FailureFilter from the keyword arguments the bindings take (None: any).
inline FailureFilter FailureFilterOf(const std::optional<std::string>& kind,
                                     const std::optional<std::string>& host,
                                     const std::optional<std::string>& url_regex = std::nullopt,
                                     std::vector<std::string> urls = {}) {
  FailureFilter filter;
  if (kind.has_value()) filter.kind = FailureKindOf(*kind);
  filter.host = host.value_or("");
  filter.url_regex = url_regex.value_or("");
  filter.urls = std::move(urls);
  return filter;
}

// Registers the exception classes on `m` and the translator that raises them.
void BindErrors(py::module_& m);

// Takes the GIL back after PyEval_SaveThread(). While the interpreter finalizes, CPython
// 3.11 ends any other thread that asks for the GIL (a daemon thread inside a call when the
// main thread exits) with pthread_exit, whose forced unwind aborts the process ("terminate
// called without an active exception") when it reaches a noexcept frame: a destructor,
// py::gil_scoped_release's or ~PySnapshot's. This catches that unwind first and parks the
// thread for good instead, as CPython 3.14 parks such threads itself (gh-87135); the
// process exits around it.
void RetakeGil(PyThreadState* state);

// Runs fn() with the GIL released; returns what it returns, throws what it throws. Every
// binding that releases the GIL does it through here, never with py::gil_scoped_release
// (see RetakeGil). REQUIRES: the GIL held; fn touches no Python object.
template <typename F>
auto WithoutGil(F&& fn) -> decltype(fn()) {
  using R = decltype(fn());
  PyThreadState* state = PyEval_SaveThread();
  std::exception_ptr error;
  if constexpr (std::is_void_v<R>) {
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
    RetakeGil(state);
    if (error) std::rethrow_exception(error);
  } else {
    std::optional<R> result;
    try {
      result.emplace(fn());
    } catch (...) {
      error = std::current_exception();
    }
    RetakeGil(state);
    if (error) std::rethrow_exception(error);
    return std::move(*result);
  }
}

// Something that uses an open PageDb and must end before it closes (a snapshot, the
// scheduler): PageDb.close() closes them first.
class Dependent {
 public:
  virtual ~Dependent() = default;
  virtual void CloseForDb() = 0;
};

// An open PageDb shared by its Python objects. Calls that use the DB hold `mu` shared
// with the GIL released; close() takes it exclusively, so a DB never closes under a
// call running in another thread. `dependents` changes only with `mu` held exclusively.
struct DbHandle {
  std::shared_mutex mu;
  std::unique_ptr<PageDb> db;
  std::string path;
  std::set<Dependent*> dependents;

  // REQUIRES: `mu` held. FailedPrecondition naming the path once closed.
  PageDb& Get() const {
    if (db == nullptr) {
      throw StatusError(FailedPreconditionError(PageDbName(path) + " is closed"));
    }
    return *db;
  }
  // Called with the GIL held; releases it while it waits for `mu`.
  template <typename F>
  void Unregister(Dependent* d, F&& close) {
    WithoutGil([&] {
      std::unique_lock lock(mu);
      dependents.erase(d);
      close();
    });
  }
  static std::string PageDbName(const std::string& path) { return "PageDB \"" + path + "\""; }
};

// Runs fn(PageDb&) with the GIL released and the DB held open.
template <typename F>
auto WithDb(DbHandle& handle, F&& fn) {
  return WithoutGil([&] {
    std::shared_lock lock(handle.mu);
    return fn(handle.Get());
  });
}

void BindPageDb(py::module_& m);
// The handle of a crawlrank.PageDb object (TypeError for anything else).
std::shared_ptr<DbHandle> HandleOf(py::handle page_db);
void BindScheduler(py::module_& m);

}  // namespace crawlrank::python

#endif  // CRAWLRANK_PYTHON_SRC_CORE_H_
