"""Every crawl ends, its failures can be listed and fetched again (issue #23), driven through
`crawlrank crawl`, `crawlrank failed` and `crawlrank requeue` exactly as the docs give them,
against servers the tests start on 127.0.0.1 (and ports nothing listens on).

Expectations come from the servers' own logs and from the retry rules the docs state
(--retry-delay doubling, --max-retries), not from the crawler's output alone.
"""

from __future__ import annotations

import http.server
import json
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import time

from crawl_site import CrawlSite
from local_server import LocalServer

LOCAL = ("--allow-private", "--quiet", "--json")


def dead_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(bin_dir: pathlib.Path, *args: object, expect: int = 0,
        timeout: float = 60) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(bin_dir / "crawlrank"), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == expect, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def crawl(bin_dir: pathlib.Path, db: pathlib.Path, *args: object, timeout: float = 60,
          expect: int = 0) -> dict:
    """The summary of a crawl; `expect` 1 for one that fetched nothing (it says so)."""
    return json.loads(run(bin_dir, "crawl", db, *args, timeout=timeout, expect=expect).stdout)


def failed(bin_dir: pathlib.Path, db: pathlib.Path, *args: object) -> list[dict]:
    return json.loads(run(bin_dir, "failed", db, "--json", *args).stdout)


def timed_crawl(bin_dir: pathlib.Path, db: pathlib.Path, *args: object,
                expect: int = 0) -> tuple[float, dict]:
    start = time.monotonic()
    summary = crawl(bin_dir, db, *args, expect=expect)
    return time.monotonic() - start, summary


