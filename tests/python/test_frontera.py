"""crawlrank.frontera against the real Frontera 0.8 (and Scrapy 2.8 end to end).

Frontera is not installed: put its unpacked repository on PYTHONPATH (the folder holding
the `frontera` package, /work/shared/vendor/frontera here); without it these tests skip.

    CRAWLRANK_PYTHON_DIR=build/python PYTHONPATH=/work/shared/vendor/frontera \\
        python3 -m pytest -q tests/python/test_frontera.py
"""

from __future__ import annotations

import collections
import importlib.util
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.needs_crawlrank,
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]

HERE = Path(__file__).resolve().parent
FAST = {"delay_ms": 0, "per_host": 8}


@pytest.fixture(scope="module")
def cf():
    """crawlrank.frontera, or a skip when Frontera cannot be imported."""
    pytest.importorskip("crawlrank")
    if importlib.util.find_spec("frontera") is None:
        pytest.skip("Frontera is not on PYTHONPATH (e.g. /work/shared/vendor/frontera)")
    import crawlrank.frontera

    return crawlrank.frontera


def python_path() -> str:
    """PYTHONPATH for a subprocess: crawlrank, Frontera and this folder."""
    import crawlrank
    import frontera

    dirs = [Path(crawlrank.__file__).parent.parent, Path(frontera.__file__).parent.parent, HERE]
    return os.pathsep.join(str(d) for d in dirs)


def manager_of(path, **settings):
    """Frontera's own spider-mode manager, with crawlrank's backend as BACKEND."""
    from frontera.core.manager import SpiderFrontierManager
    from frontera.settings import Settings

    attributes = {"BACKEND": "crawlrank.frontera.Backend", "LOCAL_MODE": False,
                  "PAGE_DB_PATH": str(path), "CRAWLRANK_SCHEDULER_OPTIONS": dict(FAST)}
    attributes.update(settings)
    return SpiderFrontierManager.from_settings(Settings(attributes=attributes))


def next_requests(manager, n=64, overused=()):
    return manager.get_next_requests(n, key_type="domain", overused_keys=list(overused))


def crawl(manager, request, links=(), status=200, score=None, headers=None):
    """What FronteraScheduler does for a response: page_crawled, then links_extracted."""
    from frontera.core.models import Request, Response

    if score is not None:
        request.meta[b"scrapy_meta"]["score"] = score
    manager.page_crawled(Response(request.url, status_code=status, headers=headers,
                                  request=request))
    link_requests = []
    for link in links:
        url, link_score = link if isinstance(link, tuple) else (link, None)
        meta = {b"scrapy_meta": {} if link_score is None else {"score": link_score}}
        link_requests.append(Request(url, meta=meta))
    manager.links_extracted(request, link_requests)


def record(path, url):
    import crawlrank

    with crawlrank.PageDb(str(path), read_only=True) as db:
        return db.find_url(url)


# ---- the package


def test_importing_crawlrank_does_not_import_frontera(cf):
    code = (
        "import collections, sys, types\n"
        "import crawlrank\n"
        "assert 'frontera' not in sys.modules and 'scrapy' not in sys.modules\n"
        "marker = object(); collections.Iterable = marker\n"
        "stub = types.ModuleType('cityhash'); sys.modules['cityhash'] = stub\n"
        "import crawlrank.frontera\n"
        "assert 'frontera.core.manager' in sys.modules and 'scrapy' not in sys.modules\n"
        "assert collections.Iterable is marker and sys.modules['cityhash'] is stub\n"
        "crawlrank.frontera.FronteraScheduler\n"
        "assert 'scrapy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120,
                   env=dict(os.environ, PYTHONPATH=python_path()))


def test_backend_is_a_frontera_backend(cf):
    from frontera.core.components import Backend

    assert issubclass(cf.Backend, Backend)
    assert not getattr(cf.Backend, "__abstractmethods__", None)


# ---- the backend, driven by Frontera's manager


