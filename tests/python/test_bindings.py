"""crawlrank's Python package (the pybind11 module re-exported by `crawlrank`), checked
against independent expectations: w3lib for canonical URLs, networkx for ranks, hand
counts for the scheduler."""

from __future__ import annotations

import threading
import time

import networkx as nx
import numpy as np
import pytest
import w3lib.url

pytestmark = pytest.mark.needs_crawlrank


@pytest.fixture()
def cr():
    import crawlrank

    return crawlrank


def test_errors_form_one_hierarchy(cr, tmp_path):
    with pytest.raises(cr.InvalidArgumentError) as bad:
        cr.canonicalize_url("ftp://example.com/")
    assert isinstance(bad.value, cr.Error) and isinstance(bad.value, ValueError)
    assert bad.value.code == "InvalidArgument"
    assert "ftp://example.com/" in str(bad.value)
    with pytest.raises(cr.NotFoundError) as missing:
        cr.PageDb(str(tmp_path / "none"), create_if_missing=False)
    assert isinstance(missing.value, LookupError)
    assert str(tmp_path / "none") in str(missing.value)
    for name in ("AlreadyExistsError", "FailedPreconditionError", "ResourceExhaustedError",
                 "AbortedError", "UnavailableError", "DataLossError", "InternalError"):
        assert issubclass(getattr(cr, name), cr.Error)
    assert issubclass(cr.IoError, OSError)


@pytest.mark.parametrize("url", [
    "http://Example.COM:80/a/./b/../c?b=2&a=1#frag",
    "https://example.com/path%7Efoo/?q=%41",
    "http://example.com/a b",
])
def test_w3lib_profile_matches_w3lib(cr, url):
    assert cr.canonicalize_url(url, "w3lib") == w3lib.url.canonicalize_url(url)


def test_fingerprints_and_host_keys(cr):
    canonical = cr.canonicalize_url("HTTP://www.Example.co.uk/x#y")
    assert canonical == "http://www.example.co.uk/x"
    fp = cr.fingerprint(canonical)
    assert cr.parse_fingerprint(cr.format_fingerprint(fp)) == fp
    assert len(cr.format_fingerprint(fp)) == 16
    assert cr.host_key(canonical) == "www.example.co.uk"
    assert cr.host_key(canonical, "domain") == "example.co.uk"
    assert cr.resolve_url("http://h/dir/page", "../x?b=1&a=2", "w3lib") == "http://h/x?a=2&b=1"


def build_db(cr, path, edges):
    """A DB whose pages p0..pN link as `edges` (pairs of page numbers), crawled in order."""
    pages = sorted({n for e in edges for n in e})
    with cr.PageDb(str(path)) as db:
        db.add_batch([cr.CrawledPage(f"http://h{n % 3}.test/p{n}",
                                     [f"http://h{t % 3}.test/p{t}" for s, t in edges if s == n])
                      for n in pages])
    return pages


def test_page_db_records_links_and_snapshots(cr, tmp_path):
    with cr.PageDb(str(tmp_path / "db")) as db:
        rejected = db.add(cr.CrawledPage("http://a.test/", [("http://b.test/", 0.5),
                                                             "http://c.test/x",
                                                             "mailto:someone@a.test"],
                                         content_score=0.25, http_status=200))
        assert [url for url, _ in rejected] == ["mailto:someone@a.test"]
        assert "http://b.test/" in db and "http://z.test/" not in db
        a = db.find_url("http://A.test")
        assert (a.id, a.n_crawls, a.http_status, a.content_score) == (0, 1, 200, 0.25)
        b = db.find_url("http://b.test/")
        assert (b.id, b.crawled, b.depth, b.link_score) == (1, False, 1, 0.5)
        assert b.discovered_from == a.fingerprint == cr.fingerprint("http://a.test/")
        with db.snapshot() as snap:
            assert (snap.counters.pages, snap.counters.crawled_pages, snap.counters.edges) == (3, 1, 2)
            assert snap.links(0).tolist() == [1, 2] and snap.links(0).dtype == np.uint32
            sources, targets = snap.edges()
            assert sources.tolist() == [0, 0] and targets.tolist() == [1, 2]
            assert [r.url for r in snap.records(1)] == ["http://b.test/", "http://c.test/x"]
            assert len(snap) == 3
        with pytest.raises(cr.FailedPreconditionError, match="closed"):
            snap.find_id(0)
        with pytest.raises(cr.NotFoundError):
            db.find_url("http://nowhere.test/")
        assert db.info()["format_version"] == 10
        db.check()
        open_snapshot = db.snapshot()
    # Leaving the block closed the DB and the snapshot still open on it.
    assert db.closed and open_snapshot.closed
    with pytest.raises(cr.FailedPreconditionError, match=str(tmp_path / "db")):
        db.find_id(0)
    db.close()  # twice is fine
    with cr.PageDb(str(tmp_path / "db"), read_only=True) as again:
        assert again.read_only and again.find_id(2).url == "http://c.test/x"