def test_dead_port_seed_ends_with_one_failed_page(bin_dir, tmp_path):
    port = dead_port()
    origin = f"http://127.0.0.1:{port}"
    db = tmp_path / "dead.db"
    elapsed, summary = timed_crawl(bin_dir, db, f"{origin}/", *LOCAL, "--retry-delay", "0.2",
                                   "--max-retries", "2", expect=1)
    # robots.txt is asked 3 times, 0.2 s and then 0.4 s apart: well under 10 s.
    assert elapsed < 10, elapsed
    assert summary["finished"] and summary["pages"] == 0
    assert summary["errors_by_kind"] == {"robots-unreachable": 1}
    assert list(summary["unreachable_origins"]) == [origin]
    assert summary["robots_fetched"] == 3
    [page] = failed(bin_dir, db)
    assert page["url"] == f"{origin}/" and page["kind"] == "robots-unreachable"
    assert page["http_status"] == 0 and page["attempts"] == 1
    assert origin in page["detail"] and "robots.txt" in page["detail"]
    assert abs(page["failed_ms"] / 1000 - time.time()) < 60
    assert page["failed"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                           time.gmtime(page["failed_ms"] // 1000))
    stats = json.loads(subprocess.run([str(bin_dir / "page_db_stats"), str(db), "--json"],
                                      capture_output=True, text=True, check=True).stdout)
    assert stats["failed"] == 1 and stats["failed_robots-unreachable"] == 1
    # page_db_dump --all ends each line with the page's state; a load reads it, keeps none.
    dump = subprocess.run([str(bin_dir / "page_db_dump"), "info", "--all", str(db)],
                          capture_output=True, text=True, check=True).stdout
    assert dump.split()[-1] == "failed:robots-unreachable", dump
    (tmp_path / "dump.txt").write_text(dump)
    subprocess.run([str(bin_dir / "page_db_load"), str(tmp_path / "loaded.db"),
                    str(tmp_path / "dump.txt")], capture_output=True, check=True)
    again = subprocess.run([str(bin_dir / "page_db_dump"), "info", "--all",
                            str(tmp_path / "loaded.db")], capture_output=True, text=True,
                           check=True).stdout
    assert again.split()[:-1] == dump.split()[:-1] and again.split()[-1] == "pending"
    # Re-queued, the next run asks the origin once more, and gives up at the first failure.
    assert run(bin_dir, "requeue", db).stdout == "requeued 1 pages\n"
    again, summary = timed_crawl(bin_dir, db, *LOCAL, "--retry-delay", "0.2", "--max-retries", "2",
                                 expect=1)
    assert summary["robots_fetched"] == 1 and summary["errors_by_kind"] == {
        "robots-unreachable": 1}, summary
    assert again < 5


def test_max_retries_zero_gives_up_at_once_on_every_queued_page(bin_dir, tmp_path):
    origin = f"http://127.0.0.1:{dead_port()}"
    seeds = [f"{origin}/{n}" for n in range(10)]
    # The default delay (1 s) would take 9 s to hand the pages out one by one: the queued
    # ones fail together when the origin is given up on.
    elapsed, summary = timed_crawl(bin_dir, tmp_path / "db", *seeds, *LOCAL, "--max-retries", "0",
                                    expect=1)
    assert elapsed < 5, elapsed
    assert summary["robots_fetched"] == 1
    assert summary["errors_by_kind"] == {"robots-unreachable": 10}
    assert sorted(p["url"] for p in failed(bin_dir, tmp_path / "db")) == sorted(seeds)


def test_robots_503_backs_off_then_fails_the_origin(bin_dir, tmp_path):
    with CrawlSite(pages=3, robots="", robots_status=503) as site:
        summary = crawl(bin_dir, tmp_path / "db", f"http://{site.host}/gen/0.html", *LOCAL,
                        "--delay", "0", "--retry-delay", "0.2", "--max-retries", "2", expect=1)
        log = site.log()
    assert [h.path for h in log] == ["/robots.txt"] * 3  # no page asked before robots.txt
    gaps = [b.time - a.time for a, b in zip(log, log[1:])]
    assert 0.2 - 0.05 <= gaps[0] < 0.2 + 1 and 0.4 - 0.05 <= gaps[1] < 0.4 + 1, gaps
    [page] = failed(bin_dir, tmp_path / "db")
    assert page["kind"] == "robots-unreachable" and "HTTP 503" in page["detail"]
    assert summary["errors_by_kind"] == {"robots-unreachable": 1}


def test_one_dead_external_link_costs_at_most_the_retry_budget(bin_dir, tmp_path):
    dead = f"127.0.0.2:{dead_port()}"  # another host (a port alone does not make one)
    retry = ("--retry-delay", "0.2", "--max-retries", "2")
    with CrawlSite(pages=15, other_host=dead) as site:
        common = (f"http://{site.host}/gen/0.html", *LOCAL, "--delay", "0", *retry)
        base, _ = timed_crawl(bin_dir, tmp_path / "base", *common, "--deny", re.escape(dead))
        with_dead, summary = timed_crawl(bin_dir, tmp_path / "dead", *common)
        same_host, _ = timed_crawl(bin_dir, tmp_path / "same", *common, "--same-host")
    # The budget: robots.txt asked 3 times, 0.2 + 0.4 s apart; slack for a noisy machine.
    assert with_dead <= base + 0.6 + 2.0, (base, with_dead)
    assert same_host <= base + 0.5, (base, same_host)
    assert summary["finished"] and list(summary["unreachable_origins"]) == [f"http://{dead}"]
    [page] = failed(bin_dir, tmp_path / "dead", "--kind", "robots-unreachable")
    assert page["url"] == f"http://{dead}/elsewhere.html"


class RedirectChain(LocalServer):
    """/r/<n> answers 301 to /r/<n+1>, for ever: an endless chain of distinct redirects."""

    def __init__(self) -> None:
        site = self
        self.paths: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                site.paths.append(self.path)
                if self.path.startswith("/r/"):
                    target = f"/r/{int(self.path[3:]) + 1}"
                    self.send_response(301)
                    self.send_header("Location", target)
                else:
                    self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(Handler)


def test_an_endless_redirect_chain_stops_after_20(bin_dir, tmp_path):
    with RedirectChain() as site:
        summary = crawl(bin_dir, tmp_path / "db", f"http://{site.host}/r/0", *LOCAL,
                        "--delay", "0", timeout=60)
        fetched = [p for p in site.paths if p.startswith("/r/")]
    # /r/0 .. /r/20 fetched: 20 redirects followed, the 21st refused.
    assert fetched == [f"/r/{n}" for n in range(21)], fetched
    assert summary["finished"] and summary["pages"] == 20
    [page] = failed(bin_dir, tmp_path / "db")
    assert page["url"] == f"http://{site.host}/r/20" and page["kind"] == "redirect-limit"


def test_private_seed_hint_then_the_same_seed_again_fetches_it(bin_dir, tmp_path):
    db = tmp_path / "db"
    with CrawlSite(pages=3) as site:
        seed = f"http://{site.host}/gen/0.html"
        first = run(bin_dir, "crawl", db, seed, "--quiet", "--delay", "0", "--same-host",
                    expect=1)  # it fetched nothing, and says why
        assert "--allow-private" in first.stdout and "hint:" in first.stdout, first.stdout
        [page] = failed(bin_dir, db, "--kind", "private-address")
        assert page["url"] == seed
        assert site.paths() == []
        # Given again, now allowed, the failed seed is queued again and crawled.
        summary = crawl(bin_dir, db, seed, *LOCAL, "--delay", "0", "--same-host")
        assert summary["requeued_seeds"] == 1 and summary["pages"] == 3
        assert "/gen/0.html" in site.paths()
        # Nothing left: a run says so, and how to go on. (robots.txt keeps /private/ out.)
        done = run(bin_dir, "crawl", db, "--quiet", "--allow-private", "--same-host")
        found = re.search(r"already complete: (\d+) pages \((\d+) crawled, (\d+) failed\)",
                          done.stdout)
        assert found and found.groups() == ("6", "3", "3"), done.stdout
        assert f"crawlrank requeue {db}" in done.stdout


def test_requeue_by_kind_and_host_then_crawl_fetches_them(bin_dir, tmp_path):
    db = tmp_path / "db"
    with CrawlSite(pages=3) as site:
        seed = f"http://{site.host}/gen/0.html"
        run(bin_dir, "crawl", db, seed, "--quiet", "--delay", "0", "--same-host", expect=1)
        run(bin_dir, "requeue", db, "--kind", "timeout")  # matches nothing
        assert len(failed(bin_dir, db)) == 1
        assert failed(bin_dir, db, "--host", "example.com") == []
        out = run(bin_dir, "requeue", db, "--kind", "private-address", "--host", "127.0.0.1",
                  "--url-regex", r"/gen/0\.html$").stdout
        assert out == "requeued 1 pages\n"
        assert failed(bin_dir, db) == []
        summary = crawl(bin_dir, db, *LOCAL, "--delay", "0", "--same-host")
        assert summary["pages"] == 3 and "/gen/0.html" in site.paths()
    bad = run(bin_dir, "requeue", db, "--kind", "no-such-kind", expect=2)
    assert "no-such-kind" in bad.stderr
    bad = run(bin_dir, "requeue", db, "--url-regex", "(", expect=2)
    assert 'URL pattern "(": missing )' in bad.stderr


def test_requeue_beside_a_running_crawl_names_the_writer_lock(bin_dir, tmp_path):
    db = tmp_path / "db"
    with CrawlSite(pages=3, robots="", robots_status=503) as site:
        proc = subprocess.Popen([str(bin_dir / "crawlrank"), "crawl", str(db),
                                 f"http://{site.host}/gen/0.html", *LOCAL, "--retry-delay", "60"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 20
            while "/robots.txt" not in site.paths() and time.monotonic() < deadline:
                time.sleep(0.05)
            busy = run(bin_dir, "requeue", db, expect=1)
            assert "writer.lock" in busy.stderr, busy.stderr
            # The listing reads a snapshot beside the crawl.
            assert failed(bin_dir, db) == []
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=20)


def test_upgrade_of_a_version_3_db_keeps_its_failures(bin_dir, data_dir, tmp_path):
    db = tmp_path / "v3.db"
    shutil.copytree(data_dir / "format-v3.db", db)
    # Read as it is: failures filed by their status and reason, time unknown.
    before = failed(bin_dir, db)
    assert {(p["url"], p["kind"]) for p in before} == {
        ("http://a.example/private", "robots-disallowed"), ("http://c.example/", "http-4xx")}
    refused = run(bin_dir, "requeue", db, expect=1)
    assert "page_db_upgrade" in refused.stderr
    assert run(bin_dir, "upgrade", db).stdout == "format version 3 -> 10\n"
    after = failed(bin_dir, db)
    assert after == before
    assert all(p["failed"] == "unknown" and p["failed_ms"] == 0 for p in after)
    run(bin_dir, "check", db)
    assert run(bin_dir, "upgrade", db).stdout == "format version 10: nothing to do\n"
