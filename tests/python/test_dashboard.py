"""`crawlrank dashboard DB` (issue 27) over HTTP, as a browser or a Prometheus server
would use it: the JSON API against page_db_stats, /metrics through prometheus_client's
own parser, hostile titles and URLs escaped, the token off 127.0.0.1, and bad input
answered with 400 and a message."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from crawl_site import CrawlSite
from dashboard_util import Dashboard, HostileSite, stats

pytestmark = pytest.mark.needs_crawlrank

@pytest.fixture(scope="module")
def crawled(bin_dir, tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("dashboard") / "db"
    with HostileSite() as site:
        subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(db), f"http://{site.host}/",
                        "--allow-private", "--delay", "0", "--quiet", "--same-host"],
                       check=True, capture_output=True, timeout=120)
    subprocess.run([str(bin_dir / "page_db_rank"), str(db)], check=True, capture_output=True)
    return db


def test_the_api_agrees_with_page_db_stats(bin_dir, crawled):
    expected = stats(bin_dir, crawled)
    with Dashboard(bin_dir, crawled) as dash:
        summary = dash.json("api/summary")
        hosts = dash.json("api/hosts")
        progress = dash.json("api/progress")
    c = summary["counters"]
    assert summary["pages"] == expected["pages"]
    assert summary["crawled_pages"] == expected["crawled_pages"]
    assert summary["links"] == expected["links"]
    assert c["fetches"] == expected["fetches"]
    assert c["fetches_by_class"]["2xx"] == expected["fetches_2xx"]
    assert c["fetches_by_class"]["4xx"] == expected["fetches_4xx"] == 1  # /missing
    assert c["wire_bytes"] == expected["wire_bytes"] > 0
    assert len(progress["samples"]) == expected["progress_samples"] >= 1
    [host] = hosts["rows"]
    assert host["host"] == "127.0.0.1" and host["crawled_pages"] == expected["crawled_pages"]
    assert host["pages"] == expected["pages"]


def test_metrics_parse_as_prometheus_text(bin_dir, crawled):
    parser = pytest.importorskip("prometheus_client.parser")
    expected = stats(bin_dir, crawled)
    with Dashboard(bin_dir, crawled) as dash:
        status, text, headers = dash.get("metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in parser.text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    assert samples[("crawlrank_pages", ())] == expected["pages"]
    assert samples[("crawlrank_pages_fetched_total", (("status_class", "2xx"),))] == \
        expected["fetches_2xx"]
    assert samples[("crawlrank_received_bytes_total", ())] == expected["wire_bytes"]
    assert ("crawlrank_rank_age_seconds", (("algorithm", "pagerank"),)) in samples
    assert ("crawlrank_queue_urls", ()) in samples


def test_hostile_titles_and_urls_are_shown_escaped(bin_dir, crawled):
    with Dashboard(bin_dir, crawled) as dash:
        pages = [dash.json(f"api/page?id={i}") for i in range(dash.json("api/summary")["pages"])]
        evil = next(p for p in pages if p["url"].endswith("/evil"))
        title = evil["fetch"]["title"]
        assert title.startswith("<script>alert(1)</script>") and "\ufffd" in title, title
        views = [dash.get(f"page?id={p['id']}")[1] for p in pages]
        views += [dash.get(v)[1] for v in ("", "hosts", "failures", "top")]
    for html in views:
        assert "<script>alert" not in html and "<img" not in html and "javascript:" not in html
        assert "onmouseover=alert(2) x=\"" not in html  # the quote that would end an attribute
        # The only scripts are the dashboard's own files.
        assert set(re.findall(r"<script[^>]*>", html)) <= {
            '<script src="static/chart.js" defer>', '<script src="static/dashboard.js" defer>'}
    evil_view = views[pages.index(evil)]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39; onmouseover=alert(2)" in evil_view


def test_pages_forbid_inline_scripts_and_sniffing(bin_dir, crawled):
    with Dashboard(bin_dir, crawled) as dash:
        status, _, headers = dash.get("")
        script_status, script, script_headers = dash.get("static/dashboard.js")
    assert status == 200
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert script_status == 200 and script_headers["Content-Type"].startswith("text/javascript")
    assert "innerHTML" not in script  # data reaches the page as text only


def test_bad_queries_are_400_with_a_message(bin_dir, crawled):
    with Dashboard(bin_dir, crawled) as dash:
        status, body, _ = dash.get("api/hosts?sort=%3Cbogus%3E")
        assert status == 400 and "no column" in json.loads(body)["error"]
        status, body, _ = dash.get("hosts?sort=%3Cbogus%3E")
        assert status == 400 and "&lt;bogus&gt;" in body and "<bogus>" not in body
        assert dash.get("api/failures?kind=nonsense")[0] == 400
        assert dash.get("api/top?by=nonsense")[0] == 400
        assert dash.get("api/page?id=999999")[0] == 404
        assert dash.get("api/page?url=http://elsewhere.example/")[0] == 404


def test_a_rebound_name_is_refused(bin_dir, crawled):
    """DNS rebinding: a web page at http://evil.example:PORT/ whose name the attacker makes
    resolve to 127.0.0.1 reaches the dashboard with `Host: evil.example:PORT`, and must read
    nothing; addresses, localhost and names given with --allow-host are answered."""
    with Dashboard(bin_dir, crawled) as dash:
        port = dash.url.rsplit(":", 1)[1].strip("/")
        status, body, _ = dash.get("api/summary", {"Host": f"evil.example:{port}"})
        assert status == 421 and "evil.example" in body and "pages" not in body
        assert dash.get("", {"Host": "EVIL.example"})[0] == 421
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST", "[::1]:80",
                     "10.1.2.3"):
            assert dash.get("api/summary", {"Host": host})[0] == 200, host
    with Dashboard(bin_dir, crawled, "--allow-host", "crawl.internal") as dash:
        assert dash.get("api/summary", {"Host": "crawl.internal:7072"})[0] == 200
        assert dash.get("api/summary", {"Host": "evil.example"})[0] == 421


def test_off_loopback_needs_a_token_and_every_request_carries_it(bin_dir, crawled):
    refused = subprocess.run([str(bin_dir / "crawlrank"), "dashboard", str(crawled), "--listen",
                              "0.0.0.0:0"], capture_output=True, text=True,
                             timeout=30)
    assert refused.returncode == 2 and "--token" in refused.stderr
    with Dashboard(bin_dir, crawled, "--token", "s3cret") as dash:
        assert dash.get("")[0] == 401
        assert dash.get("api/summary")[0] == 401
        assert dash.get("metrics")[0] == 401
        assert dash.get("api/summary", {"Authorization": "Bearer wrong"})[0] == 401
        assert dash.get("api/summary", {"Authorization": "Bearer s3cret"})[0] == 200
        assert dash.get("login?token=wrong")[0] == 401
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(dash.url + "login?token=s3cret", timeout=30) as response:
            assert response.status == 200 and "Overview" in response.read().decode()
        with opener.open(dash.url + "api/summary", timeout=30) as response:
            assert response.status == 200


def test_figures_follow_a_running_crawl(bin_dir, tmp_path):
    """Beside a live crawl, each figure lies between page_db_stats just before and just
    after; once the crawl ends, they are equal."""
    db = tmp_path / "live.db"
    keys = {"pages": lambda s: s["pages"], "crawled_pages": lambda s: s["crawled_pages"],
            "fetches": lambda s: s["counters"]["fetches"] if "counters" in s else s["fetches"],
            "wire_bytes": lambda s: s["counters"]["wire_bytes"] if "counters" in s
            else s["wire_bytes"]}
    with CrawlSite(pages=40, page_delay=0.05) as site:
        crawl = subprocess.Popen([str(bin_dir / "crawlrank"), "crawl", str(db),
                                  f"http://{site.host}/gen/0.html", "--allow-private", "--delay",
                                  "0", "--quiet", "--same-host"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            while not (db / "data.mdb").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            with Dashboard(bin_dir, db) as dash:
                checked = 0
                while crawl.poll() is None:
                    before = stats(bin_dir, db)
                    shown = dash.json("api/summary")
                    after = stats(bin_dir, db)
                    for name, get in keys.items():
                        assert get(before) <= get(shown) <= get(after), (name, before, shown, after)
                    checked += 1
                assert crawl.wait() == 0, crawl.stderr.read()
                final, shown = stats(bin_dir, db), dash.json("api/summary")
                for name, get in keys.items():
                    assert get(final) == get(shown), name
                assert final["crawled_pages"] == 40
                assert checked >= 2
        finally:
            if crawl.poll() is None:
                crawl.kill()


def test_in_links_and_the_guidance_curve_agree_with_the_tools(bin_dir, crawled):
    out = subprocess.run([str(bin_dir / "page_db_dump"), "info", str(crawled), "--json", "--all",
                          "--rank", "pagerank"], check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    total = sum(r["pagerank"] for r in rows)
    fetched = sum(r["pagerank"] for r in rows if r["crawls"] > 0)
    with Dashboard(bin_dir, crawled) as dash:
        top = dash.json("api/top")
        for row in rows:
            links = subprocess.run([str(bin_dir / "page_db_links"), str(crawled), row["url"]],
                                   check=True, capture_output=True, text=True).stdout
            expected_in = {line.split()[2] for line in links.splitlines() if line.startswith("in ")}
            page = dash.json(f"api/page?id={row['index']}")
            assert {link["url"] for link in page["linked_from"]} == expected_in, row["url"]
            assert page["in_links"] == len(expected_in)
    points = top["guidance"]["points"]
    assert points[-1]["pages"] == sum(1 for r in rows if r["crawls"] > 0)
    assert abs(points[-1]["share"] - fetched / total) < 1e-9
    assert all(p["ideal"] >= p["share"] - 1e-12 for p in points)


def test_hosts_page_through_every_host_in_the_order_chosen(bin_dir, tmp_path):
    """250 hosts, 100 a page: "next" and "previous" keep the sort and the order, and together
    the pages list every host once, in the API's order. A page not fetched shows no status."""
    import crawlrank as cr

    with cr.PageDb(str(tmp_path / "db"), durability="none") as pdb:
        pdb.add_batch([cr.CrawledPage(f"http://h{i:03d}.test/", [f"http://h{i:03d}.test/next"],
                                      http_status=200, wire_bytes=1000 + 7 * i)
                       for i in range(250)])
    subprocess.run([str(bin_dir / "page_db_rank"), str(tmp_path / "db")], check=True,
                   capture_output=True)
    with Dashboard(bin_dir, tmp_path / "db") as dash:
        want = [r["host"] for r in dash.json("api/hosts?sort=wire_bytes&order=asc&limit=1000")["rows"]]
        assert len(want) == 250
        seen, path, pages = [], "hosts?sort=wire_bytes&order=asc", 0
        while path:
            status, body, _ = dash.get(path)
            assert status == 200
            seen += re.findall(r'href="host\?name=([^"]+)"', body)
            links = dict((label, href.replace("&amp;", "&")) for href, label in
                         re.findall(r'<a href="(hosts\?[^"]+)">([^<]+)</a>', body)
                         if "previous" in label or "next" in label)
            nxt = next((h for label, h in links.items() if "next" in label), None)
            if pages > 0:
                assert any("previous" in label for label in links), path
            if nxt:
                assert "sort=wire_bytes" in nxt and "order=asc" in nxt
            path, pages = nxt, pages + 1
        assert pages == 3 and seen == want
        _, top, _ = dash.get("top")  # the "next" pages rank first, never fetched
        assert '<td data-v="0">&mdash;</td>' in top


