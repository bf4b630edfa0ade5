"""The Scrapy scheduler's remote mode (``CRAWLRANK_FRONTIER = "host:port"``): the calls the
scheduler makes on its in-process crawlrank.Scheduler, made on a shared ``crawlrank serve``
instead, so that any number of Scrapy processes crawl one frontier: each page handed to one
of them at a time, each host polite across all of them, payloads (the serialised requests)
and priorities kept by the server.

What changes for the scheduler: the PageDB is the server's (no local one, no rank at close:
the server ranks); a URL is known when this process saw it (the server skips the others);
leases are the server's, named here by a number per hand-out; and the stats come from the
server (GetStats, read at most every 0.2 s).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import time
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

import crawlrank
import grpc

from crawlrank.frontier import Client
from crawlrank.scrapy._config import SchedulerSettings

logger = logging.getLogger("crawlrank.scrapy.scheduler")

# GetStats is a call: the scheduler asks for stats on every engine tick.
_STATS_FOR_S = 0.2
# When the server says nothing is due, ask again this soon (it has no next-ready time).
_POLL_S = 0.2


@contextlib.contextmanager
def _refusals():
    """The server's INVALID_ARGUMENT (a URL it cannot parse) as crawlrank's own error, which
    the report buffer handles (it writes the reports one by one and logs the refused)."""
    try:
        yield
    except grpc.RpcError as error:
        if error.code() == grpc.StatusCode.INVALID_ARGUMENT:
            raise crawlrank.InvalidArgumentError(error.details()) from None
        raise


@dataclass
class RemoteStats:
    """The fields of crawlrank.SchedulerStats the scheduler reads, from GetStats."""
    queued: int = 0
    retrying: int = 0
    in_flight: int = 0
    crawled: int = 0
    failed: int = 0
    filtered: int = 0
    out_of_scope: int = 0
    removed: int = 0
    finished: bool = False
    next_ready_ms: int = -1


@dataclass
class RemoteRequest:
    """What the scheduler reads of a crawlrank.Request."""
    url: str
    lease: int
    payload: bytes
    priority: int


class RemoteCore:
    """crawlrank.Scheduler's calls, as the Scrapy scheduler makes them, over a Client."""

    def __init__(self, address: str, *, token: Optional[str] = None, lease_s: int = 600,
                 tls_ca: Optional[str] = None, discover_nodes: bool = False) -> None:
        self.address = address
        # A list of nodes (or one and discover_nodes): every node of a cluster, read round
        # robin, each report to the node that handed the page out (crawlrank._cluster).
        self.client = Client(address, token=token, tls_ca=tls_ca, discover_nodes=discover_nodes)
        self.lease_s = max(1, lease_s)
        self._numbers = itertools.count(1)
        self._leases: Dict[int, str] = {}  # number -> URL handed out
        self._stats: Optional[RemoteStats] = None
        self._stats_at = 0.0

    def close(self) -> None:
        self.client.close()

    # ---- hand-outs

    def next(self, n: int) -> List[RemoteRequest]:
        out = []
        for handed in self.client.get_urls(n, lease=self.lease_s):
            number = next(self._numbers)
            self._leases[number] = handed.url
            out.append(RemoteRequest(handed.url, number, handed.payload, handed.priority))
        if out:
            self._stats = None
        return out

    # ---- reports

    def add_seeds(self, extras: Iterable[crawlrank.QueuedExtra]) -> None:
        extras = list(extras)
        if extras:
            with _refusals():
                self.client.discover([e.url for e in extras],
                                     payloads=[e.payload for e in extras],
                                     priorities=[e.priority for e in extras])
            self._stats = None

    def crawled(self, page: crawlrank.CrawledPage, lease: int,
                extras: Optional[List[crawlrank.QueuedExtra]] = None) -> None:
        self._leases.pop(lease, None)
        extras = extras or []
        # The requests the page yielded first, each with its payload, priority and link
        # score, then the page with its other links (those it yielded that were known
        # already) and its content score.
        scores = dict(page.links)
        with _refusals():
            if extras:
                self.client.discover([e.url for e in extras], source=page.url,
                                     payloads=[e.payload for e in extras],
                                     priorities=[e.priority for e in extras],
                                     scores=[scores.get(e.url, 0.0) for e in extras])
            queued = {e.url for e in extras}
            links = [(url, score) for url, score in page.links if url not in queued]
            self.client.crawled(page.url, status=page.http_status or 200, links=links,
                                content_score=page.content_score)
        self._stats = None

    def crawled_batch(self, reports: Iterable[Tuple[crawlrank.CrawledPage, int,
                                                    List[crawlrank.QueuedExtra]]]) -> None:
        for page, lease, extras in reports:
            self.crawled(page, lease, extras)

    def failed(self, url: str, lease: int, *, retryable: bool = True, http_status: int = 0,
               retry_after_ms: Optional[int] = None, reason: str = "",
               kind: Optional[str] = None) -> None:
        del retry_after_ms  # the server holds a host after a 429 or 503 itself
        self._leases.pop(lease, None)
        self.client.failed(url, reason or "failed", status=http_status, retryable=retryable,
                           kind=kind)
        self._stats = None

    # ---- state

    def stats(self) -> RemoteStats:
        now = time.monotonic()
        if self._stats is None or now - self._stats_at > _STATS_FOR_S:
            counts = self.client.stats()
            s = RemoteStats(**{name: counts.get(name, 0) for name in (
                "queued", "retrying", "in_flight", "crawled", "failed", "filtered",
                "out_of_scope", "removed")})
            # Nothing left, or every node done (its max_pages reached with pages queued).
            nodes = counts.get("nodes", 0)
            s.finished = counts.get("size", 0) == 0 or (
                nodes > 0 and counts.get("finished", 0) == nodes)
            s.next_ready_ms = -1 if s.finished else int((time.time() + _POLL_S) * 1000)
            self._stats, self._stats_at = s, now
        return self._stats


def open_remote(settings: SchedulerSettings, spider: Any) -> RemoteCore:
    """Opens the frontier of ``CRAWLRANK_FRONTIER`` for `spider`: a crawlrank serve shared
    with other processes, whose PageDB, configuration and ranks are the server's
    (CRAWLRANK_PAGE_DB and the crawl options here are not used). Logs one line with what the
    frontier holds, and warns that a spider's ``allowed_domains`` cannot scope it."""
    core = RemoteCore(settings.frontier, token=settings.frontier_token,
                      lease_s=settings.lease_ms // 1000, tls_ca=settings.frontier_tls_ca,
                      discover_nodes=settings.frontier_discover)
    stats = core.stats()
    logger.info("crawlrank: frontier %s: %d pages crawled, %d queued, %d retrying",
                ",".join(core.client.nodes), stats.crawled, stats.queued, stats.retrying,
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
    return core