def test_seeds_come_out_as_frontera_requests(cf, tmp_path):
    from frontera.core.models import Request

    manager = manager_of(tmp_path / "db")
    backend = manager.backend
    assert isinstance(backend, cf.Backend)
    assert (backend.queue, backend.metadata, backend.states, backend.domain_metadata) == \
        (None, None, None, None)
    backend.add_seeds([Request("http://a.test/"), Request("http://b.test/x?b=2&a=1#frag")])
    requests = next_requests(manager)
    assert type(requests) is list and all(isinstance(r, Request) for r in requests)
    assert sorted(r.url for r in requests) == ["http://a.test/", "http://b.test/x?a=1&b=2"]
    assert all(isinstance(r.meta[cf.LEASE_KEY], int) and r.meta[cf.LEASE_KEY] > 0
               for r in requests)
    assert next_requests(manager) == []
    assert not backend.finished()  # in flight
    manager.stop()


def test_crawled_pages_and_their_links_make_new_pages(cf, tmp_path):
    manager = manager_of(tmp_path / "db")
    manager.backend.add_seeds(["http://a.test/"])
    [seed] = next_requests(manager)
    crawl(manager, seed, [("http://a.test/1", 0.5), "http://b.test/2", "http://a.test/1",
                          "ftp://a.test/file"], score=0.25)
    got = next_requests(manager)
    assert sorted(r.url for r in got) == ["http://a.test/1", "http://b.test/2"]
    for request in got:
        crawl(manager, request, status=404 if request.url.endswith("2") else 200)
    assert manager.backend.finished()
    manager.stop()
    page = record(tmp_path / "db", "http://a.test/")
    assert (page.http_status, page.n_crawls, page.content_score) == (200, 1, 0.25)
    link = record(tmp_path / "db", "http://a.test/1")
    assert (link.depth, link.link_score, link.http_status) == (1, 0.5, 200)
    assert record(tmp_path / "db", "http://b.test/2").http_status == 404


def test_fetch_details_are_kept_with_the_page(cf, tmp_path):
    """Content type, bytes, time and title reach the PageDB (format version 7)."""
    from frontera.core.models import Response

    import crawlrank

    manager = manager_of(tmp_path / "db")
    manager.backend.add_seeds(["http://a.test/"])
    [seed] = next_requests(manager)
    seed.meta[b"scrapy_meta"]["download_latency"] = 0.125
    body = b"<html><head><title>  Caf\xc3\xa9 &amp; tea\n</title></head><body>x</body></html>"
    headers = {b"Content-Type": [b"text/html; charset=utf-8"],
               b"Content-Length": [str(len(body)).encode()]}
    manager.page_crawled(Response(seed.url, status_code=200, headers=headers, body=body,
                                  request=seed))
    manager.links_extracted(seed, [])
    manager.stop()
    with crawlrank.PageDb(str(tmp_path / "db"), read_only=True) as db, db.snapshot() as snap:
        fetch = snap.fetch_of(snap.find_url("http://a.test/").id)
        totals = snap.crawl_totals()
    assert fetch["content_type"] == "text/html; charset=utf-8"
    assert fetch["decoded_bytes"] == len(body)
    assert fetch["wire_bytes"] > len(body)
    assert fetch["fetch_ms"] == 125
    assert fetch["title"] == "Caf\u00e9 & tea"
    assert totals["fetches"]["2xx"] == 1 and totals["decoded_bytes"] == len(body)


def test_reports_are_written_at_the_next_batch(cf, tmp_path, caplog):
    from frontera.core.models import Response

    manager = manager_of(tmp_path / "db")
    backend = manager.backend
    backend.add_seeds(["http://a.test/"])
    [seed] = next_requests(manager)
    crawl(manager, seed, ["http://a.test/1"])
    assert backend.has_news()
    assert backend.scheduler.stats().crawled == 0  # buffered
    [first] = next_requests(manager)
    assert first.url == "http://a.test/1"
    assert backend.scheduler.stats().crawled == 1 and not backend.has_news()
    # A page_crawled whose links_extracted never came is recorded without links.
    manager.page_crawled(Response(first.url, status_code=200, request=first))
    assert next_requests(manager) == [] and backend.finished()
    assert "had no links_extracted" in caplog.text
    manager.stop()
    assert record(tmp_path / "db", "http://a.test/1").crawled


