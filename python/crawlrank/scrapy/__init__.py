"""crawlrank for Scrapy: a native scheduler whose PageDB is the crawl's state.

Three settings put a Scrapy project on crawlrank (``examples/scrapy_project`` has them)::

    SCHEDULER = "crawlrank.scrapy.Scheduler"
    SPIDER_MIDDLEWARES = {"crawlrank.scrapy.LinkGraphMiddleware": 1000}
    DOWNLOADER_MIDDLEWARES = {"crawlrank.scrapy.ErrorMiddleware": 100}

The spider middleware must be the one closest to the spider (the highest number): it sees
each response with the requests its callback yields, before any other middleware filters
them, and reports page -> link edges to the scheduler. The downloader middleware must sit
below RetryMiddleware (550): it reports the download errors no retry took back.

What the scheduler does, how ``request.priority`` combines with the ranks, and every
``CRAWLRANK_*`` setting: see :class:`crawlrank.scrapy.Scheduler` and ``docs/python.md``.
"""

from crawlrank.scrapy.middlewares import ErrorMiddleware, LinkGraphMiddleware
from crawlrank.scrapy.scheduler import Scheduler, SchedulerSettings
from crawlrank.scrapy.scoring import KeywordScorer

__all__ = ["ErrorMiddleware", "KeywordScorer", "LinkGraphMiddleware", "Scheduler",
           "SchedulerSettings"]
