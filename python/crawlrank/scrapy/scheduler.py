"""A Scrapy 2.8 scheduler backed by crawlrank's PageDB and best-first scheduler."""

from __future__ import annotations

import logging
import pickle
from collections import deque
from typing import Deque, List, Optional, Tuple

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.spiders import Spider
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object
from scrapy.utils.request import request_from_dict

import crawlrank
from crawlrank._frontend import EngineWakeup
from crawlrank._http import redirect_status
from crawlrank.scrapy._config import SchedulerSettings
from crawlrank.scrapy._local import end_crawl, open_page_db
from crawlrank.scrapy._protocol import LEASE_KEY, SEED_KEY, ReportReceiver
from crawlrank.scrapy._queues import DupeFilter, MemoryQueue
from crawlrank.scrapy._reports import Page, PageReports
from crawlrank.scrapy.middlewares import ErrorMiddleware, LinkGraphMiddleware

logger = logging.getLogger(__name__)

def check_middlewares(settings: BaseSettings) -> None:
    """Raises NotConfigured, in one message naming each setting to change, unless
    LinkGraphMiddleware is in SPIDER_MIDDLEWARES, the one closest to the spider, and
    ErrorMiddleware is in DOWNLOADER_MIDDLEWARES. Read from the settings (with Scrapy's
    defaults), as the engine builds its middlewares from them: the scheduler's from_crawler
    fails before the engine starts."""
    def classes(name: str) -> List[type]:
        out = []
        for path in build_component_list(settings.getwithbase(name)):
            try:
                out.append(load_object(path) if isinstance(path, str) else path)
            except (ImportError, NameError, ValueError):
                pass  # Scrapy reports it when it builds the middleware
        return out

    def has(found: List[type], cls: type) -> bool:
        return any(isinstance(c, type) and issubclass(c, cls) for c in found)

    spider_mws = classes("SPIDER_MIDDLEWARES")
    problems = []
    if not has(spider_mws, LinkGraphMiddleware):
        problems.append("add 'crawlrank.scrapy.LinkGraphMiddleware': 1000 to SPIDER_MIDDLEWARES")
    elif not has(spider_mws[-1:], LinkGraphMiddleware):
        problems.append("give 'crawlrank.scrapy.LinkGraphMiddleware' the highest number in "
                        "SPIDER_MIDDLEWARES (it must be the spider middleware closest to the "
                        f"spider; {getattr(spider_mws[-1], '__name__', spider_mws[-1])} is "
                        "above it)")
    if not has(classes("DOWNLOADER_MIDDLEWARES"), ErrorMiddleware):
        problems.append("add 'crawlrank.scrapy.ErrorMiddleware': 100 to "
                        "DOWNLOADER_MIDDLEWARES")
    if problems:
        raise NotConfigured("crawlrank.scrapy.Scheduler needs its middlewares: "
                            + "; and ".join(problems))