def test_request_errors_are_retried_then_failed(cf, tmp_path):
    manager = manager_of(tmp_path / "db", CRAWLRANK_SCHEDULER_OPTIONS=dict(
        FAST, max_retries=1, retry_ms=300))
    backend = manager.backend
    backend.add_seeds(["http://a.test/", "http://b.test/", "http://c.test/"])
    requests = {r.url: r for r in next_requests(manager)}
    manager.request_error(requests["http://a.test/"], "ResponseNeverReceived")
    manager.request_error(requests["http://b.test/"], "IgnoreRequest")  # failed for good
    crawl(manager, requests["http://c.test/"], status=503, headers={b"Retry-After": [b"0"]})
    stats = backend.stats()
    assert (stats.retrying, stats.failed, stats.crawled) == (2, 1, 0)
    assert next_requests(manager) == []  # not due yet
    time.sleep(0.7)
    retried = next_requests(manager)
    assert sorted(r.url for r in retried) == ["http://a.test/", "http://c.test/"]
    for request in retried:
        manager.request_error(request, "TimeoutError")
    assert (backend.stats().failed, backend.stats().retrying) == (3, 0)
    assert backend.finished()
    manager.stop()
    assert not record(tmp_path / "db", "http://a.test/").crawled


def test_overused_hosts_are_held_for_a_later_call(cf, tmp_path):
    manager = manager_of(tmp_path / "db")
    backend = manager.backend
    backend.add_seeds([f"http://{h}.test/{i}" for h in "ab" for i in range(3)])
    first = next_requests(manager, overused=["a.test"])
    assert sorted(r.url for r in first) == [f"http://b.test/{i}" for i in range(3)]
    assert not backend.finished() and backend.has_news()  # a.test's pages wait here
    assert next_requests(manager, overused=["a.test"]) == []
    later = next_requests(manager, n=2)
    assert [r.url for r in later] == ["http://a.test/0", "http://a.test/1"]  # held first
    last = next_requests(manager)
    assert [r.url for r in last] == ["http://a.test/2"]
    for request in first + later + last:
        crawl(manager, request)
    assert backend.finished()
    manager.stop()


def test_a_request_held_too_long_is_let_go(cf, tmp_path):
    manager = manager_of(tmp_path / "db", CRAWLRANK_SCHEDULER_OPTIONS=dict(FAST, lease_ms=1000))
    backend = manager.backend
    backend.add_seeds(["http://a.test/"])
    assert next_requests(manager, overused=["a.test"]) == []
    time.sleep(0.6)  # over half the lease: let go here; the lease expires in crawlrank later
    assert next_requests(manager) == []
    time.sleep(0.6)
    [again] = next_requests(manager)  # from crawlrank, once
    assert again.url == "http://a.test/" and next_requests(manager) == []
    crawl(manager, again)
    assert backend.finished()
    manager.stop()


def test_frontier_stop_is_idempotent_and_flushes(cf, tmp_path):
    import crawlrank

    manager = manager_of(tmp_path / "db")
    backend = manager.backend
    backend.add_seeds(["http://a.test/"])
    [seed] = next_requests(manager)
    crawl(manager, seed, ["http://a.test/1"])
    manager.stop()  # Frontera calls frontier_stop twice in it
    backend.frontier_stop()
    assert backend.stopped and backend.finished()
    with pytest.raises(crawlrank.FailedPreconditionError, match="stopped"):
        backend.get_next_requests(1)
    with crawlrank.PageDb(str(tmp_path / "db"), read_only=True) as db:
        assert db.find_url("http://a.test/").crawled and "http://a.test/1" in db