def test_every_hosts_counters_come_back_from_a_large_db(cr, tmp_path):
    """hosts_totals() over 30,000 hosts (it once built Python objects with the GIL released,
    which crashed at that size): each host's counters are what was written to it."""
    hosts = 30_000
    with cr.PageDb(str(tmp_path / "db"), durability="none") as db:
        for first in range(0, hosts, 10_000):
            db.add_batch([cr.CrawledPage(f"http://h{i:05d}.test/", http_status=200 + (i % 2) * 204,
                                         wire_bytes=1000 + i) for i in range(first, first + 10_000)])
    # Per-host page counts are written at least once a second and at close (docs/format.md).
    with cr.PageDb(str(tmp_path / "db"), read_only=True) as db:
        with db.snapshot() as snap:
            totals = snap.hosts_totals()
            crawl = snap.crawl_totals()
    assert len(totals) == hosts
    for i in (0, 1, 12_345, hosts - 1):
        t = totals[f"h{i:05d}.test"]
        assert (t["pages"], t["crawled_pages"], t["wire_bytes"]) == (1, 1, 1000 + i)
        status_class = "2xx" if i % 2 == 0 else "4xx"
        assert {k: v for k, v in t["fetches"].items() if v} == {status_class: 1}
    assert sum(t["wire_bytes"] for t in totals.values()) == crawl["wire_bytes"]
    assert crawl["pages"] == hosts


def test_to_pandas_gives_every_page_and_link(cr, tmp_path):
    pandas = pytest.importorskip("pandas")
    with cr.PageDb(str(tmp_path / "db")) as db:
        db.add(cr.CrawledPage("http://a.test/", [("http://b.test/", 0.5), "http://c.test/x"],
                              content_score=0.25, http_status=200, crawl_time_ms=1_700_000_000_000))
        db.add(cr.CrawledPage("http://b.test/", ["http://a.test/"], http_status=404,
                              content_hash=2**64 - 1))
        pages = db.to_pandas()
        links = db.to_pandas("links")
        with pytest.raises(ValueError, match="nodes"):
            db.to_pandas("nodes")
        assert isinstance(pages, pandas.DataFrame) and pages.index.name == "id"
        assert pages.index.tolist() == [0, 1, 2]
        assert pages.loc[0, "url"] == "http://a.test/" and pages.loc[0, "first_crawl_ms"] == \
            1_700_000_000_000
        assert pages.loc[1, "link_score"] == 0.5 and pages.loc[1, "http_status"] == 404
        assert int(pages.loc[1, "content_hash"]) == 2**64 - 1  # unsigned, whole
        assert pages.loc[2, "n_crawls"] == 0 and pages.loc[0, "content_score"] == 0.25
        assert pages.loc[1, "fingerprint"] == cr.fingerprint("http://b.test/")
        assert sorted(zip(links.source, links.target)) == [(0, 1), (0, 2), (1, 0)]
        # No configuration stored: every page not crawled is pending.
        assert pages.state.tolist() == ["crawled", "crawled", "pending"]


def test_to_pandas_states_follow_the_stored_scope(cr, tmp_path):
    """Issue #41: a --same-host crawl's pages on other hosts are out of scope, not to do, in
    to_pandas() as in page_db_stats; a denied page is filtered."""
    pytest.importorskip("pandas")
    with cr.PageDb(str(tmp_path / "db")) as db:
        options = cr.SchedulerOptions(scope="same-host", scope_hosts=["a.test"],
                                      deny=["/private/"])
        db.write_config(cr.scheduler_config(options))
        db.add(cr.CrawledPage("http://a.test/", ["http://a.test/1", "http://a.test/private/2",
                                                 "http://b.test/3"], http_status=200))
        states = dict(zip(db.to_pandas().url, db.to_pandas().state))
    assert states == {"http://a.test/": "crawled", "http://a.test/1": "pending",
                      "http://a.test/private/2": "filtered", "http://b.test/3": "out_of_scope"}


