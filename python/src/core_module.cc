// crawlrank._core: the module, its exceptions and the URL functions. The PageDB and the
// scheduler are bound in page_db_binding.cc and scheduler_binding.cc.
#include <Python.h>
#include <cxxabi.h>

#include <array>
#include <chrono>
#include <string>
#include <string_view>
#include <thread>

#include "core.h"
#include "crawlrank/clock.h"
#include "crawlrank/url.h"
#include "crawlrank/version.h"

namespace crawlrank::python {
namespace {

struct ErrorClass {
  StatusCode code;
  const char* name;
  PyObject* extra_base;  // a builtin it also derives from, or nullptr
  const char* doc;
};

// The Python class raised for a code: looked up on the module, so no state lives in C++.
py::object ErrorClassFor(StatusCode code) {
  py::module_ core = py::module_::import("crawlrank._core");
  return core.attr("_ERROR_CLASSES")[py::int_(static_cast<int>(code))];
}

}  // namespace

void BindErrors(py::module_& m) {
  const std::array<ErrorClass, 10> classes = {{
      {StatusCode::kInvalidArgument, "InvalidArgumentError", PyExc_ValueError,
       "The input is wrong (a URL that cannot be canonicalised, an option out of range); "
       "retrying the same call fails again."},
      {StatusCode::kNotFound, "NotFoundError", PyExc_LookupError,
       "The page, DB or file asked for does not exist."},
      {StatusCode::kAlreadyExists, "AlreadyExistsError", nullptr,
       "It exists and must not be replaced (a DB with error_if_exists, a fingerprint "
       "collision)."},
      {StatusCode::kFailedPrecondition, "FailedPreconditionError", nullptr,
       "The system is not in a state for this call: the writer lock is held by another "
       "process, the DB is read-only, closed, or of another format version."},
      {StatusCode::kResourceExhausted, "ResourceExhaustedError", nullptr,
       "Out of disk, memory or map space."},
      {StatusCode::kAborted, "AbortedError", nullptr,
       "A concurrent actor got in the way; retrying may succeed."},
      {StatusCode::kUnavailable, "UnavailableError", nullptr, "Transient: retry later."},
      {StatusCode::kDataLoss, "DataLossError", nullptr,
       "Stored data is damaged or unreadable (page_db_check tells more)."},
      {StatusCode::kInternal, "InternalError", nullptr,
       "A bug or a broken invariant inside crawlrank or a dependency."},
      {StatusCode::kIoError, "IoError", PyExc_OSError,
       "The operating system refused a file operation."},
  }};
  py::object base = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "crawlrank.Error",
      "Base of every crawlrank error. `code` names the crawlrank status code "
      "(e.g. 'NotFound'); the message says which file, key or URL and why.",
      PyExc_Exception, nullptr));
  if (!base) throw py::error_already_set();
  base.attr("code") = "Unknown";
  m.attr("Error") = base;
  py::dict by_code;
  for (const ErrorClass& c : classes) {
    py::tuple bases = c.extra_base != nullptr ? py::make_tuple(base, py::handle(c.extra_base))
                                              : py::make_tuple(base);
    const std::string qualified = std::string("crawlrank.") + c.name;
    py::object cls = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc(qualified.c_str(), c.doc, bases.ptr(), nullptr));
    if (!cls) throw py::error_already_set();
    cls.attr("code") = std::string(StatusCodeName(c.code));
    m.attr(c.name) = cls;
    by_code[py::int_(static_cast<int>(c.code))] = cls;
  }
  m.attr("_ERROR_CLASSES") = by_code;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      py::object cls = ErrorClassFor(e.status().code());
      PyErr_SetString(cls.ptr(), e.status().message().c_str());
    }
  });
}

void RetakeGil(PyThreadState* state) {
  try {
    PyEval_RestoreThread(state);
  } catch (abi::__forced_unwind&) {
    // The interpreter is going away under this thread, which never runs Python code again.
    // The unwind is never finished, so it need not be rethrown; the thread holds no lock of
    // ours (WithoutGil's callers take theirs inside fn).
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

namespace {

UrlProfile ProfileOf(std::string_view name) {
  return Take(ParseUrlProfile(name));
}

void BindUrls(py::module_& m) {
  m.def(
      "canonicalize_url",
      [](std::string_view url, std::string_view profile) {
        return Take(CanonicalizeUrl(url, ProfileOf(profile)));
      },
      py::arg("url"), py::arg("profile") = "rfc3986",
      "The canonical form of an absolute http(s) URL under a profile ('rfc3986' or "
      "'w3lib': the latter equals w3lib.url.canonicalize_url, which Scrapy's request "
      "fingerprints use). InvalidArgumentError says why a URL is refused.");
  m.def(
      "resolve_url",
      [](std::string_view base, std::string_view reference, std::string_view profile) {
        return Take(ResolveUrl(base, reference, ProfileOf(profile)));
      },
      py::arg("base"), py::arg("reference"), py::arg("profile") = "rfc3986",
      "Resolves an href against the URL of its page and canonicalises the result ('w3lib' "
      "resolves as urllib.parse.urljoin, which Scrapy uses).");
  m.def(
      "fingerprint", [](std::string_view canonical_url) { return UrlFingerprint(canonical_url); },
      py::arg("canonical_url"),
      "The 64-bit page key (XXH3, seed 0) of a canonical URL: canonicalise first.");
  m.def("format_fingerprint", &FormatFingerprint, py::arg("fingerprint"),
        "A fingerprint as 16 lower-case hex digits.");
  m.def(
      "parse_fingerprint", [](std::string_view hex) { return Take(ParseFingerprint(hex)); },
      py::arg("hex"), "The inverse of format_fingerprint.");
  m.def(
      "host_key",
      [](std::string_view canonical_url, std::string_view mode) {
        return Take(HostKey(canonical_url, HostKeyModeOf(mode)));
      },
      py::arg("canonical_url"), py::arg("mode") = "host",
      "The politeness key of a canonical URL: its host ('host') or its registered domain "
      "('domain', from the Public Suffix List).");
}

void BindClock(py::module_& m) {
  py::class_<ManualClock>(m, "ManualClock",
                          "A clock that moves only when told, for tests and simulations: "
                          "give it to a Scheduler and nothing waits for real time.")
      .def(py::init<int64_t>(), py::arg("start_ms") = 0)
      .def("now_ms", &ManualClock::NowMs, "Unix time in ms, as the clock has it.")
      .def("set", &ManualClock::Set, py::arg("ms"))
      .def("advance", &ManualClock::Advance, py::arg("ms"));
  m.def("unix_now_ms", &UnixNowMs, "The system clock as Unix time in milliseconds.");
}

}  // namespace
}  // namespace crawlrank::python

PYBIND11_MODULE(_core, m) {
  using namespace crawlrank::python;
  m.doc() =
      "crawlrank's C++ core: the PageDB, ranks, the scheduler and URL keys. Import it "
      "through the crawlrank package, which re-exports everything here.";
  m.attr("__version__") = CRAWLRANK_VERSION_STRING;
  BindErrors(m);
  BindUrls(m);
  BindClock(m);
  BindPageDb(m);
  BindScheduler(m);
}