@pytest.mark.parametrize("settings, ranked", [
    ({}, True),
    ({"CRAWLRANK_RANK_AT_CLOSE": False}, False),
    ({"CRAWLRANK_RANK_AT_CLOSE": "off"}, False),
    ({"SCORER": "link-score"}, False),  # an online mode: no rank
])
def test_frontier_stop_ranks_once_more(cf, tmp_path, caplog, settings, ranked):
    import crawlrank

    caplog.set_level(logging.INFO, logger="crawlrank.frontera")
    manager = manager_of(tmp_path / "db", **settings)
    manager.backend.add_seeds(["http://a.test/"])
    [seed] = next_requests(manager)
    crawl(manager, seed, ["http://a.test/1", "http://a.test/2"])
    [one, _] = next_requests(manager)
    crawl(manager, one, ["http://a.test/"])
    rank_file = tmp_path / "db" / "ranks" / "pagerank.rank"
    assert not rank_file.exists()  # 3 pages: no re-rank during the crawl
    manager.stop()
    assert rank_file.exists() == ranked
    assert ("ranked (blend and the display rank) at close in" in caplog.text) == ranked
    if ranked:
        with crawlrank.PageDb(str(tmp_path / "db"), read_only=True) as db:
            rank = db.load_rank("pagerank")
        assert (rank.graph.pages, rank.graph.edges, rank.graph.crawled_pages) == (3, 3, 2)


def test_without_page_db_path_a_temporary_db_is_deleted_at_stop(cf, tmp_path, caplog):
    from frontera.core.manager import SpiderFrontierManager
    from frontera.settings import Settings

    caplog.set_level(logging.INFO, logger="crawlrank.frontera")
    manager = SpiderFrontierManager.from_settings(Settings(attributes={
        "BACKEND": "crawlrank.frontera.Backend", "LOCAL_MODE": False}))
    path = Path(manager.backend.path)
    assert (path / "data.mdb").exists()
    assert str(path) in caplog.text and "temporary" in caplog.text
    manager.stop()
    assert not path.exists()


def test_redirects_are_pages_with_one_link(cf, tmp_path):
    manager = manager_of(tmp_path / "db")
    backend = manager.backend
    backend.add_seeds(["http://a.test/old", "http://a.test/loop"])
    requests = {r.url: r for r in next_requests(manager)}
    # As crawlrank's FronteraScheduler reports a redirect Scrapy would follow:
    assert backend.redirected(requests["http://a.test/old"], "http://a.test/new", 301)
    assert not backend.redirected(requests["http://a.test/loop"], "http://a.test/loop#x", 302)
    [target] = next_requests(manager)
    assert target.url == "http://a.test/new"
    crawl(manager, target)
    crawl(manager, requests["http://a.test/loop"])
    assert backend.finished()
    manager.stop()
    assert record(tmp_path / "db", "http://a.test/old").http_status == 301
    assert record(tmp_path / "db", "http://a.test/new").discovered_from == \
        record(tmp_path / "db", "http://a.test/old").fingerprint


def test_redirects_followed_by_scrapy_are_recorded_hop_by_hop(cf, tmp_path):
    """With Frontera's own scheduler, Scrapy follows redirects itself and Frontera's
    canonical solver reports the final response under the first URL of the chain."""
    import crawlrank

    manager = manager_of(tmp_path / "db")
    backend = manager.backend
    backend.add_seeds(["http://a.test/old"])
    [request] = next_requests(manager)
    request.meta[b"redirect_urls"] = ["http://a.test/old", "http://a.test/mid"]
    request.meta[b"scrapy_meta"]["redirect_reasons"] = [301, 302]
    from frontera.core.models import Request, Response

    final = Request("http://a.test/new", meta=request.meta)
    manager.page_crawled(Response("http://a.test/new", status_code=200, request=final))
    manager.links_extracted(final, [Request("http://a.test/linked")])
    assert [r.url for r in next_requests(manager)] == ["http://a.test/linked"]
    manager.stop()
    with crawlrank.PageDb(str(tmp_path / "db"), read_only=True) as db:
        statuses = {u: db.find_url(u).http_status for u in
                    ("http://a.test/old", "http://a.test/mid", "http://a.test/new")}
        assert statuses == {"http://a.test/old": 301, "http://a.test/mid": 302,
                            "http://a.test/new": 200}
        with db.snapshot() as snap:
            ids = {r.id: r.url for r in snap.records()}
            sources, targets = snap.edges()
            edges = {(ids[s], ids[t]) for s, t in zip(sources.tolist(), targets.tolist())}
    assert edges == {("http://a.test/old", "http://a.test/mid"),
                     ("http://a.test/mid", "http://a.test/new"),
                     ("http://a.test/new", "http://a.test/linked")}


