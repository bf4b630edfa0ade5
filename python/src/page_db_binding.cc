// Bindings of the PageDB (page_db.h), its snapshots and records, and its ranks
// (db_rank.h, rank_store.h).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core.h"
#include "crawlrank/best_pages.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/crawl_end.h"
#include "crawlrank/db_rank.h"
#include "crawlrank/page_standing.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/scheduler.h"

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

Durability DurabilityOf(std::string_view name) {
  if (name == "sync") return Durability::kSync;
  if (name == "periodic") return Durability::kPeriodic;
  if (name == "none") return Durability::kNone;
  throw StatusError(InvalidArgumentError("durability \"" + std::string(name) +
                                         "\": expected \"sync\", \"periodic\" or \"none\""));
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

py::list RejectedList(const AddReport& report) {
  py::list out;
  for (const auto& r : report.rejected_links)
    out.append(py::make_tuple(r.url, r.reason.ToString()));
  return out;
}

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

// The rank stored under `name`: the display rank, or an algorithm's.
Result<StoredRank> LoadNamedRank(const std::string& db_path, std::string_view name) {
  if (name == kDisplayRankName) return LoadRank(db_path, name, RankAlgorithm::kPageRank);
  CRAWLRANK_ASSIGN_OR_RETURN(const RankAlgorithm algorithm, ParseRankAlgorithm(name));
  return LoadRank(db_path, algorithm);
}

// PageDb.top: the n best pages by a stored rank, as (url, score), best first.
Result<std::vector<std::pair<std::string, double>>> TopPages(const PageDb& db, size_t n,
                                                              std::string_view by,
                                                              std::optional<bool> crawled) {
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredRank stored, LoadNamedRank(db.path(), by));
  if (!crawled.has_value() && by == kDisplayRankName) crawled = true;
  BestPagesFilter filter;
  if (crawled.has_value()) filter.pages = *crawled ? PagesShown::kFetchedOk : PagesShown::kUncrawled;
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, db.NewSnapshot());
  CRAWLRANK_ASSIGN_OR_RETURN(std::vector<BestPage> best,
                             BestPages(snapshot, stored.rank.scores, n, filter));
  std::vector<std::pair<std::string, double>> top;
  for (BestPage& page : best) top.emplace_back(std::move(page.record.url), page.score);
  return top;
}

// A read-only numpy view of `values`, which `owner` keeps alive.
py::array ViewOf(const std::vector<double>& values, py::handle owner) {
  py::array out(py::dtype::of<double>(), {static_cast<py::ssize_t>(values.size())},
                {static_cast<py::ssize_t>(sizeof(double))}, values.data(), owner);
  out.attr("setflags")(py::arg("write") = false);
  return out;
}

