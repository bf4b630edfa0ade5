"""The Scrapy scheduler's two companions, as Scrapy's own scheduler composes a duplicate
filter (``self.df``) and a memory queue (``self.mqs``): `DupeFilter` says which pages the
crawl has, and `MemoryQueue` keeps the requests crawlrank cannot (not a plain GET, not
serialisable, or a duplicate asked for with ``dont_filter``). The PageDB is the disk
queue: the scheduler itself (crawlrank/scrapy/scheduler.py)."""

from __future__ import annotations

import logging
from collections import deque
from typing import Any, Deque, Dict, Optional, Set

from scrapy import Request

import crawlrank

logger = logging.getLogger("crawlrank.scrapy.scheduler")

# The URLs the filter remembers (each a cache, emptied when it reaches this size): a
# request's URL with its canonical form, and the canonical URLs the PageDB was seen to
# hold. A page links the same pages as its neighbours: most requests are for a page
# already seen, and cost two dict look-ups instead of a canonicalisation and a read.
CACHED_URLS = 1 << 20


class DupeFilter:
    """A page is named by its canonical URL (`profile`); the crawl has it when the PageDB
    holds it, or when a request for it was accepted since the last flush (`accept`, until
    `flushed`). A refused request is counted in ``dupefilter/filtered`` (and
    ``crawlrank/duplicates``) and logged at DEBUG, the first only unless `debug` (Scrapy's
    DUPEFILTER_DEBUG)."""

    def __init__(self, profile: str, stats: Any, debug: bool) -> None:
        self.profile = profile
        self.stats = stats
        self.debug = debug
        self.db: Optional[crawlrank.PageDb] = None  # None: remote mode, the server skips
        self._pending: Set[str] = set()
        self._canonical: Dict[str, Optional[str]] = {}  # request.url -> canonical (None: invalid)
        self._in_db: Set[str] = set()  # canonical URLs the DB holds (pages are never removed)
        self._logged = False

    def canonical_url(self, url: str) -> Optional[str]:
        """The canonical form of a request's URL; None for one crawlrank cannot parse."""
        try:
            return self._canonical[url]
        except KeyError:
            pass
        try:
            canonical: Optional[str] = crawlrank.canonicalize_url(url, self.profile)
        except crawlrank.InvalidArgumentError:
            canonical = None
        if len(self._canonical) >= CACHED_URLS:
            self._canonical.clear()
        self._canonical[url] = canonical
        return canonical

    def seen(self, url: str) -> bool:
        """The crawl has the page of canonical `url`: accepted since the last flush, or in
        the PageDB (a read of the DB the first time)."""
        if url in self._pending or url in self._in_db:
            return True
        if self.db is None or url not in self.db:
            return False
        if len(self._in_db) >= CACHED_URLS:
            self._in_db.clear()
        self._in_db.add(url)
        return True

    def accept(self, url: str) -> None:
        """A request for canonical `url` is taken: the next one is a duplicate."""
        self._pending.add(url)

    def flushed(self) -> None:
        """What was accepted is in the PageDB now (`seen` reads it there)."""
        self._pending.clear()

    def refuse(self, request: Request, spider: Any) -> bool:
        """Refuses a request for a page the crawl has, as Scrapy's dupefilter does; returns
        False, and the engine sends ``request_dropped``."""
        self.stats.inc_value("crawlrank/duplicates", spider=spider)
        self.stats.inc_value("dupefilter/filtered", spider=spider)
        if self.debug or not self._logged:
            logger.debug("crawlrank: dropped a request for a page the crawl has: %s%s", request,
                         "" if self.debug else
                         " (later ones are counted in dupefilter/filtered; DUPEFILTER_DEBUG "
                         "logs them all)", extra={"spider": spider})
            self._logged = True
        return False


class MemoryQueue:
    """The requests crawlrank cannot keep, first in first out, lost on a kill as in Scrapy;
    each counted as Scrapy's scheduler counts its memory queue (``scheduler/enqueued/memory``,
    ``scheduler/dequeued/memory``) and under the `stat` that says why."""

    def __init__(self, stats: Any) -> None:
        self.stats = stats
        self._requests: Deque[Request] = deque()

    def push(self, request: Request, stat: str, spider: Any) -> bool:
        self.stats.inc_value(stat, spider=spider)
        self.stats.inc_value("scheduler/enqueued/memory", spider=spider)
        self.stats.inc_value("scheduler/enqueued", spider=spider)
        self._requests.append(request)
        return True

    def pop(self, spider: Any) -> Optional[Request]:
        if not self._requests:
            return None
        self.stats.inc_value("crawlrank/dequeued/memory", spider=spider)
        self.stats.inc_value("scheduler/dequeued/memory", spider=spider)
        self.stats.inc_value("scheduler/dequeued", spider=spider)
        return self._requests.popleft()

    def __len__(self) -> int:
        return len(self._requests)
