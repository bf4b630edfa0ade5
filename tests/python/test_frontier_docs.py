"""Two `crawlrank crawl --frontier` and two Scrapy processes in remote mode share one
crawlrank serve over two real documentation sites from Debian packages, each its own host
on 127.0.0.1: Python's manual (Sphinx, python3.11-doc; its front page, tutorial and HOWTOs,
by the server's --allow) and LMDB's API reference (Doxygen, lmdb-doc). Checked:

- every URL is handed out once (the server's TRACE log) and every page fetched once (the
  sites' request logs);
- each host's hand-outs, by the server's log times, are at least the delay minus 50 ms
  apart, across all four processes;
- the link graph the server's PageDB keeps between the pages crawled equals
  benchmarks/doc_graph.py's parse of the same files, crawled from the same front pages
  through the same allowed pages.
"""

from __future__ import annotations

import collections
import contextlib
import datetime
import json
import pathlib
import re
import select
import subprocess
import sys
import time
import urllib.parse

import pytest

from doc_site import DocSite
from frontier_sites import SERVER, client_env, require_server
from tool_runner import run

pytestmark = pytest.mark.needs_crawlrank

PYTHON_DOCS = pathlib.Path("/usr/share/doc/python3.11/html")
LMDB_DOCS = pathlib.Path("/usr/share/doc/lmdb-doc/html")
SPIDER = pathlib.Path(__file__).with_name("scrapy_remote.py")
DELAY_MS = 100

sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "benchmarks"))
import doc_graph  # noqa: E402 (benchmarks/ is not a package)


def python_allowed(path):
    return path == "index.html" or re.fullmatch(r"(tutorial|howto)/[^/]+\.html", path)


def lmdb_allowed(path):
    return re.fullmatch(r"[^/]+\.html", path)


def expected_graph(root, base, allowed):
    """doc_graph.py's pages and links reachable from the front page through allowed pages:
    (page URLs, {(from, to)})."""
    pages = set(doc_graph.html_files(str(root)))
    url = lambda path: base + urllib.parse.quote(path)  # noqa: E731
    seen, todo, edges = {"index.html"}, ["index.html"], set()
    while todo:
        path = todo.pop()
        for target in doc_graph.links_of(str(root), path, pages, base):
            if not allowed(target):
                continue
            edges.add((url(path), url(target)))
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return {url(p) for p in seen}, edges


