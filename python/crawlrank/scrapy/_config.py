"""The Scrapy scheduler's settings: its table of ``CRAWLRANK_*`` settings, with Scrapy's own
as their defaults, read through the reader both front ends share (crawlrank._settings)."""

from __future__ import annotations

import dataclasses
import difflib
import logging
import os
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy.utils.job import job_dir
from scrapy.utils.misc import create_instance, load_object

import crawlrank
from crawlrank._settings import (
    COMMON_SETTINGS,
    OPTIONS_SETTING,
    OptionsError,
    SettingTable,
    as_is,
    given_fields,
    integer,
    options_dict,
    path,
    read_table,
    seconds_as_ms,
    table_options,
)

logger = logging.getLogger("crawlrank.scrapy.scheduler")

# The settings that give each SchedulerOptions field, a CRAWLRANK_* one first and Scrapy's
# own, when there is one, as its default (docs/python.md, "Settings").
_OPTION_SETTINGS: SettingTable = {
    "score": (("CRAWLRANK_SCORE", as_is),),
    "delay_ms": (("CRAWLRANK_DELAY_MS", integer(0)), ("DOWNLOAD_DELAY", seconds_as_ms())),
    "per_host": (("CRAWLRANK_PER_HOST", integer(1)),
                 ("CONCURRENT_REQUESTS_PER_DOMAIN", integer(1))),
    "host_key": (("CRAWLRANK_HOST_KEY", as_is),),
    "max_depth": (("CRAWLRANK_MAX_DEPTH", integer(0)), ("DEPTH_LIMIT", integer(0))),
    "max_pages": (("CRAWLRANK_MAX_PAGES", integer(0)),),
    "max_retries": (("CRAWLRANK_MAX_RETRIES", integer(0)),),
    "lease_ms": (("CRAWLRANK_LEASE_MS", integer(1)),),
}

# The settings of the scheduler's own fields read the same way.
_OWN_SETTINGS: SettingTable = {
    "page_db": (("CRAWLRANK_PAGE_DB", path),),
    "batch": (("CRAWLRANK_BATCH", integer(1)), ("CONCURRENT_REQUESTS", integer(1))),
    **COMMON_SETTINGS,
}

# The PageDB's name under JOBDIR when CRAWLRANK_PAGE_DB is not set.
JOBDIR_PAGE_DB = "crawlrank.db"

# Every CRAWLRANK_* setting crawlrank.scrapy reads (the scheduler's, and KeywordScorer's
# CRAWLRANK_KEYWORDS): any other is taken for a misspelling.
KNOWN_SETTINGS = frozenset({
    name for table in (_OPTION_SETTINGS, _OWN_SETTINGS) for sources in table.values()
    for name, _ in sources if name.startswith("CRAWLRANK_")
} | {
    "CRAWLRANK_FRONTIER", "CRAWLRANK_FRONTIER_TOKEN", "CRAWLRANK_FRONTIER_TLS_CA",
    "CRAWLRANK_FRONTIER_DISCOVER", "CRAWLRANK_SCORER", "CRAWLRANK_CONTENT_SCORER", "CRAWLRANK_LINK_SCORER", OPTIONS_SETTING,
    "CRAWLRANK_KEYWORDS",
})


