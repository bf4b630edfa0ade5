"""crawlrank as a Frontera 0.8 backend, in spider mode (``LOCAL_MODE = False``)."""

from __future__ import annotations

import dataclasses
import logging
import shutil
import tempfile
import time
import warnings
from collections import deque
from typing import Any, Deque, Dict, Iterable, List, Optional, Set, Union

from frontera.core import get_slot_key
from frontera.core.components import Backend as _FronteraBackend
from frontera.core.manager import LocalFrontierManager, SpiderFrontierManager
from frontera.core.models import Request as FrontierRequest

import crawlrank
from crawlrank._frontend import nothing_to_crawl, rank_at_close, resolve_config
from crawlrank._settings import (
    COMMON_SETTINGS,
    OPTIONS_SETTING,
    OptionsError,
    SettingTable,
    as_is,
    flag,
    integer,
    number,
    options_dict,
    path,
    rate_as_ms,
    read_table,
    seconds_as_ms,
    table_options,
)
from crawlrank.frontera._reports import LEASE_KEY, PageReports

logger = logging.getLogger(__name__)

# Aduana's scorer names -> (score mode, score mode with USE_SCORES).
ADUANA_SCORERS = {
    "PageRankScorer": ("pagerank", "ppr"),
    "HitsScorer": ("hits", "topic-hits"),
}

# The name CRAWLRANK_OPTIONS had here before crawlrank.scrapy and this backend shared it.
DEPRECATED_OPTIONS_SETTING = "CRAWLRANK_SCHEDULER_OPTIONS"


class SettingsError(ValueError):
    """A Frontera setting crawlrank.frontera cannot use; the message names the setting."""


# The settings that give each SchedulerOptions field: Aduana's, and Scrapy's politeness
# through Frontera's ScrapySettingsAdapter (docs/python.md, "Frontera backend").
_OPTION_SETTINGS: SettingTable = {
    "score": (("SCORER", as_is),),  # an Aduana scorer's name, or a score mode: _score_mode
    "delay_ms": (("SOFT_CRAWL_LIMIT", rate_as_ms), ("DOWNLOAD_DELAY", seconds_as_ms())),
    "per_host": (("CONCURRENT_REQUESTS_PER_DOMAIN", integer(1)),),
    "busy_delay_ms": (("HARD_CRAWL_LIMIT", rate_as_ms),),
    "max_depth": (("MAX_CRAWL_DEPTH", integer(0)),),
    "rerank_interval_ms": (("SCORE_UPDATE_INTERVAL", seconds_as_ms(positive=True)),),
    "rank_damping": (("PAGE_RANK_DAMPING", number(0.0, inclusive=False, below=1.0)),),
}


def _page_db_path(value: Any, setting: str) -> str:
    """PAGE_DB_PATH: a directory path, not empty (unset means a temporary PageDB)."""
    out = path(value, setting)
    if not out:
        raise OptionsError(f"{setting}: empty path (leave it unset for a temporary PageDB)")
    return out


# The settings of the backend's own fields read the same way.
_OWN_SETTINGS: SettingTable = {"page_db": (("PAGE_DB_PATH", _page_db_path),), **COMMON_SETTINGS}


