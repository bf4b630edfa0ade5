"""A Scrapy spider in the scheduler's remote mode, for test_scrapy_remote.py: it crawls the
test sites named on the command line through a shared crawlrank serve, following every
link of /gen/ pages, and writes what its callbacks saw.

    scrapy_remote.py FRONTIER HOSTS OUT [--every-page] [START_URL...]

With --every-page it follows the http links of every page it gets, not only of /gen/ ones
(the documentation sites of test_frontier_docs.py).

HOSTS is JSON {"a.test:PORT": PORT}: Scrapy reaches each name on 127.0.0.1 (a resolver
the spider installs answers 127.0.0.1 for every name). Each callback records (url, cb_kwargs, meta "tag", pid)."""

import json
import os
import sys

import scrapy
from scrapy.crawler import CrawlerProcess
from twisted.internet import defer
from twisted.internet.interfaces import IResolverSimple
from zope.interface import implementer


@implementer(IResolverSimple)
class LocalResolver:
    """Every name is 127.0.0.1 (Scrapy's DNS_RESOLVER)."""

    def __init__(self, reactor):
        self.reactor = reactor

    @classmethod
    def from_crawler(cls, crawler, reactor):
        return cls(reactor)

    def install_on_reactor(self):
        self.reactor.installResolver(self)

    def getHostByName(self, name, timeout=None):  # noqa: N802 (Twisted's name)
        return defer.succeed("127.0.0.1")


class Remote(scrapy.Spider):
    name = "remote"

    def __init__(self, start=(), out=None, every_page=False, **kw):
        super().__init__(**kw)
        self.start = list(start)
        self.out = out
        self.every_page = every_page
        self.seen = []

    def start_requests(self):
        for i, url in enumerate(self.start):
            yield scrapy.Request(url, cb_kwargs={"origin": "start"}, meta={"tag": f"s{i}"})

    def parse(self, response, origin=None):
        # origin None: a page another kind of client queued (no Scrapy request with it).
        self.seen.append([response.url, origin, response.meta.get("tag"), os.getpid(),
                          response.status])
        if self.every_page:
            for href in response.css("a::attr(href)").getall():
                url = response.urljoin(href)
                if url.startswith("http"):
                    yield scrapy.Request(url, cb_kwargs={"origin": response.url})
            return
        if "/gen/" not in response.url:
            return
        for href in response.css("a::attr(href)").getall():
            # /gen/2 goes before its siblings whatever its rank: priority before score.
            yield response.follow(href, cb_kwargs={"origin": response.url},
                                  meta={"tag": "link"},
                                  priority=5 if href.endswith("/gen/2.html") else 0)

    def closed(self, reason):
        with open(self.out, "w") as f:
            json.dump({"seen": self.seen, "reason": reason}, f)


def main():
    frontier, hosts, out, *start = sys.argv[1:]
    every_page = start[:1] == ["--every-page"]
    start = start[1:] if every_page else start
    process = CrawlerProcess({
        "SCHEDULER": "crawlrank.scrapy.Scheduler",
        "SPIDER_MIDDLEWARES": {"crawlrank.scrapy.LinkGraphMiddleware": 1000},
        "DOWNLOADER_MIDDLEWARES": {"crawlrank.scrapy.ErrorMiddleware": 100},
        "CRAWLRANK_FRONTIER": frontier,
        "CRAWLRANK_LEASE_MS": 5000,
        # Two requests at a time each: three hosts keep both processes busy.
        "CONCURRENT_REQUESTS": 2,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "HTTPERROR_ALLOW_ALL": True,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        # The test sites' names lead to 127.0.0.1 (their ports are in the URLs).
        "DNS_RESOLVER": "__main__.LocalResolver",
    })
    json.loads(hosts)  # checked; the resolver needs no map
    process.crawl(Remote, start=start, out=out, every_page=every_page)
    process.start()


if __name__ == "__main__":
    main()
