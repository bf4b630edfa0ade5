"""The Scrapy scheduler's report path: what its middlewares say became of each page it handed
out (the links the page's callback yielded, then the page done, or its download failed), and
a page's redirect, made into crawlrank's crawl reports and failures, buffered with the
requests the scheduler accepted, and written to the PageDB (or the remote frontier) by
`PageReports.flush`. The scheduler (crawlrank/scrapy/scheduler.py) composes one."""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Tuple

from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response

import crawlrank
from crawlrank._fetch_info import fetch_kwargs
from crawlrank._frontend import ReportBuffer, failure_kind
from crawlrank._http import retry_after_ms
from crawlrank.scrapy._config import SchedulerSettings
from crawlrank.scrapy._protocol import LEASE_KEY
from crawlrank.scrapy._queues import DupeFilter

logger = logging.getLogger("crawlrank.scrapy.scheduler")

# Reports are written when the engine next asks for work, or once this many wait.
_REPORTS_BEFORE_FLUSH = 64


class Page:
    """A page handed out, while its response is scraped: the links it yields."""

    __slots__ = ("lease", "url", "links", "extras", "noted", "done")

    def __init__(self, lease: int, url: str) -> None:
        self.lease = lease
        self.url = url
        self.links: List[Tuple[str, float]] = []
        self.extras: List[crawlrank.QueuedExtra] = []
        self.noted: List[int] = []  # id() of the requests note_link saw
        self.done = False


class PageReports:
    """The pages the scheduler handed out, from their hand-out to their report, and what
    waits to be written: reports, and the requests accepted since the last flush.

    A page is reported when its callback is done (`page_done`): crawled with the links the
    crawl accepted, or for a 429 or 5xx failed (retried). A failure is written at once,
    after what is buffered. Each flush counts the pages accepted since the last one as
    Scrapy's scheduler counts its disk queue (``scheduler/enqueued/disk``), or as
    ``crawlrank/refused`` when the PageDB refused them (scope, depth, patterns).
    """

    def __init__(self, settings: SchedulerSettings, stats: Any, dupes: DupeFilter) -> None:
        self.settings = settings  # its content and link scorers
        self.stats = stats
        self.dupes = dupes  # told when what it accepted is written
        self.core: Optional[crawlrank.Scheduler] = None  # the crawl's, once open
        self.spider: Any = None
        self._pages: Dict[int, Page] = {}  # by lease
        self._links: Dict[int, Tuple[Page, float]] = {}  # id(request) -> its page, score
        self._buffer = ReportBuffer(_REPORTS_BEFORE_FLUSH)
        # Pages accepted for the PageDB since the last flush (counted as enqueued when the
        # flush queues them), and the PageDB's refused count (filtered + out_of_scope) then.
        self.unflushed = 0
        self._refused_seen = 0

    def open(self, core: crawlrank.Scheduler, spider: Any) -> None:
        """The crawl is open: reports go to `core`."""
        self.core, self.spider = core, spider
        stats = core.stats()
        self._refused_seen = stats.filtered + stats.out_of_scope

    @property
    def unwritten(self) -> bool:
        """True while reports or accepted requests wait for a flush."""
        return bool(self._buffer)

    @property
    def pages_out(self) -> bool:
        """True while a page handed out has not been reported."""
        return bool(self._pages)

    # ---- the scheduler's calls

    def handed_out(self, lease: int, url: str) -> None:
        """The page of canonical `url` goes to the engine under `lease`."""
        self._pages[lease] = Page(lease, url)

    def link_of(self, request: Request) -> Optional[Tuple[Page, float]]:
        """The page whose callback yielded `request`, with the link's score; None for a
        request no page yielded (a seed, a request from a signal)."""
        return self._links.pop(id(request), None)

    def accepted(self, extra: crawlrank.QueuedExtra, page: Optional[Page]) -> None:
        """A request the crawl accepted, to queue with its payload: with the report of the
        `page` that links to it, or as a seed."""
        self.unflushed += 1
        if page is not None:
            page.extras.append(extra)
        else:
            self._buffer.add_seeds([extra])

    def is_out(self, lease: int) -> bool:
        """True while the page handed out under `lease` waits for its report."""
        page = self._pages.get(lease)
        return page is not None and not page.done

    def redirected(self, lease: int, target: Optional[str], status: int,
                   extra: Optional[crawlrank.QueuedExtra], new: bool) -> None:
        """The page handed out under `lease` redirects to canonical `target` (None: a URL
        crawlrank cannot parse): it is recorded with `status` and one link, to the target,
        which joins the queue like any new page, with `extra`'s payload when given. `new`:
        the crawl did not have the target (it counts as enqueued at the next flush)."""
        page = self._pages.pop(lease)
        page.done = True
        self.stats.inc_value("crawlrank/redirects", spider=self.spider)
        links = [(target, 0.0)] if target is not None else []
        self._buffer.add_report(crawlrank.CrawledPage(page.url, links, http_status=status),
                                lease, [extra] if extra is not None else [])
        if new:
            self.unflushed += 1  # the report's link queues the target (without payload: bare)

    def fail_lost_pages(self) -> None:
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

    def flush(self) -> None:
        """Writes what is buffered, then counts what the PageDB queued of it."""
        self.dupes.flushed()
        for error in self._buffer.flush(self.core):
            logger.warning("crawlrank: page not recorded: %s", error,
                           extra={"spider": self.spider})
        if self.unflushed:
            self._count_queued()

    # ---- the middlewares' calls (crawlrank.scrapy._protocol.ReportReceiver)

    def page_of(self, response: Response) -> Optional[Page]:
        lease = response.meta.get(LEASE_KEY)
        if lease is None:
            return None
        page = self._pages.get(lease[0])
        return page if page is not None and not page.done else None

    def note_link(self, page: Page, response: Response, request: Request) -> None:
        # A request that copied its page's meta must not pass for a retry or a redirect.
        request.meta.pop(LEASE_KEY, None)
        page.noted.append(id(request))
        scorer = self.settings.link_scorer
        score = scorer(response, request) if scorer is not None else request.meta.get(
            "link_score", 0.0)
        self._links[id(request)] = (page, float(score))

    def page_done(self, page: Page, response: Response) -> None:
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
            self.flush()

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

    def _fail(self, url: str, lease: int, *, retryable: bool = True, http_status: int = 0,
              retry_after_ms: Optional[int] = None, reason: str = "") -> None:
        self.flush()  # the page may have been created by a buffered report
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

    def _count_queued(self) -> None:
        """After a flush: the pages accepted since the last one are in the PageDB, queued
        (``scheduler/enqueued/disk``) unless it refused them by its scope, depth or patterns
        (``crawlrank/refused``: accepted, but never queued)."""
        stats = self.core.stats()
        refused_now = stats.filtered + stats.out_of_scope
        refused = min(self.unflushed, max(0, refused_now - self._refused_seen))
        self._refused_seen = refused_now
        queued, self.unflushed = self.unflushed - refused, 0
        if queued:
            self.stats.inc_value("scheduler/enqueued/disk", queued, spider=self.spider)
            self.stats.inc_value("scheduler/enqueued", queued, spider=self.spider)
        if refused:
            self.stats.inc_value("crawlrank/refused", refused, spider=self.spider)