@dataclasses.dataclass
class BackendSettings:
    """The backend's settings, read from Frontera's (``BackendSettings.from_settings``).

    ``None`` keeps crawlrank's default (``crawlrank.SchedulerOptions``). ``docs/python.md``
    ("Frontera backend") has the table of setting names.
    """

    page_db: Optional[str] = None  # PAGE_DB_PATH; None: a temporary PageDB, deleted at stop
    score: Optional[str] = None  # SCORER (+ USE_SCORES)
    delay_ms: Optional[int] = None  # SOFT_CRAWL_LIMIT, else DOWNLOAD_DELAY
    per_host: Optional[int] = None  # CONCURRENT_REQUESTS_PER_DOMAIN
    busy_delay_ms: Optional[int] = None  # HARD_CRAWL_LIMIT
    max_depth: Optional[int] = None  # MAX_CRAWL_DEPTH
    rerank_interval_ms: Optional[int] = None  # SCORE_UPDATE_INTERVAL
    rank_damping: Optional[float] = None  # PAGE_RANK_DAMPING
    url_profile: str = "w3lib"  # CRAWLRANK_URL_PROFILE (a new DB only)
    durability: str = "periodic"  # CRAWLRANK_DURABILITY
    rank_at_close: bool = True  # CRAWLRANK_RANK_AT_CLOSE
    options: Dict[str, Any] = dataclasses.field(default_factory=dict)  # CRAWLRANK_OPTIONS

    @classmethod
    def from_settings(cls, settings: Any) -> "BackendSettings":
        """From anything with ``get(name)``: Frontera's Settings, or Scrapy's through
        Frontera's ScrapySettingsAdapter (then Scrapy's DOWNLOAD_DELAY and
        CONCURRENT_REQUESTS_PER_DOMAIN apply too). SettingsError, naming the setting, for a
        value crawlrank cannot use."""
        get = settings.get
        setting = _options_setting(get)
        try:
            values = read_table({**_OPTION_SETTINGS, **_OWN_SETTINGS}, get)
            use_scores = flag(get("USE_SCORES") or False, "USE_SCORES")
            values["score"] = _score_mode(values.get("score"), use_scores)
            out = cls(options=options_dict(get(setting), setting), **values)
        except OptionsError as error:
            raise SettingsError(str(error)) from None
        out._scheduler_options(setting)  # every error now, with the setting's name
        return out

    def given(self) -> Set[str]:
        """The SchedulerOptions fields these settings set, or CRAWLRANK_OPTIONS does (a
        setting counts when it is set at all); the others resume the configuration stored in
        the PageDB."""
        return ({field for field in _OPTION_SETTINGS if getattr(self, field) is not None}
                | set(self.options))

    def scheduler_options(self) -> crawlrank.SchedulerOptions:
        """The settings above, with CRAWLRANK_OPTIONS over them (SettingsError, naming the
        setting, for a value crawlrank cannot use)."""
        return self._scheduler_options(OPTIONS_SETTING)

    def _scheduler_options(self, setting: str) -> crawlrank.SchedulerOptions:
        """The same, naming `setting` (the options' setting, maybe the deprecated one)."""
        try:
            return table_options(_OPTION_SETTINGS,
                                 {field: getattr(self, field) for field in _OPTION_SETTINGS},
                                 self.options, setting=setting)
        except OptionsError as error:
            raise SettingsError(str(error)) from None


class _Held:
    """A request handed out by crawlrank while its host was overused in Scrapy."""

    __slots__ = ("request", "key", "deadline")

    def __init__(self, request: FrontierRequest, key: str, deadline: float) -> None:
        self.request = request
        self.key = key
        self.deadline = deadline


