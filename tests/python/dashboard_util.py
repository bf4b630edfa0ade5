"""What the dashboard's tests share (test_dashboard.py over HTTP, test_dashboard_browser.py
in Chromium): `crawlrank dashboard DB` on a free port, a site whose titles and URLs are
hostile, and page_db_stats' figures."""

from __future__ import annotations

import http.server
import json
import re
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from local_server import LocalServer, reply

# Titles and paths written by a stranger: markup, attributes, quotes, broken UTF-8.
HOSTILE_TITLE = (b"<script>alert(1)</script>\"' onmouseover=alert(2) x=\"<img src=x "
                 b"onerror=alert(3)>\xff\xfe broken")
PAGES = {
    "/": b"<html><head><title>home</title></head><body>"
         b"<a href=\"/evil\">1</a> <a href=\"/q?a=%3Cscript%3Ealert(4)%3C/script%3E&b='\">2</a>"
         b" <a href=\"/missing\">3</a> <a href=\"javascript:alert(5)\">4</a></body></html>",
    "/evil": b"<html><head><title>" + HOSTILE_TITLE + b"</title></head><body>x</body></html>",
    "/q": b"<html><head><title>a &lt;b&gt; &amp; \"c\"</title></head><body>y</body></html>",
}


class HostileSite(LocalServer):
    """Serves `pages` (path -> body; PAGES by default) as text/html, 404 for the rest."""

    def __init__(self, pages: dict[str, bytes] | None = None) -> None:
        pages = PAGES if pages is None else pages

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                path = self.path.split("?", 1)[0]
                body = pages.get(path)
                status = 200 if body is not None else 404
                body = body if body is not None else b"<html><title>gone</title></html>"
                reply(self, status, body)

            def log_message(self, *args):
                pass

        super().__init__(Handler)


class Dashboard:
    """crawlrank dashboard DB on a free port, for a `with` block."""

    def __init__(self, bin_dir: Path, db: Path, *args: str) -> None:
        self.proc = subprocess.Popen([str(bin_dir / "crawlrank"), "dashboard", str(db),
                                      "--listen", "127.0.0.1:0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        found = re.search(r"on (http://\S+/)$", line.strip())
        assert found, (line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.url = found.group(1)

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict]:
        request = urllib.request.Request(self.url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), dict(error.headers)

    def json(self, path: str) -> dict:
        status, body, _ = self.get(path)
        assert status == 200, (path, status, body)
        return json.loads(body)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        assert self.proc.wait(timeout=30) == 0, self.proc.stderr.read()


def stats(bin_dir: Path, db: Path) -> dict:
    """page_db_stats DB --json."""
    out = subprocess.run([str(bin_dir / "page_db_stats"), str(db), "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)
