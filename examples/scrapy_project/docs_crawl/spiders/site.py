"""Follows every link of a site that stays on its host.

    scrapy crawl site -a start_url=http://127.0.0.1:8000/index.html
"""

from urllib.parse import urlsplit

import scrapy
from scrapy.http import HtmlResponse


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start_url: str = "http://127.0.0.1:8000/", **kwargs) -> None:
        super().__init__(**kwargs)
        self.start_urls = [start_url]
        self.host = urlsplit(start_url).netloc

    def parse(self, response):
        if not isinstance(response, HtmlResponse):
            return
        yield {"url": response.url, "title": response.css("title::text").get()}
        for href in response.css("a::attr(href)").getall():
            request = response.follow(href, callback=self.parse)
            if urlsplit(request.url).netloc == self.host:
                yield request
