"""The dashboard as a console (issue 48), over HTTP: the crawl's state through a live crawl,
a Ctrl-C and a resume; the latest fetches against the crawl's own log, each within 2 s of
its line; search; broken links and their CSV; a host's robots.txt as kept; the fetch time
histogram against the fetches; `crawlrank stats --json`'s histograms. The browser's side
is in test_dashboard_browser.py."""

from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from dashboard_util import Dashboard, HostileSite, stats

pytestmark = pytest.mark.needs_crawlrank

ROBOTS = b"User-agent: *\nDisallow: /private\n"
N_PAGES = 40


def site_pages() -> dict[str, bytes]:
    """/ links to /p0, a page robots.txt disallows, a missing page and a hostile one; each
    /pI to the next two; /p3 to the missing page too."""
    pages = {
        "/robots.txt": ROBOTS,
        "/": b"<html><head><title>home</title></head><body><a href=\"/p0\">p0</a> "
             b"<a href=\"/private/secret\">s</a> <a href=\"/missing\">m</a> "
             b"<a href=\"/evil?x=%3Cscript%3E\">e</a></body></html>",
        "/evil": b"<html><head><title><script>window.__pwned=1</script></title></head>"
                 b"<body>x</body></html>",
    }
    for i in range(N_PAGES):
        links = "".join(f"<a href=\"/p{j}\">{j}</a> " for j in (i + 1, i + 2) if j < N_PAGES)
        if i == 3:
            links += "<a href=\"/missing\">gone</a>"
        pages[f"/p{i}"] = (f"<html><head><title>page {i}</title></head><body>{links}"
                           f"</body></html>").encode()
    return pages


def crawl_command(bin_dir: Path, db: Path, site, log: Path, delay: str) -> list[str]:
    return [str(bin_dir / "crawlrank"), "crawl", str(db), f"http://{site.host}/",
            "--allow-private", "--same-host", "--delay", delay, "--quiet", "--log", str(log)]


