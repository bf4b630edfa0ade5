"""What crawlrank.scrapy's scheduler and its middlewares both use: the request meta keys and
the calls by which the middlewares report to the scheduler.

Both modules import this one and it imports neither, so that the middlewares can find the
scheduler without importing it (the scheduler imports them, to check they are installed).
"""

from __future__ import annotations

import abc
from typing import Any, Optional

# The meta key of a request the scheduler handed out: (lease, canonical URL).
LEASE_KEY = "crawlrank_lease"
# The meta key LinkGraphMiddleware puts on the spider's start requests.
SEED_KEY = "crawlrank_seed"


class ReportReceiver(abc.ABC):
    """The scheduler as its middlewares see it: what became of each request it handed out.
    The middlewares report to Scrapy's scheduler only when it is one of these."""

    @abc.abstractmethod
    def page_of(self, response: Any) -> Optional[Any]:
        """The page `response` answers, while it is being scraped; None for a response to a
        request the scheduler did not hand out, or one already reported."""

    @abc.abstractmethod
    def note_link(self, page: Any, response: Any, request: Any) -> None:
        """`request` was yielded by the callback of `page`: a link of the page, recorded if
        the request reaches enqueue_request."""

    @abc.abstractmethod
    def page_done(self, page: Any, response: Any) -> None:
        """The callback of `page` is done (or raised): the page is reported. Later calls for
        the same page do nothing."""

    @abc.abstractmethod
    def download_failed(self, request: Any, exception: BaseException) -> None:
        """The download of `request` failed for good (after Scrapy's retries)."""
