"""Follows every link of a site that stays on its host.

    scrapy crawl site -a start_url=http://127.0.0.1:8000/index.html
    (through Frontera: docs_crawl/frontera_settings.py)
"""

from urllib.parse import urlsplit

import scrapy
from scrapy.http import HtmlResponse


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start_url: str = "http://127.0.0.1:8000/", seeded: str = "",
                 **kwargs) -> None:
        super().__init__(**kwargs)
        # Through Frontera (frontera_settings.py) the seeds are in the PageDB already.
        self.start_urls = [] if seeded else [start_url]
        self.host = urlsplit(start_url).netloc

    def parse(self, response):
        if not isinstance(response, HtmlResponse):
            return
        yield {"url": response.url, "title": response.css("title::text").get()}
        for href in response.css("a::attr(href)").getall():
            url = urlsplit(response.urljoin(href))
            if url.scheme in ("http", "https") and url.netloc == self.host:
                yield response.follow(url.geturl(), callback=self.parse)
