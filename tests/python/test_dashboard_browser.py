"""`crawlrank dashboard DB` in a real browser: Selenium drives headless Chromium with a
1366x768 viewport. No view scrolls sideways and none logs a console error; hostile titles
show as text and run nothing; tables sort on a click, in the order the JSON API's values
give; the overview follows a real local crawl, each figure between page_db_stats run just
before and just after, and equal to it once the crawl ends; a 100,000-host DB renders in
under 2 s.

With CRAWLRANK_SCREENSHOT_DIR set, each view is saved there as dashboard-VIEW.png (live and
finished); docs/img/ holds the ones docs/dashboard.md shows. Needs chromium,
chromium-driver and python3-selenium; without them the module skips."""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dashboard_util import PAGES, Dashboard, HostileSite, stats

pytestmark = pytest.mark.needs_crawlrank

webdriver = pytest.importorskip("selenium.webdriver", reason="python3-selenium is not installed")
from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (Path(CHROMEDRIVER).exists() and (shutil.which("chromium") or
                                         shutil.which("chromium-browser"))):
    pytest.skip("needs chromium and chromium-driver", allow_module_level=True)

WIDTH, HEIGHT = 1366, 768
# The figures of the overview (element id) and the key page_db_stats --json prints them as.
FIGURES = {"f-pages": "pages", "f-crawled": "crawled_pages", "f-failed": "failed",
           "f-links": "links", "f-fetches": "fetches", "f-failures": "failure_reports"}
FIGURES.update({f"f-class-{c}": f"fetches_{c}" for c in ("none", "1xx", "2xx", "3xx", "4xx",
                                                         "5xx")})
# Reads every figure of the overview, and when the ones shown were asked for.
READ_FIGURES = """
const out = {asOf: Number(document.getElementById('figures').dataset.asOf || 0)};
for (const id of arguments[0]) out[id] = document.getElementById(id).textContent;
return out;"""


class Browser:
    """One headless Chromium for the module, with a 1366x768 viewport."""

    def __init__(self) -> None:
        options = webdriver.ChromeOptions()
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                    f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        # The window's size counts the browser's own bars: the page gets exactly 1366x768.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        self.driver.set_page_load_timeout(30)

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def open(self, url: str) -> float:
        """Loads `url` and waits for its load event; returns the seconds that took."""
        start = time.monotonic()
        self.driver.get(url)
        self.wait(lambda: self.js("return document.readyState") == "complete", 10, url)
        return time.monotonic() - start

    def wait(self, condition, timeout: float, what: str):
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(
            lambda _: condition(), f"waited {timeout} s for {what}")

    def errors(self) -> list[dict]:
        """The console's SEVERE entries since the last call (reading empties the log)."""
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def alert_open(self) -> bool:
        try:
            self.driver.switch_to.alert
        except NoAlertPresentException:
            return False
        return True

    def settle(self) -> None:
        """Waits two animation frames (the charts paint in one)."""
        self.driver.execute_async_script(
            "const done = arguments[0];"
            "requestAnimationFrame(() => requestAnimationFrame(() => done()));")

    def screenshot(self, name: str) -> None:
        """Saves the viewport as CRAWLRANK_SCREENSHOT_DIR/dashboard-NAME.png, if set."""
        folder = os.environ.get("CRAWLRANK_SCREENSHOT_DIR")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.settle()
            assert self.driver.save_screenshot(str(Path(folder) / f"dashboard-{name}.png"))


@pytest.fixture(scope="module")
def browser():
    b = Browser()
    yield b
    b.driver.quit()


def check_view(browser: Browser, url: str) -> None:
    """Loads a view and waits until its script has drawn it: no sideways scrolling, no
    console error, no alert."""
    # Leave the page before: a view that polls (the latest fetches, every second) would
    # log its next request's failure here once its dashboard has stopped.
    browser.driver.get("about:blank")
    browser.errors()
    browser.open(url)
    path = urllib.parse.urlsplit(url).path
    # The charts' boxes are there when the server has Chart.js (libjs-chart.js) to serve.
    if path.endswith("/"):
        browser.wait(lambda: browser.js(
            "return document.getElementById('figures').dataset.asOf !== undefined && "
            "(!document.getElementById('charts') || "
            "document.querySelectorAll('#charts canvas').length === 5)"), 15, "the overview")
    elif path.endswith("/top"):
        browser.wait(lambda: browser.js(
            "return !document.getElementById('histogram') || "
            "document.querySelectorAll('#histogram canvas').length === 2"), 15, "charts")
    browser.settle()
    width = browser.js("return [document.documentElement.scrollWidth, "
                       "document.documentElement.clientWidth, window.innerWidth]")
    assert width[0] <= width[1] == WIDTH, (url, "scrolls sideways", width)
    assert browser.errors() == [], url
    assert not browser.alert_open(), url