def test_a_finished_scoped_crawl_has_nothing_to_do_and_shows_the_delay_in_force(bin_dir,
                                                                              tmp_path):
    """Issue #41: the hosts view and the summary apply the crawl's stored scope (pages on
    hosts outside it are out of scope, not to do, as page_db_stats counts them), and a
    host's delay is the one in force (the crawl's --delay, or robots.txt's when longer)."""
    from crawl_site import CrawlSite

    db = tmp_path / "scoped.db"
    with CrawlSite(pages=6) as site:
        subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(db),
                        f"http://{site.host}/gen/0.html", "--same-host", "--allow-private",
                        "--delay", "0.2", "--quiet"], check=True, capture_output=True,
                       timeout=120)
    figures = stats(bin_dir, db)
    assert figures["crawl_finished"] is True and figures["queued"] == 0
    assert figures["out_of_scope"] == 1  # other.invalid/elsewhere.html
    with Dashboard(bin_dir, db) as dash:
        summary = dash.json("api/summary")
        hosts = {row["host"]: row for row in dash.json("api/hosts")["rows"]}
        status, page, _ = dash.get("hosts")
    assert summary["counters"]["to_do"] == 0
    assert summary["counters"]["out_of_scope"] == figures["out_of_scope"]
    local, other = hosts["127.0.0.1"], hosts["other.invalid"]
    assert local["in_scope"] and local["to_do"] == 0 and local["delay_ms"] == 200
    assert local["crawl_delay_ms"] == 0  # robots.txt asks none
    assert not other["in_scope"] and other["to_do"] == 0 and other["out_of_scope"] == 1
    assert status == 200 and "0 (out of scope)" in page