# ---- settings


@pytest.mark.parametrize("scorer, use_scores, mode", [
    (None, False, "blend"),  # crawlrank's default
    (None, True, "link-score"),  # Aduana's "content scorer": the spider's scores
    ("PageRankScorer", False, "pagerank"),
    ("PageRankScorer", True, "ppr"),
    ("HitsScorer", False, "hits"),
    ("HitsScorer", True, "topic-hits"),
    ("opic", True, "opic"),
])
def test_scorer_names(cf, scorer, use_scores, mode):
    from frontera.settings import Settings

    settings = cf.BackendSettings.from_settings(Settings(attributes={
        "SCORER": scorer, "USE_SCORES": use_scores}))
    assert settings.scheduler_options().score == mode


def test_aduana_settings_map_to_scheduler_options(cf):
    from frontera.settings import Settings

    options = cf.BackendSettings.from_settings(Settings(attributes={
        "SOFT_CRAWL_LIMIT": 4, "HARD_CRAWL_LIMIT": 100, "MAX_CRAWL_DEPTH": 3,
        "SCORE_UPDATE_INTERVAL": 2.5, "PAGE_RANK_DAMPING": 0.5,
        "CRAWLRANK_SCHEDULER_OPTIONS": {"lease_ms": 1234, "max_retries": 0}})).scheduler_options()
    assert (options.delay_ms, options.busy_delay_ms, options.max_depth) == (250, 10, 3)
    assert (options.rerank_interval_ms, options.rank_damping) == (2500, 0.5)
    assert (options.lease_ms, options.max_retries) == (1234, 0)
    defaults = cf.BackendSettings.from_settings(Settings()).scheduler_options()
    import crawlrank

    plain = crawlrank.SchedulerOptions()
    assert (defaults.delay_ms, defaults.per_host, defaults.busy_delay_ms) == \
        (plain.delay_ms, plain.per_host, plain.busy_delay_ms)


def test_scrapy_settings_give_the_politeness(cf):
    from frontera.contrib.scrapy.settings_adapter import ScrapySettingsAdapter
    from scrapy.settings import Settings as ScrapySettings

    scrapy_settings = ScrapySettings({"DOWNLOAD_DELAY": 0.5, "CONCURRENT_REQUESTS_PER_DOMAIN": 4})
    options = cf.BackendSettings.from_settings(
        ScrapySettingsAdapter(scrapy_settings)).scheduler_options()
    assert (options.delay_ms, options.per_host) == (500, 4)
    scrapy_settings.set("SOFT_CRAWL_LIMIT", 10)  # Aduana's name wins
    assert cf.BackendSettings.from_settings(
        ScrapySettingsAdapter(scrapy_settings)).scheduler_options().delay_ms == 100