# ---- a hostile site: its titles and URLs must show as text and run nothing

PWN_TITLE = (b"<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"
             b"<svg onload=window.__pwned=3></svg>'\"><b>bold</b>")
LONG_PATH = "/" + "x" * 400  # a URL with nowhere to break: it must wrap, not widen the page
HOSTILE_PAGES = dict(PAGES)
HOSTILE_PAGES["/"] = PAGES["/"].replace(
    b"</body>", b"<a href=\"/pwn\">5</a> <a href=\"" + LONG_PATH.encode() + b"\">6</a>"
    b" <a href=\"/q?x=%22%3E%3Cscript%3Ewindow.__pwned=4%3C/script%3E\">7</a></body>")
HOSTILE_PAGES["/pwn"] = b"<html><head><title>" + PWN_TITLE + b"</title></head><body>z</body></html>"
HOSTILE_PAGES[LONG_PATH] = b"<html><head><title>long</title></head><body>l</body></html>"


@pytest.fixture(scope="module")
def hostile_db(bin_dir, tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("hostile") / "db"
    with HostileSite(HOSTILE_PAGES) as site:
        subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(db), f"http://{site.host}/",
                        "--allow-private", "--delay", "0", "--quiet", "--same-host"],
                       check=True, capture_output=True, timeout=120)
    subprocess.run([str(bin_dir / "page_db_rank"), str(db)], check=True, capture_output=True)
    return db


def test_hostile_titles_and_urls_show_as_text_and_run_nothing(bin_dir, browser, hostile_db):
    with Dashboard(bin_dir, hostile_db) as dash:
        pages = [dash.json(f"api/page?id={i}") for i in range(dash.json("api/summary")["pages"])]
        views = ["", "hosts", "failures", "top", "recent", "broken", "search?q=pwn",
                 "search?q=%3Cscript%3E", "search?q=x", "host?name=127.0.0.1"] + [
                     f"page?id={p['id']}" for p in pages]
        for view in views:
            check_view(browser, dash.url + view)
            assert browser.js("return window.__pwned") is None, view
            # Nothing of the payloads became markup: the dashboard's own elements only.
            assert browser.js("return document.querySelectorAll('img, svg, main script, "
                              "[onerror], [onload], [onmouseover]').length + "
                              "Array.from(document.querySelectorAll('b'))"
                              ".filter(b => b.textContent === 'bold').length") == 0, view
            scripts = browser.js("return Array.from(document.scripts, s => s.getAttribute('src'))")
            assert set(scripts) <= {"static/chart.js", "static/dashboard.js"}, view
        titled = 0
        for page in pages:
            title = (page["fetch"] or {}).get("title", "")
            if "<script>" not in title:
                continue
            browser.open(dash.url + f"page?id={page['id']}")
            cell = browser.driver.find_element(
                By.XPATH, "//tr[th='title']/td").get_attribute("textContent")
            assert cell == title  # the markup, as text
            titled += 1
        assert titled == 2  # /evil and /pwn


# ---- sorting: a DB of 30 hosts, every column different

HOST_COLUMNS = {  # header -> the value of an /api/hosts row it sorts by
    "host": lambda r: r["host"], "pages": lambda r: r["pages"],
    "crawled": lambda r: r["crawled_pages"], "to do": lambda r: r["to_do"],
    "failed": lambda r: r["failed_pages"], "in flight": lambda r: r["in_flight"],
    "fetches": lambda r: r["fetches"], "2xx": lambda r: r["fetches_by_class"]["2xx"],
    "4xx": lambda r: r["fetches_by_class"]["4xx"], "5xx": lambda r: r["fetches_by_class"]["5xx"],
    "failure reports": lambda r: r["failures"], "received": lambda r: r["wire_bytes"],
    "delay ms": lambda r: r["delay_ms"], "held until": lambda r: r["hold_until_ms"],
    "robots.txt": lambda r: r["robots_bytes"]}
