"""Local sites for the built-in crawler's tests (test_crawl.py): a small generated site with
a robots.txt, and hostile pages, served on 127.0.0.1 by a thread that logs every request
(time, path, user agent, requests in flight on arrival).

    /robots.txt          `robots` (a str; "{host}" in it becomes host:port), or the status
                         `robots_status`
    /sitemap.xml         a sitemap listing /orphan.html, which no page links to
    /gen/<n>.html        page n of a binary tree of `pages` pages: links to 2n+1 and 2n+2,
                         to /private/<n>.html, and to a page on another host; 304 to a
                         conditional GET
    /private/<n>.html    pages robots.txt disallows
    /hostile/...         see HOSTILE
"""

from __future__ import annotations

import gzip
import http.server
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass

from local_server import LocalServer

# What each hostile page does, and the error kind the crawler must record for it.
HOSTILE = {
    "/hostile/endless": "too-large",        # an endless chunked body
    "/hostile/bomb": "too-large",           # 1 KiB of gzip that decodes to 64 MiB
    "/hostile/slow": "timeout",             # headers, then a byte every 2 s (slow-loris)
    "/hostile/headers": "too-large",        # 256 KiB of headers
    "/hostile/longline": "too-large",       # one header line of 100 MB, streamed
    "/hostile/hangup": "connection",        # closes without answering
    "/hostile/stall": "timeout",            # accepts, never answers
}
# Pages that must be recorded as crawled, however odd.
ODD = {
    "/hostile/loop-a": 301,       # a redirect loop: a -> b -> a; each page fetched once
    "/hostile/loop-b": 301,
    "/hostile/garbage": 200,      # broken HTML, invalid UTF-8, a NUL
    "/hostile/latin1": 200,       # windows-1252 bytes, charset in a meta tag
    "/hostile/longlink": 200,     # a 200 KB href, and a 301 to a 50 KB Location
    "/hostile/longmove": 301,
}


@dataclass
class Hit:
    time: float
    path: str
    agent: str
    in_flight: int  # requests being served when this one arrived (itself included)
    conditional: bool = False  # it carried If-Modified-Since


def gen_page(n: int, pages: int, other_host: str, hostile: bool) -> bytes:
    links = [f'<a href="/gen/{c}.html">page {c}</a>' for c in (2 * n + 1, 2 * n + 2) if c < pages]
    links.append(f'<a href="/private/{n}.html">private</a>')
    links.append(f'<a href="http://{other_host}/elsewhere.html">elsewhere</a>')
    if n == 0 and hostile:
        links += [f'<a href="{p}">{p}</a>' for p in list(HOSTILE) + list(ODD)]
    return (f"<!doctype html><html><head><title>page {n}</title></head><body><p>Page {n}.</p>"
            + " ".join(links) + "</body></html>").encode()


