#!/usr/bin/python3
"""Scrapy crawl throughput on the same local site (docs/benchmarks.md, "Python
bindings"): crawlrank's native scheduler against Scrapy's default one, and Frontera with
crawlrank's backend against Frontera with its own SQLAlchemy backend.

The site is Python's manual (tests/python/doc_site.py: 529 pages from python3.11-doc) on
127.0.0.1, served by a threaded Python server in this process; each crawl runs
tests/python/scrapy_crawl.py in a process of its own with CONCURRENT_REQUESTS 16 and no
delay. The configurations run in turn, REPEATS rounds; the figures are medians:
  pages/s   responses / Scrapy's elapsed_time_seconds (from the spider's open to its close)
  cpu s     user + system seconds of the crawling process, start-up included
Frontera's SQLAlchemy backend never ends a crawl: its runs close after 529 responses.

    PYTHONPATH=build/python:tests/python:../shared/vendor/frontera \\
        /usr/bin/python3 benchmarks/scrapy_bench.py [--repeats R]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from doc_site import DocSite, expected_graph  # noqa: E402

CONFIGS = {
    "scrapy": ["--scheduler", "scrapy"],
    "crawlrank": [],
    "frontera+sqlalchemy": ["--frontera-sqlalchemy", "529"],
    "frontera+crawlrank": ["--frontera"],
}
BASELINE = {"crawlrank": "scrapy", "frontera+crawlrank": "frontera+sqlalchemy"}


def crawl(site: DocSite, args: list[str], tmp: Path) -> dict:
    db, stats = tmp / "db", tmp / "stats.json"
    shutil.rmtree(db, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    site.log.clear()
    proc = subprocess.run(["/usr/bin/python3", str(ROOT / "tests/python/scrapy_crawl.py"),
                           "--host", site.host, "--db", str(db), "--stats", str(stats), *args],
                          capture_output=True, text=True, timeout=900)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"crawl {args} failed:\n{proc.stderr[-3000:]}")
    s = json.loads(stats.read_text())
    return {"pages_per_s": s["response_received_count"] / s["elapsed_time_seconds"],
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "responses": s["response_received_count"], "fetched": len(site.paths()),
            "unique": len(set(site.paths()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    args = parser.parse_args()
    names = args.configs.split(",")
    runs: dict[str, list[dict]] = {n: [] for n in names}
    with DocSite() as site, tempfile.TemporaryDirectory() as tmp:
        pages = len(expected_graph(site.host)[0])
        for r in range(args.repeats):
            for name in names:
                runs[name].append(crawl(site, CONFIGS[name], Path(tmp)))
                print(f"# round {r + 1} {name}: {runs[name][-1]}", file=sys.stderr)
    print(f"# {pages} pages reachable; median of {args.repeats} rounds")
    print(f"{'configuration':22} {'pages/s':>8} {'ratio':>6} {'cpu s':>6} {'responses':>9} "
          f"{'fetches':>7} {'unique':>6}")
    med = {n: {k: statistics.median(run[k] for run in runs[n]) for k in runs[n][0]}
           for n in names}
    for n in names:
        base = BASELINE.get(n)
        ratio = f"{med[n]['pages_per_s'] / med[base]['pages_per_s']:.2f}" if base in med else "1"
        m = med[n]
        print(f"{n:22} {m['pages_per_s']:8.1f} {ratio:>6} {m['cpu']:6.2f} {m['responses']:9.0f} "
              f"{m['fetched']:7.0f} {m['unique']:6.0f}")


if __name__ == "__main__":
    main()