class Backend(_FronteraBackend):
    """A Frontera 0.8 backend over crawlrank's PageDB and best-first, polite scheduler.

    ``BACKEND = 'crawlrank.frontera.Backend'`` with ``LOCAL_MODE = False`` (spider mode:
    local mode is refused, see :func:`check_spider_mode`). Settings: ``docs/python.md``.

    * ``page_crawled(response)`` is kept until its ``links_extracted(request, links)``,
      which comes right after it; the two make one crawled page (the response's status,
      the links' URLs with their ``scrapy_meta['score']``, the page's own
      ``scrapy_meta['score']`` as its content score). A 429 or 5xx is a failure instead.
      Reports are written in one transaction at the next ``get_next_requests`` (or
      ``finished``, or stop).
    * ``get_next_requests`` hands out the best pages whose host allows one now, each a
      bare ``Request(url)`` with its lease in ``meta[b'crawlrank_lease']`` (the spider's
      ``parse`` is the callback). Pages of the ``overused_keys`` hosts are held here and
      handed out first in a later call, once their host is no longer overused; a request
      held for half its lease is let go (crawlrank hands the page out again when the
      lease expires).
    * ``request_error`` is a retryable failure (``IgnoreRequest``: failed for good).
    * Redirects: ``redirected()`` records a redirecting page (its status and one link to
      the target), as crawlrank's ``FronteraScheduler`` reports them. A response reached
      through redirects Scrapy followed itself (Frontera's own scheduler) records each hop
      the same way and the final page under its own URL.
    * ``finished()`` is true when nothing is buffered or held here and crawlrank has
      nothing queued, retrying or in flight.
    """

    component_name = "crawlrank Backend"

    def __init__(self, manager: Any = None, settings: Optional[BackendSettings] = None) -> None:
        self.manager = manager
        self.settings = settings or BackendSettings()
        self._request_model = getattr(manager, "request_model", None) or FrontierRequest
        options = self.settings.scheduler_options()
        self._hold_s = options.lease_ms / 2000.0
        self._temp_dir: Optional[str] = None
        path = self.settings.page_db
        if path is None:
            path = self._temp_dir = tempfile.mkdtemp(prefix="crawlrank-frontera-")
            logger.warning("crawlrank.frontera: no PAGE_DB_PATH: the crawl's PageDB is %s, a "
                           "temporary directory deleted when the frontier stops", path)
        self.path = path
        self.db: Optional[crawlrank.PageDb] = None
        self.scheduler: Optional[crawlrank.Scheduler] = None
        try:
            self.db = crawlrank.PageDb(path, url_profile=self.settings.url_profile,
                                       durability=self.settings.durability)
            resolve_config(self.db, options, self.settings.given(), logger.info)
            self.scheduler = crawlrank.Scheduler(self.db, options)
        except BaseException:
            self._close()
            raise
        self._reports = PageReports(self.scheduler, self.settings.url_profile)
        self._held: Deque[_Held] = deque()
        self._stopped = False
        self._handed_out = 0  # requests get_next_requests returned, this run
        stats = self.scheduler.stats()
        logger.info("crawlrank.frontera: PageDB %s (score %s): %d pages crawled, %d queued, "
                    "%d retrying", path, options.score, stats.crawled, stats.queued,
                    stats.retrying)

    @classmethod
    def from_manager(cls, manager: Any) -> "Backend":
        check_spider_mode(manager)
        return cls(manager, BackendSettings.from_settings(manager.settings))

    # ---- Frontera's properties: none of them in spider mode

    @property
    def queue(self) -> None:
        return None

    @property
    def metadata(self) -> None:
        return None

    @property
    def states(self) -> None:
        return None

    @property
    def domain_metadata(self) -> None:
        return None

    # ---- life cycle

    def frontier_start(self) -> None:
        pass  # the PageDB opened in from_manager, so that a wrong setting fails at once

    def frontier_stop(self) -> None:
        """Writes what is buffered and closes the PageDB; later calls do nothing. Held
        requests keep their leases: the next crawl of the DB queues them again."""
        if self._stopped:
            return
        self._stopped = True
        try:
            self._reports.flush()
            self.scheduler.record_progress()  # the crawl's last progress sample: its end
            self._rank_at_close()
            stats = self.scheduler.stats()
            logger.info("crawlrank.frontera: closing PageDB %s: %d pages crawled, %d queued, "
                        "%d failed", self.path, stats.crawled, stats.queued, stats.failed)
            if not self._handed_out and not self._held:
                self._log_nothing_to_crawl(stats)
        finally:
            self._held.clear()
            self._close()

    def _log_nothing_to_crawl(self, stats: crawlrank.SchedulerStats) -> None:
        """A crawl that handed out nothing says why: a warning for an empty PageDB (it was
        never seeded), one INFO line otherwise."""
        why = nothing_to_crawl(stats)
        if stats.crawled or stats.queued or stats.retrying or stats.in_flight or \
                stats.failed or stats.filtered or stats.out_of_scope:
            logger.info("crawlrank.frontera: the PageDB %s has no page to crawl: %s", self.path,
                        why)
            return
        logger.warning("crawlrank.frontera: the PageDB %s is empty: nothing to crawl. Seed it "
                       "(python3 -m crawlrank.frontera.add_seeds --db %s --seeds-file FILE), "
                       "or give the spider start URLs", self.path, self.path)

    def _rank_at_close(self) -> None:
        """Ranks the graph once more (CRAWLRANK_RANK_AT_CLOSE); not for a temporary PageDB,
        deleted at once."""
        if not self.settings.rank_at_close or self._temp_dir is not None:
            return
        try:
            seconds, ranked = rank_at_close(self.scheduler, self.db)
        except crawlrank.Error as error:
            logger.warning("crawlrank.frontera: rank at close failed: %s", error)
            return
        logger.info("crawlrank.frontera: ranked (%s) at close in %.3f s", ranked, seconds)

    @property
    def stopped(self) -> bool:
        return self._stopped

    # ---- what Frontera calls

    def add_seeds(self, seeds: Iterable[Union[FrontierRequest, str]]) -> None:
        """Queues pages at depth 0 (Frontera 0.8 never calls it: seeding scripts do)."""
        self.seed(seeds)

    def seed(self, seeds: Iterable[Union[FrontierRequest, str]]) -> int:
        """add_seeds, returning how many seeds are new pages (crawlrank's FronteraScheduler
        seeds the spider's start requests with it). A URL crawlrank cannot parse is not."""
        urls = [seed if isinstance(seed, str) else seed.url for seed in seeds]
        scheduler = self._open()
        self._reports.flush()  # a buffered report may create one of them
        new = []
        for url in urls:
            try:
                if url not in self.db:
                    new.append(url)
            except crawlrank.InvalidArgumentError:
                pass
        scheduler.add_seeds(new)
        return len(new)

    def page_crawled(self, response: Any) -> None:
        self._open()
        self._reports.page_crawled(response)

    def links_extracted(self, request: FrontierRequest,
                        links: Iterable[FrontierRequest] = ()) -> None:
        self._open()
        self._reports.links_extracted(request, links)

    def request_error(self, request: FrontierRequest, error: str = "") -> None:
        self._open()
        self._reports.request_error(request, error)

    def get_next_requests(self, max_n_requests: int, **kwargs: Any) -> List[FrontierRequest]:
        """Up to max_n_requests requests; ``overused_keys`` (Scrapy's download slots, host
        names or IPs by ``key_type``) are held back for a later call."""
        scheduler = self._open()
        self._reports.flush()
        overused = set(kwargs.get("overused_keys") or ())
        key_type = kwargs.get("key_type") or "domain"
        now = time.monotonic()
        out: List[FrontierRequest] = []
        if self._held:
            kept: Deque[_Held] = deque()
            for held in self._held:
                if held.deadline < now:
                    logger.debug("crawlrank.frontera: %s held too long: its lease will expire "
                                 "and crawlrank queue it again", held.request.url)
                elif len(out) < max_n_requests and held.key not in overused:
                    out.append(held.request)
                else:
                    kept.append(held)
            self._held = kept
        while len(out) < max_n_requests:
            batch = scheduler.next(max_n_requests - len(out))
            if not batch:
                break
            self._handed_out += len(batch)
            for r in batch:
                request = self._request_model(r.url, meta={
                    b"scrapy_meta": {}, LEASE_KEY: r.lease, b"score": r.score})
                if overused:
                    key = get_slot_key(request, key_type)
                    if key in overused:
                        self._held.append(_Held(request, key, now + self._hold_s))
                        continue
                out.append(request)
        return out

    def finished(self) -> bool:
        if self._stopped:
            return True
        self._reports.flush()
        return not self._held and self._open().stats().finished

    # ---- for crawlrank.frontera.FronteraScheduler

    def redirected(self, request: FrontierRequest, target: str, status: int) -> bool:
        """Records `request`'s page as a redirect (`status`, one link to `target`) and ends
        its lease; the target is then queued like any new page. False, recording nothing,
        when the target is the same page (canonically): let Scrapy fetch it."""
        self._open()
        return self._reports.redirected(request, target, status)

    def has_news(self) -> bool:
        """True when a call to get_next_requests may have something new to hand out:
        reports not yet written (their links), or held requests."""
        return bool(self._reports or self._held)

    def next_ready_time(self) -> Optional[float]:
        """When crawlrank may next hand out a page (Unix seconds), None when nothing is
        queued; from stats().next_ready_ms."""
        if self._stopped:
            return None
        ready_ms = self._open().stats().next_ready_ms
        return ready_ms / 1000.0 if ready_ms >= 0 else None

    def stats(self) -> crawlrank.SchedulerStats:
        self._reports.flush()
        return self._open().stats()

    # ---- inside

    def _open(self) -> crawlrank.Scheduler:
        if self._stopped or self.scheduler is None:
            raise crawlrank.FailedPreconditionError(
                f"crawlrank.frontera.Backend of {self.path} is stopped")
        return self.scheduler

    def _close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.close()
        if self.db is not None:
            self.db.close()
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None


