#!/usr/bin/python3
"""One Scrapy crawl through crawlrank's native scheduler of a small site built to hit each
case the scheduler handles: callbacks, cb_kwargs and meta through the queue, priority, a POST
and a request with an unpicklable callback through the memory queue, dont_filter, a
duplicate, a redirect to a page the crawl has, a 404, a 503 and a dropped connection.
Writes what happened as JSON: `scrapy_cases.py DB OUT.json [SETTINGS.json]` (run by
test_scrapy_cases.py); SETTINGS.json, a JSON object, is applied over the settings below."""

from __future__ import annotations

import http.server
import json
import sys
import threading

import scrapy
from scrapy.crawler import CrawlerProcess

LOG: list[list[str]] = []
SEEN: dict[str, object] = {}
DROPPED: list[str] = []  # the URLs of the requests Scrapy's request_dropped signal names
AT_CLOSE: dict[str, int] = {}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status: int, body: bytes = b"<html></html>", headers=()) -> None:
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        LOG.append(["GET", self.path])
        if self.path == "/redirect":
            self.answer(302, b"", [("Location", "/b")])
        elif self.path.startswith("/chain/"):  # redirects without end
            self.answer(302, b"", [("Location", f"/chain/{int(self.path[7:]) + 1}")])
        elif self.path == "/404":
            self.answer(404)
        elif self.path == "/503":
            self.answer(503)
        elif self.path == "/drop":
            self.close_connection = True
            self.connection.shutdown(2)
        elif self.path == "/b":
            self.answer(200, b"<html><body>a Special page</body></html>")
        else:
            self.answer(200)

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length", 0))
        LOG.append(["POST", self.path, self.rfile.read(length).decode()])
        self.answer(200)

    def log_message(self, *args):
        pass


class CasesSpider(scrapy.Spider):
    name = "cases"

    def __init__(self, base: str, **kwargs):
        super().__init__(**kwargs)
        self.base = base
        self.start_urls = [base + "/a"]

    def parse(self, response):
        if response.meta.get("again"):
            SEEN["again"] = True
            return
        b = self.base
        yield scrapy.Request(b + "/b", callback=self.parse_b, cb_kwargs={"x": 1},
                             meta={"tag": "kept", "link_text": "the special one"})
        yield scrapy.Request(b + "/low", callback=self.parse_plain)
        yield scrapy.Request(b + "/high", callback=self.parse_plain, priority=5)
        yield scrapy.FormRequest(b + "/form", formdata={"q": "1"}, callback=self.parse_plain)
        yield scrapy.Request(b + "/a", dont_filter=True, meta={"again": True})
        yield scrapy.Request(b + "/b#dup", callback=self.parse_b, cb_kwargs={"x": 2})
        yield scrapy.Request(b + "/lambda", callback=lambda r: SEEN.setdefault("lambda", True))
        yield scrapy.Request(b + "/redirect", callback=self.parse_plain)
        for path in ("/404", "/503", "/drop"):
            yield scrapy.Request(b + path, callback=self.parse_plain)
        yield scrapy.Request(b + "/boom", callback=self.parse_boom)
        # A request that copies its page's meta (the lease key included) is a new link.
        yield scrapy.Request(b + "/copied", meta=dict(response.meta), callback=self.parse_plain)
        # Scrapy drops the request after REDIRECT_MAX_TIMES hops without telling a middleware.
        yield scrapy.Request(b + "/chain/0", callback=self.parse_plain)

    def parse_boom(self, response):
        yield scrapy.Request(self.base + "/after-boom", callback=self.parse_plain)
        raise RuntimeError("a spider bug")

    def parse_b(self, response, x):
        SEEN["b"] = [x, response.meta.get("tag")]

    def parse_plain(self, response):
        SEEN.setdefault("plain", []).append(response.url.rsplit("/", 1)[1])


def main() -> int:
    db, out = sys.argv[1], sys.argv[2]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    process = CrawlerProcess({
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "SCHEDULER": "crawlrank.scrapy.Scheduler",
        "SPIDER_MIDDLEWARES": {"crawlrank.scrapy.LinkGraphMiddleware": 1000},
        "DOWNLOADER_MIDDLEWARES": {"crawlrank.scrapy.ErrorMiddleware": 100},
        "CRAWLRANK_PAGE_DB": db,
        "CRAWLRANK_SCORER": "crawlrank.scrapy.KeywordScorer",
        "CRAWLRANK_KEYWORDS": ["special", "page"],
        "CONCURRENT_REQUESTS": 1,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "RETRY_TIMES": 1,
        "REDIRECT_MAX_TIMES": 2,
        # A 503 holds its host (for a minute by default): not in a test.
        "CRAWLRANK_OPTIONS": {"hold_ms": 1},
        **(json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}),
    })
    crawler = process.create_crawler(CasesSpider)

    def dropped(request, spider):
        DROPPED.append(request.url)

    def closed(spider, reason):
        AT_CLOSE["len"] = len(crawler.engine.slot.scheduler)

    crawler.signals.connect(dropped, signal=scrapy.signals.request_dropped)
    crawler.signals.connect(closed, signal=scrapy.signals.spider_closed)
    process.crawl(crawler, base=base)
    process.start()
    stats = {k: v for k, v in crawler.stats.get_stats().items() if isinstance(v, (int, str))}
    with open(out, "w") as f:
        json.dump({"log": LOG, "seen": SEEN, "stats": stats, "base": base, "dropped": DROPPED,
                   "at_close": AT_CLOSE}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
