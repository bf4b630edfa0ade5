"""Frontera 0.8's Scrapy scheduler, made to end a crawl on crawlrank's backend."""

from __future__ import annotations

import logging
from typing import Any, Optional

from frontera.contrib.scrapy.schedulers.frontier import FronteraScheduler as _FronteraScheduler
from scrapy import Request, signals

from crawlrank._frontend import EngineWakeup
from crawlrank._http import redirect_status
from crawlrank.frontera.backend import Backend

_REPORTED = b"crawlrank_reported"  # response.meta: the page went to the backend

# Frontera's frontier manager logs a banner at INFO ("Starting Frontier Manager...") under
# this logger name; this scheduler sets it to WARNING unless it already has a level.
FRONTERA_MANAGER_LOGGER = "manager"


class FronteraScheduler(_FronteraScheduler):
    """``SCHEDULER = 'crawlrank.frontera.FronteraScheduler'``: Frontera's FronteraScheduler
    (same middlewares, settings and stats) with these changes when the backend is
    :class:`crawlrank.frontera.Backend` (with any other backend it is Frontera's own):

    * ``has_pending_requests()`` asks the backend's ``finished()``: it stays true while
      pages wait for their host's delay or are in flight, and turns false when the crawl
      is done, so Scrapy closes the spider by itself (Frontera's spider-mode manager says
      "not finished" forever).
    * The frontier is asked again as soon as it may have something: at once when pages
      were reported since the last batch, and at the time the backend says a host will be
      ready, instead of after ``DELAY_ON_EMPTY`` (5 s by default; tests set 0).
    * A page whose callback raised is reported (crawled, no links), so that its lease does
      not keep the crawl open and the page is not fetched again.
    * A redirect goes through the backend: the redirecting page is recorded with its
      status and one link to the target, which is then crawled in its turn like any new
      page, and not at all if the crawl already has it. (Frontera's scheduler fetches the
      target at once, bypassing the backend, so a target also linked directly is fetched
      twice.)
    * The spider's start requests (and any other GET request that did not come from the
      frontier) become seeds of the PageDB, crawled in their turn with the spider's
      ``parse``; one the crawl has is not fetched again. (Frontera's middleware fails on
      the response to a request that did not come from the frontier.)

    Frontera's ``manager`` logger is set to WARNING when it has no level of its own: its
    INFO lines are a banner.
    """

    def __init__(self, crawler: Any, manager: Any = None) -> None:
        manager_logger = logging.getLogger(FRONTERA_MANAGER_LOGGER)
        if manager_logger.level == logging.NOTSET:
            manager_logger.setLevel(logging.WARNING)
        super().__init__(crawler, manager)
        self._wakeup = EngineWakeup(crawler)
        crawler.signals.connect(self._spider_error, signal=signals.spider_error)

    def _spider_error(self, failure: Any, response: Any, spider: Any) -> None:
        """A callback that raised: Frontera's middleware never reports its page, whose lease
        would hold the crawl open until it expired and then fetch the page again. Report it
        as crawled with no links (the requests it yielded before raising went on)."""
        if (self.crawlrank_backend is None or b"frontier_request" not in response.meta
                or response.meta.get(_REPORTED)):
            return
        for _ in self.process_spider_output(response, [], spider):
            pass

    def process_spider_output(self, response: Any, result: Any, spider: Any) -> Any:
        yield from super().process_spider_output(response, result, spider)
        # Reported: an error raised later, by an outer middleware, must not report it again.
        response.meta[_REPORTED] = True

    @property
    def crawlrank_backend(self) -> Optional[Backend]:
        backend = getattr(self.frontier.manager, "backend", None)
        return backend if isinstance(backend, Backend) else None

    def has_pending_requests(self) -> bool:
        backend = self.crawlrank_backend
        if backend is None:
            return super().has_pending_requests()
        return bool(self._pending_requests) or not backend.finished()

    def enqueue_request(self, request: Request) -> bool:
        backend = self.crawlrank_backend
        frontier_request = request.meta.get(b"frontier_request")
        reasons = request.meta.get("redirect_reasons") or [302]
        if (backend is not None and self.redirect_enabled and frontier_request is not None
                and request.meta.get("redirect_urls") and not backend.stopped
                and backend.redirected(frontier_request, request.url,
                                       redirect_status(reasons[-1]))):
            self.stats_manager.add_redirected_requests()
            return True
        if (backend is not None and frontier_request is None and not backend.stopped
                and request.method == "GET" and not request.body):
            # A start request: a seed. False (the engine sends request_dropped) for a page
            # the crawl has.
            added = backend.seed([request.url])
            if added:
                self.stats_manager.add_seeds(added)
            return bool(added)
        return super().enqueue_request(request)

    def close(self, reason: str) -> None:
        self._wakeup.cancel()
        super().close(reason)

    def _get_next_request(self) -> Optional[Request]:
        backend = self.crawlrank_backend
        if backend is None or backend.stopped:
            return super()._get_next_request()
        if backend.has_news():
            self._delay_next_call = 0.0
        request = super()._get_next_request()
        if request is None:
            self._wake_when_ready(backend)
        return request

    def _wake_when_ready(self, backend: Backend) -> None:
        ready = backend.next_ready_time()
        if ready is not None:
            self._delay_next_call = min(self._delay_next_call, ready)
            self._wakeup.at(ready)
