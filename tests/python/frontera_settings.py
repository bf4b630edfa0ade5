"""Scrapy settings for a crawl through Frontera 0.8 (spider mode) with crawlrank's backend,
used by scrapy_crawl.py --frontera (frontera-interface.md §3 lists what Frontera wants)."""

from __future__ import annotations


def frontera_scrapy_settings(db: str) -> dict:
    return {
        # crawlrank's subclass of Frontera's scheduler: it closes the spider when the crawl
        # is done, and routes redirects through the backend.
        "SCHEDULER": "crawlrank.frontera.FronteraScheduler",
        "SPIDER_MIDDLEWARES": {
            "frontera.contrib.scrapy.middlewares.schedulers.SchedulerSpiderMiddleware": 1000,
            # 404s must reach Frontera; Frontera owns scheduling, depth and offsite rules.
            "scrapy.spidermiddlewares.httperror.HttpErrorMiddleware": None,
            "scrapy.spidermiddlewares.offsite.OffsiteMiddleware": None,
            "scrapy.spidermiddlewares.referer.RefererMiddleware": None,
            "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
            "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
        },
        "DOWNLOADER_MIDDLEWARES": {
            "frontera.contrib.scrapy.middlewares.schedulers.SchedulerDownloaderMiddleware": 1000,
        },
        "RETRY_ENABLED": False,  # failures go to the backend, which retries them
        "REDIRECT_ENABLED": True,
        "COOKIES_ENABLED": False,
        # Frontera's settings, read through Scrapy's (no FRONTERA_SETTINGS module).
        "BACKEND": "crawlrank.frontera.Backend",
        "LOCAL_MODE": False,
        "PAGE_DB_PATH": db,
        "DELAY_ON_EMPTY": 0.0,
        "MAX_NEXT_REQUESTS": 64,
    }


def frontera_sqlalchemy_settings(pages: int) -> dict:
    """Frontera's own set-up (its scheduler, local mode, the SQLAlchemy backend on SQLite
    in memory): the baseline of benchmarks/scrapy_bench.py. Frontera never ends such a
    crawl, so the spider closes after `pages` responses."""
    settings = frontera_scrapy_settings("")
    del settings["PAGE_DB_PATH"]
    settings.update({
        "SCHEDULER": "frontera.contrib.scrapy.schedulers.frontier.FronteraScheduler",
        "BACKEND": "frontera.contrib.backends.sqlalchemy.Distributed",
        "LOCAL_MODE": True,
        "SQLALCHEMYBACKEND_ENGINE": "sqlite:///:memory:",
        "CLOSESPIDER_PAGECOUNT": pages,
    })
    return settings