FAILURE_COLUMNS = {"url": lambda r: r["url"], "kind": lambda r: r["kind"],
                   "status": lambda r: r["http_status"], "attempts": lambda r: r["attempts"],
                   "when": lambda r: r["failed_ms"]}
TOP_COLUMNS = {"url": lambda r: r["url"], "score": lambda r: r["score"],
               "crawled": lambda r: r["crawled"], "status": lambda r: r["http_status"]}


def js_sorted(rows: list, value, descending: bool) -> list:
    """`rows` in the order the page's script gives on a click: stable, numbers by value and
    anything else by its text (a JSON null or boolean as the page writes it)."""
    def text(v):
        return v if isinstance(v, str) else json.dumps(v)

    def compare(a, b):
        x, y = value(a), value(b)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y)):
            c = (x > y) - (x < y)
        else:
            c = (text(x) > text(y)) - (text(x) < text(y))
        return -c if descending else c
    return sorted(rows, key=functools.cmp_to_key(compare))


@pytest.fixture(scope="module")
def many_hosts_db(bin_dir, tmp_path_factory) -> Path:
    """30 hosts with random pages, statuses, bytes, delays and failures, written through the
    Scheduler on a manual clock; some requests left in flight; a stored PageRank."""
    import crawlrank as cr

    seed = 27
    print(f"seed {seed}")
    rng = random.Random(seed)
    db = tmp_path_factory.mktemp("hosts") / "db"
    clock = cr.ManualClock(1_780_000_000_000)
    with cr.PageDb(str(db)) as pdb, cr.Scheduler(
            pdb, clock=clock, score="breadth-first", delay_ms=0, per_host=50,
            max_retries=1, retry_ms=1000) as sched:
        hosts = [f"h{i:02d}.test" for i in range(30)]
        sched.add_seeds([f"http://{h}/p{j}" for h in hosts for j in range(rng.randint(1, 12))])
        for h in hosts:
            sched.set_crawl_delay(h, rng.choice([0, 100, 250, 1000]))
        for _ in range(6):
            clock.advance(rng.randint(2000, 9000))
            for r in sched.next(1000):
                u = rng.random()
                if u < 0.2:
                    sched.failed(r.url, r.lease, retryable=rng.random() < 0.5,
                                 http_status=rng.choice([0, 500, 503]), reason=f"made up {u:.3f}",
                                 kind=rng.choice(["timeout", "connect", "dns", "http-5xx"]))
                    continue
                links = [f"{r.url}x{k}" for k in range(rng.randint(0, 3))] if r.depth == 0 else []
                links += [f"http://{rng.choice(hosts)}/p0" for _ in range(rng.randint(0, 2))]
                sched.crawled(cr.CrawledPage(
                    r.url, links, http_status=rng.choice([200] * 6 + [301, 404, 500]),
                    wire_bytes=rng.randint(300, 90_000), decoded_bytes=rng.randint(200, 80_000),
                    fetch_ms=rng.randint(1, 900), title=f"page {r.url}"), r.lease)
        sched.add_seeds([f"http://{rng.choice(hosts)}/late{j}" for j in range(12)])
        sched.next(5)  # left in flight
    subprocess.run([str(bin_dir / "page_db_rank"), str(db)], check=True, capture_output=True)
    return db


SERVER_SORTS = ("host", "pages", "crawled_pages", "failed_pages", "to_do", "in_flight",
                "fetches", "failures", "wire_bytes", "decoded_bytes", "fetch_ms", "delay_ms",
                "hold_until_ms")


def check_server_sorts(dash: Dashboard, rows: list) -> None:
    """/api/hosts?sort=COL&order=asc|desc: by the column (the host as text), ties by host."""
    for key in SERVER_SORTS:
        for order in ("asc", "desc"):
            got = [r["host"] for r in dash.json(f"api/hosts?sort={key}&order={order}")["rows"]]
            if key == "host":
                expected = sorted(rows, key=lambda r: r["host"], reverse=order == "desc")
            else:
                sign = -1 if order == "desc" else 1
                expected = sorted(rows, key=lambda r: (sign * r[key], r["host"]))
            assert got == [r["host"] for r in expected], (key, order)