@pytest.mark.parametrize("name, value", [
    ("SCORER", "FancyScorer"),
    ("SCORER", 3),
    ("SOFT_CRAWL_LIMIT", 0),
    ("HARD_CRAWL_LIMIT", "fast"),
    ("MAX_CRAWL_DEPTH", -1),
    ("SCORE_UPDATE_INTERVAL", 0),
    ("PAGE_RANK_DAMPING", 1.5),
    ("CRAWLRANK_URL_PROFILE", "rfc"),
    ("CRAWLRANK_DURABILITY", "always"),
    ("CRAWLRANK_RANK_AT_CLOSE", "maybe"),
    ("CRAWLRANK_SCHEDULER_OPTIONS", ["delay_ms"]),
    ("CRAWLRANK_SCHEDULER_OPTIONS", {"no_such_option": 1}),
    ("CRAWLRANK_SCHEDULER_OPTIONS", {"lease_ms": "long"}),
])
def test_a_wrong_setting_is_named(cf, tmp_path, name, value):
    with pytest.raises(cf.SettingsError, match=name):
        manager_of(tmp_path / "db", **{name: value})
    assert not (tmp_path / "db").exists()


def test_crawlrank_options_is_the_options_setting(cf, tmp_path):
    import warnings

    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        manager = manager_of(tmp_path / "db", CRAWLRANK_SCHEDULER_OPTIONS=None,
                             CRAWLRANK_OPTIONS=dict(FAST, max_pages=1))
    assert not [w for w in warned if "CRAWLRANK" in str(w.message)]
    manager.backend.add_seeds(["http://a.test/", "http://b.test/"])
    assert len(next_requests(manager)) == 1 and next_requests(manager) == []
    manager.stop()


def test_the_old_options_setting_warns_and_still_applies(cf, tmp_path):
    with pytest.warns(DeprecationWarning) as warned:
        manager = manager_of(tmp_path / "db", CRAWLRANK_SCHEDULER_OPTIONS=dict(FAST, max_pages=1))
    assert [str(w.message) for w in warned] == [
        "CRAWLRANK_SCHEDULER_OPTIONS is deprecated: rename it CRAWLRANK_OPTIONS (the same dict "
        "of crawlrank.SchedulerOptions fields, the setting crawlrank.scrapy reads too)"]
    manager.backend.add_seeds(["http://a.test/", "http://b.test/"])
    assert len(next_requests(manager)) == 1 and next_requests(manager) == []  # max_pages
    manager.stop()
    # Through Scrapy's settings too, as a JSON object from the command line (-s NAME=...).
    from frontera.contrib.scrapy.settings_adapter import ScrapySettingsAdapter
    from scrapy.settings import Settings as ScrapySettings

    with pytest.warns(DeprecationWarning, match="CRAWLRANK_SCHEDULER_OPTIONS is deprecated"):
        settings = cf.BackendSettings.from_settings(ScrapySettingsAdapter(ScrapySettings(
            {"CRAWLRANK_SCHEDULER_OPTIONS": '{"lease_ms": 1234}'})))
    assert settings.scheduler_options().lease_ms == 1234


def test_with_both_options_settings_the_new_one_wins(cf):
    from frontera.settings import Settings

    with pytest.warns(DeprecationWarning) as warned:
        settings = cf.BackendSettings.from_settings(Settings(attributes={
            "CRAWLRANK_OPTIONS": {"lease_ms": 1234},
            "CRAWLRANK_SCHEDULER_OPTIONS": {"lease_ms": 99, "max_retries": 9}}))
    assert [str(w.message) for w in warned] == [
        "CRAWLRANK_SCHEDULER_OPTIONS is deprecated and ignored here: CRAWLRANK_OPTIONS is set "
        "too, and wins; remove CRAWLRANK_SCHEDULER_OPTIONS"]
    options = settings.scheduler_options()
    import crawlrank

    assert (options.lease_ms, options.max_retries) == (1234,
                                                       crawlrank.SchedulerOptions().max_retries)
    # An error in the ignored one is not raised; one in the old one alone names it.
    with pytest.warns(DeprecationWarning):
        cf.BackendSettings.from_settings(Settings(attributes={
            "CRAWLRANK_OPTIONS": {}, "CRAWLRANK_SCHEDULER_OPTIONS": {"no_such": 1}}))
    with pytest.warns(DeprecationWarning), pytest.raises(cf.SettingsError) as error:
        cf.BackendSettings.from_settings(Settings(attributes={
            "CRAWLRANK_SCHEDULER_OPTIONS": {"no_such": 1}}))
    assert str(error.value) == ("CRAWLRANK_SCHEDULER_OPTIONS: unknown scheduler option "
                                "'no_such' (see crawlrank.SchedulerOptions)")


