"""A real documentation site served on 127.0.0.1 for end-to-end crawls, and the link
graph a crawl of it must find, computed from the files independently of any crawler.

The site is Python's manual from Debian's python3.11-doc (530 HTML pages). Two links are
added to the front page so that every outcome a crawl records is exercised: `gone.html`
answers 404, and `moved.html` answers 301 to `about.html`. The server logs every GET path.
"""

from __future__ import annotations

import html.parser
import http.server
import posixpath
import threading
import time
import urllib.parse
from pathlib import Path

from local_server import LocalServer

DOC_ROOT = Path("/usr/share/doc/python3.11/html")
EXTRA_LINKS = b'<a href="gone.html">gone</a> <a href="moved.html#top">moved</a>'
REDIRECTS = {"/moved.html": "/about.html"}


class _Anchors(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs.extend(v for k, v in attrs if k == "href" and v is not None)


class _Title(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] | None = None
        self.title: str | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "title" and self.title is None:
            self.parts = []

    def handle_data(self, data):
        if self.parts is not None:
            self.parts.append(data)

    def handle_endtag(self, tag):
        if tag == "title" and self.parts is not None:
            self.title, self.parts = " ".join("".join(self.parts).split()), None


def title_of(body: bytes) -> str:
    """The first <title>'s text, whitespace collapsed (Python's own HTML parser)."""
    parser = _Title()
    parser.feed(body.decode("utf-8", "replace"))
    return parser.title or ""


def check_fetch_records(cr, db_path: Path, host: str, status: dict[str, int],
                        extras: bool = True) -> None:
    """The PageDB's fetch details and counters (format version 7) agree with what the
    site served: each 200 page's content type, body size and title; fetches by status
    class; at least one progress sample."""
    with cr.PageDb(str(db_path), read_only=True) as db, db.snapshot() as snap:
        for url, code in status.items():
            if code != 200:
                continue
            body = page_body(url.split(host, 1)[1], extras=extras)
            fetch = snap.fetch_of(snap.find_url(url).id)
            assert fetch is not None, url
            assert fetch["content_type"] == "text/html; charset=utf-8", (url, fetch)
            assert fetch["decoded_bytes"] == len(body), (url, fetch)
            assert fetch["wire_bytes"] > len(body), (url, fetch)  # headers too
            assert fetch["title"] == title_of(body), (url, fetch["title"])
        totals = snap.crawl_totals()
        by_class: dict[str, int] = {}
        for code in status.values():
            by_class[f"{code // 100}xx"] = by_class.get(f"{code // 100}xx", 0) + 1
        assert {k: v for k, v in totals["fetches"].items() if v} == by_class, totals
        assert totals["crawled_pages"] == len(status)
        assert snap.host_totals(host.split(":")[0])["crawled_pages"] == len(status)
        samples = snap.progress()
        assert samples and samples[-1]["crawled_pages"] <= totals["crawled_pages"], samples


def follow(page_url: str, href: str, host: str) -> str | None:
    """The URL a crawl follows for `href` on `page_url`: same host, an .html path, no
    fragment; None for anything else. The test spiders apply the same rule."""
    url, _ = urllib.parse.urldefrag(urllib.parse.urljoin(page_url, href))
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or parts.netloc != host or not parts.path.endswith(".html"):
        return None
    return urllib.parse.urlunsplit(parts._replace(path=posixpath.normpath(parts.path)))


def page_body(path: str, root: Path = DOC_ROOT, extras: bool = True) -> bytes | None:
    """What the server sends for `path` from the tree at `root`, or None for a 404. With
    `extras`, the front page gets EXTRA_LINKS."""
    file = root / path.lstrip("/")
    if not file.resolve().is_relative_to(root.resolve()) or not file.is_file():
        return None
    body = file.read_bytes()
    if extras and path == "/index.html":
        body = body.replace(b"<body>", b"<body>" + EXTRA_LINKS, 1)
    return body


def expected_graph(host: str, start: str = "/index.html") -> tuple[dict[str, int], set[tuple[str, str]]]:
    """Every page a crawl from `start` must reach, with the HTTP status it gets, and every
    link between them (a redirect is a link from the redirecting page to its target)."""
    base = f"http://{host}"
    status: dict[str, int] = {}
    edges: set[tuple[str, str]] = set()
    todo = [base + start]
    while todo:
        url = todo.pop()
        if url in status:
            continue
        path = urllib.parse.urlsplit(url).path
        targets: list[str] = []
        if path in REDIRECTS:
            status[url] = 301
            targets = [base + REDIRECTS[path]]
        else:
            body = page_body(path)
            status[url] = 200 if body is not None else 404
            if body is not None:
                parser = _Anchors()
                parser.feed(body.decode("utf-8", "replace"))
                targets = [t for t in (follow(url, h, host) for h in parser.hrefs) if t]
        for target in targets:
            edges.add((url, target))
            todo.append(target)
    return status, edges


class DocSite(LocalServer):
    """The site on 127.0.0.1:<free port>, in a thread; `log` lists the paths asked for, and
    `times` when (time.time()). Another tree than Python's manual: `root`, and `extras`
    False (the added links and the redirect are Python's manual's)."""

    def __init__(self, root: Path = DOC_ROOT, extras: bool = True) -> None:
        site = self
        self.log: list[str] = []
        self.times: list[float] = []
        self.lock = threading.Lock()
        redirects = REDIRECTS if extras else {}

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 (http.server's naming)
                path = urllib.parse.urlsplit(self.path).path
                with site.lock:
                    site.log.append(path)
                    site.times.append(time.time())
                if path in redirects:
                    self.send_response(301)
                    self.send_header("Location", redirects[path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = page_body(path, root, extras)
                if body is None:
                    body = b"<html><body>not here</body></html>"
                    self.send_response(404)
                else:
                    self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(Handler)

    def paths(self) -> list[str]:
        with self.lock:
            return list(self.log)
