"""`crawlrank crawl` against servers the tests start on 127.0.0.1.

Every expectation comes from somewhere other than the crawler: the pages and links of the
documentation site from an independent parse of its files (doc_site.py), what was fetched
and when from the servers' own logs, PageRank from networkx.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import random
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse

import pytest

from crawl_site import HOSTILE, ODD, CrawlSite
from doc_site import DocSite, check_fetch_records, expected_graph

LOCAL = ("--allow-private", "--quiet", "--json")


def crawl_cmd(bin_dir: pathlib.Path, db: pathlib.Path, *args: object) -> list[str]:
    return [str(bin_dir / "crawlrank"), "crawl", str(db), *map(str, args)]


def crawl(bin_dir: pathlib.Path, db: pathlib.Path, *args: object, expect: int = 0,
          timeout: float = 120) -> dict:
    proc = subprocess.run(crawl_cmd(bin_dir, db, *args), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == expect, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    # A crawl that fetched nothing exits 1 (expect=1) and still prints its summary.
    return json.loads(proc.stdout) if expect in (0, 1) and "--json" in map(str, args) else {}


def pages(bin_dir: pathlib.Path, db: pathlib.Path) -> dict[str, dict]:
    out = subprocess.run([str(bin_dir / "page_db_dump"), "info", str(db), "--json"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    return {row["url"]: row for row in map(json.loads, out.splitlines())}


def edges(bin_dir: pathlib.Path, db: pathlib.Path, by_index: dict[int, str]) -> set[tuple[str, str]]:
    out = subprocess.run([str(bin_dir / "page_db_dump"), "links", str(db)],
                         capture_output=True, text=True, check=True).stdout
    pairs = (line.split() for line in out.splitlines() if line and not line.startswith("#"))
    return {(by_index[int(a)], by_index[int(b)]) for a, b in pairs}


def crawled(rows: dict[str, dict]) -> set[str]:
    return {url for url, row in rows.items() if row["crawls"] > 0}


def doc_allow(host: str) -> tuple[str, str]:
    # The rule doc_site.follow applies: same host, an .html path.
    return ("--allow", rf"^http://{re.escape(host)}/[^?#]*\.html$")


def test_doc_site_every_page_once_and_pagerank(bin_dir, tmp_path):
    with DocSite() as site:
        status, expected_edges = expected_graph(site.host)
        db = tmp_path / "doc.db"
        summary = crawl(bin_dir, db, f"http://{site.host}/index.html", *LOCAL, "--delay", "0",
                        "--per-host", "8", *doc_allow(site.host))
        log = site.paths()
    counts = collections.Counter(log)
    assert counts["/robots.txt"] == 1
    del counts["/robots.txt"]
    fetched = {f"http://{site.host}{p}" for p in counts}
    assert fetched == set(status), (fetched ^ set(status))
    assert max(counts.values()) == 1, [p for p, n in counts.items() if n > 1]
    assert summary["finished"] and summary["pages"] == len(status)
    assert summary["statuses"] == {str(k): v for k, v in collections.Counter(status.values()).items()}
    rows = pages(bin_dir, db)
    assert {url: rows[url]["status"] for url in status} == status
    by_index = {row["index"]: url for url, row in rows.items()}
    found = {(a, b) for a, b in edges(bin_dir, db, by_index) if a in status and b in status}
    assert found == expected_edges, (len(found), len(expected_edges))
    check_fetch_records(pytest.importorskip("crawlrank"), db, site.host, status)

    # The summary's ranks are the stored PageRank; it matches networkx on the whole graph
    # the crawl recorded (external pages included).
    nx = pytest.importorskip("networkx")
    pytest.importorskip("scipy")
    subprocess.run([str(bin_dir / "page_db_rank"), str(db), "--tolerance", "1e-10",
                    "--max-iterations", "1000"], check=True, capture_output=True)
    out = subprocess.run([str(bin_dir / "page_db_dump"), "info", str(db), "--json", "--rank",
                          "pagerank"], capture_output=True, text=True, check=True).stdout
    ours = {row["index"]: row["pagerank"] for row in map(json.loads, out.splitlines())}
    graph = nx.DiGraph()
    graph.add_nodes_from(ours)
    index_of = {url: i for i, url in by_index.items()}
    graph.add_edges_from((index_of[a], index_of[b]) for a, b in edges(bin_dir, db, by_index))
    theirs = nx.pagerank(graph, alpha=0.85, tol=1e-13, max_iter=1000)
    assert sum(abs(ours[i] - theirs[i]) for i in ours) < 1e-6
    # The summary lists by the display rank (PageRank without template links): its best
    # page is the best crawled 2xx page of ranks/display.rank.
    out = subprocess.run([str(bin_dir / "page_db_dump"), "info", str(db), "--json", "--rank",
                          "display"], capture_output=True, text=True, check=True).stdout
    display = {row["url"]: row["display"] for row in map(json.loads, out.splitlines())
               if row["crawls"] > 0 and 200 <= row["status"] < 300}
    best = max(display, key=lambda url: (display[url], -rows[url]["index"]))
    assert summary["rank"] == "display" and summary["top"][0]["url"] == best


def test_robots_crawl_delay_and_one_request_per_host(bin_dir, tmp_path):
    robots = "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n"
    with CrawlSite(pages=12, robots=robots) as site:
        summary = crawl(bin_dir, tmp_path / "db", f"http://{site.host}/gen/0.html", *LOCAL,
                        "--delay", "0", "--same-host")
        log = site.log()
    paths = [h.path for h in log]
    assert paths[0] == "/robots.txt" and paths.count("/robots.txt") == 1
    assert not [p for p in paths if p.startswith("/private/")]
    assert sorted(paths[1:]) == sorted(f"/gen/{n}.html" for n in range(12))
    gaps = [b.time - a.time for a, b in zip(log[1:], log[2:])]
    assert min(gaps) >= 0.3 - 0.02, gaps
    assert max(h.in_flight for h in log) == 1
    assert summary["robots_disallowed"] == 12 and summary["robots_fetched"] == 1
    assert all(h.agent.startswith("crawlrank/") for h in log)


def test_crawl_delay_over_the_cap_is_capped_and_reported(bin_dir, tmp_path):
    with CrawlSite(pages=4, robots="User-agent: *\nCrawl-delay: 120\n") as site:
        summary = crawl(bin_dir, tmp_path / "db", f"http://{site.host}/gen/0.html", *LOCAL,
                        "--delay", "0", "--same-host", "--deny", "/private/",
                        "--max-crawl-delay", "0.25")
        log = [h for h in site.log() if h.path.startswith("/gen/")]
    assert summary["capped_crawl_delays_ms"] == {"127.0.0.1": 120000}
    assert len(log) == 4
    gaps = [b.time - a.time for a, b in zip(log, log[1:])]
    assert min(gaps) >= 0.25 - 0.02 and max(gaps) < 5, gaps


def test_per_host_concurrency_is_bounded(bin_dir, tmp_path):
    with CrawlSite(pages=30, robots=None, page_delay=0.2) as site:
        crawl(bin_dir, tmp_path / "db", f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0",
              "--per-host", "3", "--same-host", "--deny", "/private/")
        log = site.log()
    pages_log = [h for h in log if h.path.startswith("/gen/")]
    assert len(pages_log) == 30
    assert 2 <= max(h.in_flight for h in pages_log) <= 3


def test_robots_404_allows_all_and_503_holds_the_pages(bin_dir, tmp_path):
    with CrawlSite(pages=3, robots="", robots_status=404) as site:
        crawl(bin_dir, tmp_path / "a", f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0",
              "--same-host")
        assert "/private/0.html" in site.paths()
    with CrawlSite(pages=3, robots="", robots_status=503) as site:
        # The page waits, its lease held, for robots.txt to be asked again (after
        # --retry-delay, doubling): none of its own retries is spent meanwhile.
        proc = subprocess.Popen(crawl_cmd(bin_dir, tmp_path / "b", f"http://{site.host}/gen/0.html",
                                          *LOCAL, "--delay", "0", "--retry-delay", "30"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 128 + signal.SIGINT, err
        assert site.paths() == ["/robots.txt"]
        summary = json.loads(out)
        assert summary["errors_by_kind"] == {} and summary["robots_unavailable"] == 1
        schedule = json.loads(subprocess.run(
            [str(bin_dir / "page_db_schedule"), str(tmp_path / "b"), "--json"],
            capture_output=True, text=True, check=True).stdout)
        assert schedule["stats"]["failed"] == 0 and schedule["stats"]["retrying"] == 0
        # Its lease is still held; times for people are ISO 8601 UTC, beside Unix ms.
        [lease] = schedule["in_flight"]
        assert lease["expires"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                 time.gmtime(lease["expires_ms"] // 1000))
        assert lease["expires_ms"] / 1000 > time.time() - 5
        text = subprocess.run([str(bin_dir / "page_db_schedule"), str(tmp_path / "b")],
                              capture_output=True, text=True, check=True).stdout
        assert f" {lease['expires']} {lease['url']} " in text


def test_hostile_servers_end_in_recorded_errors(bin_dir, tmp_path):
    db = tmp_path / "db"
    with CrawlSite(pages=3, robots=None, hostile=True) as site:
        start = time.monotonic()
        summary = crawl(bin_dir, db, f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0",
                        "--per-host", "16", "--same-host", "--deny", "/private/", "--timeout", "4",
                        "--max-body", "1000000", "--max-retries", "0",
                        # a pattern libstdc++ matches by recursion per character: a 200 KB
                        # URL reaching it would overflow the stack (long links are dropped)
                        "--allow", r"^http://[^?#]*$", timeout=60)
        elapsed = time.monotonic() - start
    assert elapsed < 15, elapsed  # the slowest cases end at --timeout
    rows = pages(bin_dir, db)
    base = f"http://{site.host}"
    for path in HOSTILE:
        assert rows[base + path]["crawls"] == 0, path
    # Each is failed for good in the PageDB's schedule (--max-retries 0).
    schedule = json.loads(subprocess.run([str(bin_dir / "page_db_schedule"), str(db), "--json"],
                                         capture_output=True, text=True, check=True).stdout)
    assert schedule["stats"]["failed"] == len(HOSTILE)
    expected_kinds = collections.Counter(HOSTILE.values())
    assert summary["errors_by_kind"] == dict(expected_kinds), summary["errors_by_kind"]
    for path, status in ODD.items():
        assert rows[base + path]["status"] == status, path
    assert rows[base + "/hostile/loop-a"]["crawls"] == 1 and rows[base + "/hostile/loop-b"]["crawls"] == 1
    assert max(map(len, rows)) <= 4096  # the long link and the long Location were dropped
    assert summary["finished"]


def test_private_address_behind_a_public_name_is_refused(bin_dir, tmp_path):
    with CrawlSite(pages=2) as site:
        name = f"www.crawlrank-test.com:{site.port}"
        pin = ("--resolve", f"www.crawlrank-test.com:{site.port}:127.0.0.1")
        summary = crawl(bin_dir, tmp_path / "a", f"http://{name}/gen/0.html", "--quiet", "--json",
                        *pin, "--delay", "0", expect=1)
        assert site.paths() == []
        assert summary["errors_by_kind"] == {"private-address": 1}
        schedule = json.loads(subprocess.run(
            [str(bin_dir / "page_db_schedule"), str(tmp_path / "a"), "--json"],
            capture_output=True, text=True, check=True).stdout)
        assert schedule["stats"]["failed"] == 1 and schedule["stats"]["crawled"] == 0
        # Allowed explicitly, the same crawl reaches the server.
        crawl(bin_dir, tmp_path / "b", f"http://{name}/gen/0.html", *LOCAL, *pin, "--delay", "0",
              "--same-host")
        assert "/gen/1.html" in site.paths()


def interrupted_then_resumed(bin_dir: pathlib.Path, tmp_path: pathlib.Path, sig: int) -> None:
    seed = int(os.environ.get("CRAWLRANK_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rng = random.Random(seed)
    with DocSite() as site:
        status, _ = expected_graph(site.host)
        db = tmp_path / "db"
        args = (f"http://{site.host}/index.html", *LOCAL, "--delay", "0", "--per-host", "4",
                *doc_allow(site.host))
        proc = subprocess.Popen(crawl_cmd(bin_dir, db, *args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        # Wait until a random share of the site was fetched, then interrupt.
        target = rng.randrange(20, len(status) - 20)
        deadline = time.monotonic() + 60
        while len(site.paths()) < target and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.002)
        sent = time.monotonic()
        proc.send_signal(sig)
        proc.communicate(timeout=30)
        stopped_in = time.monotonic() - sent
        assert proc.returncode in (-sig, 128 + sig), proc.returncode
        if sig != signal.SIGKILL:
            assert stopped_in < 1.0, stopped_in
        first_run = len(site.paths())
        done = crawled(pages(bin_dir, db))
        assert done, "nothing recorded before the interruption"
        summary = crawl(bin_dir, db, *args[1:])  # no seeds: the DB has them
        second = site.paths()[first_run:]
    assert "/robots.txt" not in second  # cached in the PageDB
    refetched = {f"http://{site.host}{p}" for p in second} & done
    assert not refetched, sorted(refetched)[:5]
    assert summary["finished"]
    rows = pages(bin_dir, db)
    assert {url: rows[url]["status"] for url in status} == status  # nothing lost


# Under ASan (17 s each) the kill alone checks memory safety: SIGINT and SIGTERM take the
# same shutdown path as the stopped crawls of test_crawl_warc.py, which run there too.
ASAN_SKIPS = pytest.mark.skipif(os.environ.get("CRAWLRANK_SANITIZED") == "1",
                                reason="the Release pass runs it; kill-9 runs under ASan")


@pytest.mark.parametrize("sig", [signal.SIGKILL, pytest.param(signal.SIGINT, marks=ASAN_SKIPS),
                                 pytest.param(signal.SIGTERM, marks=ASAN_SKIPS)],
                         ids=["kill-9", "ctrl-c", "sigterm"])
def test_interrupted_crawl_resumes_without_refetching(bin_dir, tmp_path, sig):
    interrupted_then_resumed(bin_dir, tmp_path, sig)


def test_a_backup_of_a_live_db_checks_clean_and_a_restore_resumes_the_crawl(bin_dir, tmp_path):
    """docs/crawler.md, "Backups": `mdb_copy DB BACKUP` while the crawl writes copies one
    read transaction, so the copy is a consistent PageDB: page_db_check passes on it. Put in
    the DB's place (the restore), it resumes the crawl: every page ends fetched, and none
    the backup had as crawled is fetched again."""
    mdb_copy = shutil.which("mdb_copy")
    if mdb_copy is None:
        pytest.skip("mdb_copy (Debian: lmdb-utils) is not installed")
    db = tmp_path / "db"
    with CrawlSite(pages=40, page_delay=0.05) as site:  # 40 pages, 20 a second
        args = (f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0", "--per-host", "1",
                "--same-host")
        proc = subprocess.Popen(crawl_cmd(bin_dir, db, *args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while len(site.paths()) < 15 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.002)
            backup = tmp_path / "backup"
            backup.mkdir()
            subprocess.run([mdb_copy, str(db), str(backup)], check=True, timeout=60)
            _, err = proc.communicate(timeout=120)
        finally:  # a failed copy or a crawl past its time leaves no process behind
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0, err
        checked = subprocess.run([str(bin_dir / "page_db_check"), str(backup)],
                                 capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        backed = crawled(pages(bin_dir, backup))
        assert backed and backed < crawled(pages(bin_dir, db)), "copied mid-crawl"
        # The restore: the backup in the DB's place (its ranks are recomputed at the end).
        shutil.rmtree(db)
        shutil.copytree(backup, db)
        fetched_before = len(site.paths())
        summary = crawl(bin_dir, db, *args[1:])  # no seeds: the DB has them
        again = {f"http://{site.host}{p}" for p in site.paths()[fetched_before:]}
        every_page = {f"http://{site.host}/gen/{n}.html" for n in range(40)}
    assert summary["finished"]
    assert not again & backed, sorted(again & backed)[:5]
    assert crawled(pages(bin_dir, db)) == every_page


def test_sitemaps_add_pages_no_link_names(bin_dir, tmp_path):
    robots = "User-agent: *\nDisallow: /private/\nSitemap: http://{host}/sitemap.xml\n"
    with CrawlSite(pages=2, robots=robots) as site:
        crawl(bin_dir, tmp_path / "a", f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0",
              "--same-host")
        assert "/orphan.html" not in site.paths()
        summary = crawl(bin_dir, tmp_path / "b", f"http://{site.host}/gen/0.html", *LOCAL,
                        "--delay", "0", "--same-host", "--sitemaps")
        assert site.paths().count("/orphan.html") == 1
    assert summary["sitemap_urls"] == 1


def test_keywords_give_content_and_link_scores(bin_dir, tmp_path):
    keywords = tmp_path / "keywords.txt"
    keywords.write_text("# topic\npage\nmissing\n")
    db = tmp_path / "db"
    with CrawlSite(pages=3) as site:
        crawl(bin_dir, db, f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0", "--same-host",
              "--keywords", keywords, "--score-mode", "ppr")
    rows = pages(bin_dir, db)
    for n in range(3):
        # "Page n." holds one keyword of two; so does each anchor "page c" with its context.
        assert rows[f"http://{site.host}/gen/{n}.html"]["content_score"] == 0.5
    assert rows[f"http://{site.host}/gen/1.html"]["link_score"] == 0.5


def test_revisits_are_conditional_and_304_is_unchanged(bin_dir, tmp_path):
    db = tmp_path / "db"
    with CrawlSite(pages=2, robots=None) as site:
        summary = crawl(bin_dir, db, f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0",
                        "--same-host", "--deny", "/private/", "--revisit", "0.5", "--max-time", "3")
        log = site.log()
    assert summary["stopped"]
    first = [h for h in log if h.path == "/gen/0.html"]
    assert len(first) >= 2 and not first[0].conditional and all(h.conditional for h in first[1:])
    row = pages(bin_dir, db)[f"http://{site.host}/gen/0.html"]
    assert row["crawls"] == len(first) and row["changes"] == 0
    assert summary["statuses"].get("304", 0) >= 2


def test_bad_usage(bin_dir, tmp_path):
    crawl(bin_dir, tmp_path / "db", "ftp://example.com/", expect=2)
    crawl(bin_dir, tmp_path / "db", "http://e.com/", "--score-mode", "nope", expect=2)
    zero = subprocess.run(crawl_cmd(bin_dir, tmp_path / "db", "http://e.com/", "--concurrency",
                                    "0"), capture_output=True, text=True)
    # The tool names itself once (it said "crawlrank crawl: crawl: ...").
    assert zero.returncode == 2 and zero.stderr.startswith(
        "crawlrank crawl: concurrency must be above 0\n"), zero.stderr
    crawl(bin_dir, tmp_path / "db", "http://e.com/", "--rerank-graph-growth", "-1", expect=2)
    proc = subprocess.run([str(bin_dir / "crawlrank"), "dump", "info", str(tmp_path / "none")],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "page_db_dump" in proc.stderr


def test_seeds_file_and_standard_input_add_to_the_seeds(bin_dir, tmp_path):
    db = tmp_path / "db"
    with CrawlSite(pages=4, robots=None) as site:
        base = f"http://{site.host}/gen"
        seeds = tmp_path / "seeds.txt"
        seeds.write_text(f"# two seeds\n\n  {base}/1.html\t\r\n{base}/2.html\n")
        proc = subprocess.run(crawl_cmd(bin_dir, db, f"{base}/0.html", "--seeds-file", seeds,
                                        "--seeds-file", "-", *LOCAL, "--delay", "0",
                                        "--max-pages", "1", "--json"),
                              input=f"{base}/3.html\n", capture_output=True, text=True,
                              timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = pages(bin_dir, db)
    # The seeds are the pages at depth 0: from the argument, the file and stdin.
    assert {url for url, row in rows.items() if row["depth"] == 0} == {
        f"{base}/{n}.html" for n in range(4)}
    missing = subprocess.run(crawl_cmd(bin_dir, tmp_path / "db2", "--seeds-file",
                                       tmp_path / "none.txt"), capture_output=True, text=True)
    assert missing.returncode == 1
    assert f'--seeds-file "{tmp_path / "none.txt"}": No such file' in missing.stderr
    assert not (tmp_path / "db2").exists()


def test_a_crawl_at_max_pages_ends_without_waiting_for_a_robots_txt_retry(bin_dir, tmp_path):
    # Every page links to other.invalid, whose robots.txt cannot be fetched: its page waits
    # for the robots.txt retries (1, 2, then 4 min). At --max-pages the crawl is done, and
    # it used to wait those 7 min for a page it would not fetch.
    with CrawlSite(pages=7) as site:
        started = time.monotonic()
        summary = crawl(bin_dir, tmp_path / "db", f"http://{site.host}/gen/0.html", *LOCAL,
                        "--delay", "0", "--max-pages", "4", timeout=60)
    assert time.monotonic() - started < 30
    assert summary["finished"] is True
    assert summary["pages"] + summary["errors"] >= 1


def test_crawl_log_has_a_json_line_for_every_page_fetched_or_failed(bin_dir, tmp_path):
    db, log = tmp_path / "db", tmp_path / "crawl.jsonl"
    with socket.socket() as s:  # a port nobody answers on: a failed page
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/"
    with CrawlSite(pages=3) as site:
        origin = f"http://{site.host}"
        crawl(bin_dir, db, f"{origin}/gen/0.html", dead, *LOCAL, "--delay", "0", "--same-host",
              "--max-retries", "0", "--log", log, "--max-pages", "2")
        first = [json.loads(line) for line in log.read_text().splitlines()]
        crawl(bin_dir, db, *LOCAL, "--log", log, "--max-pages", "0")  # resumed: appends
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[:len(first)] == first and len(lines) > len(first)
    by_url = {line["url"]: line for line in lines}
    assert len(by_url) == len(lines)  # each page once
    rows = pages(bin_dir, db)
    # Every page the DB holds as crawled is in the log, and the failed seed. A /private/
    # page handed out before its robots.txt was known (queued when the first run stopped;
    # the second fetches robots.txt again) is logged as refused by robots.txt: a failure
    # too. (A link the robots.txt already known refuses is failed at once, unlogged.)
    refused = {url for url, line in by_url.items() if line["failure"] == "robots-disallowed"}
    assert all(urllib.parse.urlsplit(url).path.startswith("/private/") for url in refused)
    assert set(by_url) - refused == crawled(rows) | {dead}
    seed = by_url[f"{origin}/gen/0.html"]
    assert set(seed) == {"time", "url", "status", "bytes", "content_type", "ms", "referrer",
                         "failure"}
    assert seed["status"] == 200 and seed["referrer"] is None and seed["failure"] is None
    assert seed["content_type"].startswith("text/html") and seed["bytes"] > 0
    assert 0 <= seed["ms"] < 10_000
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", seed["time"])
    # A page found by a link names the page whose link found it first.
    for url, line in by_url.items():
        if url not in (dead, seed["url"]):
            assert rows[line["referrer"]]["hash"] == rows[url]["discovered_from"], line
    # Its robots.txt could not be fetched: failed before any request of the page.
    failed = by_url[dead]
    assert failed["failure"] == "robots-unreachable" and failed["status"] == 0
    assert failed["bytes"] == 0 and failed["ms"] == 0 and failed["content_type"] is None
