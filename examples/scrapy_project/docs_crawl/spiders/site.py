"""Follows every link of a page that stays on that page's host, and yields one item (URL and
title) per page it crawled; an error page (a 404 that reaches the spider, as through
Frontera, which turns HttpErrorMiddleware off) gives no item and no links.

    scrapy crawl site -a start_url=http://127.0.0.1:8000/index.html

The rule is the response's own, not this process's: through a shared frontier
(`-s CRAWLRANK_FRONTIER=HOST:PORT`, docs/python.md "Remote mode") the pages of every
process's start URL reach every process, so a rule made of this process's arguments (its
start URL's host) would drop the links of the other processes' sites.

README.md beside scrapy.cfg has the commands, through crawlrank's scheduler and through
Frontera.
"""

from urllib.parse import urlsplit

import scrapy
from scrapy.http import HtmlResponse


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start_url: str = "http://127.0.0.1:8000/", **kwargs) -> None:
        super().__init__(**kwargs)
        # Through Frontera too the start URL is a seed: crawlrank's FronteraScheduler
        # puts start requests into the PageDB.
        self.start_urls = [start_url]

    def parse(self, response):
        if response.status >= 400 or not isinstance(response, HtmlResponse):
            return
        yield {"url": response.url, "title": response.css("title::text").get()}
        host = urlsplit(response.url).netloc  # the page's, whichever process fetches it
        for href in response.css("a::attr(href)").getall():
            url = urlsplit(response.urljoin(href))
            if url.scheme in ("http", "https") and url.netloc == host:
                yield response.follow(url.geturl(), callback=self.parse)
