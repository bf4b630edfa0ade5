// Bindings of the PageDB's records (page_types.h) and of its snapshots (page_db.h).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/page_standing.h"
#include "crawlrank/scheduler.h"
#include "page_db_objects.h"

namespace crawlrank::python {
namespace {

// The crawl's counters (crawl_counters.h) as a dict: page counts, fetches by status class
// and failures by kind (each a dict by name), bytes and milliseconds.
py::dict CountersDict(const CrawlCounters& c) {
  py::dict fetches, failures;
  for (size_t i = 0; i < kStatusClasses; ++i) {
    fetches[py::str(std::string(StatusClassName(static_cast<StatusClass>(i))))] = c.fetches[i];
  }
  ForEachFailureKind([&](FailureKind kind) {
    failures[py::str(std::string(FailureKindName(kind)))] = c.failures_of(kind);
  });
  py::dict d;
  d["pages"] = c.pages;
  d["crawled_pages"] = c.crawled_pages;
  d["failed_pages"] = c.failed_pages;
  d["fetches"] = fetches;
  d["failures"] = failures;
  d["wire_bytes"] = c.wire_bytes;
  d["decoded_bytes"] = c.decoded_bytes;
  d["fetch_ms"] = c.fetch_ms;
  return d;
}

// Text a stranger wrote (a title, a header), as str: bytes that are not UTF-8 are replaced.
py::str Text(const std::string& s) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

py::dict SampleDict(const ProgressSample& s) {
  py::dict d;
  d["time_ms"] = s.time_ms;
  d["crawled_pages"] = s.crawled_pages;
  d["fetches"] = s.fetches;
  d["failures"] = s.failures;
  d["wire_bytes"] = s.wire_bytes;
  d["queued"] = s.queued;
  d["in_flight"] = s.in_flight;
  return d;
}

// The UTF-8 bytes of a str without a copy (CPython caches them in the object).
std::string_view Utf8Of(PyObject* text) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text, &size);
  if (data == nullptr) throw py::error_already_set();
  return {data, static_cast<size_t>(size)};
}

// Links given as URLs or (URL, score) pairs. The hot path of every crawl report: strings
// are read through the C API, not through pybind11's casters (a quarter of the cost).
std::vector<Link> LinksOf(const py::iterable& links) {
  std::vector<Link> out;
  py::object sequence =
      py::reinterpret_steal<py::object>(PySequence_Fast(links.ptr(), "links must be iterable"));
  if (!sequence) throw py::error_already_set();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence.ptr());
  PyObject** items = PySequence_Fast_ITEMS(sequence.ptr());
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    if (PyUnicode_Check(item)) {
      out.push_back({std::string(Utf8Of(item)), 0.f});
      continue;
    }
    auto pair = py::reinterpret_borrow<py::sequence>(item);
    if (!PySequence_Check(item) || pair.size() != 2 || !PyUnicode_Check(pair[0].ptr())) {
      throw StatusError(InvalidArgumentError("a link is a URL or a (URL, score) pair; got " +
                                             std::string(py::str(py::repr(py::handle(item))))));
    }
    out.push_back({std::string(Utf8Of(pair[0].ptr())), pair[1].cast<float>()});
  }
  return out;
}

py::list LinkList(const std::vector<Link>& links) {
  py::list out;
  for (const Link& l : links) out.append(py::make_tuple(l.url, l.score));
  return out;
}

