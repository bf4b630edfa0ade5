"""crawlrank as a Frontera 0.8 backend, for Frontera's spider mode.

Frontera settings (in the FRONTERA_SETTINGS module, or inline in Scrapy's settings)::

    BACKEND = "crawlrank.frontera.Backend"
    LOCAL_MODE = False          # required: local mode is refused (docs/python.md says why)
    PAGE_DB_PATH = "crawl.db"   # the PageDB; unset: a temporary one, deleted at stop

and in Scrapy's settings ``SCHEDULER = "crawlrank.frontera.FronteraScheduler"`` (Frontera's
scheduler, which also closes the spider when the crawl is done) with Frontera's two
scheduler middlewares. The spider's start requests are seeds (through that scheduler);
``python3 -m crawlrank.frontera.add_seeds`` seeds the PageDB before a crawl.

Importing this package imports Frontera, after two import shims it needs on Python 3.10+
(only where something is missing). ``FronteraScheduler`` also imports Scrapy, on first use.
"""

from crawlrank.frontera import _compat

_compat.apply()

from crawlrank.frontera.backend import (  # noqa: E402 (after the shims)
    LEASE_KEY,
    Backend,
    BackendSettings,
    SettingsError,
    check_spider_mode,
)

__all__ = ["LEASE_KEY", "Backend", "BackendSettings", "FronteraScheduler", "SettingsError",
           "check_spider_mode"]


def __getattr__(name: str):
    if name == "FronteraScheduler":  # imports Scrapy: only when asked for
        from crawlrank.frontera.scheduler import FronteraScheduler

        return FronteraScheduler
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
