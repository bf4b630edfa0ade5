"""What both front ends (crawlrank.scrapy, crawlrank.frontera) share, besides the reader of
their settings (crawlrank._settings): the stored configuration, the buffer of crawl reports,
the failure kind of a download error, the rank at close, why a crawl had nothing to do, and
the engine's wake-up call.

Neither Scrapy nor Frontera is imported here (Twisted only when a wake-up is set), and nothing
here imports a front end back: both front ends import this module, never each other.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Tuple

import crawlrank


def rank_at_close(scheduler: crawlrank.Scheduler,
                  db: crawlrank.PageDb) -> tuple[float, str]:
    """Ranks the crawl's graph once more and saves the ranks with the DB, as every front end
    does at a crawl's end (``PageDb.rank_crawl_end``, crawlrank/crawl_end.h): the score
    mode's own rank for a rank mode (nothing for an online mode, which has no rank), then
    the display rank (PageRank without template links, what ``PageDb.top`` and ``crawlrank
    top`` list by), with the GIL released, by `scheduler`'s options (every report it took
    is in the DB, which the ranks read). Returns the seconds both took and what was ranked,
    for a log line: "MODE and the display rank" for a score mode that ranks, else "the
    display rank". Raises crawlrank.Error when a rank fails."""
    seconds, mode_rank = db.rank_crawl_end(scheduler.options)
    score = scheduler.options.score
    return seconds, f"{score} and the display rank" if mode_rank else "the display rank"


def nothing_to_crawl(stats: crawlrank.SchedulerStats) -> str:
    """Why a crawl with these stats had no page to hand out, in a few words for a log line:
    the PageDB is empty, every page is crawled (or failed for good), pages are out of scope
    or filtered, or max_pages is reached with pages still queued."""
    if not (stats.crawled or stats.queued or stats.retrying or stats.in_flight
            or stats.failed or stats.filtered or stats.out_of_scope or stats.removed):
        return "it is empty (no seeds)"
    parts = []
    if stats.limit_reached:
        parts.append(f"max_pages is reached, with {stats.queued + stats.retrying} pages "
                     "still queued")
    elif stats.queued or stats.retrying:
        parts.append(f"{stats.queued + stats.retrying} pages wait for their turn")
    elif stats.in_flight:
        parts.append(f"{stats.in_flight} pages are leased by another run (they come back "
                     "when their lease expires)")
    elif stats.crawled or stats.failed:
        parts.append((f"all {stats.crawled} pages are crawled" if stats.crawled != 1
                      else "its 1 page is crawled")
                     + (f", {stats.failed} failed for good" if stats.failed else ""))
    if stats.out_of_scope:
        parts.append(f"{stats.out_of_scope} out of scope")
    if stats.filtered:
        parts.append(f"{stats.filtered} filtered by depth or pattern")
    if stats.removed:
        parts.append(f"{stats.removed} removed")
    return "; ".join(parts)


# The failure kind (crawlrank.FAILURE_KINDS) of a download error, by the class name of the
# exception Scrapy or Twisted raised; any other is filed by its HTTP status, or as "other".
_KIND_OF_ERROR = {
    "TimeoutError": "timeout",
    "TCPTimedOutError": "timeout",
    "UserTimeoutError": "timeout",
    "DNSLookupError": "dns",
    "ConnectionRefusedError": "connect",
    "ConnectError": "connect",
    "NoRouteError": "connect",
    "ConnectionLost": "connection",
    "ConnectionDone": "connection",
    "ConnectionAborted": "connection",
    "ResponseFailed": "connection",
    "ResponseNeverReceived": "connection",
    "PotentialDataLoss": "connection",
    "SSLError": "tls",
    "CertificateError": "tls",
}


def failure_kind(error_name: str) -> Optional[str]:
    """The failure kind of a download error named by its exception class, or None."""
    return _KIND_OF_ERROR.get(error_name)


# The SchedulerOptions fields a crawl keeps in its PageDB, by the key each is stored under
# (crawlrank/crawl_config.h; docs/crawler.md, "Stored configuration", has the table).
CONFIG_KEYS = {
    "score": "score", "host_key": "host_key", "scope": "scope", "scope_hosts": "scope_hosts",
    "allow": "allow", "deny": "deny", "max_pages": "max_pages",
    "max_depth": "max_depth", "max_pages_per_host": "max_pages_per_host",
    "delay_ms": "delay_ms", "per_host": "per_host", "retry_ms": "retry_ms",
    "max_retries": "max_retries", "revisits": "revisit_ms", "min_revisit_ms": "revisit_ms",
    "rank_template_links": "template_links",
    # The names four fields had before issue #42 (still accepted, with a warning).
    "min_delay_ms": "delay_ms", "max_in_flight_per_host": "per_host",
    "allow_patterns": "allow", "deny_patterns": "deny",
}


