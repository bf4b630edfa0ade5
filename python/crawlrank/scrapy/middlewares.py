"""The scheduler's companions: they tell it what became of each request it handed out."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.spiders import Spider

from crawlrank.scrapy._protocol import SEED_KEY, ReportReceiver


def _scheduler(crawler: Crawler) -> Optional[ReportReceiver]:
    """The engine's scheduler when it is crawlrank's, else None."""
    engine = crawler.engine
    scheduler = getattr(getattr(engine, "slot", None), "scheduler", None)
    return scheduler if isinstance(scheduler, ReportReceiver) else None


class LinkGraphMiddleware:
    """Spider middleware: reports each crawled page with the links its callback yielded.

    Install it closest to the spider (``SPIDER_MIDDLEWARES = {...: 1000}``). A response
    the spider never sees (an HTTP error filtered by HttpErrorMiddleware) is reported as a
    crawled page with its status and no links, or for 429 and 5xx as a failure to retry.
    Without ``crawlrank.scrapy.Scheduler`` as the SCHEDULER it does nothing.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "LinkGraphMiddleware":
        return cls(crawler)

    def process_start_requests(self, start_requests: Iterable[Request],
                               spider: Spider) -> Iterator[Request]:
        """Marks the spider's start requests as seeds: a seed the crawl already has is not
        fetched again, whatever its dont_filter says (start_urls sets it), so that a rerun
        goes on with the crawl instead of starting it over."""
        for request in start_requests:
            request.meta[SEED_KEY] = True
            yield request

    def process_spider_output(self, response: Response, result: Iterable[Any],
                              spider: Spider) -> Iterator[Any]:
        scheduler = _scheduler(self.crawler)
        page = scheduler.page_of(response) if scheduler is not None else None
        if page is None:
            yield from result
            return
        try:
            for item in result:
                if isinstance(item, Request):
                    scheduler.note_link(page, response, item)
                yield item
        finally:
            # Every yielded request went through enqueue_request before the next one was
            # pulled, so the page now knows which of its links the crawl accepted.
            scheduler.page_done(page, response)

    def process_spider_exception(self, response: Response, exception: BaseException,
                                 spider: Spider) -> None:
        scheduler = _scheduler(self.crawler)
        page = scheduler.page_of(response) if scheduler is not None else None
        if page is not None:
            scheduler.page_done(page, response)
        return None


class ErrorMiddleware:
    """Downloader middleware: reports a download that failed for good (after Scrapy's own
    retries, so install it below RetryMiddleware: ``DOWNLOADER_MIDDLEWARES = {...: 100}``)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "ErrorMiddleware":
        return cls(crawler)

    def process_exception(self, request: Request, exception: BaseException,
                          spider: Spider) -> None:
        scheduler = _scheduler(self.crawler)
        if scheduler is not None:
            scheduler.download_failed(request, exception)
        return None
