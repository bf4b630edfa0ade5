"""A Scrapy 2.8 scheduler backed by crawlrank's PageDB and best-first scheduler."""

from __future__ import annotations

import logging
import pickle
from collections import deque
from typing import Deque, Dict, List, Optional, Tuple

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.spiders import Spider
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object
from scrapy.utils.request import request_from_dict

import crawlrank
from crawlrank._fetch_info import fetch_kwargs
from crawlrank._frontend import (
    EngineWakeup,
    ReportBuffer,
    failure_kind,
    nothing_to_crawl,
    rank_at_close,
    resolve_config,
)
from crawlrank._http import redirect_status, retry_after_ms
from crawlrank.scrapy._config import SchedulerSettings
from crawlrank.scrapy._protocol import LEASE_KEY, SEED_KEY, ReportReceiver
from crawlrank.scrapy._queues import DupeFilter, MemoryQueue
from crawlrank.scrapy.middlewares import ErrorMiddleware, LinkGraphMiddleware

logger = logging.getLogger(__name__)

# Reports are written when the engine next asks for work, or once this many wait.
_REPORTS_BEFORE_FLUSH = 64


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


class _Page:
    """A page handed out, while its response is scraped: the links it yields."""

    __slots__ = ("lease", "url", "links", "extras", "noted", "done")

    def __init__(self, lease: int, url: str) -> None:
        self.lease = lease
        self.url = url
        self.links: List[Tuple[str, float]] = []
        self.extras: List[crawlrank.QueuedExtra] = []
        self.noted: List[int] = []  # id() of the requests note_link saw
        self.done = False


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
      its requests on the wire within the limit (see ``_scraping_allowance``).
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
        self.db: Optional[crawlrank.PageDb] = None
        self.core: Optional[crawlrank.Scheduler] = None
        self._ready: Deque[Request] = deque()  # handed out by crawlrank, not yet by us
        self._memory = MemoryQueue(self.stats)  # what crawlrank cannot keep
        # Which pages the crawl has: in the PageDB, or accepted since the last flush (in
        # the buffer, or in the extras of a page being scraped).
        self._dupes = DupeFilter(settings.url_profile, self.stats, settings.debug_duplicates)
        self._pages: Dict[int, _Page] = {}  # by lease
        self._links: Dict[int, Tuple[_Page, float]] = {}  # id(request) -> its page, score
        self._buffer = ReportBuffer(_REPORTS_BEFORE_FLUSH)
        self._warned_unserializable = False
        self._wakeup = EngineWakeup(crawler)
        self._score = ""  # the score mode, once open
        # Pages accepted for the PageDB since the last flush (counted as enqueued when the
        # flush queues them), and the PageDB's refused count (filtered + out_of_scope) then.
        self._unflushed = 0
        self._refused_seen = 0
        self._left = 0  # len() after close: what was left queued

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "Scheduler":
        check_middlewares(crawler.settings)
        return cls(crawler, SchedulerSettings.from_settings(crawler.settings, crawler))

    # ---- life cycle

    def open(self, spider: Spider) -> None:
        self.spider = spider
        if self.settings.frontier:
            self._open_remote(spider)
            return
        path = self.settings.page_db or f"{spider.name}.crawlrank"
        self.db = crawlrank.PageDb(path, url_profile=self.settings.url_profile,
                                   durability=self.settings.durability)
        self._dupes.db = self.db
        try:
            options = self.settings.scheduler_options()
            given = set(self.settings.given)
            domains = [d for d in (getattr(spider, "allowed_domains", None) or []) if d]
            if domains:  # OffsiteMiddleware's rule: these domains and the names under them
                options.scope, options.scope_hosts = "same-domain", list(domains)
                given.update(("scope", "scope_hosts"))
            resolve_config(self.db, options, given, logger.info)
            # Stored as given; what the core counts in flight is widened below.
            options.per_host += self._scraping_allowance(options)
            self.core = crawlrank.Scheduler(self.db, options)
            self._score = options.score
        except Exception:
            self.db.close()
            raise
        stats = self.core.stats()
        self._refused_seen = stats.filtered + stats.out_of_scope
        logger.info("crawlrank: PageDB %s: %d pages crawled, %d queued, %d retrying",
                    path, stats.crawled, stats.queued, stats.retrying,
                    extra={"spider": spider})

    def _open_remote(self, spider: Spider) -> None:
        """Remote mode: the frontier is a crawlrank serve shared with other processes; its
        PageDB, configuration and ranks are the server's (CRAWLRANK_PAGE_DB and the crawl
        options here are not used)."""
        from crawlrank.scrapy.remote import RemoteCore
        self.core = RemoteCore(self.settings.frontier, token=self.settings.frontier_token,
                               lease_s=self.settings.lease_ms // 1000,
                               tls_ca=self.settings.frontier_tls_ca)
        self._score = "remote"
        stats = self.core.stats()
        self._refused_seen = stats.filtered + stats.out_of_scope
        logger.info("crawlrank: frontier %s: %d pages crawled, %d queued, %d retrying",
                    self.settings.frontier, stats.crawled, stats.queued, stats.retrying,
                    extra={"spider": spider})
        allowed = getattr(spider, "allowed_domains", None)
        if allowed:
            logger.warning(
                "crawlrank: remote mode: this spider's allowed_domains (%s) filter links in "
                "this process only, but the frontier hands any process the pages of every "
                "host: a process started with other arguments drops the links of the other "
                "sites' pages. Leave allowed_domains unset and give the scope to the crawl the "
                "server serves (docs/python.md, \"Remote mode\")", ", ".join(allowed),
                extra={"spider": spider})

    def close(self, reason: str) -> None:
        self._wakeup.cancel()
        if self.core is not None:
            self._flush()
            if self.db is not None:  # remote mode: the server ranks and samples
                self.core.record_progress()  # the crawl's last progress sample: its end
                self._rank_at_close(reason)
            self._record_stats()
            self._left = len(self)
            if reason == "finished" and self.db is not None and not self.stats.get_value(
                    "scheduler/dequeued", 0, spider=self.spider):
                logger.info("crawlrank: the PageDB %s has no page to crawl: %s", self.db.path,
                            nothing_to_crawl(self.core.stats()), extra={"spider": self.spider})
            self.core.close()
            self.core = None
        if self.db is not None:
            self.db.close()
            self.db = None
            self._dupes.db = None

    def _scraping_allowance(self, options: crawlrank.SchedulerOptions) -> int:
        """Leases a host may hold beyond its requests in flight, for its pages that are
        downloaded and still being scraped.

        crawlrank counts a page in flight from its hand-out to its report, and Scrapy
        reports a page when its callback is done: with long pages the scraper holds most of
        the leases and the downloader idles (issue #25). When Scrapy's downloader itself
        keeps every host within the crawl's limit (a downloader slot per host name, at most
        CONCURRENT_REQUESTS_PER_DOMAIN, or _PER_IP, requests, no more than
        CRAWLRANK_PER_HOST), a host may also hold as many pages being scraped as it may have
        requests in flight, as Scrapy's own scheduler lets it; otherwise none."""
        settings = self.crawler.settings
        per_slot = settings.getint("CONCURRENT_REQUESTS_PER_IP") or settings.getint(
            "CONCURRENT_REQUESTS_PER_DOMAIN", 8)
        if options.host_key != "host" or per_slot > options.per_host:
            return 0
        return options.per_host

    def _rank_at_close(self, reason: str) -> None:
        """Ranks the graph once more (CRAWLRANK_RANK_AT_CLOSE), but not after a shutdown
        (Ctrl-C asks to stop now: `crawlrank rank DB`, or the next run, ranks it)."""
        if not self.settings.rank_at_close:
            return
        spider = {"spider": self.spider}
        if reason == "shutdown":
            logger.info("crawlrank: not ranked at close: the crawl was shut down (`crawlrank "
                        "rank %s` ranks it)", self.db.path, extra=spider)
            return
        try:
            seconds, ranked = rank_at_close(self.core, self.db)
        except crawlrank.Error as error:
            logger.warning("crawlrank: rank at close failed: %s", error, extra=spider)
            return
        logger.info("crawlrank: ranked (%s) at close in %.3f s", ranked, seconds, extra=spider)

    # ---- the engine's calls

    def has_pending_requests(self) -> bool:
        if self._ready or self._memory or self._buffer:
            return True
        if self._pages and self._engine_idle():
            self._fail_lost_pages()
        return self.core is not None and not self.core.stats().finished

    def _engine_idle(self) -> bool:
        engine = self.crawler.engine
        slot = getattr(engine, "slot", None)
        return (slot is not None and not slot.inprogress and not engine.downloader.active
                and engine.scraper.slot is not None and engine.scraper.slot.is_idle())

    def _fail_lost_pages(self) -> None:
        """Pages handed out that Scrapy dropped without telling a middleware (an exception in
        a downloader middleware's process_response, such as RedirectMiddleware's "max
        redirections reached"): with nothing in progress they cannot come back, so they are
        failed now (retryable) instead of holding the crawl open until their lease expires."""
        for page in list(self._pages.values()):
            del self._pages[page.lease]
            page.done = True
            logger.warning("crawlrank: %s was handed out and never came back from Scrapy: "
                           "failed, to be retried", page.url, extra={"spider": self.spider})
            self._fail(page.url, page.lease, reason="lost")

    def enqueue_request(self, request: Request) -> bool:
        lease = request.meta.get(LEASE_KEY)
        if lease is not None:
            return self._returned(request, lease)
        link = self._links.pop(id(request), None)
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
        self._unflushed += 1
        if link is not None:
            page.extras.append(extra)
        else:
            self._buffer.add_seeds([extra])
        self.stats.inc_value("crawlrank/enqueued", spider=self.spider)
        return True

    def next_request(self) -> Optional[Request]:
        if self._memory:
            return self._memory.pop(self.spider)
        if not self._ready and self.core is not None:
            self._flush()
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
        return (len(self._ready) + len(self._memory) + self._unflushed + stats.queued
                + stats.retrying)

    # ---- reports from the middlewares

    def page_of(self, response: Response) -> Optional[_Page]:
        lease = response.meta.get(LEASE_KEY)
        if lease is None:
            return None
        page = self._pages.get(lease[0])
        return page if page is not None and not page.done else None

    def note_link(self, page: _Page, response: Response, request: Request) -> None:
        # A request that copied its page's meta must not pass for a retry or a redirect.
        request.meta.pop(LEASE_KEY, None)
        page.noted.append(id(request))
        scorer = self.settings.link_scorer
        score = scorer(response, request) if scorer is not None else request.meta.get(
            "link_score", 0.0)
        self._links[id(request)] = (page, float(score))

    def page_done(self, page: _Page, response: Response) -> None:
        if page.done:
            return
        page.done = True
        del self._pages[page.lease]
        for noted in page.noted:  # links a later middleware dropped never reached enqueue
            self._links.pop(noted, None)
        status = response.status
        if status == 429 or status >= 500:
            # A spider that parses such pages (handle_httpstatus_list) had its links
            # accepted: they join the crawl as seeds, since the page is not recorded.
            self._buffer.add_seeds(page.extras)
            self._fail(page.url, page.lease, http_status=status,
                       retry_after_ms=retry_after_ms(response.headers), reason=f"HTTP {status}")
            return
        scorer = self.settings.content_scorer
        content_score = float(scorer(response)) if scorer is not None and status < 300 else 0.0
        self._buffer.add_report(
            crawlrank.CrawledPage(page.url, page.links, content_score=content_score,
                                  http_status=status,
                                  **fetch_kwargs(response.headers, response.body,
                                                 response.meta.get("download_latency"))),
            page.lease, page.extras)
        self.stats.inc_value("crawlrank/crawled", spider=self.spider)
        self.stats.inc_value(f"crawlrank/crawled/{status}", spider=self.spider)
        if self._buffer.full:
            self._flush()

    def download_failed(self, request: Request, exception: BaseException) -> None:
        lease = request.meta.get(LEASE_KEY)
        if lease is None:
            return
        page = self._pages.pop(lease[0], None)
        if page is None or page.done:
            return
        page.done = True
        self._fail(page.url, page.lease, retryable=not isinstance(exception, IgnoreRequest),
                   reason=type(exception).__name__)

    # ---- inside

    def _returned(self, request: Request, lease: Tuple[int, str]) -> bool:
        """A request handed out comes back: Scrapy retries it, or it was redirected."""
        number, url = lease
        page = self._pages.get(number)
        target = self._dupes.canonical_url(request.url)
        if target == url or page is None or page.done:
            # A retry of the same page (or of one already reported): it keeps its lease.
            return self._to_memory(request, "crawlrank/retried")
        # A redirect: the page is recorded with its status and one link, to the target,
        # which joins the queue like any new page (and is not fetched twice).
        page.done = True
        del self._pages[number]
        status = redirect_status((request.meta.get("redirect_reasons") or [302])[-1])
        self.stats.inc_value("crawlrank/redirects", spider=self.spider)
        fresh = request.replace(meta={k: v for k, v in request.meta.items() if k != LEASE_KEY})
        links, extras, accepted = [], [], False
        if target is not None:
            links.append((target, 0.0))
            known = self._dupes.seen(target)
            payload = None if known else self._serialize(fresh)
            if payload is not None:
                extras.append(crawlrank.QueuedExtra(target, payload, fresh.priority))
                self._dupes.accept(target)
            accepted = not known
        self._buffer.add_report(crawlrank.CrawledPage(url, links, http_status=status), number,
                                extras)
        if not accepted:
            return self._dupes.refuse(request, self.spider)
        self._unflushed += 1  # the report's link queues the target (without payload: bare)
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
        self._pages[r.lease] = _Page(r.lease, r.url)
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

    def _count_queued(self) -> None:
        """After a flush: the pages accepted since the last one are in the PageDB, queued
        (``scheduler/enqueued/disk``) unless it refused them by its scope, depth or patterns
        (``crawlrank/refused``: accepted, but never queued)."""
        stats = self.core.stats()
        refused_now = stats.filtered + stats.out_of_scope
        refused = min(self._unflushed, max(0, refused_now - self._refused_seen))
        self._refused_seen = refused_now
        queued, self._unflushed = self._unflushed - refused, 0
        if queued:
            self.stats.inc_value("scheduler/enqueued/disk", queued, spider=self.spider)
            self.stats.inc_value("scheduler/enqueued", queued, spider=self.spider)
        if refused:
            self.stats.inc_value("crawlrank/refused", refused, spider=self.spider)

    def _fail(self, url: str, lease: int, *, retryable: bool = True, http_status: int = 0,
              retry_after_ms: Optional[int] = None, reason: str = "") -> None:
        self._flush()  # the page may have been created by a buffered report
        before = self.core.stats()
        self.core.failed(url, lease, retryable=retryable, http_status=http_status,
                         retry_after_ms=retry_after_ms, reason=reason, kind=failure_kind(reason))
        after = self.core.stats()
        if after.queued + after.retrying > before.queued + before.retrying:
            # The PageDB retries the page: enqueued again, as Scrapy's retries are.
            self.stats.inc_value("scheduler/enqueued/disk", spider=self.spider)
            self.stats.inc_value("scheduler/enqueued", spider=self.spider)
        self.stats.inc_value("crawlrank/failed", spider=self.spider)
        self.stats.inc_value(f"crawlrank/failed/{reason or 'error'}", spider=self.spider)

    def _flush(self) -> None:
        self._dupes.flushed()
        for error in self._buffer.flush(self.core):
            logger.warning("crawlrank: page not recorded: %s", error,
                           extra={"spider": self.spider})
        if self._unflushed:
            self._count_queued()

    def _wake_when_ready(self) -> None:
        stats = self.core.stats()
        if not stats.finished and stats.next_ready_ms >= 0:
            self._wakeup.at(stats.next_ready_ms / 1000.0)

    def _record_stats(self) -> None:
        stats = self.core.stats()
        for name in ("queued", "in_flight", "retrying", "crawled", "failed", "filtered"):
            self.stats.set_value(f"crawlrank/db/{name}", getattr(stats, name), spider=self.spider)