class CrawlSite(LocalServer):
    def __init__(self, pages: int = 15, robots: str | None = "User-agent: *\nDisallow: /private/\n",
                 robots_status: int = 200, page_delay: float = 0.0, hostile: bool = False,
                 other_host: str = "other.invalid") -> None:
        site = self
        self.pages = pages
        self.robots = robots
        self.robots_status = robots_status
        self.page_delay = page_delay
        self.hits: list[Hit] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.hostile = hostile
        self.other_host = other_host  # may be changed after the start (linked sites)

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def send(self, status: int, body: bytes, ctype: str = "text/html; charset=utf-8",
                     headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):  # noqa: N802
                path = urllib.parse.urlsplit(self.path).path
                with site.lock:
                    site.in_flight += 1
                    site.hits.append(Hit(time.monotonic(), path,
                                         self.headers.get("User-Agent", ""), site.in_flight,
                                         "If-Modified-Since" in self.headers))
                try:
                    self.route(path)
                except (BrokenPipeError, ConnectionResetError, socket.timeout):
                    pass
                finally:
                    with site.lock:
                        site.in_flight -= 1

            def route(self, path: str) -> None:
                if path == "/robots.txt":
                    if site.robots is None or site.robots_status != 200:
                        self.send(site.robots_status if site.robots is not None else 404, b"")
                    else:
                        text = site.robots.replace("{host}", site.host)
                        self.send(200, text.encode(), "text/plain")
                    return
                if path == "/sitemap.xml":
                    self.send(200, (f"<?xml version='1.0'?><urlset><url><loc>http://{site.host}"
                                    "/orphan.html</loc></url></urlset>").encode(), "text/xml")
                    return
                if path == "/orphan.html":
                    self.send(200, b"<html><body>only the sitemap names me</body></html>")
                    return
                if site.page_delay:
                    time.sleep(site.page_delay)
                if path.startswith("/gen/") and path.endswith(".html"):
                    try:
                        n = int(path[5:-5])
                    except ValueError:
                        n = -1
                    if 0 <= n < site.pages and "If-Modified-Since" in self.headers:
                        self.send_response(304)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    if 0 <= n < site.pages:
                        self.send(200, gen_page(n, site.pages, site.other_host, site.hostile))
                        return
                if path.startswith("/private/"):
                    self.send(200, b"<html>secret</html>")
                    return
                if site.hostile and path.startswith("/hostile/"):
                    self.hostile_page(path)
                    return
                self.send(404, b"<html>not here</html>")

            def hostile_page(self, path: str) -> None:
                w = self.wfile
                if path == "/hostile/endless":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    chunk = b"<p>" + b"x" * 65536 + b"</p>"
                    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
                    for _ in range(100000):
                        w.write(frame)
                elif path == "/hostile/bomb":
                    body = gzip.compress(b"<p>" + b"a" * (64 << 20), 9)
                    self.send(200, body, headers={"Content-Encoding": "gzip"})
                elif path == "/hostile/slow":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    for _ in range(60):
                        w.write(b"x")
                        w.flush()
                        time.sleep(2)
                elif path == "/hostile/headers":
                    self.send_response(200)
                    for i in range(4096):
                        self.send_header(f"X-Filler-{i}", "y" * 60)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif path == "/hostile/longline":
                    self.send_response(200)
                    self.flush_headers()
                    w.write(b"X-Long: ")
                    chunk = b"a" * 65536
                    for _ in range(100_000_000 // len(chunk)):
                        w.write(chunk)
                elif path == "/hostile/hangup":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif path == "/hostile/stall":
                    time.sleep(60)
                elif path == "/hostile/loop-a":
                    self.send(301, b"", headers={"Location": "/hostile/loop-b"})
                elif path == "/hostile/loop-b":
                    self.send(301, b"", headers={"Location": "/hostile/loop-a"})
                elif path == "/hostile/garbage":
                    self.send(200, b"<html><body><a href='/gen/1.html'>one\xff\xfe</a><div><p>"
                              b"\x00<<a href=/gen/2.html>two<table><td></b></i><a href='",
                              "text/html")
                elif path == "/hostile/longlink":
                    self.send(200, b"<a href='/gen/" + b"x" * 200_000 + b"'>long</a>"
                              b"<a href='/hostile/longmove'>move</a>")
                elif path == "/hostile/longmove":
                    self.send(301, b"", headers={"Location": "/gen/" + "y" * 50_000})
                elif path == "/hostile/latin1":
                    self.send(200, b"<meta charset=iso-8859-1><p>caf\xe9</p>"
                              b"<a href='/gen/\xe9t\xe9.html'>\xe9t\xe9</a>", "text/html")
                else:
                    self.send(404, b"")

            def log_message(self, *args):
                pass

        super().__init__(Handler)

    def paths(self) -> list[str]:
        with self.lock:
            return [h.path for h in self.hits]

    def log(self) -> list[Hit]:
        with self.lock:
            return list(self.hits)