class Scheduler(ReportReceiver):
    """Scrapy's scheduler interface over crawlrank's best-first, polite scheduler.

    * Order: pages go out best first by the score mode (``CRAWLRANK_SCORE``, default
      partial PageRank of the crawled graph). ``request.priority`` goes before the score:
      a request with priority 1 goes before every request with priority 0, whatever its
      rank; within one priority the rank decides (Scrapy's default priorities are all 0,
      redirects get +2).
    * Politeness per host: at most ``CRAWLRANK_PER_HOST`` requests in flight and
      ``CRAWLRANK_DELAY_MS`` between two (defaults: ``CONCURRENT_REQUESTS_PER_DOMAIN`` and
      ``DOWNLOAD_DELAY``), kept across restarts; 429 and 503 answers hold the host. A
      host may hold as many pages being scraped besides, when Scrapy's downloader keeps
      its requests on the wire within the limit (see ``scraping_allowance`` in
      ``crawlrank/scrapy/_local.py``).
    * De-duplication: a GET request is a page, named by its canonical URL (the ``w3lib``
      profile by default, what Scrapy's request fingerprints hash), and the first request
      for it wins; later ones are dropped, unless ``dont_filter`` is set, in which case they
      go to a memory queue as Scrapy's scheduler would keep them. The spider's start
      requests are seeds: one the crawl already has is dropped even with ``dont_filter``
      (``start_urls`` sets it), so a rerun goes on instead of starting over.
    * Requests that are not a plain GET, or that cannot be serialised (a callback that is
      not a spider method, unpicklable meta), go to a memory queue too: counted in
      ``crawlrank/memory`` and ``crawlrank/unserializable``, warned about once, and lost on
      a kill, as in Scrapy.
    * Everything else lives in the PageDB: each queued page keeps its serialised request
      (``request_to_dict`` + pickle, as Scrapy's disk queues), so callbacks and meta survive
      a restart. A page handed out is leased until the spider middleware reports it; a
      killed crawl's leases come back when the next run opens the DB.
    * Redirects go through the queue: the redirecting page is recorded with its status
      and one link to its target, which is crawled in its turn (and not at all if the crawl
      already has it).
    * ``has_pending_requests()`` stays true while pages wait for their host, and turns
      false when nothing is queued, retrying or in flight: the spider then closes by itself.
    * At close the graph is ranked once more by the score mode's rank and stored with the
      DB, as ``crawlrank crawl`` does (``CRAWLRANK_RANK_AT_CLOSE``, on by default; not after
      a shutdown, nor for an online score mode): one log line gives the time it took. A
      crawl that finished without handing out a page says why in one INFO line (the PageDB
      is empty, all crawled, out of scope, ``max_pages`` reached).
    * Scrapy's own stats as its scheduler keeps them, for monitors that read them:
      ``scheduler/enqueued`` and ``scheduler/dequeued``, with ``/memory`` for the memory
      queue and ``/disk`` for the PageDB; ``dupefilter/filtered`` for each duplicate
      refused (the engine then sends ``request_dropped``). At close, for a run's own
      requests, ``scheduler/enqueued == scheduler/dequeued + len(scheduler)``.
    """

    def __init__(self, crawler: Crawler, settings: SchedulerSettings) -> None:
        self.crawler = crawler
        self.settings = settings
        self.stats = crawler.stats
        self.spider: Optional[Spider] = None
        self.db: Optional[crawlrank.PageDb] = None  # None in remote mode
        self.core: Optional[crawlrank.Scheduler] = None
        self._ready: Deque[Request] = deque()  # handed out by crawlrank, not yet by us
        self._memory = MemoryQueue(self.stats)  # what crawlrank cannot keep
        # Which pages the crawl has: in the PageDB, or accepted since the last flush (in
        # the buffer, or in the extras of a page being scraped).
        self._dupes = DupeFilter(settings.url_profile, self.stats, settings.debug_duplicates)
        # The pages handed out until they are reported, and what waits to be written.
        self._reports = PageReports(settings, self.stats, self._dupes)
        self._warned_unserializable = False
        self._wakeup = EngineWakeup(crawler)
        self._left = 0  # len() after close: what was left queued

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "Scheduler":
        check_middlewares(crawler.settings)
        return cls(crawler, SchedulerSettings.from_settings(crawler.settings, crawler))

    # ---- life cycle

    def open(self, spider: Spider) -> None:
        self.spider = spider
        if self.settings.frontier:
            from crawlrank.scrapy.remote import open_remote  # grpc: for remote mode only
            self.core = open_remote(self.settings, spider)
        else:
            self.db, self.core = open_page_db(self.settings, self.crawler.settings, spider)
            self._dupes.db = self.db
        self._reports.open(self.core, spider)

    def close(self, reason: str) -> None:
        self._wakeup.cancel()
        if self.core is not None:
            self._reports.flush()
            if self.db is not None:  # remote mode: the server ranks and samples
                end_crawl(self.core, self.db, self.settings, reason, self.spider,
                          handed_out=bool(self.stats.get_value("scheduler/dequeued", 0,
                                                               spider=self.spider)))
            self._record_stats()
            self._left = len(self)
            self.core.close()
            self.core = None
        if self.db is not None:
            self.db.close()
            self.db = None
            self._dupes.db = None

    # ---- the engine's calls

    def has_pending_requests(self) -> bool:
        if self._ready or self._memory or self._reports.unwritten:
            return True
        if self._reports.pages_out and self._engine_idle():
            # Pages Scrapy dropped without telling a middleware: failed, to be retried.
            self._reports.fail_lost_pages()
        return self.core is not None and not self.core.stats().finished

    def _engine_idle(self) -> bool:
        engine = self.crawler.engine
        slot = getattr(engine, "slot", None)
        return (slot is not None and not slot.inprogress and not engine.downloader.active
                and engine.scraper.slot is not None and engine.scraper.slot.is_idle())

    def enqueue_request(self, request: Request) -> bool:
        lease = request.meta.get(LEASE_KEY)
        if lease is not None:
            return self._returned(request, lease)
        link = self._reports.link_of(request)
        seed = request.meta.pop(SEED_KEY, False)
        if request.method != "GET" or request.body:
            return self._to_memory(request, "crawlrank/memory/not_get")
        url = self._dupes.canonical_url(request.url)
        if url is None:
            # Scrapy would try it and report why it failed: let it.
            return self._to_memory(request, "crawlrank/memory/invalid_url")
        known = self._dupes.seen(url)
        if link is not None:
            page, score = link
            page.links.append((url, score))
        if known and (seed or not request.dont_filter):
            return self._dupes.refuse(request, self.spider)
        if known:
            return self._to_memory(request, "crawlrank/memory/dont_filter")
        payload = self._serialize(request)
        if payload is None:
            if link is not None:
                page.links.pop()  # a page the DB queued would be fetched a second time
            return self._to_memory(request, "crawlrank/memory/unserializable")
        extra = crawlrank.QueuedExtra(url, payload, request.priority)
        self._dupes.accept(url)
        self._reports.accepted(extra, page if link is not None else None)
        self.stats.inc_value("crawlrank/enqueued", spider=self.spider)
        return True

    def next_request(self) -> Optional[Request]:
        if self._memory:
            return self._memory.pop(self.spider)
        if not self._ready and self.core is not None:
            self._reports.flush()
            for r in self.core.next(self.settings.batch):
                self._ready.append(self._request_of(r))
            if not self._ready:
                self._wake_when_ready()
        if not self._ready:
            return None
        self.stats.inc_value("crawlrank/dequeued", spider=self.spider)
        self.stats.inc_value("scheduler/dequeued/disk", spider=self.spider)
        self.stats.inc_value("scheduler/dequeued", spider=self.spider)
        return self._ready.popleft()

    def __len__(self) -> int:
        """The requests waiting: in memory, taken from the PageDB and not yet handed to
        the engine, accepted and not yet written, and queued or retrying in the PageDB
        (pages earlier runs queued too). After close: what was left at close."""
        if self.core is None:
            return self._left
        stats = self.core.stats()
        return (len(self._ready) + len(self._memory) + self._reports.unflushed + stats.queued
                + stats.retrying)

    # ---- reports from the middlewares, to the report path

    def page_of(self, response: Response) -> Optional[Page]:
        return self._reports.page_of(response)

    def note_link(self, page: Page, response: Response, request: Request) -> None:
        self._reports.note_link(page, response, request)

    def page_done(self, page: Page, response: Response) -> None:
        self._reports.page_done(page, response)

    def download_failed(self, request: Request, exception: BaseException) -> None:
        self._reports.download_failed(request, exception)

    # ---- inside

    def _returned(self, request: Request, lease: Tuple[int, str]) -> bool:
        """A request handed out comes back: Scrapy retries it, or it was redirected."""
        number, url = lease
        target = self._dupes.canonical_url(request.url)
        if target == url or not self._reports.is_out(number):
            # A retry of the same page (or of one already reported): it keeps its lease.
            return self._to_memory(request, "crawlrank/retried")
        # A redirect: the target joins the queue with the request's payload, unless the
        # crawl has it (then it is not fetched twice).
        fresh = request.replace(meta={k: v for k, v in request.meta.items() if k != LEASE_KEY})
        new = target is not None and not self._dupes.seen(target)
        payload = self._serialize(fresh) if new else None
        extra = None
        if payload is not None:
            extra = crawlrank.QueuedExtra(target, payload, fresh.priority)
            self._dupes.accept(target)
        status = redirect_status((request.meta.get("redirect_reasons") or [302])[-1])
        self._reports.redirected(number, target, status, extra, new)
        if not new:
            return self._dupes.refuse(request, self.spider)
        return True

    def _request_of(self, r: crawlrank.Request) -> Request:
        request = None
        if r.payload:
            try:
                request = request_from_dict(pickle.loads(r.payload), spider=self.spider)
            except Exception as error:  # a spider changed since the request was queued
                logger.warning("crawlrank: cannot restore the request of %s (%s): crawling it "
                               "with the spider's default callback", r.url, error,
                               extra={"spider": self.spider})
                self.stats.inc_value("crawlrank/restore_failed", spider=self.spider)
        if request is None:
            request = Request(r.url, dont_filter=True)
        request.meta[LEASE_KEY] = (r.lease, r.url)
        self._reports.handed_out(r.lease, r.url)
        return request

    def _serialize(self, request: Request) -> Optional[bytes]:
        try:
            return pickle.dumps(request.to_dict(spider=self.spider), protocol=4)
        except (ValueError, pickle.PicklingError, AttributeError, TypeError) as error:
            if not self._warned_unserializable:
                logger.warning("crawlrank: cannot serialise %s (%s): it waits in memory and is "
                               "lost if the crawl is killed; later such requests are only "
                               "counted (crawlrank/memory/unserializable)", request, error,
                               extra={"spider": self.spider})
                self._warned_unserializable = True
            return None

    def _to_memory(self, request: Request, stat: str) -> bool:
        return self._memory.push(request, stat, self.spider)

    def _wake_when_ready(self) -> None:
        stats = self.core.stats()
        if not stats.finished and stats.next_ready_ms >= 0:
            self._wakeup.at(stats.next_ready_ms / 1000.0)

    def _record_stats(self) -> None:
        stats = self.core.stats()
        for name in ("queued", "in_flight", "retrying", "crawled", "failed", "filtered"):
            self.stats.set_value(f"crawlrank/db/{name}", getattr(stats, name), spider=self.spider)
