#!/usr/bin/python3
"""Crawls the doc site (doc_site.py) with Scrapy, through crawlrank's native scheduler
or through Frontera's FronteraScheduler with crawlrank's backend; run by the end-to-end
tests in a process of its own (so that a test can SIGKILL it).

    scrapy_crawl.py --host 127.0.0.1:PORT --db DIR [--frontera] [--stats FILE]
        [--start /index.html] [--prefix /]

--start and --prefix are for the benchmarks on other sites: the crawl starts at the path
--start and follows only the paths under --prefix (a comma-separated list of prefixes).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import HtmlResponse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_site import follow  # noqa: E402


class DocSpider(scrapy.Spider):
    name = "docs"

    def __init__(self, host: str, seeded: bool = False, start: str = "/index.html",
                 prefix: str = "/", **kwargs) -> None:
        super().__init__(**kwargs)
        self.host = host
        self.prefixes = tuple(f"http://{host}{p}" for p in prefix.split(","))
        # Frontera's own SQLAlchemy backend is seeded through its manager (a start request's
        # response would not come from the frontier: Frontera's middleware fails on it);
        # through crawlrank's FronteraScheduler the start request is the seed.
        self.start_urls = [] if seeded else [f"http://{host}{start}"]

    def parse(self, response):
        if not isinstance(response, HtmlResponse):
            return
        for href in response.css("a::attr(href)").getall():
            url = follow(response.url, href, self.host)
            if url and url.startswith(self.prefixes):
                yield response.follow(url, callback=self.parse)


def native_settings(db: str) -> dict:
    return {
        "SCHEDULER": "crawlrank.scrapy.Scheduler",
        "SPIDER_MIDDLEWARES": {"crawlrank.scrapy.LinkGraphMiddleware": 1000},
        "DOWNLOADER_MIDDLEWARES": {"crawlrank.scrapy.ErrorMiddleware": 100},
        "CRAWLRANK_PAGE_DB": db,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--frontera", action="store_true")
    parser.add_argument("--stats")
    parser.add_argument("--start", default="/index.html", help="the path the crawl starts at")
    parser.add_argument("--prefix", default="/", help="the paths the crawl follows: comma-separated prefixes")
    parser.add_argument("--scheduler", default="crawlrank",
                        help="'crawlrank', or 'scrapy' for Scrapy's own (benchmarks)")
    parser.add_argument("--frontera-sqlalchemy", type=int, metavar="PAGES",
                        help="through Frontera with its own SQLAlchemy backend (benchmarks): "
                             "it never ends a crawl, so the spider closes after PAGES responses")
    args = parser.parse_args()
    settings = {
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "DOWNLOAD_DELAY": 0,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    }
    if args.frontera:
        from frontera_settings import frontera_scrapy_settings

        settings.update(frontera_scrapy_settings(args.db))
    elif args.frontera_sqlalchemy:
        import crawlrank.frontera  # noqa: F401 (the import shims Frontera 0.8 needs)
        from frontera_settings import frontera_sqlalchemy_settings

        settings.update(frontera_sqlalchemy_settings(args.frontera_sqlalchemy))
    elif args.scheduler == "crawlrank":
        settings.update(native_settings(args.db))
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(DocSpider)
    if args.frontera_sqlalchemy:
        # Frontera's local mode takes seeds through its manager, in the crawling process
        # (the SQLite database is in memory).
        def seed(spider):
            manager = crawler.engine.slot.scheduler.frontier.manager
            manager.add_seeds(io.BytesIO(f"http://{args.host}/index.html\n".encode()))

        crawler.signals.connect(seed, signal=scrapy.signals.spider_opened)
    seeded = bool(args.frontera_sqlalchemy)
    process.crawl(crawler, host=args.host, seeded=seeded, start=args.start, prefix=args.prefix)
    process.start()
    if args.stats:
        stats = {k: (v.isoformat() if hasattr(v, "isoformat") else v)
                 for k, v in crawler.stats.get_stats().items()}
        Path(args.stats).write_text(json.dumps(stats, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
