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