def test_pagerank_matches_networkx(cr, tmp_path):
    rng = np.random.default_rng(12)
    print("seed 12")
    edges = sorted({(int(s), int(t)) for s, t in rng.integers(0, 60, size=(240, 2)) if s != t})
    pages = build_db(cr, tmp_path / "db", edges)
    with cr.PageDb(str(tmp_path / "db")) as db:
        rank = db.rank("pagerank", tolerance=1e-12, max_iterations=500, save=True)
        assert rank.converged and rank.pages == len(pages)
        ids = {db.find_url(f"http://h{n % 3}.test/p{n}").id: n for n in pages}
        graph = nx.DiGraph()
        graph.add_nodes_from(pages)
        graph.add_edges_from(edges)
        expected = nx.pagerank(graph, alpha=0.85, tol=1e-13, max_iter=1000)
        got = {ids[i]: rank.scores[i] for i in range(len(pages))}
        assert sum(abs(got[n] - expected[n]) for n in pages) < 1e-8
        # A read-only view of the result, not a copy; and the stored rank reads back.
        a, b = rank.scores, rank.scores
        assert np.shares_memory(a, b) and not a.flags.writeable
        del rank
        assert a.sum() == pytest.approx(1.0)  # the view keeps the result alive
        stored = db.load_rank("pagerank")
        assert np.array_equal(stored.scores, a)


def test_template_links_match_networkx_without_them(cr, tmp_path):
    # Hosts h0, h1, h2 (page n is on h{n % 3}); every page links to its host's first page
    # and to p5 (template links), and to 3 random pages. The rule of docs/ranking.md,
    # written again here: per source host with >= 10 pages with links, a target linked
    # from more than half of them loses all its links from that host.
    rng = np.random.default_rng(24)
    print("seed 24")
    edges = {(n, n % 3) for n in range(60)} | {(n, 5) for n in range(60)}
    edges |= {(n, int(t)) for n in range(60) for t in rng.integers(0, 60, size=3)}
    edges = sorted((s, t) for s, t in edges if s != t)
    pages = build_db(cr, tmp_path / "db", edges)
    sources = {h: {s for s, _ in edges if s % 3 == h} for h in range(3)}
    count = {}
    for s, t in edges:
        count[(s % 3, t)] = count.get((s % 3, t), 0) + 1
    kept = [(s, t) for s, t in edges
            if not (len(sources[s % 3]) >= 10 and count[(s % 3, t)] > 0.5 * len(sources[s % 3]))]
    assert len(edges) - len(kept) >= 110
    graph = nx.DiGraph()
    graph.add_nodes_from(pages)
    graph.add_edges_from(kept)
    expected = nx.pagerank(graph, alpha=0.85, tol=1e-13, max_iter=1000)
    with cr.PageDb(str(tmp_path / "db")) as db:
        ids = {db.find_url(f"http://h{n % 3}.test/p{n}").id: n for n in pages}
        for mode in ("stream", "csr"):
            rank = db.rank("pagerank", tolerance=1e-12, max_iterations=500, mode=mode,
                           template_links=True)
            assert rank.template_links and rank.links == len(kept)
            assert rank.template_links_dropped == len(edges) - len(kept)
            got = {ids[i]: rank.scores[i] for i in range(len(pages))}
            assert sum(abs(got[n] - expected[n]) for n in pages) < 1e-8
        assert db.load_rank("pagerank").template_links
        with pytest.raises(cr.InvalidArgumentError):
            db.rank("pagerank", template_links=True, template_share=1.0)
    options = cr.SchedulerOptions(rank_template_links=True, rank_template_share=0.75)
    assert options.rank_template_links and options.rank_template_share == 0.75
    assert options.rank_template_min_pages == 10


