"""The Frontera backend's report path: what Frontera says became of each page it handed out
(``page_crawled`` then ``links_extracted``, ``request_error``, a redirect), made into
crawlrank's crawl reports and failures and written to the crawlrank.Scheduler. The backend
(crawlrank/frontera/backend.py) composes one `PageReports`."""

from __future__ import annotations

import logging
from typing import Any, Dict, Iterable, List, Optional, Tuple

from frontera.core.models import Request as FrontierRequest

import crawlrank
from crawlrank._fetch_info import fetch_kwargs
from crawlrank._frontend import ReportBuffer, failure_kind
from crawlrank._http import redirect_status, retry_after_ms

logger = logging.getLogger("crawlrank.frontera.backend")

# The meta key of a request the backend handed out: its crawlrank lease (an int).
LEASE_KEY = b"crawlrank_lease"

_REPORTS_BEFORE_FLUSH = 1024  # a bound on memory; get_next_requests flushes far sooner


class _Page:
    """A page_crawled waiting for its links_extracted."""

    __slots__ = ("url", "lease", "status", "score", "content_hash", "meta", "redirects",
                 "failed", "fetch")

    def __init__(self, url: str, lease: int, status: int, meta: dict) -> None:
        self.url = url  # the URL the frontier handed out (or the chain's end: redirects)
        self.lease = lease
        self.status = status
        self.meta = meta
        scrapy_meta = meta.get(b"scrapy_meta") or {}
        self.score = _meta_score(scrapy_meta)
        content_hash = scrapy_meta.get("content_hash")
        self.content_hash = content_hash & (2**64 - 1) if isinstance(content_hash, int) else 0
        self.redirects: List[Tuple[str, int]] = []  # (URL, status) of each hop before url
        self.fetch: Dict[str, Any] = {}  # CrawledPage's fetch details (page_crawled)
        self.failed = False

    def matches(self, request: FrontierRequest) -> bool:
        meta = request.meta
        lease = meta.get(LEASE_KEY) or 0
        return meta is self.meta or (lease != 0 and lease == self.lease) or \
            request.url == self.url or any(request.url == url for url, _ in self.redirects)