py::array_t<uint32_t> ArrayOf(const std::vector<uint32_t>& values) {
  py::array_t<uint32_t> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace

void BindRecords(py::module_& m) {
  py::class_<PageRecord>(m, "PageRecord", "Everything the PageDB knows about one page.")
      .def_readonly("fingerprint", &PageRecord::fingerprint, "fingerprint(url)")
      .def_readonly("id", &PageRecord::id, "dense page id, in discovery order")
      .def_readonly("url", &PageRecord::url, "canonical URL")
      .def_readonly("depth", &PageRecord::depth, "link distance from a seed at discovery")
      .def_readonly("discovered_from", &PageRecord::discovered_from,
                    "fingerprint of the page that linked here first; 0: none")
      .def_readonly("first_crawl_ms", &PageRecord::first_crawl_ms, "0 when never crawled")
      .def_readonly("last_crawl_ms", &PageRecord::last_crawl_ms)
      .def_readonly("n_crawls", &PageRecord::n_crawls)
      .def_readonly("n_changes", &PageRecord::n_changes,
                    "recrawls whose content hash differed from the last one")
      .def_readonly("content_score", &PageRecord::content_score)
      .def_readonly("link_score", &PageRecord::link_score, "max over the in-links")
      .def_readonly("content_hash", &PageRecord::content_hash)
      .def_readonly("http_status", &PageRecord::http_status, "0 when never crawled")
      .def_readonly("n_errors", &PageRecord::n_errors)
      .def_property_readonly("crawled", &PageRecord::crawled)
      .def("__eq__", [](const PageRecord& a, const PageRecord& b) { return a == b; })
      .def("__repr__", [](const PageRecord& r) {
        return "PageRecord(id=" + std::to_string(r.id) + ", url='" + r.url +
               "', depth=" + std::to_string(r.depth) + ", n_crawls=" + std::to_string(r.n_crawls) +
               ", http_status=" + std::to_string(r.http_status) + ")";
      });

  py::class_<PageDbCounters>(m, "Counters")
      .def_readonly("pages", &PageDbCounters::pages, "known pages, crawled or only linked to")
      .def_readonly("crawled_pages", &PageDbCounters::crawled_pages)
      .def_readonly("edges", &PageDbCounters::edges, "stored links")
      .def("__repr__", [](const PageDbCounters& c) {
        return "Counters(pages=" + std::to_string(c.pages) +
               ", crawled_pages=" + std::to_string(c.crawled_pages) +
               ", edges=" + std::to_string(c.edges) + ")";
      });

  py::class_<CrawledPage>(m, "CrawledPage",
                          "What a crawler reports about one fetched page. `links` are absolute "
                          "URLs, or (URL, link score) pairs.")
      .def(py::init([](std::string url, const py::iterable& links, float content_score,
                       uint64_t content_hash, uint16_t http_status, int64_t crawl_time_ms,
                       std::string content_type, uint64_t wire_bytes, uint64_t decoded_bytes,
                       uint32_t fetch_ms, std::string title) {
             return CrawledPage{.url = std::move(url),
                                .crawl_time_ms = crawl_time_ms,
                                .content_score = content_score,
                                .content_hash = content_hash,
                                .http_status = http_status,
                                .fetch = {.content_type = std::move(content_type),
                                          .wire_bytes = wire_bytes,
                                          .decoded_bytes = decoded_bytes,
                                          .fetch_ms = fetch_ms,
                                          .title = std::move(title)},
                                .links = LinksOf(links)};
           }),
           py::arg("url"), py::arg("links") = py::tuple(), py::arg("content_score") = 0.f,
           py::arg("content_hash") = 0, py::arg("http_status") = 200, py::arg("crawl_time_ms") = 0,
           py::kw_only(), py::arg("content_type") = "", py::arg("wire_bytes") = 0,
           py::arg("decoded_bytes") = 0, py::arg("fetch_ms") = 0, py::arg("title") = "")
      .def_readwrite("url", &CrawledPage::url)
      .def_readwrite("crawl_time_ms", &CrawledPage::crawl_time_ms,
                     "Unix ms, 0 (now) to the end of year 9999")
      .def_readwrite("content_score", &CrawledPage::content_score)
      .def_readwrite("content_hash", &CrawledPage::content_hash)
      .def_readwrite("http_status", &CrawledPage::http_status)
      // The fetch's details (FetchInfo, format version 7): kept as the page's last fetch.
      .def_property(
          "content_type", [](const CrawledPage& p) { return p.fetch.content_type; },
          [](CrawledPage& p, std::string v) { p.fetch.content_type = std::move(v); })
      .def_property(
          "wire_bytes", [](const CrawledPage& p) { return p.fetch.wire_bytes; },
          [](CrawledPage& p, uint64_t v) { p.fetch.wire_bytes = v; })
      .def_property(
          "decoded_bytes", [](const CrawledPage& p) { return p.fetch.decoded_bytes; },
          [](CrawledPage& p, uint64_t v) { p.fetch.decoded_bytes = v; })
      .def_property(
          "fetch_ms", [](const CrawledPage& p) { return p.fetch.fetch_ms; },
          [](CrawledPage& p, uint32_t v) { p.fetch.fetch_ms = v; })
      .def_property(
          "title", [](const CrawledPage& p) { return p.fetch.title; },
          [](CrawledPage& p, std::string v) { p.fetch.title = std::move(v); })
      .def_property(
          "links", [](const CrawledPage& p) { return LinkList(p.links); },
          [](CrawledPage& p, const py::iterable& links) { p.links = LinksOf(links); },
          "[(url, score), ...]")
      .def("__repr__", [](const CrawledPage& p) {
        return "CrawledPage(url='" + p.url + "', links=" + std::to_string(p.links.size()) +
               " links, http_status=" + std::to_string(p.http_status) + ")";
      });
}

void BindSnapshot(py::module_& m) {
  py::class_<PySnapshot>(
      m, "Snapshot",
      "A consistent read-only view of a PageDB at one moment. Keep it short-lived (a "
      "`with` block): it pins the pages it sees, and the writer cannot grow the map while "
      "a snapshot of this process is open.")
      .def_property_readonly("counters",
                             [](PySnapshot& s) {
                               return s.With([](const Snapshot& snap) { return snap.counters(); });
                             })
      .def(
          "find",
          [](PySnapshot& s, uint64_t fingerprint) {
            return s.With([&](const Snapshot& snap) { return Take(snap.Find(fingerprint)); });
          },
          py::arg("fingerprint"), "The record of a fingerprint; NotFoundError when absent.")
      .def(
          "find_url",
          [](PySnapshot& s, std::string_view url) {
            return s.With([&](const Snapshot& snap) { return Take(snap.FindUrl(url)); });
          },
          py::arg("url"), "The record of a URL (canonicalised with the DB's profile).")
      .def(
          "find_id",
          [](PySnapshot& s, uint32_t id) {
            return s.With([&](const Snapshot& snap) { return Take(snap.FindId(id)); });
          },
          py::arg("id"))
      .def(
          "links",
          [](PySnapshot& s, uint32_t id) {
            return ArrayOf(s.With([&](const Snapshot& snap) { return Take(snap.Links(id)); }));
          },
          py::arg("id"), "The out-links of a page as a numpy uint32 array of page ids.")
      .def(
          "edges",
          [](PySnapshot& s) {
            std::vector<uint32_t> sources, targets;
            s.With([&](const Snapshot& snap) {
              Check(snap.ScanEdges([&](const EdgeChunk& chunk) {
                uint32_t begin = 0;
                for (size_t i = 0; i < chunk.size(); ++i) {
                  for (uint32_t j = begin; j < chunk.ends[i]; ++j) {
                    sources.push_back(chunk.sources[i]);
                    targets.push_back(chunk.targets[j]);
                  }
                  begin = chunk.ends[i];
                }
                return Status::Ok();
              }));
              return 0;
            });
            return py::make_tuple(ArrayOf(sources), ArrayOf(targets));
          },
          "Every link as two numpy uint32 arrays (sources, targets), in source order.")
      .def(
          "states",
          [](PySnapshot& s) {
            return s.WithDb([&](const PageDb& db, const Snapshot& snap) {
              const SchedulerOptions stored = Take(StoredSchedulerOptions(db));
              const PageStandings standings = Take(ReadPageStandings(db, snap, stored));
              std::vector<std::string> names(standings.by_id.size());
              for (uint32_t id = 0; id < names.size(); ++id) names[id] = standings.NameOf(id);
              return names;
            });
          },
          "Where each page stands, by page id, as the crawl's stored configuration judges "
          "it: 'crawled', 'pending', 'failed:KIND', 'removed', 'out_of_scope' (a host outside "
          "its scope) or 'filtered' (a pattern, the scheme, max_depth); what page_db_dump "
          "--all prints and page_db_stats counts.")
      .def(
          "records",
          [](PySnapshot& s, uint32_t start, std::optional<uint32_t> count) {
            return s.With([&](const Snapshot& snap) {
              std::vector<PageRecord> out;
              const uint64_t pages = snap.counters().pages;
              const uint64_t end =
                  count ? std::min<uint64_t>(pages, uint64_t{start} + *count) : pages;
              for (uint64_t id = start; id < end; ++id) {
                out.push_back(Take(snap.FindId(static_cast<uint32_t>(id))));
              }
              return out;
            });
          },
          py::arg("start") = 0, py::arg("count") = std::nullopt,
          "The records of pages start, start + 1, ... (count of them, or to the end).")
      .def(
          "crawl_totals",
          [](PySnapshot& s) {
            return CountersDict(
                s.With([](const Snapshot& snap) { return Take(snap.CrawlTotals()); }));
          },
          "The whole crawl's counters: pages, crawled_pages, failed_pages, fetches (by status "
          "class), failures (by kind), wire_bytes, decoded_bytes, fetch_ms. Zeros before "
          "format version 7.")
      .def(
          "host_totals",
          [](PySnapshot& s, std::string_view host) {
            return CountersDict(
                s.With([&](const Snapshot& snap) { return Take(snap.HostTotals(host)); }));
          },
          py::arg("host"), "One host's counters, as crawl_totals.")
      .def(
          "hosts_totals",
          [](PySnapshot& s) {
            // Read without the GIL, then turned into Python objects with it.
            std::vector<std::pair<std::string, CrawlCounters>> hosts;
            s.With([&](const Snapshot& snap) {
              Check(snap.ForEachHostTotals([&](std::string_view host, const CrawlCounters& c) {
                hosts.emplace_back(host, c);
                return Status::Ok();
              }));
              return 0;
            });
            py::dict out;
            for (const auto& [host, counters] : hosts) out[py::str(host)] = CountersDict(counters);
            return out;
          },
          "Every host's counters: {host: counters}.")
      .def(
          "fetch_of",
          [](PySnapshot& s, uint32_t id) -> py::object {
            Result<FetchInfo> info = s.With([&](const Snapshot& snap) { return snap.FetchOf(id); });
            if (info.status().code() == StatusCode::kNotFound) return py::none();
            const FetchInfo f = Take(std::move(info));
            py::dict d;
            d["content_type"] = Text(f.content_type);
            d["wire_bytes"] = f.wire_bytes;
            d["decoded_bytes"] = f.decoded_bytes;
            d["fetch_ms"] = f.fetch_ms;
            d["title"] = Text(f.title);
            return d;
          },
          py::arg("id"), "The last fetch's details of a page (a dict), or None.")
      .def(
          "progress",
          [](PySnapshot& s, int64_t since_ms) {
            py::list out;
            for (const ProgressSample& sample : s.With([&](const Snapshot& snap) {
                   return Take(snap.Progress(since_ms));
                 })) {
              out.append(SampleDict(sample));
            }
            return out;
          },
          py::arg("since_ms") = 0,
          "The progress samples from since_ms on, in time order: dicts of time_ms, "
          "crawled_pages, fetches, failures, wire_bytes, queued, in_flight.")
      .def("__len__",
           [](PySnapshot& s) {
             return s.With([](const Snapshot& snap) { return snap.counters().pages; });
           })
      .def("close", &PySnapshot::Close, "Ends the snapshot; later calls raise.")
      .def_property_readonly("closed", &PySnapshot::closed)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PySnapshot& s, const py::args&) { s.Close(); });
}

}  // namespace crawlrank::python
