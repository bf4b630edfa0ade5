// crawlrank/status.h: the one error model of crawlrank.
//
// Every fallible call returns a Status, or a Result<T> holding either a value or a
// non-OK Status. No exception crosses the C++ API. A Status is cheap when OK (no
// allocation) and otherwise carries a code and a message that reads
// `operation "target": cause`, with the native cause where there is one
// (`MDB_MAP_FULL: ...`).
//
// Codes follow Abseil's canonical set, so a caller can tell what to do:
//   kInvalidArgument    the input is wrong; retrying the same call fails again.
//   kNotFound           the thing asked for does not exist.
//   kAlreadyExists      it exists and must not be replaced (e.g. a fingerprint collision).
//   kFailedPrecondition the system is not in a state for this call (wrong format version,
//                       DB opened read-only, writer lock held elsewhere).
//   kResourceExhausted  out of disk, memory or map space that could not grow.
//   kAborted            a concurrent actor got in the way; retrying may succeed.
//   kUnavailable        transient: retry later.
//   kDataLoss           stored data is damaged or unreadable.
//   kInternal           a bug or a broken invariant inside crawlrank or a dependency.
//   kIoError            the operating system refused a file operation.
//
// Thread safety: Status and Result are values; distinct objects may be used from any thread.
#ifndef CRAWLRANK_STATUS_H_
#define CRAWLRANK_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace crawlrank {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kResourceExhausted,
  kAborted,
  kUnavailable,
  kDataLoss,
  kInternal,
  kIoError,
};

// Returns the code's name, e.g. "NotFound".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  // Creates an OK status.
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns "OK" or "<CodeName>: <message>".
  std::string ToString() const;

  // Returns a copy whose message is prefixed by `context: `. OK stays OK.
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Returns `text` in double quotes for an error message. Longer text is cut at a UTF-8
// character boundary at or before `max_bytes` and shown as `"<head>…" (<N> bytes)`, N
// being its whole length: bad input is named, not echoed whole.
std::string QuoteForMessage(std::string_view text, size_t max_bytes = 200);

Status InvalidArgumentError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status FailedPreconditionError(std::string message);
Status ResourceExhaustedError(std::string message);
Status AbortedError(std::string message);
Status UnavailableError(std::string message);
Status DataLossError(std::string message);
Status InternalError(std::string message);
Status IoError(std::string message);

// Result<T> holds a T or a non-OK Status.
//
// REQUIRES: value(), operator* and operator-> only when ok().
template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit from a value or an error, so `return value;` and `return status;` both work.
  Result(T value) : value_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!status_.ok() && "Result built from an OK status holds no value");
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "Result built from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace crawlrank

#define CRAWLRANK_CONCAT_INNER_(a, b) a##b
#define CRAWLRANK_CONCAT_(a, b) CRAWLRANK_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define CRAWLRANK_RETURN_IF_ERROR(expr)                    \
  do {                                                     \
    ::crawlrank::Status crawlrank_status_ = (expr);        \
    if (!crawlrank_status_.ok()) return crawlrank_status_; \
  } while (0)

// `CRAWLRANK_ASSIGN_OR_RETURN(auto x, Compute());` declares x from a Result's value, or
// returns its Status from the enclosing function.
#define CRAWLRANK_ASSIGN_OR_RETURN(lhs, expr) \
  CRAWLRANK_ASSIGN_OR_RETURN_IMPL_(CRAWLRANK_CONCAT_(crawlrank_result_, __LINE__), lhs, expr)
#define CRAWLRANK_ASSIGN_OR_RETURN_IMPL_(result, lhs, expr) \
  auto result = (expr);                                     \
  if (!result.ok()) return result.status();                 \
  lhs = std::move(result).value()

#endif  // CRAWLRANK_STATUS_H_
