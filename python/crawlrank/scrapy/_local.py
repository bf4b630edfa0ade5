"""The Scrapy scheduler's local mode: the spider's own PageDB and the crawlrank.Scheduler over
it, opened when the spider opens, with the configuration stored in the PageDB resolved, and
sampled and ranked once more when the spider closes. The remote mode's counterpart is
crawlrank/scrapy/remote.py."""

from __future__ import annotations

import logging
from typing import Any, Tuple

from scrapy.settings import BaseSettings

import crawlrank
from crawlrank._frontend import nothing_to_crawl, rank_at_close, resolve_config
from crawlrank.scrapy._config import SchedulerSettings

logger = logging.getLogger("crawlrank.scrapy.scheduler")


def open_page_db(settings: SchedulerSettings, crawler_settings: BaseSettings,
                 spider: Any) -> Tuple[crawlrank.PageDb, crawlrank.Scheduler]:
    """Opens `spider`'s PageDB (``CRAWLRANK_PAGE_DB``, else ``<spider>.crawlrank``) and a
    crawlrank.Scheduler over it. The settings given this run override the configuration
    stored in the DB, and are stored; the spider's ``allowed_domains``, when it has any, are
    the scope (OffsiteMiddleware's rule: these domains and the names under them). Logs one
    line with what the DB holds."""
    path = settings.page_db or f"{spider.name}.crawlrank"
    db = crawlrank.PageDb(path, url_profile=settings.url_profile,
                          durability=settings.durability)
    try:
        options = settings.scheduler_options()
        given = set(settings.given)
        domains = [d for d in (getattr(spider, "allowed_domains", None) or []) if d]
        if domains:
            options.scope, options.scope_hosts = "same-domain", list(domains)
            given.update(("scope", "scope_hosts"))
        resolve_config(db, options, given, logger.info)
        # Stored as given; what the core counts in flight is widened below.
        options.per_host += scraping_allowance(crawler_settings, options)
        core = crawlrank.Scheduler(db, options)
    except Exception:
        db.close()
        raise
    stats = core.stats()
    logger.info("crawlrank: PageDB %s: %d pages crawled, %d queued, %d retrying",
                path, stats.crawled, stats.queued, stats.retrying, extra={"spider": spider})
    return db, core


def scraping_allowance(crawler_settings: BaseSettings,
                       options: crawlrank.SchedulerOptions) -> int:
    """Leases a host may hold beyond its requests in flight, for its pages that are
    downloaded and still being scraped.

    crawlrank counts a page in flight from its hand-out to its report, and Scrapy
    reports a page when its callback is done: with long pages the scraper holds most of
    the leases and the downloader idles (issue #25). When Scrapy's downloader itself
    keeps every host within the crawl's limit (a downloader slot per host name, at most
    CONCURRENT_REQUESTS_PER_DOMAIN, or _PER_IP, requests, no more than
    CRAWLRANK_PER_HOST), a host may also hold as many pages being scraped as it may have
    requests in flight, as Scrapy's own scheduler lets it; otherwise none."""
    per_slot = crawler_settings.getint("CONCURRENT_REQUESTS_PER_IP") or crawler_settings.getint(
        "CONCURRENT_REQUESTS_PER_DOMAIN", 8)
    if options.host_key != "host" or per_slot > options.per_host:
        return 0
    return options.per_host


def end_crawl(core: crawlrank.Scheduler, db: crawlrank.PageDb, settings: SchedulerSettings,
              reason: str, spider: Any, handed_out: bool) -> None:
    """The spider closes (`reason`, Scrapy's): the crawl's last progress sample (its end),
    the rank at close, and, for a crawl that finished without handing out a page
    (`handed_out` False), one line saying why. Every report is written already."""
    core.record_progress()
    _rank_at_close(core, db, settings, reason, spider)
    if reason == "finished" and not handed_out:
        logger.info("crawlrank: the PageDB %s has no page to crawl: %s", db.path,
                    nothing_to_crawl(core.stats()), extra={"spider": spider})


def _rank_at_close(core: crawlrank.Scheduler, db: crawlrank.PageDb,
                   settings: SchedulerSettings, reason: str, spider: Any) -> None:
    """Ranks the graph once more (CRAWLRANK_RANK_AT_CLOSE), but not after a shutdown
    (Ctrl-C asks to stop now: `crawlrank rank DB`, or the next run, ranks it)."""
    if not settings.rank_at_close:
        return
    extra = {"spider": spider}
    if reason == "shutdown":
        logger.info("crawlrank: not ranked at close: the crawl was shut down (`crawlrank "
                    "rank %s` ranks it)", db.path, extra=extra)
        return
    try:
        seconds, ranked = rank_at_close(core, db)
    except crawlrank.Error as error:
        logger.warning("crawlrank: rank at close failed: %s", error, extra=extra)
        return
    logger.info("crawlrank: ranked (%s) at close in %.3f s", ranked, seconds, extra=extra)