def resolve_config(db: crawlrank.PageDb, options: crawlrank.SchedulerOptions,
                   given: Iterable[str], log: Any) -> crawlrank.SchedulerOptions:
    """Applies the configuration stored in `db` to `options` (in place), with the fields
    named in `given` (set by the user this run: a setting above default priority, or in
    CRAWLRANK_OPTIONS) over it, and stores the result, as ``crawlrank crawl`` does. Calls
    `log` (a logging method) with one line when a stored configuration was resumed or
    changed. A stored value crawlrank cannot read raises crawlrank.InvalidArgumentError."""
    mine = crawlrank.scheduler_config(options)
    keys = {CONFIG_KEYS[field] for field in given if field in CONFIG_KEYS}
    merged, line, _ = db.resolve_config({k: mine[k] for k in keys},
                                        hint="settings given this run override it")
    crawlrank.apply_config(merged, options)
    db.write_config(crawlrank.merge_config(merged, crawlrank.scheduler_config(options))[0])
    if line:
        log("crawlrank: %s", line)
    return options


# A report waiting for its batch: (page, lease, extras), as Scheduler.crawled_batch takes it.
Report = Tuple[crawlrank.CrawledPage, int, List[crawlrank.QueuedExtra]]


class ReportBuffer:
    """Crawl reports and seeds on their way to a crawlrank.Scheduler, written by
    :meth:`flush` in one transaction each.

    A front end adds what its engine reports between two requests for work and flushes
    when the engine next asks (and before a failure is reported, since the failed page may
    be one a buffered report creates). ``full`` turns true at `limit` reports: a bound on
    memory, not a batch size. Not thread-safe: one front end, on the engine's thread.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._reports: List[Report] = []
        self._seeds: List[crawlrank.QueuedExtra] = []

    def __bool__(self) -> bool:
        """True while anything waits to be written."""
        return bool(self._reports or self._seeds)

    @property
    def full(self) -> bool:
        return len(self._reports) >= self.limit

    @property
    def seed_count(self) -> int:
        """Seeds waiting to be written (they count as queued pages)."""
        return len(self._seeds)

    def add_report(self, page: crawlrank.CrawledPage, lease: int,
                   extras: Optional[List[crawlrank.QueuedExtra]] = None) -> None:
        """Adds a crawled page with the lease it was handed out under (0: none) and the
        payloads of the links it queues; Scheduler.crawled_batch copies it once."""
        self._reports.append((page, lease, extras if extras is not None else []))

    def add_seeds(self, extras: Iterable[crawlrank.QueuedExtra]) -> None:
        """Adds pages to queue at depth 0."""
        self._seeds.extend(extras)

    def flush(self, scheduler: crawlrank.Scheduler) -> List[crawlrank.Error]:
        """Writes the seeds, then the reports, each in one transaction, and empties the
        buffer. Seeds go first: a report may link to a buffered seed, which must be queued
        with its payload before the link creates its page without one. A write that raises
        (a full disk) leaves what it did not write in the buffer, to be written at the next
        flush: nothing fetched is lost while the process lives, and a transaction that
        failed wrote nothing, so writing it again records each page once.

        One report crawlrank refuses (InvalidArgumentError: a URL it cannot parse) would
        fail the whole transaction: the reports are then written one by one, and the errors
        of those refused are returned for the front end to log."""
        refused: List[crawlrank.Error] = []
        if self._seeds:
            scheduler.add_seeds(self._seeds)
            self._seeds = []
        if not self._reports:
            return refused
        try:
            scheduler.crawled_batch(self._reports)
            self._reports = []
            return refused
        except crawlrank.InvalidArgumentError:
            pass
        written = 0
        try:
            for page, lease, extras in self._reports:
                try:
                    scheduler.crawled(page, lease, extras)
                except crawlrank.InvalidArgumentError as error:
                    refused.append(error)
                written += 1
        finally:
            del self._reports[:written]
        return refused


class EngineWakeup:
    """Asks Scrapy's engine to call its scheduler again at a given time. Without it, a
    crawl whose hosts are all waiting for their delay would wait for the engine's 5-second
    heartbeat (or, through Frontera, for DELAY_ON_EMPTY). One call is pending at a time; an
    earlier time replaces a later one."""

    MIN_DELAY_S = 0.01  # never a tight loop, even for a time already past

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self._call: Any = None

    def at(self, unix_s: float) -> None:
        from twisted.internet import reactor

        delay = max(self.MIN_DELAY_S, unix_s - reactor.seconds())
        if self._call is not None and self._call.active():
            if self._call.getTime() - reactor.seconds() <= delay:
                return
            self._call.cancel()
        self._call = reactor.callLater(delay, self._wake)

    def cancel(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()

    def _wake(self) -> None:
        slot = getattr(self.crawler.engine, "slot", None)
        if slot is not None:
            slot.nextcall.schedule()
