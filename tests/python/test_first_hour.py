"""A user's first hour with `crawlrank crawl` (issue #41, part 1): each test does what a
person did first, as docs/crawler.md tells it, and checks what they saw against what the
test's own server served.

- a bare resume (`crawlrank crawl DB`) of a crawl on 127.0.0.1 keeps its queue: the
  crawl's --allow-private is stored; --no-allow-private takes it back, and then the pages
  of the hosts it fetched before are held, not failed;
- at the page cap, a resume says which limit and how to raise it;
- a crawl that fetched nothing exits 1 saying why; `crawlrank --help` is data; `import
  crawlrank` without numpy says so;
- `crawlrank broken` lists 4xx/5xx pages with the pages that link to them.
"""

from __future__ import annotations

import http.server
import json
import os
import pathlib
import subprocess
import urllib.parse

import pytest

from crawl_site import CrawlSite
from local_server import LocalServer, reply

FAST = ("--quiet", "--json", "--delay", "0", "--max-retries", "0", "--retry-delay", "0.1")


def run(bin_dir: pathlib.Path, *args: object, expect: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(bin_dir / "crawlrank"), *map(str, args)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == expect, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def stats(bin_dir: pathlib.Path, db: pathlib.Path) -> dict:
    return json.loads(run(bin_dir, "stats", db, "--json").stdout)


def gen_hits(site: CrawlSite) -> list[str]:
    return [hit.path for hit in site.hits if hit.path.startswith("/gen/")]


def test_a_bare_resume_of_a_local_crawl_keeps_its_queue(bin_dir, tmp_path):
    db = tmp_path / "local.db"
    with CrawlSite(pages=12) as site:
        seed = f"http://{site.host}/gen/0.html"
        run(bin_dir, "crawl", db, seed, "--allow-private", "--same-host", "--max-pages", "4",
            *FAST)
        assert stats(bin_dir, db)["config"]["allow_private"] == "1"
        shown = run(bin_dir, "crawl", db, "--show-config").stdout
        assert "  allow_private: 1\n" in shown
        # The resume docs/crawler.md gives: the DB alone (and the cap lifted).
        resumed = run(bin_dir, "crawl", db, "--max-pages", "0", "--quiet", "--json")
        summary = json.loads(resumed.stdout)
        assert summary["errors_by_kind"] == {}, summary
        assert summary["finished"] is True
        hits = gen_hits(site)
    # Every page of the site once, none failed as private-address.
    assert sorted(hits) == sorted(f"/gen/{n}.html" for n in range(12))
    after = stats(bin_dir, db)
    assert "failed_private-address" not in after and after["queued"] == 0


def test_no_allow_private_holds_the_hosts_it_fetched_before(bin_dir, tmp_path):
    db = tmp_path / "local.db"
    with CrawlSite(pages=12) as site:
        seed = f"http://{site.host}/gen/0.html"
        run(bin_dir, "crawl", db, seed, "--allow-private", "--same-host", "--max-pages", "3",
            *FAST)
        queued = stats(bin_dir, db)["queued"]
        assert queued > 0
        fetched = len(site.hits)
        held = run(bin_dir, "crawl", db, "--no-allow-private", "--max-pages", "0", "--quiet",
                   expect=1)
        host = site.host.split(":")[0]  # the politeness key: the host, without the port
        assert f"held the pages of {host}: crawled before, its address is refused now" \
            in held.stdout, held.stdout
        assert "every host with pages queued is refused by the address guard" in held.stderr
        assert "changed the configuration stored in" in held.stderr
        assert "allow_private 1 -> 0" in held.stderr
        assert len(site.hits) == fetched  # nothing reached the server
        after = stats(bin_dir, db)
        assert after["config"]["allow_private"] == "0"
        assert "failed_private-address" not in after
        assert after["queued"] + after["in_flight"] == queued  # nothing failed, nothing lost
        kinds = {page["kind"] for page in json.loads(run(bin_dir, "failed", db, "--json").stdout)}
        assert kinds <= {"robots-disallowed"}, kinds  # /private/: robots.txt, not the guard
        # Allowed again: the held pages are fetched, each once (the leases of the held
        # pages came back at this open).
        summary = json.loads(run(bin_dir, "crawl", db, "--allow-private", "--quiet",
                                 "--json").stdout)
        assert summary["finished"] is True and summary["errors_by_kind"] == {}
        hits = gen_hits(site)
    assert sorted(hits) == sorted(f"/gen/{n}.html" for n in range(12))


def test_a_resume_at_the_page_cap_names_the_limit(bin_dir, tmp_path):
    db = tmp_path / "capped.db"
    with CrawlSite(pages=12) as site:
        seed = f"http://{site.host}/gen/0.html"
        first = json.loads(run(bin_dir, "crawl", db, seed, "--allow-private", "--same-host",
                               "--max-pages", "3", *FAST).stdout)
        assert first["limit_reached"] is True and first["finished"] is True
        again = run(bin_dir, "crawl", db, "--quiet")
    assert "already complete" not in again.stdout
    line = next(l for l in again.stdout.splitlines() if l.startswith("max_pages (3) reached"))
    queued = stats(bin_dir, db)["queued"]
    assert line == f"max_pages (3) reached with {queued} pages queued; raise it with --max-pages"
    as_stats = stats(bin_dir, db)
    assert as_stats["limit_reached"] is True and as_stats["crawl_finished"] is True


def test_a_crawl_that_fetched_nothing_exits_1_and_says_why(bin_dir, tmp_path):
    db = tmp_path / "refused.db"
    with CrawlSite(pages=3) as site:
        seed = f"http://{site.host}/gen/0.html"
        proc = run(bin_dir, "crawl", db, seed, "--quiet", "--delay", "0", expect=1)
        assert site.hits == []
    assert "crawlrank crawl: nothing fetched" in proc.stderr
    assert f"run `crawlrank crawl {db} --allow-private`" in proc.stdout, proc.stdout


def test_help_is_data_on_stdout(bin_dir):
    proc = run(bin_dir, "--help")
    assert proc.stdout.startswith("usage: crawlrank crawl DB SEED...") and proc.stderr == ""
    assert " broken " in proc.stdout
    bare = subprocess.run([str(bin_dir / "crawlrank")], capture_output=True, text=True)
    assert bare.returncode == 2 and bare.stdout == "" and "usage:" in bare.stderr


class BrokenLinks(http.server.BaseHTTPRequestHandler):
    """/ links to /a, /b, /missing and /down; /a links to /missing and /gone; /b to
    /missing. /missing is 404, /gone 410, /down 503 (failed for good with no retries)."""

    LINKS = {"/": ["/a", "/b", "/missing", "/down"], "/a": ["/missing", "/gone"],
             "/b": ["/missing"]}
    STATUS = {"/missing": 404, "/gone": 410, "/down": 503}

    def do_GET(self):  # noqa: N802
        path = urllib.parse.urlsplit(self.path).path
        if path == "/robots.txt":
            reply(self, 404, b"")
        elif path in self.LINKS:
            body = "".join(f'<a href="{target}">x</a>' for target in self.LINKS[path])
            reply(self, 200, f"<html><body>{body}</body></html>".encode())
        else:
            # Retry-After: 1, or the 503 holds the host for a minute (scheduler_options.h,
            # hold_ms) before /gone is fetched. (libcurl reads "0" as no header.)
            status = self.STATUS.get(path, 404)
            reply(self, status, b"<html>no</html>",
                  {"Retry-After": "1"} if status == 503 else None)

    def log_message(self, *args):
        pass


def test_broken_lists_4xx_and_5xx_with_their_linking_pages(bin_dir, tmp_path):
    db = tmp_path / "broken.db"
    with LocalServer(BrokenLinks) as server:
        base = f"http://{server.host}"
        run(bin_dir, "crawl", db, base + "/", "--allow-private", *FAST)
    listed = json.loads(run(bin_dir, "broken", db, "--json").stdout)
    got = {row["url"]: (row["http_status"], row["state"], sorted(row["referrers"]))
           for row in listed}
    assert got == {
        base + "/missing": (404, "crawled", [base + "/", base + "/a", base + "/b"]),
        base + "/gone": (410, "crawled", [base + "/a"]),
        base + "/down": (503, "failed", [base + "/"]),
    }
    assert [row["url"] for row in listed][0] == base + "/missing"  # most linked first
    text = run(bin_dir, "broken", db, "--max-referrers", "1").stdout.splitlines()
    assert text[:3] == [f"404 {base}/missing (3 linking pages)", f"  from {base}/",
                        "  ... and 2 more"]
    assert f"503 {base}/down (1 linking page, failed)" in text


def test_import_without_numpy_names_numpy():
    python_dir = os.environ.get("CRAWLRANK_PYTHON_DIR")
    if not python_dir:
        pytest.skip("CRAWLRANK_PYTHON_DIR is not set (the bindings are not built)")
    # sys.modules["numpy"] = None makes `import numpy` fail as it does where it is missing.
    code = ("import sys; sys.modules['numpy'] = None; sys.path.insert(0, sys.argv[1]); "
            "import crawlrank")
    proc = subprocess.run(["/usr/bin/python3", "-c", code, python_dir], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert ("ImportError: crawlrank needs numpy, which is missing (Debian: apt install "
            "python3-numpy") in proc.stderr, proc.stderr


def test_the_eta_comes_from_the_queue_without_max_pages(bin_dir, tmp_path):
    db = tmp_path / "slow.db"
    with CrawlSite(pages=20, page_delay=0.3) as site:
        proc = run(bin_dir, "crawl", db, f"http://{site.host}/gen/0.html", "--allow-private",
                   "--same-host", "--delay", "0")
    lines = [line for line in proc.stderr.splitlines() if line.startswith("crawl: ")]
    assert lines, proc.stderr  # progress every 2 s, plain lines when stderr is no terminal
    assert any(", ETA " in line for line in lines), lines


def test_a_finished_scoped_crawl_has_nothing_pending_in_the_dump(bin_dir, tmp_path):
    """Issue #41, part 3: page_db_dump's state column applies the stored scope, as
    page_db_stats counts: nothing pending on a finished --same-host crawl, the other host's
    page out_of_scope."""
    import csv
    import io

    db = tmp_path / "scoped.db"
    with CrawlSite(pages=6) as site:
        run(bin_dir, "crawl", db, f"http://{site.host}/gen/0.html", "--allow-private",
            "--same-host", *FAST)
    rows = list(csv.DictReader(io.StringIO(run(bin_dir, "dump", "info", db, "--csv").stdout)))
    states = {row["url"]: row["state"] for row in rows}
    assert states["http://other.invalid/elsewhere.html"] == "out_of_scope"
    assert "pending" not in states.values(), states
    counts = stats(bin_dir, db)
    assert sum(s == "out_of_scope" for s in states.values()) == counts["out_of_scope"]
    assert sum(s == "crawled" for s in states.values()) == counts["crawled_pages"]
    # The text dump (--all) says the same, and page_db_load reads it back.
    text = run(bin_dir, "dump", "info", db, "--all").stdout
    assert text.count(" out_of_scope\n") == counts["out_of_scope"]
    (tmp_path / "dump.txt").write_text(text)
    run(bin_dir, "load", tmp_path / "copy.db", tmp_path / "dump.txt")


def test_the_dumps_score_columns_say_what_they_hold_and_are_filled(bin_dir, tmp_path):
    """Issue #41, part 3: --csv's `score` was the caller's content score, 0 in every crawl
    without --keywords. It is named content_score now, and `rank` holds the rank the lists
    show (the display rank a crawl computes at its end): of the crawled pages, the one
    crawlrank top puts first has the highest."""
    import csv
    import io

    db = tmp_path / "ranked.db"
    with CrawlSite(pages=6) as site:
        run(bin_dir, "crawl", db, f"http://{site.host}/gen/0.html", "--allow-private",
            "--same-host", *FAST)
    rows = list(csv.DictReader(io.StringIO(run(bin_dir, "dump", "info", db, "--csv").stdout)))
    assert "score" not in rows[0] and "content_score" in rows[0]
    assert {row["content_score"] for row in rows} == {"0.0"}  # no --keywords
    ranked = {row["url"]: float(row["rank"]) for row in rows if row["rank"]}
    assert len(ranked) == len(rows)
    top = run(bin_dir, "top", db, "-n", "1").stdout.splitlines()[-1].split()
    crawled = {url: rank for url, rank in ranked.items()
               if next(r for r in rows if r["url"] == url)["state"] == "crawled"}
    assert top[1] == max(crawled, key=crawled.get)  # top lists crawled pages
    assert float(top[2]) == pytest.approx(ranked[top[1]], rel=1e-6)
    # Without any rank computed, the field is there and empty.
    (tmp_path / "none.db").mkdir()
    for name in ("data.mdb",):
        (tmp_path / "none.db" / name).write_bytes((db / name).read_bytes())
    rows = list(csv.DictReader(io.StringIO(
        run(bin_dir, "dump", "info", tmp_path / "none.db", "--csv").stdout)))
    assert {row["rank"] for row in rows} == {""}