def test_local_mode_is_refused(cf, tmp_path):
    from frontera.core.manager import LocalFrontierManager
    from frontera.settings import Settings
    from frontera.utils.managers import FrontierManagerWrapper

    attributes = {"BACKEND": "crawlrank.frontera.Backend", "PAGE_DB_PATH": str(tmp_path / "db")}
    # Frontera's default LOCAL_MODE = True, as Scrapy's FronteraScheduler builds it:
    with pytest.raises(cf.SettingsError, match="LOCAL_MODE = False"):
        FrontierManagerWrapper(Settings(attributes=attributes))
    # frontera.utils.add_seeds always builds a LocalFrontierManager:
    with pytest.raises(cf.SettingsError, match="LOCAL_MODE = False"):
        LocalFrontierManager.from_settings(Settings(attributes=dict(attributes,
                                                                    LOCAL_MODE=False)))
    assert not (tmp_path / "db").exists()


# ---- seeding in a process of its own


def add_seeds_tool(*args, cwd):
    return subprocess.run([sys.executable, "-m", "crawlrank.frontera.add_seeds", *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=python_path() + os.pathsep + str(cwd)))


def test_add_seeds_tool(cf, tmp_path):
    db = tmp_path / "db"
    (tmp_path / "crawl_settings.py").write_text(
        f"BACKEND = 'crawlrank.frontera.Backend'\nLOCAL_MODE = False\nPAGE_DB_PATH = {str(db)!r}\n")
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# seeds\nhttp://a.test/\n\n  http://b.test/x  \n")
    done = add_seeds_tool("--config", "crawl_settings", "--seeds-file", seeds, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 seeds added" in done.stderr

    manager = manager_of(db)
    try:
        assert sorted(r.url for r in next_requests(manager)) == ["http://a.test/",
                                                                 "http://b.test/x"]
        # While a crawl holds the PageDB the tool says so, naming the DB.
        busy = add_seeds_tool("--db", db, "--seeds-file", seeds, cwd=tmp_path)
        assert busy.returncode == 1
        assert str(db) in busy.stderr and "a crawl is running" in busy.stderr
    finally:
        manager.stop()
    again = add_seeds_tool("--db", db, "--seeds-file", seeds, cwd=tmp_path)
    assert again.returncode == 0, again.stderr

    (tmp_path / "no_db_settings.py").write_text("LOCAL_MODE = False\n")
    no_db = add_seeds_tool("--config", "no_db_settings", "--seeds-file", seeds, cwd=tmp_path)
    assert no_db.returncode == 2 and "PAGE_DB_PATH" in no_db.stderr


# ---- end to end: Scrapy through Frontera on the doc site


def test_frontera_crawl_of_the_doc_site(cf, tmp_path):
    nx = pytest.importorskip("networkx")
    pytest.importorskip("scipy")
    import crawlrank
    from doc_site import DocSite, expected_graph

    db = tmp_path / "db"
    stats_file = tmp_path / "stats.json"
    with DocSite() as site:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(HERE / "scrapy_crawl.py"), "--host", site.host, "--db", str(db),
             "--frontera", "--stats", str(stats_file)],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
            env=dict(os.environ, PYTHONPATH=python_path()))
        seconds = time.monotonic() - started
        paths = site.paths()
        status, edges = expected_graph(site.host)
    print(f"Frontera crawl of {len(status)} pages: {seconds:.1f} s")
    assert done.returncode == 0, done.stderr[-3000:]
    stats = json.loads(stats_file.read_text())
    assert stats["finish_reason"] == "finished"  # the spider closed by itself
    # The spider's start request was the crawl's one seed (crawlrank's FronteraScheduler).
    assert stats["frontera/seeds_count"] == 1

    # Every page fetched exactly once (the redirect's target too).
    base = f"http://{site.host}"
    fetched = collections.Counter(paths)
    assert {p for p, n in fetched.items() if n > 1} == set()
    assert {base + p for p in fetched} == set(status)

    with crawlrank.PageDb(str(db), read_only=True) as pdb:
        with pdb.snapshot() as snap:
            records = {r.id: r for r in snap.records()}
            sources, targets = snap.edges()
        by_url = {r.url: r for r in records.values()}
        assert set(by_url) == set(status)
        assert {u: r.http_status for u, r in by_url.items()} == status
        assert all(r.crawled and r.n_crawls == 1 for r in by_url.values())
        assert sorted(u for u, s in status.items() if s == 404) == \
            [base + "/gone.html", base + "/whatsnew/changelog.html"]
        # The link graph is the expected one: the redirect is a link from moved.html.
        got = {(records[s].url, records[t].url) for s, t in zip(sources.tolist(),
                                                                  targets.tolist())}
        assert got == edges
        rank = pdb.rank("pagerank", tolerance=1e-12, max_iterations=500, save=False)
        assert rank.converged
        scores = {records[i].url: float(rank.scores[i]) for i in records}

    graph = nx.DiGraph()
    graph.add_nodes_from(status)
    graph.add_edges_from(edges)
    expected = nx.pagerank(graph, alpha=0.85, tol=1e-13, max_iter=1000)
    assert sum(abs(scores[u] - expected[u]) for u in status) < 1e-8