@contextlib.contextmanager
def frontier(bin_dir, db, log, *args):
    """A crawlrank_serve whose stderr (its log) goes to the file `log`; yields (process,
    address)."""
    with open(log, "w") as err:
        proc = subprocess.Popen([str(bin_dir / SERVER), str(db), "--listen", "127.0.0.1:0",
                                 *map(str, args)], stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        line = proc.stdout.readline() if ready else ""
        assert line.startswith("listening on "), (line, pathlib.Path(log).read_text())
        yield proc, line.split()[-1]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


LINE = re.compile(r"crawlrank_serve: (\S+) (\w+): (.*)$")


def log_calls(log):
    """(time, call, text) of each line of the server's log."""
    out = []
    for line in pathlib.Path(log).read_text().splitlines():
        match = LINE.match(line)
        if match:
            stamp = datetime.datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S.%fZ")
            out.append((stamp.replace(tzinfo=datetime.timezone.utc).timestamp(),
                        match.group(2), match.group(3)))
    return out


def test_four_crawlers_of_two_kinds_crawl_two_doc_sites_through_one_frontier(bin_dir, tmp_path):
    require_server(bin_dir, "scrapy")
    for docs, package in ((PYTHON_DOCS, "python3.11-doc"), (LMDB_DOCS, "lmdb-doc")):
        if not (docs / "index.html").exists():
            pytest.skip(f"no {docs} (apt-get install {package})")
    from crawlrank.frontier import Client

    env = client_env()
    log = tmp_path / "server.log"
    with contextlib.ExitStack() as stack:
        python_site = stack.enter_context(DocSite(PYTHON_DOCS, extras=False))
        lmdb_site = stack.enter_context(DocSite(LMDB_DOCS, extras=False))
        py_host, lmdb_host = f"python.test:{python_site.port}", f"lmdb.test:{lmdb_site.port}"
        sites = {py_host: python_site, lmdb_host: lmdb_site}
        server, address = stack.enter_context(frontier(
            bin_dir, tmp_path / "db", log, "--delay", DELAY_MS / 1000, "--per-host", 1,
            "--allow", rf"^http://python\.test:{python_site.port}/(index|tutorial/[^/]+|howto/[^/]+)\.html$",
            "--allow", rf"^http://lmdb\.test:{lmdb_site.port}/[^/]+\.html$"))
        with Client(address) as c:  # held until all four have sent their seeds
            c.set_active(False)
            c.set_log_level("TRACE")
        seeds = [f"http://{host}/index.html" for host in sites]
        crawl = [str(part) for part in (
            bin_dir / "crawlrank", "crawl", "--frontier", address, *seeds, "--allow-private",
            "--json", "--quiet", "--concurrency", 2,
            *[arg for host in sites for arg in ("--resolve", f"{host}:127.0.0.1")])]
        crawls = [subprocess.Popen(crawl, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True) for _ in range(2)]
        spiders = [subprocess.Popen(
            ["/usr/bin/python3", str(SPIDER), address, json.dumps({}),
             str(tmp_path / f"spider{i}.json"), "--every-page", *seeds],
            env=env, stderr=subprocess.PIPE, text=True) for i in range(2)]
        for proc in crawls + spiders:
            stack.callback(lambda p=proc: p.poll() is None and p.kill())
        deadline = time.monotonic() + 120
        peers = set()
        while len(peers) < 4:
            assert time.monotonic() < deadline, f"only {len(peers)} of 4 crawlers came"
            time.sleep(0.1)
            peers = {re.search(r"from (\S+?):? ", text + " ").group(1)
                     for _, call, text in log_calls(log) if call.startswith("Put")}
        with Client(address) as c:
            c.set_active(True)
        summaries = []
        for proc in crawls:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err
            summaries.append(json.loads(out))
        for proc in spiders:
            assert proc.wait(timeout=180) == 0, proc.stderr.read()[-3000:]
        fetched_by_spiders = [len(json.loads((tmp_path / f"spider{i}.json").read_text())["seen"])
                              for i in range(2)]
        with Client(address) as c:
            stats = c.stats()
        server.terminate()
        assert server.wait(timeout=30) == 0
        requests = {host: [p for p in site.paths() if p != "/robots.txt"]
                    for host, site in sites.items()}

    assert stats["size"] == 0
    assert all(s["finished"] for s in summaries), summaries
    # All four sent their seeds before anything was handed out (the gate above); who then
    # fetches what is the race of their requests, not a promise of the frontier: a Scrapy
    # process that asks on every engine tick can take every hand-out of two hosts.
    split = [s["pages"] for s in summaries] + fetched_by_spiders
    print(f"pages fetched by the two crawls and the two spiders: {split}")
    # Every URL handed out once, and each host's hand-outs at least the delay apart.
    handed = [(t, *re.match(r'handed out "(.*)" of "(.*)" to ', text).groups())
              for t, call, text in log_calls(log)
              if call == "GetURLs" and text.startswith("handed out ")]
    counts = collections.Counter(url for _, url, _ in handed)
    assert counts and set(counts.values()) == {1}, counts.most_common(3)
    for host in sites:  # the queue is the host's name (its key leaves the port out)
        times = sorted(t for t, _, h in handed if h == host.split(":")[0])
        assert len(times) > 10, host
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert min(gaps) >= DELAY_MS / 1000 - 0.05, (host, min(gaps))
    # Every page fetched once, by one of the four.
    for host, paths in requests.items():
        repeated = [p for p, n in collections.Counter(paths).items() if n > 1]
        assert not repeated, (host, repeated)
    assert sum(len(p) for p in requests.values()) == len(counts)
    assert sum(s["pages"] for s in summaries) + sum(fetched_by_spiders) == len(counts)
    # The graph kept between the pages crawled (status 200) is doc_graph.py's.
    pages = [json.loads(line) for line in run(
        bin_dir, "page_db_dump", "info", tmp_path / "db", "--json").stdout.splitlines()]
    url_of = {p["index"]: p["url"] for p in pages}
    crawled = {p["url"] for p in pages if p["status"] == 200}
    links = {(url_of[e["from"]], url_of[e["to"]]) for e in map(json.loads, run(
        bin_dir, "page_db_dump", "links", tmp_path / "db", "--json").stdout.splitlines())}
    links = {(a, b) for a, b in links if a in crawled and b in crawled and a != b}
    want_pages, want_links = set(), set()
    for root, host, allowed in ((PYTHON_DOCS, py_host, python_allowed),
                                (LMDB_DOCS, lmdb_host, lmdb_allowed)):
        got_pages, got_links = expected_graph(root, f"http://{host}/", allowed)
        want_pages |= got_pages
        want_links |= got_links
    assert crawled == want_pages, (sorted(crawled - want_pages)[:5],
                                   sorted(want_pages - crawled)[:5])
    assert links == want_links, (sorted(links - want_links)[:5], sorted(want_links - links)[:5])
    run(bin_dir, "page_db_check", tmp_path / "db")
