// Bindings of the PageDB (page_db.h) and its ranks (db_rank.h, rank_store.h); its records
// and snapshots are snapshot_binding.cc's.
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
#include "crawlrank/global_rank.h"
#include "crawlrank/page_standing.h"
#include "crawlrank/rank_store.h"
#include "crawlrank/scheduler.h"
#include "page_db_objects.h"

namespace crawlrank::python {
namespace {

Durability DurabilityOf(std::string_view name) {
  if (name == "sync") return Durability::kSync;
  if (name == "periodic") return Durability::kPeriodic;
  if (name == "none") return Durability::kNone;
  throw StatusError(InvalidArgumentError("durability \"" + std::string(name) +
                                         "\": expected \"sync\", \"periodic\" or \"none\""));
}

py::list RejectedList(const AddReport& report) {
  py::list out;
  for (const auto& r : report.rejected_links)
    out.append(py::make_tuple(r.url, r.reason.ToString()));
  return out;
}

// The rank stored under `name`: the display rank, or an algorithm's.
Result<StoredRank> LoadNamedRank(const std::string& db_path, std::string_view name) {
  CRAWLRANK_ASSIGN_OR_RETURN(const StoredRankName parsed, ParseStoredRankName(name));
  return LoadRank(db_path, parsed.file, parsed.algorithm);
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
  // A node of a cluster lists its own pages: its ghosts are their owners' to list.
  CRAWLRANK_ASSIGN_OR_RETURN(filter.excluded, Scheduler::GhostPages(db, snapshot));
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
      .def_property_readonly(
          "global_run",
          [](const PyRank& r) -> py::object {
            const auto& g = r.get().global;
            if (!g.has_value()) return py::none();
            py::dict d;
            d["run"] = g->run_id;
            d["node"] = g->shard;
            d["nodes"] = g->shards;
            d["pages"] = g->total.pages;
            d["crawled_pages"] = g->total.crawled_pages;
            d["edges"] = g->total.edges;
            return d;
          },
          "a cluster's global rank ('global-pagerank', ...): {run, node, nodes, and the whole "
          "graph's pages, crawled_pages, edges}; None for a rank of one PageDB")
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
              // A cluster node's PageDB holds its share of a crawl: crawled alone, never.
              Check(RefuseClusterNode(Take(db.ReadConfig()), db.path()));
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
          "front end resolves it (crawlrank/crawl_config.h, ResolveConfig). Raises for a "
          "cluster node's PageDB (RefuseClusterNode): it is served, not crawled alone.")
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
          "The rank stored with the DB ('display', an algorithm, or 'global-' and an algorithm: "
          "a cluster's global rank, crawlrank_rank_mpi); NotFoundError when none was "
          "computed.")
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
