#!/usr/bin/python3
"""Scrapy crawl throughput on sites of long pages served by nginx (docs/benchmarks.md,
"Scrapy at full speed"): crawlrank's native scheduler against Scrapy's default one.

Each site is a Debian manual served by benchmarks/crawl_bench.py's nginx (two workers,
sendfile, keep-alive) on a loopback address of its own, port 8080:

  postgresql  postgresql-doc-15, from /index.html, every .html page of the host
  rust-std    rust-doc's std pages: from /std/index.html, the .html pages under six of
              its modules (io, fs, net, sync, thread, fmt; about 260 pages, 10 MB); the
              rest of Rust's manual is served, not followed. The whole std tree (1779
              pages, 103 MB, pages of up to 3 MB) takes Scrapy about 4 minutes a crawl.

Each crawl runs tests/python/scrapy_crawl.py (the test spider: a.href with the doc-site
rule) in a process of its own, CONCURRENT_REQUESTS and CONCURRENT_REQUESTS_PER_DOMAIN 16,
no delay, a fresh PageDB. The two configurations take turns, the order swapped every
round, ROUNDS rounds per site. For each run:
  pages/s   responses / Scrapy's elapsed_time_seconds (the spider's open to its close,
            crawlrank's rank at close included)
  cpu s     user + system seconds of the crawling process (wait4), start-up included
  fetches   the requests in nginx's access log during the run
The table gives medians; the ratio is crawlrank's pages/s over Scrapy's in the same round,
the median of the rounds.

    PYTHONPATH=build/python:tests/python /usr/bin/python3 benchmarks/scrapy_site_bench.py \\
        [--rounds 5] [--sites postgresql,rust-std]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from crawl_bench import PORT, SITES, Nginx, ensure_sites  # noqa: E402

# name: (crawl_bench site, start path, followed prefix)
CRAWLS = {
    "postgresql": ("postgresql", "/index.html", "/"),
    "rust-std": ("rust", "/std/index.html",
                 ",".join(f"/std/{m}/" for m in ("io", "fs", "net", "sync", "thread", "fmt"))),
}
CONFIGS = {"scrapy": ["--scheduler", "scrapy"], "crawlrank": []}


def crawl(nginx: Nginx, site: str, args: list[str], work: Path) -> dict:
    name, start, prefix = CRAWLS[site]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    stats = work / "stats.json"
    cmd = ["/usr/bin/python3", str(ROOT / "tests/python/scrapy_crawl.py"),
           "--host", f"{SITES[name][2]}:{PORT}", "--start", start, "--prefix", prefix,
           "--db", str(work / "db"), "--stats", str(stats), *args]
    offset = nginx.log_size()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"crawl {cmd} failed:\n{err.decode()[-3000:]}")
    time.sleep(0.2)  # the last log lines
    s = json.loads(stats.read_text())
    return {"pages_per_s": s["response_received_count"] / s["elapsed_time_seconds"],
            "elapsed": s["elapsed_time_seconds"], "cpu": usage.ru_utime + usage.ru_stime,
            "responses": s["response_received_count"],
            "fetches": nginx.count(offset)["requests"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sites", default=",".join(CRAWLS))
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sites = args.sites.split(",")
    ensure_sites([CRAWLS[s][0] for s in sites])
    names = list(CONFIGS)
    runs = {s: {n: [] for n in names} for s in sites}
    with tempfile.TemporaryDirectory(prefix="scrapy_site_bench.") as tmp:
        nginx = Nginx(sorted({CRAWLS[s][0] for s in sites}), Path(tmp))
        try:
            for r in range(args.rounds):
                for site in sites:
                    for name in (names if r % 2 == 0 else names[::-1]):
                        row = crawl(nginx, site, CONFIGS[name], Path(tmp) / "work")
                        runs[site][name].append(row)
                        print(f"# round {r + 1} {site} {name}: " + json.dumps(
                            {k: round(v, 3) for k, v in row.items()}), file=sys.stderr,
                            flush=True)
        finally:
            nginx.close()
    print(f"# median of {args.rounds} rounds; ratio: crawlrank / scrapy pages/s within a "
          "round, median of the rounds")
    print(f"{'site':10} {'configuration':10} {'pages/s':>8} {'ratio':>6} {'cpu s':>6} "
          f"{'elapsed':>7} {'responses':>9} {'fetches':>7}")
    for site in sites:
        ratios = [c["pages_per_s"] / b["pages_per_s"]
                  for c, b in zip(runs[site]["crawlrank"], runs[site]["scrapy"])]
        for name in names:
            m = {k: statistics.median(row[k] for row in runs[site][name])
                 for k in runs[site][name][0]}
            ratio = f"{statistics.median(ratios):.2f}" if name == "crawlrank" else "1"
            print(f"{site:10} {name:10} {m['pages_per_s']:8.1f} {ratio:>6} {m['cpu']:6.2f} "
                  f"{m['elapsed']:7.2f} {m['responses']:9.0f} {m['fetches']:7.0f}")
        print(f"# {site} ratios by round: " + " ".join(f"{x:.2f}" for x in ratios))


if __name__ == "__main__":
    main()
