"""End-to-end crawls of a real site (Python's manual, doc_site.py) by Scrapy 2.8 through
crawlrank's native scheduler: every reachable page fetched once, outcomes recorded, the
spider closing by itself, ranks equal to networkx's on the crawled graph; and a crawl
killed halfway that resumes from its PageDB."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import networkx as nx
import pytest

from doc_site import DocSite, check_fetch_records, expected_graph

pytestmark = pytest.mark.needs_crawlrank

HERE = Path(__file__).resolve().parent


def crawl_command(site: DocSite, db: Path, stats: Path, *extra: str) -> list[str]:
    return ["/usr/bin/python3", str(HERE / "scrapy_crawl.py"), "--host", site.host,
            "--db", str(db), "--stats", str(stats), *extra]


def crawl_env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [os.environ["CRAWLRANK_PYTHON_DIR"], str(HERE)]
    vendor = HERE.parents[2] / "shared" / "vendor" / "frontera"
    paths.append(str(vendor))
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")])
    return env


def run_crawl(site: DocSite, db: Path, stats: Path, *extra: str) -> dict:
    proc = subprocess.run(crawl_command(site, db, stats, *extra), env=crawl_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(stats.read_text())


def db_graph(cr, db_path: Path) -> tuple[dict[str, int], set[tuple[str, str]], dict[int, str]]:
    with cr.PageDb(str(db_path), read_only=True) as db, db.snapshot() as snap:
        records = snap.records()
        urls = {r.id: r.url for r in records}
        sources, targets = snap.edges()
        edges = {(urls[int(s)], urls[int(t)]) for s, t in zip(sources, targets)}
        return {r.url: r.http_status for r in records if r.crawled}, edges, urls


def check_ranks(cr, db_path: Path, status: dict[str, int], edges: set[tuple[str, str]]) -> None:
    with cr.PageDb(str(db_path), read_only=True) as db:
        rank = db.rank("pagerank", tolerance=1e-12, max_iterations=1000, save=False)
        with db.snapshot() as snap:
            urls = [r.url for r in snap.records()]
    graph = nx.DiGraph()
    graph.add_nodes_from(status)
    graph.add_edges_from(edges)
    expected = nx.pagerank(graph, alpha=0.85, tol=1e-14, max_iter=2000)
    assert set(urls) == set(status)
    l1 = sum(abs(rank.scores[i] - expected[url]) for i, url in enumerate(urls))
    assert l1 < 1e-8, l1


def test_native_scheduler_crawls_every_page_once(tmp_path):
    import crawlrank as cr

    with DocSite() as site:
        status, edges = expected_graph(site.host)
        stats = run_crawl(site, tmp_path / "db", tmp_path / "stats.json")
        fetched = collections.Counter(site.paths())
    assert stats["finish_reason"] == "finished"  # closed by itself
    want = collections.Counter(url.split(site.host, 1)[1] for url in status)
    assert fetched == want, (fetched - want, want - fetched)
    crawled, db_edges, _ = db_graph(cr, tmp_path / "db")
    assert crawled == status  # every page, with its status: 200, the 404s and the 301
    assert db_edges == edges
    assert stats["crawlrank/crawled"] + stats["crawlrank/redirects"] == len(status)
    assert stats["crawlrank/db/queued"] == 0 and stats["crawlrank/db/in_flight"] == 0
    check_ranks(cr, tmp_path / "db", status, edges)
    check_fetch_records(cr, tmp_path / "db", site.host, status)


def test_killed_crawl_resumes_without_refetching(tmp_path):
    import crawlrank as cr

    seed = int(time.time()) % 1000
    print(f"seed {seed}")
    with DocSite() as site:
        status, edges = expected_graph(site.host)
        kill_after = 120 + seed % 200  # pages served before the kill
        proc = subprocess.Popen(crawl_command(site, tmp_path / "db", tmp_path / "s1.json"),
                                env=crawl_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while len(site.paths()) < kill_after and proc.poll() is None:
            assert time.monotonic() < deadline, "the crawl did not get going"
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        first = site.paths()
        crawled_first, _, _ = db_graph(cr, tmp_path / "db")
        assert 0 < len(crawled_first) < len(status)
        site.log.clear()
        stats = run_crawl(site, tmp_path / "db", tmp_path / "s2.json")
        second = site.paths()
    print(f"killed after {len(first)} fetches, {len(crawled_first)} acknowledged")
    acknowledged = {url.split(site.host, 1)[1] for url in crawled_first}
    assert not acknowledged & set(second), "a page acknowledged before the kill was fetched again"
    assert stats["finish_reason"] == "finished"
    crawled, db_edges, _ = db_graph(cr, tmp_path / "db")
    assert crawled == status  # nothing missing
    assert db_edges == edges
    assert set(first) | set(second) == {url.split(site.host, 1)[1] for url in status}


def test_ctrl_c_stops_cleanly_and_loses_nothing(tmp_path):
    """SIGINT (Ctrl-C) makes Scrapy close the spider gracefully: every page the server sent
    in the first run is recorded when it exits, and the rerun fetches only the rest."""
    import crawlrank as cr

    with DocSite() as site:
        status, _ = expected_graph(site.host)
        proc = subprocess.Popen(crawl_command(site, tmp_path / "db", tmp_path / "s1.json"),
                                env=crawl_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while len(site.paths()) < 150 and proc.poll() is None:
            assert time.monotonic() < deadline, "the crawl did not get going"
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr[-3000:]
        assert "'finish_reason': 'shutdown'" in stderr
        first = site.paths()
        crawled_first, _, _ = db_graph(cr, tmp_path / "db")
        served = {f"http://{site.host}{p}" for p in first}
        assert served == set(crawled_first), served ^ set(crawled_first)
        site.log.clear()
        run_crawl(site, tmp_path / "db", tmp_path / "s2.json")
        second = site.paths()
    assert not set(first) & set(second)
    assert len(first) + len(second) == len(status)