def test_scheduler_is_polite_and_finishes(cr, tmp_path):
    clock = cr.ManualClock(1_000_000)
    with cr.PageDb(str(tmp_path / "db")) as db:
        with pytest.raises(TypeError, match="min_delay"):
            cr.Scheduler(db, min_delay=5)
        sched = cr.Scheduler(db, clock=clock, score="breadth-first", delay_ms=1000,
                             per_host=2)
        sched.add_seeds(["http://a.test/", "http://a.test/2", "http://b.test/"])
        first = sched.next(10)
        # One request per host at a time: the second page of a.test waits for the delay.
        assert sorted(r.url for r in first) == ["http://a.test/", "http://b.test/"]
        assert sched.stats().next_ready_ms == 1_001_000
        assert sched.next(10) == []
        for r in first:
            links = ["http://b.test/new"] if r.host == "b.test" else []
            sched.crawled(cr.CrawledPage(r.url, links), r.lease)
        clock.advance(1000)
        second = sched.next(10)
        assert sorted(r.url for r in second) == ["http://a.test/2", "http://b.test/new"]
        new = next(r for r in second if r.host == "b.test")
        assert new.depth == 1
        sched.failed(new.url, new.lease, retryable=False, http_status=0, reason="refused")
        other = next(r for r in second if r.host == "a.test")
        with pytest.raises(TypeError, match="CrawlReports or"):
            sched.crawled_batch([other.url])
        with pytest.raises(cr.InvalidArgumentError, match="a link is a URL or"):
            cr.CrawledPage(other.url, [("http://x.test/", 1.0, "extra")])
        sched.crawled_batch([(cr.CrawledPage(other.url, [("http://a.test/2", 0.5)]), other.lease)])
        stats = sched.stats()
        assert (stats.crawled, stats.failed, stats.queued, stats.in_flight) == (3, 1, 0, 0)
        assert stats.finished and stats.to_dict()["finished"]
        view = cr.Scheduler.inspect(db, next=5, max_hosts=5)
        assert view["stats"]["crawled"] == 3
    assert sched.closed
    with pytest.raises(cr.FailedPreconditionError, match="closed"):
        sched.next(1)


def test_the_old_option_names_still_work_and_name_the_new_one(cr, tmp_path):
    """Issue #42: a knob has one name, its stored key's (delay_ms, per_host, allow, deny);
    the names the fields had before read and write the same field, with a warning."""
    options = cr.SchedulerOptions(delay_ms=250, per_host=3, allow=["a"], deny=["b"])
    renamed = {"min_delay_ms": ("delay_ms", 250, 0), "max_in_flight_per_host": ("per_host", 3, 5),
               "allow_patterns": ("allow", ["a"], ["c"]), "deny_patterns": ("deny", ["b"], [])}
    for old, (new, value, other) in renamed.items():
        with pytest.warns(DeprecationWarning, match=f"SchedulerOptions.{old} is now {new}"):
            assert getattr(options, old) == value
        with pytest.warns(DeprecationWarning, match=f"is now {new}"):
            setattr(options, old, other)
        assert getattr(options, new) == other
    # A keyword argument with the old name sets the new field (and warns once).
    with pytest.warns(DeprecationWarning, match="min_delay_ms is now delay_ms"):
        built = cr.SchedulerOptions(min_delay_ms=40)
    assert built.delay_ms == 40
    with cr.PageDb(str(tmp_path / "db")) as db, pytest.warns(DeprecationWarning):
        with cr.Scheduler(db, max_in_flight_per_host=7) as scheduler:
            assert scheduler.options.per_host == 7


def test_scheduler_payloads_and_priorities(cr, tmp_path):
    clock = cr.ManualClock(5_000)
    with cr.PageDb(str(tmp_path / "db")) as db:
        with cr.Scheduler(db, clock=clock, score="breadth-first", delay_ms=0,
                          per_host=10) as sched:
            sched.add_seeds([cr.QueuedExtra("http://a.test/low", b"low", 0),
                             cr.QueuedExtra("http://a.test/high", b"\x00high", 3),
                             "http://a.test/plain"])
            got = sched.next(1)
            assert [(r.url, r.payload, r.priority) for r in got] == [
                ("http://a.test/high", b"\x00high", 3)]
            sched.crawled(cr.CrawledPage(got[0].url, ["http://a.test/child", "http://a.test/low"]),
                          got[0].lease,
                          [cr.QueuedExtra("http://a.test/child", b"child", 1),
                           cr.QueuedExtra("http://a.test/low", b"ignored", 9)])
            rest = sched.next(10)
            assert [(r.url, r.payload) for r in rest] == [
                ("http://a.test/child", b"child"), ("http://a.test/low", b"low"),
                ("http://a.test/plain", b"")]