def check_sorting(browser: Browser, url: str, rows: list, columns: dict, row_id) -> None:
    """Clicks each header of the table at `url` twice: largest first, then smallest first;
    the rows (`row_id` of the API's rows against the sort key of the url or host cell in
    the page) come in js_sorted's order, each from the order before the click."""
    check_view(browser, url)
    heads = browser.driver.find_elements(By.CSS_SELECTOR, "table.sortable thead th")
    names = [h.get_attribute("textContent") for h in heads]
    id_column = names.index("url" if "url" in names else "host")
    shown = "return Array.from(document.querySelectorAll('table.sortable tbody tr'), " \
            f"r => r.cells[{id_column}].dataset.v)"
    assert browser.js(shown) == [row_id(r) for r in rows]  # the server's order
    order = list(rows)
    for name, value in columns.items():
        head = heads[names.index(name)]
        for descending in (True, False):
            head.click()
            order = js_sorted(order, value, descending)
            assert head.get_attribute("data-order") == ("desc" if descending else "asc")
            assert browser.js(shown) == [row_id(r) for r in order], (url, name, descending)
    assert browser.errors() == []


def test_tables_sort_on_a_click_as_the_api_values_say(bin_dir, browser, many_hosts_db):
    with Dashboard(bin_dir, many_hosts_db) as dash:
        hosts = dash.json("api/hosts")["rows"]
        failures = dash.json("api/failures")["rows"]
        top = dash.json("api/top")["rows"]
        assert len(hosts) == 30 and len(failures) >= 10 and len(top) == 100
        # Every column but robots.txt (only crawlrank crawl keeps one) has two different
        # values at least: each click has something to do.
        constant = {name for name, value in HOST_COLUMNS.items()
                    if len({json.dumps(value(r)) for r in hosts}) == 1}
        assert constant == {"robots.txt"}
        check_server_sorts(dash, hosts)
        check_sorting(browser, dash.url + "hosts", hosts, HOST_COLUMNS, lambda r: r["host"])
        check_sorting(browser, dash.url + "failures", failures, FAILURE_COLUMNS,
                      lambda r: r["url"])
        top_columns = {"#": lambda r: top.index(r) + 1, **TOP_COLUMNS}
        check_sorting(browser, dash.url + "top", top, top_columns, lambda r: r["url"])


# ---- a live crawl of Python's manual, watched from the overview

def bytes_text(n: int) -> str:
    """How the page writes a byte count (dashboard.js' bytes())."""
    units, u, v = ["B", "KiB", "MiB", "GiB", "TiB"], 0, float(n)
    while v >= 1024 and u + 1 < len(units):
        v, u = v / 1024, u + 1
    return f"{v:.0f} {units[u]}" if u == 0 else f"{v:.1f} {units[u]}"


def bytes_value(text: str) -> float:
    """A byte count as written, read back (monotone in the count written)."""
    number, unit = text.split()
    return float(number) * 1024 ** ["B", "KiB", "MiB", "GiB", "TiB"].index(unit)


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


@dataclass
class Look:
    """One refresh of the overview, between two runs of page_db_stats."""
    before: dict
    shown: dict
    after: dict
    samples_before: list
    samples_after: list
    running: bool  # the crawl was running when page_db_stats ran before


@dataclass
class LiveCrawl:
    db: Path
    host: str
    looks: list[Look] = field(default_factory=list)
    final: Look | None = None
    reloaded: bool = True
    canvases: int | None = 0  # None: no Chart.js, no charts


def progress_samples(db: Path) -> list[dict]:
    import crawlrank as cr

    with cr.PageDb(str(db), read_only=True) as pdb, pdb.snapshot() as snap:
        return snap.progress()