def test_slow_connections_do_not_deny_an_authorised_request(bin_dir, crawled):
    """Issue #41: 300 idle or slow connections (a header line, then nothing) held every
    server thread and the listen backlog of a token-protected dashboard, and an authorised
    request waited behind them. Now one client address keeps at most 16 connections, and a
    request must arrive whole within 10 s: the attacker's connections come from 127.0.0.2,
    the operator's request from 127.0.0.1."""
    import socket

    with Dashboard(bin_dir, crawled, "--token", "s3cret") as dash:
        port = int(dash.url.rsplit(":", 1)[1].strip("/"))
        slow = []
        try:
            for _ in range(300):
                s = socket.socket()
                s.bind(("127.0.0.2", 0))
                s.settimeout(5)
                s.connect(("127.0.0.1", port))
                s.sendall(b"GET /api/summary HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never ends
                slow.append(s)
            start = time.monotonic()
            status = dash.get("api/summary", {"Authorization": "Bearer s3cret"})[0]
            assert status == 200 and time.monotonic() - start < 5
            # Past the 10 s a request has to arrive, every slow connection is closed (those
            # served got an error answer first).
            time.sleep(11)

            def ended(s: socket.socket) -> bool:
                try:
                    while s.recv(4096):
                        pass
                    return True
                except ConnectionError:
                    return True
                except socket.timeout:
                    return False

            assert sum(map(ended, slow)) == len(slow)
        finally:
            for s in slow:
                s.close()