class PageReports:
    """The reports of the pages Frontera says were crawled, buffered until :meth:`flush`
    writes them to `scheduler` in one transaction; failures are written at once.

    A ``page_crawled`` is kept until its ``links_extracted``, which comes right after it:
    the two make one crawled page. A 429 or 5xx is a failure instead. A page reached through
    redirects Scrapy followed is recorded hop by hop, each hop a page with its status and one
    link to the next, the last under its own URL. Not thread-safe: Frontera calls the
    backend from the engine's thread.
    """

    def __init__(self, scheduler: crawlrank.Scheduler, url_profile: str) -> None:
        self.scheduler = scheduler
        self.url_profile = url_profile  # the PageDB's: what makes two URLs the same page
        self._buffer = ReportBuffer(_REPORTS_BEFORE_FLUSH)
        self._page: Optional[_Page] = None  # the page_crawled waiting for its links

    def __bool__(self) -> bool:
        """True while a report waits to be written (its links are news to hand out)."""
        return bool(self._buffer or self._page)

    def page_crawled(self, response: Any) -> None:
        self._finish_page()
        meta = response.meta
        status = int(response.status_code)
        page = _Page(response.url, int(meta.get(LEASE_KEY) or 0), status, meta)
        page.redirects, page.url = _redirect_chain(response.url, meta)
        scrapy_meta = meta.get(b"scrapy_meta") or {}
        page.fetch = fetch_kwargs(getattr(response, "headers", None),
                                  getattr(response, "body", None),
                                  scrapy_meta.get("download_latency")
                                  if isinstance(scrapy_meta, dict) else None)
        if status == 429 or status >= 500:
            # A failure (retried), reported now; its links_extracted is ignored.
            page.failed = True
            first = page.redirects[0][0] if page.redirects else page.url
            self.failed(first, page.lease, http_status=status,
                        retry_after_ms=retry_after_ms(response.headers), reason=f"HTTP {status}")
        self._page = page

    def links_extracted(self, request: FrontierRequest,
                        links: Iterable[FrontierRequest] = ()) -> None:
        page, self._page = self._page, None
        if page is not None and not page.matches(request):
            self._report(page, [])
            page = None
        if page is None:  # links without their page_crawled: a page crawled with status 200
            page = _Page(request.url, int(request.meta.get(LEASE_KEY) or 0), 200, request.meta)
        if page.failed:
            return
        self._report(page, [(link.url, _meta_score(link.meta.get(b"scrapy_meta") or {}))
                            for link in links])

    def request_error(self, request: FrontierRequest, error: str = "") -> None:
        """A retryable failure of `request`'s page (``IgnoreRequest``: failed for good)."""
        lease = int(request.meta.get(LEASE_KEY) or 0)
        reason = str(error or "error")
        self.failed(request.url, lease, retryable=reason != "IgnoreRequest", reason=reason)

    def redirected(self, request: FrontierRequest, target: str, status: int) -> bool:
        """Records `request`'s page as a redirect (`status`, one link to `target`) and ends
        its lease; the target is then queued like any new page. False, recording nothing,
        when the target is the same page (canonically): let Scrapy fetch it."""
        try:
            if crawlrank.canonicalize_url(target, self.url_profile) == \
                    crawlrank.canonicalize_url(request.url, self.url_profile):
                return False
        except crawlrank.InvalidArgumentError:
            pass  # crawlrank drops a link it cannot take: the page is recorded without it
        self._buffer.add_report(
            crawlrank.CrawledPage(request.url, [(target, 0.0)], http_status=status),
            int(request.meta.get(LEASE_KEY) or 0))
        return True

    def failed(self, url: str, lease: int, *, retryable: bool = True, http_status: int = 0,
               retry_after_ms: Optional[int] = None, reason: str = "") -> None:
        """Writes the failure of `url`'s fetch now (after what is buffered, which may create
        the page); one crawlrank refuses (a URL it cannot parse) is logged."""
        self.flush()
        try:
            self.scheduler.failed(url, lease, retryable=retryable, http_status=http_status,
                                  retry_after_ms=retry_after_ms, reason=reason,
                                  kind=failure_kind(reason))
        except crawlrank.InvalidArgumentError as error:
            logger.warning("crawlrank.frontera: failure of %s not recorded: %s", url, error)

    def flush(self) -> None:
        """Writes every report, a page_crawled still waiting for its links too (without
        them); a report crawlrank refuses is logged."""
        self._finish_page()
        for error in self._buffer.flush(self.scheduler):
            logger.warning("crawlrank.frontera: page not recorded: %s", error)

    def _report(self, page: _Page, links: List[Tuple[str, float]]) -> None:
        lease = page.lease
        hops = page.redirects + [(page.url, page.status)]
        for (url, status), (target, _) in zip(hops, hops[1:]):
            self._buffer.add_report(
                crawlrank.CrawledPage(url, [(target, 0.0)], http_status=status), lease)
            lease = 0  # the lease is the first URL's; the others were never handed out
        self._buffer.add_report(
            crawlrank.CrawledPage(page.url, links, content_score=page.score,
                                  content_hash=page.content_hash, http_status=page.status,
                                  **page.fetch),
            lease)
        if self._buffer.full:
            self.flush()

    def _finish_page(self) -> None:
        page, self._page = self._page, None
        if page is not None and not page.failed:
            logger.warning("crawlrank.frontera: page_crawled(%s) had no links_extracted: "
                           "recorded without links", page.url)
            self._report(page, [])


def _redirect_chain(url: str, meta: dict) -> Tuple[List[Tuple[str, int]], str]:
    """(hops before the final page, the final URL) of a response Scrapy reached through
    redirects; ([], url) for none. Frontera's canonical solver reports such a response
    under the chain's first URL and appends the final URL to meta[b'redirect_urls']."""
    chain = list(meta.get(b"redirect_urls") or [])
    if not chain:
        return [], url
    if len(chain) >= 2 and chain[0] == url:  # the canonical solver ran
        chain, final = chain[:-1], chain[-1]
    else:
        final = url
    reasons = list((meta.get(b"scrapy_meta") or {}).get("redirect_reasons") or [])
    hops: List[Tuple[str, int]] = []
    for i, hop in enumerate(chain):
        if hop == final or (hops and hops[-1][0] == hop):
            continue
        reason = reasons[i] if i < len(reasons) else 302
        hops.append((hop, redirect_status(reason)))
    return hops, final


def _meta_score(scrapy_meta: Any) -> float:
    value = scrapy_meta.get("score") if isinstance(scrapy_meta, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else 0.0
