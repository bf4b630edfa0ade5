"""Follows every link of a site that stays on its host, and yields one item (URL and title)
per page it crawled; an error page (a 404 that reaches the spider, as through Frontera,
which turns HttpErrorMiddleware off) gives no item and no links.

    scrapy crawl site -a start_url=http://127.0.0.1:8000/index.html

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
        self.host = urlsplit(start_url).netloc

    def parse(self, response):
        if response.status >= 400 or not isinstance(response, HtmlResponse):
            return
        yield {"url": response.url, "title": response.css("title::text").get()}
        for href in response.css("a::attr(href)").getall():
            url = urlsplit(response.urljoin(href))
            if url.scheme in ("http", "https") and url.netloc == self.host:
                yield response.follow(url.geturl(), callback=self.parse)