@dataclasses.dataclass
class SchedulerSettings:
    """The ``CRAWLRANK_*`` settings, with Scrapy's own settings as their defaults.

    ``page_db``: the PageDB directory (``CRAWLRANK_PAGE_DB``; default ``JOBDIR/crawlrank.db``
    when Scrapy's ``JOBDIR`` is set, else ``<spider>.crawlrank`` in the working directory).
    It is the crawl's whole state: run the spider again with the same directory and the
    crawl goes on (no JOBDIR needed).

    A ``CRAWLRANK_*`` setting that is none of these (a misspelling) is logged as a warning
    naming the closest real one.
    """

    page_db: Optional[str] = None
    # CRAWLRANK_FRONTIER: "host:port" of a crawlrank serve that this process shares with
    # others (remote mode: crawlrank/scrapy/remote.py), or "h1:p1,h2:p2,..." every node of a
    # cluster (docs/cluster.md); None: a PageDB of its own.
    frontier: Optional[str] = None
    # CRAWLRANK_FRONTIER_DISCOVER: CRAWLRANK_FRONTIER names one node; crawl every node of
    # its cluster (ListNodes).
    frontier_discover: bool = False
    frontier_token: Optional[str] = None  # CRAWLRANK_FRONTIER_TOKEN
    frontier_tls_ca: Optional[str] = None  # CRAWLRANK_FRONTIER_TLS_CA: the server's CA (PEM)
    score: str = "blend"  # CRAWLRANK_SCORE: a score mode of crawlrank.SchedulerOptions
    url_profile: str = "w3lib"  # CRAWLRANK_URL_PROFILE, for a new DB: Scrapy's fingerprints
    delay_ms: int = 0  # CRAWLRANK_DELAY_MS; default DOWNLOAD_DELAY
    per_host: int = 8  # CRAWLRANK_PER_HOST; default CONCURRENT_REQUESTS_PER_DOMAIN
    host_key: str = "host"  # CRAWLRANK_HOST_KEY: "host" or "domain"
    max_depth: int = 0  # CRAWLRANK_MAX_DEPTH; default DEPTH_LIMIT
    max_pages: int = 0  # CRAWLRANK_MAX_PAGES: pages handed out in all (0: no limit)
    max_retries: int = 0  # CRAWLRANK_MAX_RETRIES: later retries of 429/5xx, after Scrapy's
    lease_ms: int = 600_000  # CRAWLRANK_LEASE_MS
    batch: int = 16  # CRAWLRANK_BATCH: requests taken per call; default CONCURRENT_REQUESTS
    durability: str = "periodic"  # CRAWLRANK_DURABILITY: "sync", "periodic" or "none"
    rank_at_close: bool = True  # CRAWLRANK_RANK_AT_CLOSE: rank once more when the spider closes
    content_scorer: Optional[Callable[[Response], float]] = None  # CRAWLRANK_CONTENT_SCORER
    link_scorer: Optional[Callable[[Response, Request], float]] = None  # CRAWLRANK_LINK_SCORER
    options: Dict[str, Any] = dataclasses.field(default_factory=dict)  # CRAWLRANK_OPTIONS
    # The SchedulerOptions fields set above default priority (or in CRAWLRANK_OPTIONS):
    # they override the configuration stored in the PageDB; the others resume it.
    given: Set[str] = dataclasses.field(default_factory=set)
    debug_duplicates: bool = False  # DUPEFILTER_DEBUG: log every duplicate, not the first

    @classmethod
    def from_settings(cls, settings: BaseSettings,
                      crawler: Optional[Crawler] = None) -> "SchedulerSettings":
        """From Scrapy's settings; NotConfigured, naming the setting, for a value crawlrank
        cannot use."""
        content_scorer, link_scorer = _scorers(settings, crawler)
        warn_unknown_settings(settings)
        try:
            values = read_table({**_OPTION_SETTINGS, **_OWN_SETTINGS}, settings.get)
            options = options_dict(settings.get(OPTIONS_SETTING))
        except OptionsError as error:
            raise NotConfigured(str(error)) from None
        if not values.get("page_db") and settings.get("JOBDIR"):
            values["page_db"] = os.path.join(job_dir(settings), JOBDIR_PAGE_DB)
        given = given_fields(_OPTION_SETTINGS,
                             lambda name: (settings.getpriority(name) or 0) > 0)
        return cls(
            frontier=settings.get("CRAWLRANK_FRONTIER") or None,
            frontier_token=settings.get("CRAWLRANK_FRONTIER_TOKEN") or None,
            frontier_tls_ca=settings.get("CRAWLRANK_FRONTIER_TLS_CA") or None,
            frontier_discover=settings.getbool("CRAWLRANK_FRONTIER_DISCOVER"),
            content_scorer=content_scorer,
            link_scorer=link_scorer,
            options=options,
            given=given | set(options),
            debug_duplicates=settings.getbool("DUPEFILTER_DEBUG"),
            **values,
        )

    def scheduler_options(self) -> crawlrank.SchedulerOptions:
        """The CRAWLRANK_* settings above, with CRAWLRANK_OPTIONS over them (NotConfigured,
        naming the setting or the option, for a value crawlrank cannot use)."""
        try:
            return table_options(_OPTION_SETTINGS,
                                 {field: getattr(self, field) for field in _OPTION_SETTINGS},
                                 self.options)
        except OptionsError as error:
            raise NotConfigured(str(error)) from None


def _scorers(settings: BaseSettings, crawler: Optional[Crawler]
             ) -> Tuple[Optional[Callable[[Response], float]],
                        Optional[Callable[[Response, Request], float]]]:
    """The content scorer and the link scorer the settings name (each None when none does).

    CRAWLRANK_SCORER: an object (or a class built with from_crawler) with
    content_score(response) and link_score(response, request), e.g.
    crawlrank.scrapy.scoring.KeywordScorer; CRAWLRANK_CONTENT_SCORER and CRAWLRANK_LINK_SCORER
    (a callable or its dotted path) override its parts."""
    both = settings.get("CRAWLRANK_SCORER")
    if both is not None:
        both = load_object(both) if isinstance(both, str) else both
        if isinstance(both, type):
            both = create_instance(both, settings, crawler)

    def scorer(name: str, part: str):
        value = settings.get(name)
        if value is None:
            return getattr(both, part, None)
        if callable(value):
            return value
        loaded = load_object(value)
        if not callable(loaded):
            raise NotConfigured(f"{name}={value!r}: not a callable")
        return loaded

    return (scorer("CRAWLRANK_CONTENT_SCORER", "content_score"),
            scorer("CRAWLRANK_LINK_SCORER", "link_score"))


def warn_unknown_settings(settings: BaseSettings) -> List[str]:
    """Logs a warning for each CRAWLRANK_* setting crawlrank.scrapy does not read, naming
    the closest one it does (difflib); returns the warnings."""
    out = []
    for name in sorted(str(n) for n in settings if str(n).startswith("CRAWLRANK_")):
        if name in KNOWN_SETTINGS:
            continue
        # Compared without the prefix that every name shares, which would make any two close.
        prefix = len("CRAWLRANK_")
        close = difflib.get_close_matches(name[prefix:], [k[prefix:] for k in KNOWN_SETTINGS],
                                          n=1, cutoff=0.6)
        hint = (f": did you mean CRAWLRANK_{close[0]}?" if close
                else " (docs/python.md lists them)")
        out.append(f"crawlrank: {name} is not a setting of crawlrank.scrapy and is "
                   f"ignored{hint}")
        logger.warning(out[-1])
    return out