def log_lines(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def state_of(dash: Dashboard) -> dict:
    return dash.json("api/summary")["state"]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class TailWatcher:
    """Polls /api/recent every 0.1 s in a thread, noting when each entry was first seen."""

    def __init__(self, dash: Dashboard) -> None:
        self.dash = dash
        self.seen: dict[int, tuple[float, dict]] = {}  # seq -> (wall time, row)
        self.latest = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                tail = self.dash.json(f"api/recent?after={self.latest}&n=1024")
            except (AssertionError, OSError):
                time.sleep(0.1)
                continue
            now = time.time()
            for row in tail["rows"]:
                self.seen.setdefault(row["seq"], (now, row))
            self.latest = max(self.latest, tail["latest"])
            time.sleep(0.1)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


def test_state_tail_and_figures_through_a_crawl_a_ctrl_c_and_a_resume(bin_dir, tmp_path):
    db, log = tmp_path / "db", tmp_path / "crawl.jsonl"
    with HostileSite(site_pages()) as site:
        command = crawl_command(bin_dir, db, site, log, "0.15")
        crawl = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_for(lambda: (db / "data.mdb").exists(), 30, "the PageDB")
        with Dashboard(bin_dir, db) as dash, TailWatcher(dash) as watcher:
            running = wait_for(lambda: (s := state_of(dash))["state"] == "running" and s, 30,
                               "running")
            assert running["writer_pid"] == crawl.pid
            assert running["left"] > 0
            # Let a few pages through, then Ctrl-C.
            wait_for(lambda: dash.json("api/summary")["crawled_pages"] >= 8, 60, "8 pages")
            crawl.send_signal(signal.SIGINT)
            crawl.wait(timeout=60)
            stopped = wait_for(lambda: (s := state_of(dash))["state"] != "running" and s, 10,
                               "the state after Ctrl-C")
            assert stopped["state"] == "stopped" and stopped["writer_pid"] is None
            assert stopped["left"] > 0 and stopped["eta_ms"] is None
            # Resume: the same command, to the end.
            resumed = subprocess.run(command, capture_output=True, timeout=300)
            assert resumed.returncode == 0, resumed.stderr
            finished = wait_for(lambda: (s := state_of(dash))["state"] == "finished" and s, 10,
                                "finished")
            assert finished["left"] == 0
            time.sleep(1.5)  # the watcher's last polls
    lines = log_lines(log)
    rows = {seq: row for seq, (_, row) in watcher.seen.items()}
    # Every line of the log is an entry of the tail, in the same order, with the same
    # status and failure. The tail has one entry more: the link robots.txt disallows,
    # refused where it was found, never handed out, so never a line of the log (a log line
    # is a page handed out that ended: fetch_log.h).
    assert len(rows) <= 1024
    ordered = [rows[seq] for seq in sorted(rows)]
    refused = [row for row in ordered if row["url"].endswith("/private/secret")]
    assert [(r["failure"], r["http_status"]) for r in refused] == [("robots-disallowed", 0)]
    logged = [row for row in ordered if row not in refused]
    assert len(lines) == len(logged), (len(lines), len(logged))
    for line, row in zip(lines, logged):
        assert row["url"] == line["url"]
        assert row["http_status"] == line["status"]
        assert row["failure"] == line["failure"]
        if line["failure"] is None:
            assert row["decoded_bytes"] == line["bytes"]
    # Each was seen within 2 s of its log line's time (the fetch's end).
    for line, row in zip(lines, logged):
        seen_at = watcher.seen[row["seq"]][0]
        ended = datetime.fromisoformat(line["time"].replace("Z", "+00:00")).timestamp()
        assert seen_at - ended < 2.0, (row["url"], seen_at - ended)
    # The referrer is the page whose link found it.
    by_url = {row["url"]: row for row in ordered}
    assert by_url[f"http://{site.host}/p5"]["referrer"] == f"http://{site.host}/p3"
    # The histogram counts every fetch recorded; stats --json says the same.
    expected = stats(bin_dir, db)
    assert expected["observed_fetches"] == expected["fetches"] == sum(
        1 for line in lines if line["failure"] is None)
    assert sum(expected["fetch_ms_buckets"].values()) == expected["fetches"]
    assert list(expected["fetch_ms_buckets"])[-1] == "+Inf"
    with Dashboard(bin_dir, db) as dash:
        summary = dash.json("api/summary")
        _, metrics, _ = dash.get("metrics")
    count = next(float(line.split()[-1]) for line in metrics.splitlines()
                 if line.startswith("crawlrank_fetch_duration_seconds_count"))
    assert count == expected["fetches"]
    assert summary["config"]["delay_ms"] == "150" and summary["config"]["scope"] == "same-host"


@pytest.fixture(scope="module")
def console_db(bin_dir, tmp_path_factory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("console") / "db"
    with HostileSite(site_pages()) as site:
        subprocess.run(crawl_command(bin_dir, db, site, db.parent / "log.jsonl", "0"),
                       check=True, capture_output=True, timeout=300)
    subprocess.run([str(bin_dir / "page_db_rank"), str(db)], check=True, capture_output=True)
    return db, site.host


def test_search_finds_pages_by_substring_with_links_ranks_and_robots(bin_dir, console_db):
    db, host = console_db
    with Dashboard(bin_dir, db) as dash:
        found = dash.json("api/search?q=/p1")
        exact = dash.json(f"api/search?q=http://{host}/p5")
        private = dash.json("api/search?q=private")
        status, body, _ = dash.get("api/search?q=")
    # /p1 and /p10 ... /p19: eleven URLs hold "/p1".
    urls = sorted(row["url"] for row in found["rows"])
    assert urls == sorted(f"http://{host}/p{i}" for i in [1, *range(10, 20)])
    assert found["matches"] == 11
    [p5] = exact["rows"]
    assert p5["exact"] and p5["state"] == "crawled" and p5["http_status"] == 200
    # /p5 links to /p6 and /p7, and is linked from /p3 and /p4.
    assert p5["out_links"] == 2 and p5["in_links"] == 2
    assert p5["fetch"]["title"] == "page 5"
    assert set(p5["ranks"]) >= {"pagerank"} and p5["ranks"]["pagerank"] > 0
    assert p5["robots"]["allowed"] and p5["robots"]["rule"] is None
    [secret] = private["rows"]
    assert secret["state"].startswith("failed") and secret["failure"]["kind"] == "robots-disallowed"
    assert secret["robots"] == {"origin": f"http://{host}", "status": 200, "allowed": False,
                                "rule": "Disallow: /private"}
    assert status == 400 and "give ?q=" in body


def test_broken_links_view_and_csv(bin_dir, console_db):
    db, host = console_db
    with Dashboard(bin_dir, db) as dash:
        broken = dash.json("api/broken")
        status, text, headers = dash.get("broken.csv")
        _, page, _ = dash.get("broken")
    [missing] = broken["rows"]
    assert missing["url"] == f"http://{host}/missing" and missing["http_status"] == 404
    assert sorted(r["url"] for r in missing["referrers"]) == [f"http://{host}/",
                                                               f"http://{host}/p3"]
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    assert "attachment" in headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted(r["referrer"] for r in rows) == [f"http://{host}/", f"http://{host}/p3"]
    assert all(r["url"] == missing["url"] and r["http_status"] == "404" for r in rows)
    assert "broken.csv" in page and "/missing" in page


def test_a_hosts_view_shows_its_robots_txt_as_kept(bin_dir, console_db):
    db, host = console_db
    name = host.split(":")[0]
    with Dashboard(bin_dir, db) as dash:
        view = dash.json(f"api/host?name={name}")
        status, _, _ = dash.get("api/host?name=never.example")
        _, page, _ = dash.get(f"host?name={name}")
    [robots] = view["robots"]
    assert robots["origin"] == f"http://{host}" and robots["status"] == 200
    assert robots["rules"] == [{"allow": False, "pattern": "/private"}]
    assert view["delay_ms"] == 0 and view["held"] is False
    assert view["crawled_pages"] == stats(bin_dir, db)["crawled_pages"]
    assert status == 404
    assert "Disallow: /private" in page


def test_the_new_views_escape_what_strangers_wrote(bin_dir, console_db):
    db, _ = console_db
    with Dashboard(bin_dir, db) as dash:
        pages = [dash.get(path)[1] for path in
                 ("recent", "search?q=evil", "broken", "search?q=%3Cscript%3E")]
    for page in pages:
        assert "<script>window" not in page
        assert "<script>" not in page.replace('<script src="static/dashboard.js" defer></script>', "")


def test_the_tail_pages_by_number(bin_dir, console_db):
    db, _ = console_db
    with Dashboard(bin_dir, db) as dash:
        everything = dash.json("api/recent?n=1024")
        newest = dash.json("api/recent?n=3")
        after = dash.json(f"api/recent?after={everything['latest'] - 2}")
    seqs = [row["seq"] for row in everything["rows"]]
    assert seqs == sorted(seqs, reverse=True) and seqs[0] == everything["latest"]
    assert [row["seq"] for row in newest["rows"]] == seqs[:3]
    assert [row["seq"] for row in after["rows"]] == seqs[:2]