def test_calls_release_the_gil(cr, tmp_path):
    rng = np.random.default_rng(5)
    print("seed 5")
    n = 200_000
    with cr.PageDb(str(tmp_path / "db"), durability="none") as db:
        for start in range(0, n, 20_000):
            db.add_batch([cr.CrawledPage(f"http://h.test/{i}",
                                         [f"http://h.test/{j}" for j in rng.integers(0, n, 8)])
                          for i in range(start, start + 20_000)])
        done = threading.Event()
        ticks = 0

        def rank():
            db.rank("pagerank", tolerance=1e-10, max_iterations=60, mode="stream", save=False)
            done.set()

        worker = threading.Thread(target=rank)
        started = time.monotonic()
        worker.start()
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)
        worker.join()
        elapsed = time.monotonic() - started
    # While C++ ranked, this thread kept running: about one tick a millisecond.
    assert elapsed > 0.05, f"ranking took only {elapsed:.3f} s: too short to tell"
    assert ticks > elapsed * 1000 / 4, f"{ticks} ticks in {elapsed:.3f} s"


def test_stubs_match_the_module(cr):
    """_core.pyi names exactly what the module has, class by class."""
    import ast
    from pathlib import Path

    import crawlrank._core as core

    tree = ast.parse(Path(core.__file__).with_name("_core.pyi").read_text())
    stubbed: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            stubbed[node.name] = {
                n.name if isinstance(n, ast.FunctionDef) else n.target.id
                for n in node.body
                if isinstance(n, ast.FunctionDef) or (isinstance(n, ast.AnnAssign)
                                                       and isinstance(n.target, ast.Name))}
        elif isinstance(node, ast.FunctionDef):
            stubbed[node.name] = set()
        elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
              and not node.target.id.startswith("_")):
            stubbed[node.target.id] = set()  # a module constant (FAILURE_KINDS)
    public = {name for name in dir(core) if not name.startswith("_")}
    assert set(stubbed) - {"LinkLike"} == public
    for name, members in stubbed.items():
        for member in members - {"__init__", "__enter__", "__exit__", "__len__", "__contains__"}:
            assert hasattr(getattr(core, name), member), f"{name}.{member} is stubbed, not bound"


def test_objects_keep_their_page_db_alive(cr, tmp_path):
    """A Scheduler or Snapshot made from a PageDb nobody else holds keeps it open."""
    import gc

    sched = cr.Scheduler(cr.PageDb(str(tmp_path / "a")), delay_ms=0)
    gc.collect()
    sched.add_seeds(["http://a.test/"])
    assert [r.url for r in sched.next(5)] == ["http://a.test/"]
    with cr.PageDb(str(tmp_path / "b")) as db:
        db.add(cr.CrawledPage("http://b.test/", ["http://b.test/x"]))
    snap = cr.PageDb(str(tmp_path / "b"), read_only=True).snapshot()
    gc.collect()
    assert len(snap) == 2 and not snap.closed
    snap.close()
    assert snap.closed


def test_a_negative_crawl_time_is_refused_on_every_write_and_damages_nothing(cr, tmp_path):
    """Issue #23: crawl_time_ms=-5 used to be stored, then read back as damage by every
    writer and by page_db_dump. Each write path refuses it, naming field, value and URL."""
    bad = cr.CrawledPage("http://bad.test/", ["http://bad.test/x"], crawl_time_ms=-5)
    clock = cr.ManualClock(5_000)
    with cr.PageDb(str(tmp_path / "db")) as db:
        db.add(cr.CrawledPage("http://good.test/", crawl_time_ms=1_000))
        for write in (lambda: db.add(bad),
                      lambda: db.add_batch([cr.CrawledPage("http://other.test/"), bad])):
            with pytest.raises(cr.InvalidArgumentError) as refused:
                write()
            assert all(word in str(refused.value)
                       for word in ("crawl_time_ms", "-5", '"http://bad.test/"')), refused.value
        assert "http://bad.test/" not in db and "http://other.test/" not in db
        with cr.Scheduler(db, clock=clock, delay_ms=0) as sched:
            sched.add_seeds(["http://seed.test/"])
            (request,) = sched.next(1)
            with pytest.raises(cr.InvalidArgumentError, match=r'page "http://seed\.test/": crawl_time_ms is -5,'):
                sched.crawled(cr.CrawledPage(request.url, crawl_time_ms=-5), request.lease)
            assert not db.find_url("http://seed.test/").crawled
            sched.crawled(cr.CrawledPage(request.url, crawl_time_ms=6_000), request.lease)
        db.check()
    with cr.PageDb(str(tmp_path / "db")) as again:  # a writer opens it
        assert again.find_url("http://seed.test/").first_crawl_ms == 6_000
        again.add(cr.CrawledPage("http://after.test/"))
        with again.snapshot() as snap:
            assert [r.url for r in snap.records(0)][:2] == ["http://good.test/", "http://seed.test/"]
        again.check()