def test_the_backend_stores_its_configuration_and_a_setting_overrides_it(cf, tmp_path, caplog):
    import crawlrank

    caplog.set_level(logging.INFO, logger="crawlrank.frontera")
    path = tmp_path / "db"
    manager_of(path, MAX_CRAWL_DEPTH=3).stop()
    with crawlrank.PageDb(str(path), read_only=True) as db:
        config = db.config()
    assert config["max_depth"] == "3" and config["delay_ms"] == "0" and config["per_host"] == "8"
    # Without the setting, the stored depth is resumed; with another, it changes.
    manager = manager_of(path)
    assert manager.backend.scheduler.stats() is not None
    manager.stop()
    assert f"resumed with the configuration stored in {path}" in caplog.text
    manager_of(path, MAX_CRAWL_DEPTH=5).stop()
    assert f"changed the configuration stored in {path}: max_depth 3 -> 5" in caplog.text
    with crawlrank.PageDb(str(path), read_only=True) as db:
        assert db.config()["max_depth"] == "5"


def test_an_empty_page_db_warns_at_stop(cf, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="crawlrank.frontera")
    path = tmp_path / "db"
    manager = manager_of(path)
    assert next_requests(manager) == []
    manager.stop()
    warnings = [r for r in caplog.records
                if r.levelno == logging.WARNING and "PageDB" in r.getMessage()]
    assert len(warnings) == 1, caplog.text
    assert f"the PageDB {path} is empty: nothing to crawl" in warnings[0].getMessage()
    assert "python3 -m crawlrank.frontera.add_seeds" in warnings[0].getMessage()


def test_a_crawl_with_nothing_left_says_why_at_stop(cf, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="crawlrank.frontera")
    path = tmp_path / "db"
    manager = manager_of(path)
    manager.backend.add_seeds(["http://h.test/"])
    crawl(manager, next_requests(manager)[0])
    manager.stop()
    assert "no page to crawl" not in caplog.text  # it crawled a page
    caplog.clear()
    manager = manager_of(path)
    assert next_requests(manager) == []
    manager.stop()
    lines = [r for r in caplog.records if "no page to crawl" in r.getMessage()]
    assert [(r.levelno, r.getMessage()) for r in lines] == [
        (logging.INFO, f"crawlrank.frontera: the PageDB {path} has no page to crawl: its 1 page "
                       "is crawled")]