py::array_t<uint32_t> ArrayOf(const std::vector<uint32_t>& values) {
  py::array_t<uint32_t> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

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

void BindRank(py::module_& m) {
  py::class_<PyRank>(m, "Rank",
                     "A computed or stored rank: scores by page id (a read-only numpy view, "
                     "no copy) and how it was computed.")
      .def_property_readonly(
          "algorithm",
          [](const PyRank& r) { return std::string(RankAlgorithmName(r.get().rank.algorithm)); })
      .def_property_readonly(
          "scores",
          [](py::object self) {
            return ViewOf(self.cast<const PyRank&>().get().rank.scores, self);
          },
          "numpy float64 array by page id; sums to 1 (in-degree: counts; HITS: authorities)")
      .def_property_readonly(
          "hubs",
          [](py::object self) -> py::object {
            const auto& hubs = self.cast<const PyRank&>().get().rank.hubs;
            if (hubs.empty()) return py::none();
            return ViewOf(hubs, self);
          },
          "HITS hubs, or None")
      .def_property_readonly("iterations",
                             [](const PyRank& r) { return r.get().rank.report.iterations; })
      .def_property_readonly("residual",
                             [](const PyRank& r) { return r.get().rank.report.residual; })
      .def_property_readonly("converged",
                             [](const PyRank& r) { return r.get().rank.report.converged; })
      .def_property_readonly("seconds", [](const PyRank& r) { return r.get().rank.report.seconds; })
      .def_property_readonly(
          "mode",
          [](const PyRank& r) { return std::string(RankModeName(r.get().rank.report.mode)); })
      .def_property_readonly("pages", [](const PyRank& r) { return r.get().rank.report.pages; })
      .def_property_readonly("links", [](const PyRank& r) { return r.get().rank.report.links; })
      .def_property_readonly("cross_host_only",
                             [](const PyRank& r) { return r.get().cross_host_only; })
      .def_property_readonly(
          "template_links",
          [](const PyRank& r) { return r.get().rank.options.template_links.drop; },
          "whether template links were dropped (also for a rank read back from its file)")
      .def_property_readonly(
          "template_links_dropped",
          [](const PyRank& r) { return r.get().rank.report.template_links; },
          "links dropped as template links by this run (0 for a rank read from its file)")
      .def_property_readonly("created_ms", [](const PyRank& r) { return r.get().created_ms; })
      .def_property_readonly(
          "graph", [](const PyRank& r) -> std::optional<PageDbCounters> { return r.get().graph; },
          "the DB's Counters when it was ranked (pages, crawled_pages, edges: every stored "
          "link); None when unknown (a rank file of format version 1)")
      .def("__repr__", [](const PyRank& r) {
        const auto& report = r.get().rank.report;
        return "Rank(" + std::string(RankAlgorithmName(r.get().rank.algorithm)) +
               ", pages=" + std::to_string(report.pages) +
               ", iterations=" + std::to_string(report.iterations) +
               ", converged=" + (report.converged ? "True" : "False") + ")";
      });
}

RankMode RankModeOf(std::string_view name) {
  if (name == "auto") return RankMode::kAuto;
  if (name == "stream") return RankMode::kStream;
  if (name == "csr") return RankMode::kCsr;
  throw StatusError(InvalidArgumentError("rank mode \"" + std::string(name) +
                                         "\": expected \"auto\", \"stream\" or \"csr\""));
}

void BindPageDbClass(py::module_& m) {
  py::class_<PyPageDb>(
      m, "PageDb",
      "A crawl's page database (an LMDB directory): pages by fingerprint, their crawl "
      "metadata and their links.\n\n"
      "One writer process at a time (a second gets FailedPreconditionError); read-only opens "
      "work beside it. Open a DB once per process; its threads share the object (calls "
      "release the GIL). close() (or leaving a `with` block) closes the snapshots and the "
      "scheduler still open on it first. Durability: by default a call that returned is on "
      "disk within sync_interval_ms; a crash of the process loses nothing that returned.")
      .def(py::init([](const std::string& path, bool create_if_missing, bool error_if_exists,
                       bool read_only, bool upgrade, std::string_view url_profile,
                       std::string_view durability, int64_t sync_interval_ms,
                       uint64_t initial_map_size) {
             PageDbOptions options;
             options.create_if_missing = create_if_missing;
             options.error_if_exists = error_if_exists;
             options.read_only = read_only;
             options.upgrade = upgrade;
             options.url_profile = Take(ParseUrlProfile(url_profile));
             options.durability = DurabilityOf(durability);
             options.sync_interval = std::chrono::milliseconds(sync_interval_ms);
             options.initial_map_size = initial_map_size;
             auto handle = std::make_shared<DbHandle>();
             handle->path = path;
             WithoutGil([&] { handle->db = Take(PageDb::Open(path, options)); });
             return std::make_unique<PyPageDb>(std::move(handle));
           }),
           py::arg("path"), py::kw_only(), py::arg("create_if_missing") = true,
           py::arg("error_if_exists") = false, py::arg("read_only") = false,
           py::arg("upgrade") = false, py::arg("url_profile") = "rfc3986",
           py::arg("durability") = "periodic", py::arg("sync_interval_ms") = 1000,
           py::arg("initial_map_size") = uint64_t{256} << 20,
           "Opens or creates the PageDB in directory `path`. url_profile ('rfc3986' or "
           "'w3lib') applies to a new DB only; durability is 'sync', 'periodic' or 'none'.")
      .def_property_readonly("path", [](PyPageDb& d) { return d.handle().path; })
      .def_property_readonly("url_profile",
                             [](PyPageDb& d) {
                               return std::string(UrlProfileName(WithDb(
                                   d.handle(), [](PageDb& db) { return db.url_profile(); })));
                             })
      .def_property_readonly(
          "read_only",
          [](PyPageDb& d) { return WithDb(d.handle(), [](PageDb& db) { return db.read_only(); }); })
      .def_property_readonly("closed", &PyPageDb::closed)
      .def(
          "add",
          [](PyPageDb& d, const CrawledPage& page) {
            AddReport report;
            WithDb(d.handle(), [&](PageDb& db) {
              Check(db.Add(page, &report));
              return 0;
            });
            return RejectedList(report);
          },
          py::arg("page"),
          "Records one fetched page and its links in one transaction. Returns the links that "
          "could not be stored as [(url, reason)]. A field out of bounds (crawl_time_ms below "
          "0, a score that is not finite, an http_status above 999) raises InvalidArgumentError "
          "naming it, and nothing is written.")
      .def(
          "add_batch",
          [](PyPageDb& d, const std::vector<CrawledPage>& pages) {
            AddReport report;
            WithDb(d.handle(), [&](PageDb& db) {
              Check(db.AddBatch(pages, &report));
              return 0;
            });
            return RejectedList(report);
          },
          py::arg("pages"),
          "Records many pages in one transaction (much faster than add each); a page add "
          "would refuse fails the whole batch, and nothing is written.")
      .def(
          "sync",
          [](PyPageDb& d) {
            WithDb(d.handle(), [](PageDb& db) {
              Check(db.Sync());
              return 0;
            });
          },
          "Forces everything committed so far to stable storage.")
      .def(
          "snapshot", [](PyPageDb& d) { return PySnapshot::Open(d.shared()); },
          // The snapshot keeps its PageDb object alive (a dropped PageDb would close it).
          py::keep_alive<0, 1>(), "A consistent read view; use it in a `with` block.")
      .def(
          "find",
          [](PyPageDb& d, uint64_t fp) {
            return WithDb(d.handle(), [&](PageDb& db) { return Take(db.Find(fp)); });
          },
          py::arg("fingerprint"))
      .def(
          "find_url",
          [](PyPageDb& d, std::string_view url) {
            return WithDb(d.handle(), [&](PageDb& db) { return Take(db.FindUrl(url)); });
          },
          py::arg("url"), "The record of a URL; NotFoundError when the DB does not have it.")
      .def(
          "find_id",
          [](PyPageDb& d, uint32_t id) {
            return WithDb(d.handle(), [&](PageDb& db) { return Take(db.FindId(id)); });
          },
          py::arg("id"))
      .def(
          "__contains__",
          [](PyPageDb& d, std::string_view url) {
            return WithDb(d.handle(), [&](PageDb& db) {
              Result<PageRecord> r = db.FindUrl(url);
              if (r.ok()) return true;
              if (r.status().code() == StatusCode::kNotFound) return false;
              throw StatusError(r.status());
            });
          },
          py::arg("url"), "Whether the DB has the page of this URL.")
      .def(
          "failed_pages",
          [](PyPageDb& d, std::optional<std::string> kind, std::optional<std::string> host) {
            const FailureFilter filter = FailureFilterOf(kind, host);
            return WithDb(d.handle(), [&](PageDb& db) {
              return Take(Scheduler::FailedPages(db, filter));
            });
          },
          py::arg("kind") = py::none(), py::arg("host") = py::none(),
          "The pages failed for good (FailedPage), in id order, those of one kind and/or "
          "host when given. Reads a snapshot: works on a read-only PageDb beside a crawl.")
      .def(
          "config",
          [](PyPageDb& d) {
            return WithDb(d.handle(), [](PageDb& db) { return Take(db.ReadConfig()); });
          },
          "The crawl's stored configuration as a dict of str (crawlrank/crawl_config.h: "
          "numbers in decimal, lists one item a line); empty when nothing is stored.")
      .def(
          "resolve_config",
          [](PyPageDb& d, const StoredConfig& given, bool reset, const std::string& hint) {
            // The Python objects are made once the GIL is held again.
            auto [resolved, line] = WithDb(d.handle(), [&](PageDb& db) {
              ResolvedConfig r = Take(ResolveConfig(db, given, reset));
              std::string said = r.Line(db.path(), hint);
              return std::pair(std::move(r), std::move(said));
            });
            return py::make_tuple(std::move(resolved.config), std::move(line),
                                  resolved.changes.size());
          },
          py::arg("given"), py::arg("reset") = false, py::arg("hint") = "",
          "(config, line, number of changes): the stored configuration (set aside when "
          "`reset`) with `given` (the keys the user gave this run) over it, and the one line "
          "a front end logs ('' for a new crawl; `hint` says how to override it), as every "
          "front end resolves it (crawlrank/crawl_config.h, ResolveConfig).")
      .def(
          "write_config",
          [](PyPageDb& d, const StoredConfig& config) {
            WithDb(d.handle(), [&](PageDb& db) {
              Check(db.WriteConfig(config));
              return 0;
            });
          },
          py::arg("config"),
          "Replaces the stored configuration with `config` (a dict of str) in one "
          "transaction; {} clears it.")
      .def(
          "info",
          [](PyPageDb& d) {
            PageDbInfo info = WithDb(d.handle(), [](PageDb& db) { return Take(db.Info()); });
            py::dict out;
            out["path"] = info.path;
            out["format_version"] = info.format_version;
            out["url_profile"] = std::string(UrlProfileName(info.url_profile));
            out["hash"] = info.hash;
            out["created_ms"] = info.created_ms;
            out["pages"] = info.counters.pages;
            out["crawled_pages"] = info.counters.crawled_pages;
            out["edges"] = info.counters.edges;
            out["map_size"] = info.map_size;
            out["file_bytes"] = info.file_bytes;
            return out;
          },
          "The header, counters and sizes as a dict.")
      .def(
          "check",
          [](PyPageDb& d, bool full) {
            WithDb(d.handle(), [&](PageDb& db) {
              Check(db.Check(full ? PageDb::CheckLevel::kFull : PageDb::CheckLevel::kQuick));
              return 0;
            });
          },
          py::arg("full") = true, "Raises DataLossError naming the first damage found.")
      .def(
          "compact_to",
          [](PyPageDb& d, const std::string& dir) {
            WithDb(d.handle(), [&](PageDb& db) {
              Check(db.CompactTo(dir));
              return 0;
            });
          },
          py::arg("dir"), "Writes a compacted, checked copy into `dir`.")
      .def(
          "rank_crawl_end",
          [](PyPageDb& d, std::optional<SchedulerOptions> options) {
            auto [seconds, mode_rank] = WithDb(d.handle(), [&](PageDb& db) {
              const SchedulerOptions used =
                  options.has_value() ? *options : Take(StoredSchedulerOptions(db));
              const CrawlEndRanks ranks = Take(RankCrawlEnd(db, used));
              return std::pair(ranks.seconds,
                               ranks.mode_rank ? std::string(RankAlgorithmName(
                                                     ranks.mode_rank->rank.algorithm))
                                               : std::string());
            });
            return py::make_tuple(seconds, mode_rank);
          },
          py::arg("options") = py::none(),
          "Computes and saves the ranks a crawl leaves at its end, as every front end does "
          "(crawlrank/crawl_end.h): the score mode's own rank when it ranks, then the "
          "display rank; `options` are the crawl's (Scheduler.options), by default its "
          "stored configuration. Returns (seconds both took, the score mode's rank's "
          "algorithm name, '' for an online mode). Releases the GIL.")
      .def(
          "rank",
          [](PyPageDb& d, std::string_view algorithm, double damping, double tolerance,
             uint32_t max_iterations, unsigned threads, std::string_view mode, bool cross_host_only,
             bool warm_start, bool save, std::vector<uint64_t> trusted, bool template_links,
             double template_share, uint32_t template_min_pages) {
            DbRankOptions options;
            options.rank.damping = damping;
            options.rank.tolerance = tolerance;
            options.rank.max_iterations = max_iterations;
            options.rank.threads = threads;
            options.rank.mode = RankModeOf(mode);
            options.cross_host_only = cross_host_only;
            options.rank.template_links.drop = template_links;
            options.rank.template_links.share = template_share;
            options.rank.template_links.min_pages = template_min_pages;
            options.warm_start = warm_start;
            options.save = save;
            options.trusted = std::move(trusted);
            if (algorithm == kDisplayRankName) {  // PageRank without template links, its own file
              return std::make_unique<PyRank>(WithDb(
                  d.handle(), [&](PageDb& db) { return Take(RankForDisplay(db, options)); }));
            }
            const RankAlgorithm algo = Take(ParseRankAlgorithm(algorithm));
            return std::make_unique<PyRank>(WithDb(
                d.handle(), [&](PageDb& db) { return Take(RankPageDb(db, algo, options)); }));
          },
          py::arg("algorithm") = "pagerank", py::kw_only(), py::arg("damping") = 0.85,
          py::arg("tolerance") = 1e-6, py::arg("max_iterations") = 100, py::arg("threads") = 1,
          py::arg("mode") = "auto", py::arg("cross_host_only") = false,
          py::arg("warm_start") = false, py::arg("save") = true,
          py::arg("trusted") = std::vector<uint64_t>(), py::arg("template_links") = false,
          py::arg("template_share") = TemplateLinkOptions().share,
          py::arg("template_min_pages") = TemplateLinkOptions().min_pages,
          "Ranks the DB's link graph ('display', 'pagerank', 'ppr', 'trustrank', 'hits', "
          "'topic-hits', 'wpr', 'indegree') from one snapshot, and saves it with the DB unless "
          "save=False. 'display' is PageRank without template links, saved as "
          "ranks/display.rank: the rank the lists people read use (top()). "
          "Works on a read-only open beside a crawl. template_links=True drops the links a "
          "host puts on more than template_share of its pages with links, on hosts with at "
          "least template_min_pages of them (docs/ranking.md, \"Template links\").")
      .def(
          "load_rank",
          [](PyPageDb& d, std::string_view algorithm) {
            return std::make_unique<PyRank>(WithDb(d.handle(), [&](PageDb& db) {
              return Take(LoadNamedRank(db.path(), algorithm));
            }));
          },
          py::arg("algorithm") = "pagerank",
          "The rank stored with the DB ('display' or an algorithm); NotFoundError when none "
          "was computed.")
      .def(
          "top",
          [](PyPageDb& d, size_t n, std::string_view by, std::optional<bool> crawled) {
            return WithDb(d.handle(), [&](PageDb& db) {
              return Take(TopPages(db, n, by, crawled));
            });
          },
          py::arg("n") = 10, py::kw_only(), py::arg("by") = kDisplayRankName,
          py::arg("crawled") = py::none(),
          "The n best pages by the stored rank `by` as (url, score) pairs, best first, ties to "
          "the lower page id. crawled=True: pages crawled with a 2xx answer only (the default "
          "for 'display', whose lists are the crawl's pages); False: pages not crawled only; "
          "None (other ranks): every page. NotFoundError when the rank was never computed "
          "(db.rank('display') computes it; every front end does when a crawl ends).")
      .def("close", &PyPageDb::Close,
           "Closes the snapshots and the scheduler open on the DB, then the DB (syncing it). "
           "Safe to call twice.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyPageDb& d, const py::args&) { d.Close(); })
      .def("__repr__", [](PyPageDb& d) { return "PageDb('" + d.handle().path + "')"; });
}

}  // namespace

// The scheduler binding needs the handle of a PageDb object.
std::shared_ptr<DbHandle> HandleOf(py::handle page_db) {
  return page_db.cast<PyPageDb&>().shared();
}

void BindPageDb(py::module_& m) {
  // pybind11 2.10 looks numpy's C API up once, on the first array it makes, inside a
  // function-local static whose initialisation imports numpy with the GIL held. The
  // import lets the GIL go; a second thread then takes it and waits on the static's
  // guard, which the first thread, waiting for the GIL back, never releases: threads
  // whose first numpy call came before any `import numpy` hung. Making the two dtypes here,
  // while the module is imported, runs that set-up once and before any thread can race it.
  (void)py::dtype::of<double>();
  (void)py::dtype::of<uint32_t>();
  BindRecords(m);
  BindSnapshot(m);
  BindRank(m);
  BindPageDbClass(m);
}

}  // namespace crawlrank::python
