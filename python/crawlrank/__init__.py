"""crawlrank: what a web crawler fetches next.

The C++ core (``crawlrank._core``) is re-exported here:

* :class:`PageDb` -- a crawl's page database (LMDB): pages, crawl metadata, links;
  :class:`Snapshot` read views; :class:`PageRecord`; :class:`CrawledPage`.
* :meth:`PageDb.rank` -- PageRank and friends over the DB's links, as numpy arrays.
* :class:`Scheduler` -- the best-first, polite frontier with leases.
* :func:`canonicalize_url`, :func:`resolve_url`, :func:`fingerprint`, :func:`host_key`.
* :class:`Error` and one subclass per status code (:class:`NotFoundError`, ...).

Integrations, imported on demand: ``crawlrank.scrapy`` (a native Scrapy scheduler and its
spider middleware) and ``crawlrank.frontera`` (a Frontera 0.8 backend).
"""

try:  # the core hands ranks out as numpy arrays: without numpy it cannot load
    import numpy as _numpy  # noqa: F401
except ImportError as _missing:
    raise ImportError(
        "crawlrank needs numpy, which is missing (Debian: apt install python3-numpy; "
        "elsewhere: pip install numpy)") from _missing

from crawlrank._core import (
    AbortedError,
    AlreadyExistsError,
    Counters,
    CrawledPage,
    CrawlReport,
    DataLossError,
    Error,
    FAILURE_KINDS,
    FailedPage,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    IoError,
    ManualClock,
    NotFoundError,
    PageDb,
    PageRecord,
    QueuedExtra,
    Rank,
    Request,
    ResourceExhaustedError,
    Scheduler,
    SchedulerOptions,
    SchedulerStats,
    Snapshot,
    UnavailableError,
    __version__,
    apply_config,
    canonicalize_url,
    fingerprint,
    format_fingerprint,
    host_key,
    merge_config,
    parse_fingerprint,
    resolve_url,
    scheduler_config,
    unix_now_ms,
)

from crawlrank._pandas import to_pandas as _to_pandas

PageDb.to_pandas = _to_pandas  # defined in Python: pandas is optional

__all__ = [
    "AbortedError",
    "AlreadyExistsError",
    "Counters",
    "CrawledPage",
    "CrawlReport",
    "DataLossError",
    "Error",
    "FAILURE_KINDS",
    "FailedPage",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "IoError",
    "ManualClock",
    "NotFoundError",
    "PageDb",
    "PageRecord",
    "QueuedExtra",
    "Rank",
    "Request",
    "ResourceExhaustedError",
    "Scheduler",
    "SchedulerOptions",
    "SchedulerStats",
    "Snapshot",
    "UnavailableError",
    "__version__",
    "apply_config",
    "canonicalize_url",
    "fingerprint",
    "format_fingerprint",
    "host_key",
    "merge_config",
    "parse_fingerprint",
    "resolve_url",
    "scheduler_config",
    "unix_now_ms",
]
