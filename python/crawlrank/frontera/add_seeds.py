"""Seeds a crawl of crawlrank's Frontera backend, before it runs (or between two runs).

    python3 -m crawlrank.frontera.add_seeds --config SETTINGS_MODULE --seeds-file FILE
    python3 -m crawlrank.frontera.add_seeds --db PAGE_DB_PATH --seeds-file FILE

Frontera 0.8's own ``python3 -m frontera.utils.add_seeds`` builds a local-mode manager,
which crawlrank's backend refuses; this tool writes the seeds straight into the PageDB
(at depth 0) with the backend's settings (PAGE_DB_PATH, CRAWLRANK_URL_PROFILE, ...), read
from the Frontera settings module. The seeds file has one URL a line; blank lines and
lines starting with '#' are skipped; '-' reads standard input.

Only one process writes a PageDB: while a crawl runs on it the tool fails, says so, and
exits with status 1 (2 for a usage or settings error).
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Iterable, List, Optional, Sequence

import crawlrank
from crawlrank.frontera.backend import BackendSettings, SettingsError

logger = logging.getLogger(__name__)


def read_seeds(lines: Iterable[str]) -> List[str]:
    urls = []
    for line in lines:
        url = line.strip()
        if url and not url.startswith("#"):
            urls.append(url)
    return urls


def add_seeds(path: str, urls: Sequence[str],
              settings: Optional[BackendSettings] = None) -> crawlrank.SchedulerStats:
    """Adds `urls` to the PageDB at `path` (created if missing) and returns the scheduler's
    stats after. Raises crawlrank.FailedPreconditionError while a crawl holds the DB."""
    settings = settings or BackendSettings()
    with crawlrank.PageDb(path, url_profile=settings.url_profile,
                          durability=settings.durability) as db:
        with crawlrank.Scheduler(db, settings.scheduler_options()) as scheduler:
            scheduler.add_seeds(list(urls))
            return scheduler.stats()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m crawlrank.frontera.add_seeds",
        description="Adds seed URLs to the PageDB of crawlrank's Frontera backend.")
    parser.add_argument("--config", help="Frontera settings module (importable): PAGE_DB_PATH "
                        "and the other settings of the backend")
    parser.add_argument("--db", help="the PageDB directory (instead of, or over, the "
                        "config's PAGE_DB_PATH)")
    parser.add_argument("--seeds-file", required=True, help="one URL a line; '-': stdin")
    parser.add_argument("--log-level", "-L", default="INFO")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(message)s")
    prog = parser.prog

    settings = BackendSettings()
    if args.config:
        from frontera.settings import Settings

        try:
            settings = BackendSettings.from_settings(Settings(module=args.config))
        except ImportError as error:
            print(f"{prog}: cannot import the settings module {args.config!r}: {error}",
                  file=sys.stderr)
            return 2
        except SettingsError as error:
            print(f"{prog}: {args.config}: {error}", file=sys.stderr)
            return 2
    path = args.db or settings.page_db
    if not path:
        print(f"{prog}: no PageDB: pass --db, or set PAGE_DB_PATH in the settings (a crawl "
              "without PAGE_DB_PATH has a temporary PageDB that no seeding can reach)",
              file=sys.stderr)
        return 2
    try:
        if args.seeds_file == "-":
            urls = read_seeds(sys.stdin)
        else:
            with open(args.seeds_file, encoding="utf-8") as f:
                urls = read_seeds(f)
    except OSError as error:
        print(f"{prog}: cannot read the seeds file: {error}", file=sys.stderr)
        return 2

    try:
        stats = add_seeds(path, urls, settings)
    except crawlrank.FailedPreconditionError as error:
        print(f"{prog}: cannot add seeds to the PageDB {path}: a crawl is running on it "
              f"(another process holds its writer lock); add them when it stops "
              f"({error})", file=sys.stderr)
        return 1
    except crawlrank.Error as error:
        print(f"{prog}: cannot add seeds to the PageDB {path}: {error}", file=sys.stderr)
        return 1
    logger.info("%d seeds added to %s: %d pages queued, %d crawled", len(urls), path,
                stats.queued, stats.crawled)
    return 0


if __name__ == "__main__":
    sys.exit(main())
