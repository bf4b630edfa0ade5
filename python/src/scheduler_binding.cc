// Bindings of the scheduler (scheduler.h).
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/scheduler.h"

namespace crawlrank::python {
namespace {

class PyScheduler final : public Dependent {
 public:
  PyScheduler(std::shared_ptr<DbHandle> handle, const SchedulerOptions& options, py::object clock)
      : handle_(std::move(handle)), options_(options), clock_(std::move(clock)) {
    options_.clock = nullptr;  // the copy shown to Python keeps no pointer
    WithoutGil([&] {
      std::unique_lock lock(handle_->mu);
      scheduler_ = Take(Scheduler::Open(handle_->Get(), options));
      handle_->dependents.insert(this);
    });
  }
  ~PyScheduler() override {
    handle_->Unregister(this, [this] { scheduler_.reset(); });
  }
  PyScheduler(const PyScheduler&) = delete;
  PyScheduler& operator=(const PyScheduler&) = delete;

  void CloseForDb() override { scheduler_.reset(); }
  const SchedulerOptions& options() const { return options_; }
  void Close() {
    WithoutGil([&] {
      std::unique_lock lock(handle_->mu);
      scheduler_.reset();
    });
  }
  bool closed() {
    return WithoutGil([&] {
      std::shared_lock lock(handle_->mu);
      return scheduler_ == nullptr;
    });
  }

  // Runs fn(Scheduler&) with the GIL released and the DB held open.
  template <typename F>
  auto With(F&& fn) {
    return WithoutGil([&] {
      std::shared_lock lock(handle_->mu);
      if (scheduler_ == nullptr) {
        throw StatusError(FailedPreconditionError(
            "scheduler of " + DbHandle::PageDbName(handle_->path) + " is closed"));
      }
      return fn(*scheduler_);
    });
  }