def look(browser: Browser, bin_dir: Path, db: Path, running: bool) -> Look:
    """page_db_stats, then the overview's next refresh (asked for after it), then
    page_db_stats again."""
    before, samples_before = stats(bin_dir, db), progress_samples(db)
    ran_at = time.time() * 1000
    browser.wait(lambda: browser.js(READ_FIGURES, [])["asOf"] > ran_at, 20, "a refresh")
    shown = browser.js(READ_FIGURES, [*FIGURES, "f-bytes", "f-queued", "f-inflight",
                                      "f-sampled"])
    return Look(before, shown, stats(bin_dir, db), samples_before, progress_samples(db), running)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live_crawl(bin_dir, browser, tmp_path_factory) -> LiveCrawl:
    """Crawls Python's manual (doc_site.py, 530 pages at one every 20 ms, about 15 s) and a
    seed on a port nobody listens on (it fails for good), with the overview open in the
    browser throughout, looking at it after each refresh; then stores a PageRank. A run
    that takes screenshots crawls at one page every 100 ms, so that the charts have
    several progress samples (one every 10 s) to show."""
    from doc_site import DOC_ROOT, DocSite

    if not DOC_ROOT.is_dir():
        pytest.skip(f"{DOC_ROOT} is missing (python3.11-doc)")
    db = tmp_path_factory.mktemp("live") / "doc.db"
    dead = closed_port()
    with DocSite() as site:
        allow = rf"^http://127\.0\.0\.1:({site.port}|{dead})/[^?#]*\.html$"
        crawl = subprocess.Popen(
            [str(bin_dir / "crawlrank"), "crawl", str(db), f"http://{site.host}/index.html",
             f"http://127.0.0.1:{dead}/dead.html", "--allow-private", "--quiet", "--same-host",
             "--delay", "0.1" if os.environ.get("CRAWLRANK_SCREENSHOT_DIR") else "0.02",
             "--max-retries", "0", "--allow", allow],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            while not (db / "data.mdb").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            live = LiveCrawl(db, site.host)
            with Dashboard(bin_dir, db) as dash:
                browser.errors()
                browser.open(dash.url)
                browser.js("window.__sameDocument = true")
                while crawl.poll() is None:
                    live.looks.append(look(browser, bin_dir, db, running=True))
                    if crawl.poll() is None:
                        browser.screenshot("overview-live")
                assert crawl.wait(timeout=120) == 0, crawl.stderr.read()
                live.final = look(browser, bin_dir, db, running=False)
                live.reloaded = browser.js("return window.__sameDocument !== true")
                live.canvases = browser.js("return document.getElementById('charts') && "
                                           "document.querySelectorAll('#charts canvas').length")
                assert browser.errors() == []
        finally:
            if crawl.poll() is None:
                crawl.kill()
                crawl.wait()
    subprocess.run([str(bin_dir / "page_db_rank"), str(db)], check=True, capture_output=True)
    return live


def test_the_overview_follows_a_live_crawl(live_crawl):
    running = [lk for lk in live_crawl.looks if lk.running]
    assert len(running) >= 2, "the crawl ended before two refreshes"
    for lk in live_crawl.looks + [live_crawl.final]:
        for fid, key in FIGURES.items():
            assert lk.before[key] <= int(lk.shown[fid]) <= lk.after[key], (fid, lk)
        assert bytes_value(bytes_text(lk.before["wire_bytes"])) <= bytes_value(
            lk.shown["f-bytes"]) <= bytes_value(bytes_text(lk.after["wire_bytes"])), lk
        # The queue figures are a progress sample's: one no older than the last before.
        if lk.shown["f-sampled"] == "none yet":
            assert lk.samples_before == []
        else:
            oldest = max((s["time_ms"] for s in lk.samples_before), default=0)
            assert any(iso(s["time_ms"]) == lk.shown["f-sampled"] and s["time_ms"] >= oldest
                       and str(s["queued"]) == lk.shown["f-queued"]
                       and str(s["in_flight"]) == lk.shown["f-inflight"]
                       for s in lk.samples_after), lk
    # The figures moved while the crawl ran, in the same page (not reloaded).
    assert len({lk.shown["f-crawled"] for lk in running}) >= 2
    assert not live_crawl.reloaded
    end = live_crawl.final
    assert end.before == end.after  # nothing wrote in between: the figures must equal it
    for fid, key in FIGURES.items():
        assert int(end.shown[fid]) == end.after[key], fid
    assert end.shown["f-bytes"] == bytes_text(end.after["wire_bytes"])
    last = end.samples_after[-1]
    assert (end.shown["f-sampled"], end.shown["f-queued"], end.shown["f-inflight"]) == (
        iso(last["time_ms"]), str(last["queued"]), str(last["in_flight"]))
    assert end.after["crawled_pages"] >= 500 and end.after["failed"] == 1
    assert live_crawl.canvases in (5, None)  # five charts, or no Chart.js to draw them


VIEWS = {"overview": "", "hosts": "hosts", "failures": "failures", "top": "top", "page": None,
         "latest": "recent", "broken": "broken", "search": "search?q=library/functions",
         "host": "host?name=127.0.0.1"}


@pytest.mark.parametrize("name", VIEWS)
def test_every_view_fits_1366x768_without_errors(bin_dir, browser, live_crawl, name):
    with Dashboard(bin_dir, live_crawl.db) as dash:
        view = VIEWS[name]
        if view is None:
            url = f"http://{live_crawl.host}/library/functions.html"
            view = f"page?id={dash.json('api/page?url=' + urllib.parse.quote(url))['id']}"
        check_view(browser, dash.url + view)
        tables = browser.js("return Array.from(document.querySelectorAll('tbody'), "
                            "b => b.rows.length)")
        if name in ("hosts", "failures", "top", "latest", "broken"):
            assert tables and tables[0] >= 1, name
        if name == "search":  # found by a part of its URL, with its links as the API counts
            [row] = dash.json("api/search?q=library/functions")["rows"]
            shown = browser.js("return [document.querySelector('.links-out').textContent, "
                               "document.querySelector('.links-in').textContent, "
                               "document.querySelector('.standing').textContent]")
            assert shown == [str(row["out_links"]), str(row["in_links"]), "crawled"], shown
            assert row["in_links"] > 100 and row["out_links"] > 10
        browser.screenshot(name)


# ---- the console (issue #48): the live tail and the crawl's state

# Notes, in the page, when each row of the latest fetches first appeared (ms since the
# epoch, by its number).
WATCH_TAIL = """
window.__appeared = {};
const body = document.querySelector('#recent tbody');
const note = () => { for (const tr of body.rows) {
  if (!(tr.dataset.seq in window.__appeared)) window.__appeared[tr.dataset.seq] = Date.now(); } };
note();
new MutationObserver(note).observe(body, {childList: true});"""


def test_the_tail_and_the_state_follow_a_crawl_a_ctrl_c_and_a_resume(bin_dir, browser, tmp_path):
    from test_dashboard_console import crawl_command, log_lines, site_pages

    db, log = tmp_path / "db", tmp_path / "crawl.jsonl"
    with HostileSite(site_pages()) as site:
        command = crawl_command(bin_dir, db, site, log, "0.15")
        crawl = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 30
            while not (db / "data.mdb").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            with Dashboard(bin_dir, db) as dash:
                browser.errors()
                browser.open(dash.url + "recent")
                browser.js(WATCH_TAIL)
                browser.js("window.__sameDocument = true")
                browser.wait(lambda: len(browser.js("return window.__appeared")) >= 12, 60,
                             "a dozen fetches in the tail")
                browser.screenshot("latest-live")
                crawl.send_signal(signal.SIGINT)
                crawl.wait(timeout=60)
                time.sleep(1.5)  # the tail's last polls
                appeared = browser.js("return window.__appeared")
                assert browser.js("return window.__sameDocument") is True  # never reloaded
                # Each line of the log so far appeared within 2 s of its time.
                rows = {r["seq"]: r for r in dash.json("api/recent?n=1024")["rows"]}
                shown = [rows[int(seq)] for seq in sorted(appeared, key=int)]
                lines = log_lines(log)
                by_url = {line["url"]: line for line in lines}
                checked = 0
                for row in shown:
                    line = by_url.get(row["url"])
                    if line is None:
                        assert row["failure"] == "robots-disallowed", row  # refused at its link
                        continue
                    ended = time.mktime(time.strptime(line["time"][:19], "%Y-%m-%dT%H:%M:%S"))
                    ended += int(line["time"][20:23]) / 1000 - time.timezone
                    lag = appeared[str(row["seq"])] / 1000 - ended
                    assert lag < 2.0, (row["url"], lag)
                    checked += 1
                assert checked >= 10 and checked == len(lines)
                cells = browser.js("return Array.from(document.querySelectorAll('#recent tbody "
                                   "tr:first-child td'), td => td.textContent)")
                assert cells[1] == shown[-1]["url"], cells  # the newest on top
                # The overview says stopped; a resume makes it running, then finished,
                # without a reload.
                browser.open(dash.url)
                state = "return document.querySelector('#f-state span').textContent"
                assert browser.js(state) == "stopped"
                browser.js("window.__sameDocument = true")
                # Slower, so that the overview (every 5 s) sees it run.
                resumed = subprocess.Popen(crawl_command(bin_dir, db, site, log, "0.4"),
                                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                browser.wait(lambda: browser.js(state) == "running", 20, "running")
                browser.screenshot("overview-running")
                assert resumed.wait(timeout=300) == 0, resumed.stderr.read()
                browser.wait(lambda: browser.js(state) == "finished", 20, "finished")
                assert browser.js("return window.__sameDocument") is True
                assert browser.js("return document.getElementById('f-left').textContent") == "0"
                assert browser.errors() == []
                browser.driver.get("about:blank")  # no refresh of a stopped dashboard next
        finally:
            if crawl.poll() is None:
                crawl.kill()
                crawl.wait()


# ---- 100,000 hosts

def test_100k_hosts_render_in_under_2_s(bin_dir, browser, tmp_path):
    import crawlrank as cr

    db = tmp_path / "db"
    start = time.monotonic()
    with cr.PageDb(str(db), durability="none") as pdb:
        for first in range(0, 100_000, 10_000):
            pdb.add_batch([cr.CrawledPage(f"http://h{i:06d}.test/", http_status=200,
                                          crawl_time_ms=1_780_000_000_000 + i,
                                          wire_bytes=1000 + i % 977, title=f"host {i}")
                           for i in range(first, first + 10_000)])
    print(f"made the DB in {time.monotonic() - start:.1f} s")
    with Dashboard(bin_dir, db) as dash:
        for view, ready in (("", "document.getElementById('f-pages').textContent === '100000'"),
                            ("hosts", "document.querySelectorAll('tbody tr').length === 100"),
                            ("hosts?sort=host&order=asc",
                             "document.querySelector('tbody td').dataset.v === 'h000000.test'")):
            browser.errors()
            seconds = browser.open(dash.url + view)
            assert browser.js("return " + ready), view
            loaded = browser.js("const n = performance.getEntriesByType('navigation')[0];"
                                "return (n.loadEventEnd - n.startTime) / 1000")
            print(f"/{view}: {loaded:.3f} s in the browser, {seconds:.3f} s to the driver")
            assert loaded < 2 and seconds < 2, view
            assert browser.errors() == []
        assert re.search(r"\b100000 hosts", browser.driver.find_element(By.TAG_NAME, "main").text)


def test_the_charts_leave_a_gap_where_the_crawl_was_stopped(browser, tmp_path, bin_dir):
    """Issue #41: samples every 10 s, then a stop of 5 minutes, then the crawl again. The
    line must break there (a null point) rather than slope across the stop."""
    crawlrank = pytest.importorskip("crawlrank")
    db_path = tmp_path / "stopped.db"
    start = 1_790_000_000_000
    clock = crawlrank.ManualClock(start)
    with crawlrank.PageDb(str(db_path)) as db:
        with crawlrank.Scheduler(db, crawlrank.SchedulerOptions(), clock=clock) as scheduler:
            scheduler.add_seeds(["http://a.test/"])
            for at in (0, 10_000, 20_000, 320_000, 330_000):  # a stop between 20 s and 320 s
                clock.set(start + at)
                scheduler.record_progress()
    with Dashboard(bin_dir, db_path) as dash:
        check_view(browser, dash.url)
        points = browser.js(
            "return Chart.getChart(document.querySelector('#charts canvas'))"
            ".data.datasets[0].data.map(p => p.y === null ? null : p.x);")
    # pages/s between samples: 10 s, 20 s, [gap], 330 s, in minutes from the first sample.
    assert points == [pytest.approx(10 / 60), pytest.approx(20 / 60), None,
                      pytest.approx(330 / 60)], points