def check_spider_mode(manager: Any) -> None:
    """Refuses Frontera's local mode (SettingsError naming LOCAL_MODE).

    In local mode (``LOCAL_MODE = True``, Frontera's default) a crawling strategy drives
    the backend's ``queue`` and ``states`` one request at a time and the backend never
    sees which page links to which, so crawlrank could neither rank nor schedule by
    its own rules. Frontera builds a LocalFrontierManager when LOCAL_MODE is True (and
    ``frontera.utils.add_seeds`` always does)."""
    local = isinstance(manager, LocalFrontierManager) or (
        manager.settings.get("LOCAL_MODE") is True
        and not isinstance(manager, SpiderFrontierManager))
    if local:
        raise SettingsError(
            "crawlrank.frontera.Backend works in Frontera's spider mode only: set "
            "LOCAL_MODE = False in the Frontera settings (LOCAL_MODE = True, Frontera's "
            "default, hands the crawl to a crawling strategy that hides the link graph "
            "from the backend). To seed, use python3 -m crawlrank.frontera.add_seeds, not "
            "frontera.utils.add_seeds (which always runs in local mode).")


# ---- helpers


def _options_setting(get: Any) -> str:
    """The name of the setting that holds the scheduler options: CRAWLRANK_OPTIONS, or
    the deprecated CRAWLRANK_SCHEDULER_OPTIONS when only that one is set. Setting the old
    name warns (DeprecationWarning, and in the log), and says which one wins when both are
    set."""
    if get(DEPRECATED_OPTIONS_SETTING) is None:
        return OPTIONS_SETTING
    if get(OPTIONS_SETTING) is None:
        _deprecated(f"{DEPRECATED_OPTIONS_SETTING} is deprecated: rename it "
                    f"{OPTIONS_SETTING} (the same dict of crawlrank.SchedulerOptions "
                    "fields, the setting crawlrank.scrapy reads too)")
        return DEPRECATED_OPTIONS_SETTING
    _deprecated(f"{DEPRECATED_OPTIONS_SETTING} is deprecated and ignored here: "
                f"{OPTIONS_SETTING} is set too, and wins; remove {DEPRECATED_OPTIONS_SETTING}")
    return OPTIONS_SETTING


def _deprecated(message: str) -> None:
    """A DeprecationWarning for code that checks for them, and the same in the log, which
    a crawl's user reads (Python hides DeprecationWarning outside __main__ by default)."""
    warnings.warn(message, DeprecationWarning, stacklevel=4)
    logger.warning(message)


def _score_mode(scorer: Any, use_scores: bool) -> Optional[str]:
    """The score mode SCORER names (with USE_SCORES): one of Aduana's scorers, or a crawlrank
    score mode; None keeps crawlrank's default. OptionsError naming SCORER for another."""
    if scorer is None:
        return "link-score" if use_scores else None
    if not isinstance(scorer, str):
        raise OptionsError(f"SCORER={scorer!r}: expected a name, one of "
                           f"{', '.join(ADUANA_SCORERS)} or a crawlrank score mode")
    if scorer in ADUANA_SCORERS:
        return ADUANA_SCORERS[scorer][1 if use_scores else 0]
    try:
        crawlrank.SchedulerOptions().score = scorer  # the names crawlrank knows
    except crawlrank.InvalidArgumentError as error:
        raise OptionsError(f"SCORER={scorer!r}: expected one of {', '.join(ADUANA_SCORERS)} "
                           f"or a crawlrank score mode ({error})") from None
    return scorer