 private:
  std::shared_ptr<DbHandle> handle_;
  SchedulerOptions options_;  // as opened
  py::object clock_;  // keeps a ManualClock alive while the scheduler reads it
  std::unique_ptr<Scheduler> scheduler_;
};

std::string ModeName(const SchedulerOptions& o) {
  return std::string(ScoreModeName(o.score));
}

// A copy of `options` (None: the defaults) with the keyword arguments set on it, each by
// the property of its name: TypeError for an unknown name.
SchedulerOptions OptionsOf(const py::object& options, const py::kwargs& kwargs) {
  py::object copy =
      py::cast(options.is_none() ? SchedulerOptions() : options.cast<SchedulerOptions>());
  for (auto [key, value] : kwargs) {
    const auto name = key.cast<std::string>();
    if (name.starts_with("_") || !py::hasattr(copy, name.c_str())) {
      throw py::type_error("unknown scheduler option '" + name + "'");
    }
    copy.attr(name.c_str()) = value;
  }
  return copy.cast<SchedulerOptions>();
}

std::vector<QueuedExtra> ExtrasOf(const py::iterable& items, bool* any_extra) {
  std::vector<QueuedExtra> out;
  for (py::handle item : items) {
    if (PyUnicode_Check(item.ptr())) {
      out.push_back({.url = item.cast<std::string>()});
    } else {
      out.push_back(item.cast<QueuedExtra>());
      *any_extra = true;
    }
  }
  return out;
}

// Reports given as CrawlReports or (page, lease[, extras]) tuples, each copied once.
std::vector<CrawlReport> ReportsOf(const py::iterable& items) {
  std::vector<CrawlReport> out;
  for (py::handle item : items) {
    if (py::isinstance<CrawlReport>(item)) {
      out.push_back(item.cast<const CrawlReport&>());
      continue;
    }
    if (!PyTuple_Check(item.ptr()) || (py::len(item) != 2 && py::len(item) != 3)) {
      throw py::type_error(
          "crawled_batch takes CrawlReports or (CrawledPage, lease[, extras]) "
          "tuples; got " +
          std::string(py::str(py::repr(item))));
    }
    auto t = py::reinterpret_borrow<py::tuple>(item);
    CrawlReport& report = out.emplace_back();
    report.page = t[0].cast<const CrawledPage&>();
    report.lease = t[1].cast<uint64_t>();
    if (t.size() == 3) report.extras = t[2].cast<std::vector<QueuedExtra>>();
  }
  return out;
}

py::dict StatsDict(const SchedulerStats& s) {
  py::dict d;
  ForEachStatsField([&](const char* name, auto field) { d[name] = s.*field; });
  return d;
}

// The names four fields had before issue #42 gave each knob one name (the stored key's):
// they still read and write the field, with a DeprecationWarning naming the new one.
template <typename T>
void DeprecatedName(py::class_<SchedulerOptions>& o, const char* old_name, const char* name,
                    T SchedulerOptions::*field) {
  const std::string message = std::string("SchedulerOptions.") + old_name + " is now " + name;
  const auto warn = [message] {
    if (PyErr_WarnEx(PyExc_DeprecationWarning, message.c_str(), 2) != 0) {
      throw py::error_already_set();
    }
  };
  o.def_property(
      old_name,
      [warn, field](const SchedulerOptions& s) {
        warn();
        return s.*field;
      },
      [warn, field](SchedulerOptions& s, const T& v) {
        warn();
        s.*field = v;
      },
      message.c_str());
}

void BindDeprecatedNames(py::class_<SchedulerOptions>& o) {
  DeprecatedName(o, "min_delay_ms", "delay_ms", &SchedulerOptions::delay_ms);
  DeprecatedName(o, "max_in_flight_per_host", "per_host", &SchedulerOptions::per_host);
  DeprecatedName(o, "allow_patterns", "allow", &SchedulerOptions::allow);
  DeprecatedName(o, "deny_patterns", "deny", &SchedulerOptions::deny);
}

void BindOptions(py::module_& m) {
  py::class_<SchedulerOptions> o(
      m, "SchedulerOptions",
      "Options of a Scheduler; every field has the C++ default (crawlrank/scheduler.h "
      "documents each). Build with keywords: SchedulerOptions(delay_ms=0, score='opic').");
  o.def(py::init([](const py::kwargs& kwargs) { return OptionsOf(py::none(), kwargs); }))
      .def_property(
          "score", &ModeName,
          [](SchedulerOptions& s, std::string_view name) { s.score = Take(ParseScoreMode(name)); },
          "'blend' (default: partial PageRank with RankMass), 'link-score', "
          "'breadth-first', 'random', 'opic', 'indegree', 'pagerank', 'ppr', 'trustrank', "
          "'hits', 'topic-hits', 'wpr', 'topical' (best-first on link scores, ties by "
          "relevance)")
      .def_property(
          "host_key",
          [](const SchedulerOptions& s) {
            return std::string(s.host_key == HostKeyMode::kHost ? "host" : "domain");
          },
          [](SchedulerOptions& s, std::string_view name) { s.host_key = HostKeyModeOf(name); },
          "'host' (default) or 'domain' (registered domain): what one politeness budget covers")
      .def_readwrite("delay_ms", &SchedulerOptions::delay_ms)
      .def_readwrite("per_host", &SchedulerOptions::per_host)
      .def_readwrite("busy_delay_ms", &SchedulerOptions::busy_delay_ms)
      .def_readwrite("hold_ms", &SchedulerOptions::hold_ms)
      .def_readwrite("max_hold_ms", &SchedulerOptions::max_hold_ms)
      .def_readwrite("lease_ms", &SchedulerOptions::lease_ms)
      .def_readwrite("retry_ms", &SchedulerOptions::retry_ms)
      .def_readwrite("max_retries", &SchedulerOptions::max_retries)
      .def_readwrite("allowed_schemes", &SchedulerOptions::allowed_schemes)
      .def_property(
          "scope", [](const SchedulerOptions& s) { return std::string(CrawlScopeName(s.scope)); },
          [](SchedulerOptions& s, std::string_view name) { s.scope = Take(ParseCrawlScope(name)); },
          "'any' (default), 'same-host' or 'same-domain': the hosts scope_hosts names, or "
          "those and the names under them")
      .def_readwrite("scope_hosts", &SchedulerOptions::scope_hosts)
      .def_readwrite("allow", &SchedulerOptions::allow)
      .def_readwrite("deny", &SchedulerOptions::deny)
      .def_readwrite("revisits", &SchedulerOptions::revisits)
      .def_readwrite("min_revisit_ms", &SchedulerOptions::min_revisit_ms)
      .def_readwrite("max_revisit_ms", &SchedulerOptions::max_revisit_ms)
      .def_readwrite("revisit_share", &SchedulerOptions::revisit_share)
      .def_readwrite("max_depth", &SchedulerOptions::max_depth)
      .def_readwrite("max_pages", &SchedulerOptions::max_pages)
      .def_readwrite("max_pages_per_host", &SchedulerOptions::max_pages_per_host)
      .def_readwrite("rerank_growth", &SchedulerOptions::rerank_growth)
      .def_readwrite("rerank_min_new_pages", &SchedulerOptions::rerank_min_new_pages)
      .def_readwrite("rerank_graph_growth", &SchedulerOptions::rerank_graph_growth,
                     "re-rank when links + crawled pages grew by this share (default "
                     "0.02; 0: off)")
      .def_readwrite("rerank_min_graph_growth", &SchedulerOptions::rerank_min_graph_growth)
      .def_readwrite("rerank_interval_ms", &SchedulerOptions::rerank_interval_ms)
      .def_readwrite("background_rerank", &SchedulerOptions::background_rerank)
      .def_readwrite("rerank_batch", &SchedulerOptions::rerank_batch)
      .def_property(
          "rank_threads", [](const SchedulerOptions& s) { return s.rank.threads; },
          [](SchedulerOptions& s, unsigned v) { s.rank.threads = v; }, "threads of each re-rank")
      .def_property(
          "rank_damping", [](const SchedulerOptions& s) { return s.rank.damping; },
          [](SchedulerOptions& s, double v) { s.rank.damping = v; })
      .def_property(
          "rank_tolerance", [](const SchedulerOptions& s) { return s.rank.tolerance; },
          [](SchedulerOptions& s, double v) { s.rank.tolerance = v; })
      .def_property(
          "rank_template_links",
          [](const SchedulerOptions& s) { return s.rank.template_links.drop; },
          [](SchedulerOptions& s, bool v) { s.rank.template_links.drop = v; },
          "re-ranks drop the links a host puts on most of its pages (docs/ranking.md)")
      .def_property(
          "rank_template_share",
          [](const SchedulerOptions& s) { return s.rank.template_links.share; },
          [](SchedulerOptions& s, double v) { s.rank.template_links.share = v; })
      .def_property(
          "rank_template_min_pages",
          [](const SchedulerOptions& s) { return s.rank.template_links.min_pages; },
          [](SchedulerOptions& s, uint32_t v) { s.rank.template_links.min_pages = v; });
  BindDeprecatedNames(o);
}

void BindConfig(py::module_& m) {
  m.def(
      "scheduler_config", [](const SchedulerOptions& o) { return Take(SchedulerConfig(o)); },
      py::arg("options"),
      "The stored configuration keys of a SchedulerOptions, as a dict of str "
      "(crawlrank/crawl_config.h).");
  m.def(
      "apply_config",
      [](const StoredConfig& config, SchedulerOptions& o) {
        Check(ApplySchedulerConfig(config, &o));
      },
      py::arg("config"), py::arg("options"),
      "Sets on `options`, in place, each scheduler key of `config`; InvalidArgumentError "
      "naming a key whose value does not parse.");
  m.def(
      "merge_config",
      [](const StoredConfig& stored, const StoredConfig& given) {
        std::vector<ConfigChange> changes;
        StoredConfig merged = MergeConfig(stored, given, &changes);
        return py::make_tuple(merged, DescribeChanges(changes), changes.size());
      },
      py::arg("stored"), py::arg("given"),
      "(merged, description, number of changes): `stored` with `given` over it, and one "
      "line naming what changed ('delay_ms 1000 -> 0'). A new scope drops the stored "
      "scope_hosts.");
}

void BindFailures(py::module_& m) {
  py::list kinds;
  ForEachFailureKind([&](FailureKind kind) { kinds.append(std::string(FailureKindName(kind))); });
  m.attr("FAILURE_KINDS") = py::tuple(kinds);
  py::class_<FailedPage>(m, "FailedPage",
                         "A page failed for good (PageDb.failed_pages): url, id, kind (one of "
                         "FAILURE_KINDS), detail, http_status (0: no answer), attempts, "
                         "failed_ms (Unix ms; 0 when a format version 3 DB kept it).")
      .def_readonly("url", &FailedPage::url)
      .def_readonly("id", &FailedPage::id)
      .def_property_readonly("kind",
                             [](const FailedPage& p) { return std::string(FailureKindName(p.kind)); })
      .def_readonly("detail", &FailedPage::detail)
      .def_readonly("http_status", &FailedPage::http_status)
      .def_readonly("attempts", &FailedPage::attempts)
      .def_readonly("failed_ms", &FailedPage::failed_ms)
      .def("__repr__", [](const FailedPage& p) {
        return "FailedPage(url='" + p.url + "', kind='" + std::string(FailureKindName(p.kind)) +
               "', http_status=" + std::to_string(p.http_status) +
               ", attempts=" + std::to_string(p.attempts) + ")";
      });
}

void BindValues(py::module_& m) {
  BindFailures(m);
  BindConfig(m);
  py::class_<QueuedExtra>(m, "QueuedExtra",
                          "A page to queue with what the crawler wants back with it (an opaque "
                          "payload, e.g. a serialised Scrapy request) and its priority: the "
                          "queue orders by (priority, score). Applies only to a page the call "
                          "creates (the first request for a URL wins).")
      .def(py::init([](std::string url, py::bytes payload, int32_t priority) {
             return QueuedExtra{.url = std::move(url), .payload = payload, .priority = priority};
           }),
           py::arg("url"), py::arg("payload") = py::bytes(), py::arg("priority") = 0)
      .def_readwrite("url", &QueuedExtra::url)
      .def_property(
          "payload", [](const QueuedExtra& e) { return py::bytes(e.payload); },
          [](QueuedExtra& e, py::bytes b) { e.payload = b; })
      .def_readwrite("priority", &QueuedExtra::priority);

  py::class_<Request>(m, "Request", "A page handed out by Scheduler.next, under a lease.")
      .def_readonly("url", &Request::url)
      .def_readonly("fingerprint", &Request::fingerprint)
      .def_readonly("depth", &Request::depth)
      .def_readonly("score", &Request::score)
      .def_readonly("lease", &Request::lease, "give it back to crawled() or failed()")
      .def_readonly("host", &Request::host, "the politeness key")
      .def_readonly("revisit", &Request::revisit)
      .def_property_readonly(
          "payload", [](const Request& r) { return py::bytes(r.payload); },
          "what the page was queued with (b'' for none, and for revisits)")
      .def_readonly("priority", &Request::priority)
      .def("__repr__", [](const Request& r) {
        return "Request(url='" + r.url + "', lease=" + std::to_string(r.lease) +
               ", depth=" + std::to_string(r.depth) + ")";
      });

  py::class_<CrawlReport>(m, "CrawlReport", "A fetched page and the lease it ends.")
      .def(py::init([](CrawledPage page, uint64_t lease, std::vector<QueuedExtra> extras,
                       int64_t refetch_at_ms) {
             return CrawlReport{.page = std::move(page),
                                .lease = lease,
                                .extras = std::move(extras),
                                .refetch_at_ms = refetch_at_ms};
           }),
           py::arg("page"), py::arg("lease") = 0, py::arg("extras") = std::vector<QueuedExtra>(),
           py::arg("refetch_at_ms") = 0)
      .def_readwrite("page", &CrawlReport::page)
      .def_readwrite("lease", &CrawlReport::lease)
      .def_readwrite("extras", &CrawlReport::extras)
      .def_readwrite("refetch_at_ms", &CrawlReport::refetch_at_ms,
                     "When to fetch the page again (Unix ms), whatever the revisit options "
                     "say; 0: none, the revisit options decide.");

  py::class_<SchedulerStats> stats(m, "SchedulerStats", "Scheduler.stats(): counts and times.");
  ForEachStatsField([&](const char* name, auto field) { stats.def_readonly(name, field); });
  // The one field a reader needs told: what -1 means.
  stats.def_readonly("next_ready_ms", &SchedulerStats::next_ready_ms,
                     "when the next request may be handed out; -1 when finished");
  stats
      .def("to_dict", &StatsDict)
      .def("__repr__", [](const SchedulerStats& s) {
        return "SchedulerStats(queued=" + std::to_string(s.queued) +
               ", in_flight=" + std::to_string(s.in_flight) +
               ", crawled=" + std::to_string(s.crawled) + ", failed=" + std::to_string(s.failed) +
               ", finished=" + (s.finished ? "True" : "False") + ")";
      });
}

py::dict ViewDict(const ScheduleView& v) {
  py::dict d;
  d["now_ms"] = v.now_ms;
  py::list next, flight, hosts;
  for (const auto& p : v.next) next.append(py::make_tuple(p.url, p.score, p.host));
  for (const auto& f : v.in_flight)
    flight.append(py::make_tuple(f.url, f.lease, f.expiry_ms, f.host));
  for (const auto& h : v.hosts) {
    py::dict e;
    e["key"] = h.key;
    e["ready_ms"] = h.ready_ms;
    e["hold_until_ms"] = h.hold_until_ms;
    e["in_flight"] = h.in_flight;
    e["queued"] = h.queued;
    e["done"] = h.done;
    e["delay_ms"] = h.delay_ms;
    hosts.append(e);
  }
  d["next"] = next;
  d["in_flight"] = flight;
  d["hosts"] = hosts;
  d["stats"] = StatsDict(v.stats);
  return d;
}

void BindSchedulerClass(py::module_& m) {
  py::class_<PyScheduler>(
      m, "Scheduler",
      "Hands out the best uncrawled pages that their hosts allow now, under leases, and "
      "takes back what the crawler reports. One per PageDb (opened for writing).\n\n"
      "Scheduler(db, options=None, clock=None, **option_fields). Every call releases the "
      "GIL and may come from any thread. A page handed out is never lost: until crawled() "
      "or failed() acknowledges it, it is leased; an expired lease, or a restart, puts it "
      "back in the queue. close() ends it (PageDb.close() does too).")
      .def(py::init([](py::handle db, const py::object& options, py::object clock,
                       const py::kwargs& kwargs) {
             SchedulerOptions o = OptionsOf(options, kwargs);
             if (!clock.is_none()) o.clock = &clock.cast<ManualClock&>();
             return std::make_unique<PyScheduler>(HandleOf(db), o, std::move(clock));
           }),
           // The scheduler keeps its PageDb object alive (a dropped PageDb would close it).
           py::keep_alive<1, 2>(), py::arg("db"), py::arg("options") = py::none(),
           py::arg("clock") = py::none())
      .def(
          "add_seeds",
          [](PyScheduler& s, const py::iterable& items) {
            bool any_extra = false;
            std::vector<QueuedExtra> seeds = ExtrasOf(items, &any_extra);
            s.With([&](Scheduler& sched) {
              if (any_extra) {
                Check(sched.AddSeeds(seeds));
              } else {
                std::vector<std::string> urls;
                urls.reserve(seeds.size());
                for (QueuedExtra& e : seeds) urls.push_back(std::move(e.url));
                Check(sched.AddSeeds(urls));
              }
              return 0;
            });
          },
          py::arg("seeds"),
          "Adds pages at depth 0: URLs, or QueuedExtra for a payload and priority. Pages "
          "already known keep their state. A URL that cannot be canonicalised fails the "
          "whole call (InvalidArgumentError naming it).")
      .def(
          "next",
          [](PyScheduler& s, size_t n) {
            return s.With([&](Scheduler& sched) { return Take(sched.Next(n)); });
          },
          py::arg("n"),
          "Up to n Requests, best first, each from a host that may take one now; [] when "
          "none is ready (stats() says when one will be, or that the crawl is finished).")
      .def(
          "crawled",
          [](PyScheduler& s, CrawledPage page, uint64_t lease, std::vector<QueuedExtra> extras) {
            CrawlReport report{
                .page = std::move(page), .lease = lease, .extras = std::move(extras)};
            s.With([&](Scheduler& sched) {
              Check(sched.Crawled(report));
              return 0;
            });
          },
          py::arg("page"), py::arg("lease") = 0, py::arg("extras") = std::vector<QueuedExtra>(),
          "Records a fetched page, its links and the pages they create (with `extras` for "
          "those), and ends its lease, in one transaction.")
      .def(
          "crawled_batch",
          [](PyScheduler& s, const py::iterable& items) {
            std::vector<CrawlReport> reports = ReportsOf(items);
            s.With([&](Scheduler& sched) {
              Check(sched.CrawledBatch(reports));
              return 0;
            });
          },
          py::arg("reports"),
          "Several reports in one transaction (much cheaper per page): CrawlReports, or "
          "(CrawledPage, lease) and (CrawledPage, lease, extras) tuples, which skip building "
          "a CrawlReport.")
      .def(
          "failed",
          [](PyScheduler& s, std::string url, uint64_t lease, bool retryable, uint16_t http_status,
             std::optional<int64_t> retry_after_ms, std::string reason,
             std::optional<std::string> kind) {
            FailureReport report{.url = std::move(url),
                                 .lease = lease,
                                 .retryable = retryable,
                                 .http_status = http_status,
                                 .retry_after_ms = retry_after_ms,
                                 .reason = std::move(reason),
                                 .kind = kind ? FailureKindOf(*kind) : FailureKind::kOther};
            s.With([&](Scheduler& sched) {
              Check(sched.Failed(report));
              return 0;
            });
          },
          py::arg("url"), py::arg("lease") = 0, py::kw_only(), py::arg("retryable") = true,
          py::arg("http_status") = 0, py::arg("retry_after_ms") = std::nullopt,
          py::arg("reason") = "", py::arg("kind") = py::none(),
          "Ends the lease of a page that could not be fetched: retried with back-off, or "
          "failed for good (retryable=False, or after max_retries). A 429/503 holds its host "
          "(for retry_after_ms when given). `kind` is one of FAILURE_KINDS ('timeout', "
          "'connect', 'http-5xx', ...); None files it by its HTTP status.")
      .def(
          "record_progress",
          [](PyScheduler& s) {
            s.With([&](Scheduler& sched) {
              Check(sched.RecordProgress());
              return 0;
            });
          },
          "Appends a progress sample now (SchedulerOptions.progress_interval_ms apart "
          "otherwise), so that the crawl's last sample is its end; the front ends call it at "
          "close. One transaction.")
      .def(
          "requeue",
          [](PyScheduler& s, std::optional<std::string> kind, std::optional<std::string> host,
             std::optional<std::string> url_regex, std::vector<std::string> urls) {
            const FailureFilter filter = FailureFilterOf(kind, host, url_regex, std::move(urls));
            return s.With([&](Scheduler& sched) { return Take(sched.Requeue(filter)); });
          },
          py::kw_only(), py::arg("kind") = py::none(), py::arg("host") = py::none(),
          py::arg("url_regex") = py::none(), py::arg("urls") = std::vector<std::string>(),
          "Puts the pages failed for good that match every filter given back in the queue, "
          "with fresh retries; returns how many. One transaction.")
      .def(
          "set_crawl_delay",
          [](PyScheduler& s, std::string host, int64_t delay_ms) {
            s.With([&](Scheduler& sched) {
              Check(sched.SetCrawlDelay(host, delay_ms));
              return 0;
            });
          },
          py::arg("host"), py::arg("delay_ms"), "A host's crawl delay; 0 restores the default.")
      .def(
          "set_host_group",
          [](PyScheduler& s, std::string host, std::string group) {
            s.With([&](Scheduler& sched) {
              Check(sched.SetHostGroup(host, group));
              return 0;
            });
          },
          py::arg("host"), py::arg("group"),
          "Puts a host into a politeness group ('' takes it out).")
      .def_property_readonly(
          "options", [](const PyScheduler& s) { return s.options(); },
          "A copy of the SchedulerOptions it was opened with (the clock left out).")
      .def("stats",
           [](PyScheduler& s) { return s.With([](Scheduler& sched) { return sched.GetStats(); }); })
      .def(
          "rerank",
          [](PyScheduler& s) {
            s.With([](Scheduler& sched) {
              Check(sched.Rerank());
              return 0;
            });
          },
          "Recomputes the ranks now (rank score modes).")
      .def_static(
          "inspect",
          [](py::handle db, size_t next, size_t max_hosts, const py::object& options,
             const py::kwargs& kwargs) {
            std::shared_ptr<DbHandle> handle = HandleOf(db);
            py::object base = options;
            if (options.is_none()) {  // the crawl's own options, as the tools read them
              base = py::cast(WithDb(*handle, [&](PageDb& pdb) {
                return Take(StoredSchedulerOptions(pdb));
              }));
            }
            SchedulerOptions o = OptionsOf(base, kwargs);
            return ViewDict(WithDb(*handle, [&](PageDb& pdb) {
              return Take(Scheduler::Inspect(pdb, o, next, max_hosts));
            }));
          },
          py::arg("db"), py::arg("next") = 10, py::arg("max_hosts") = 10,
          py::arg("options") = py::none(),
          "The schedule as `options` would order it, from a snapshot (a read-only open works "
          "beside a crawl): a dict with next, in_flight, hosts and stats. Without `options`, "
          "the crawl's stored configuration (PageDb.config), with keyword fields over it.")
      .def("close", &PyScheduler::Close, "Ends the scheduler; leases in flight stay leased.")
      .def_property_readonly("closed", &PyScheduler::closed)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyScheduler& s, const py::args&) { s.Close(); });
}

}  // namespace

void BindScheduler(py::module_& m) {
  BindOptions(m);
  BindValues(m);
  BindSchedulerClass(m);
}

}  // namespace crawlrank::python
