"""A site of many hosts for the cluster crawl tests (test_cluster_crawl.py): one HTTP server
on 127.0.0.1 answering for every host by its Host header, `hosts` names h0.test ...
each with `pages` pages, linked within and across hosts, and a log of every request
(time, host, path, user agent); `page_delay` seconds before each page's answer.

    http://hK.test:PORT/p/I.html   page I of host K: links to page I+1 of its host (the
                                   last page to /missing.html, a 404), and to page
                                   (3I + 1) % pages of host (7K + I + 1) % hosts
    /robots.txt                    404 (every path allowed)

The graph is worked out here (`links`, `reachable`), independently of what a crawl found.
"""

from __future__ import annotations

import http.server
import threading
import time
import urllib.parse

from local_server import LocalServer, reply


class ClusterSite(LocalServer):
    def __init__(self, hosts: int = 20, pages: int = 5, page_delay: float = 0.0) -> None:
        site = self
        self.hosts, self.pages, self.page_delay = hosts, pages, page_delay
        self.lock = threading.Lock()
        # (monotonic time, host name, path, user agent) of every request
        self.hits: list[tuple[float, str, str, str]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # noqa: N802
                name = self.headers.get("Host", "").rsplit(":", 1)[0]
                path = urllib.parse.urlsplit(self.path).path
                with site.lock:
                    site.hits.append((time.monotonic(), name, path,
                                      self.headers.get("User-Agent", "")))
                if site.page_delay and path != "/robots.txt":
                    time.sleep(site.page_delay)
                body = site.body(name, path)
                if body is None:
                    reply(self, 404, b"<html>not here</html>")
                else:
                    reply(self, 200, body)

        super().__init__(Handler)

    def name(self, k: int) -> str:
        return f"h{k}.test"

    def url(self, k: int, i: int) -> str:
        return f"http://{self.name(k)}:{self.port}/p/{i}.html"

    def names(self) -> list[str]:
        return [self.name(k) for k in range(self.hosts)]

    def links(self, k: int, i: int) -> list[str]:
        """The links of page i of host k, in page order."""
        own = self.url(k, i + 1) if i + 1 < self.pages else \
            f"http://{self.name(k)}:{self.port}/missing.html"
        return [own, self.url((7 * k + i + 1) % self.hosts, (3 * i + 1) % self.pages)]

    def body(self, name: str, path: str) -> bytes | None:
        if not (name.startswith("h") and name.endswith(".test") and path.startswith("/p/")
                and path.endswith(".html")):
            return None
        try:
            k, i = int(name[1:-5]), int(path[3:-5])
        except ValueError:
            return None
        if not (0 <= k < self.hosts and 0 <= i < self.pages):
            return None
        anchors = " ".join(f'<a href="{u}">link</a>' for u in self.links(k, i))
        return (f"<!doctype html><html><head><title>{name} page {i}</title></head><body>"
                f"<p>Page {i} of {name}.</p>{anchors}</body></html>").encode()

    def graph(self) -> set[tuple[str, str]]:
        """Every link (source, target) of the pages reachable from page 0 of host 0."""
        edges = set()
        for source in self.reachable():
            if "/p/" in source:
                k, i = self.parse(source)
                edges |= {(source, target) for target in self.links(k, i)}
        return edges

    def reachable(self) -> set[str]:
        """The URLs a crawl from page 0 of host 0 reaches (the 404s included)."""
        seen, todo = set(), [self.url(0, 0)]
        while todo:
            url = todo.pop()
            if url in seen:
                continue
            seen.add(url)
            if "/p/" in url:
                todo += self.links(*self.parse(url))
        return seen

    def parse(self, url: str) -> tuple[int, int]:
        parts = urllib.parse.urlsplit(url)
        return int(parts.hostname[1:-5]), int(parts.path[3:-5])

    def fetched(self) -> list[str]:
        """Every URL requested, once per request (robots.txt aside)."""
        with self.lock:
            return [f"http://{name}:{self.port}{path}" for _, name, path, _ in self.hits
                    if path != "/robots.txt"]

    def agents(self) -> list[str]:
        """The User-Agent of every request (robots.txt aside)."""
        with self.lock:
            return [agent for _, _, path, agent in self.hits if path != "/robots.txt"]

    def times_by_url(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        with self.lock:
            for when, name, path, _ in self.hits:
                out.setdefault(f"http://{name}:{self.port}{path}", []).append(when)
        return out

    def times_by_host(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        with self.lock:
            for when, name, path, _ in self.hits:
                if path != "/robots.txt":
                    out.setdefault(name, []).append(when)
        return out
