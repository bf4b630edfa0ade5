#!/usr/bin/python3
"""What a Prometheus server scraping `crawlrank dashboard` costs a running crawl
(issue #27): CPU seconds per page of `crawlrank crawl`, with a poller fetching /metrics
every second from a dashboard on the same PageDB, against the same crawl without one.

Python's manual (Debian's python3.11-doc) is served on 127.0.0.1 by a separate process, so
that only the crawler's own CPU (user + system, from wait4) is counted. Rounds alternate
the two modes, the order swapped every round; medians are printed.

    /usr/bin/python3 benchmarks/dashboard_poll_bench.py BUILD/tools [--rounds 5]

With --baseline OLD_CRAWLRANK (a `crawlrank` binary of another build), the two modes are
that binary's crawl against BUILD/tools' crawlrank, both with the poller, which then also
reads /api/recent as the live tail does (issue #48: what keeping the latest fetches in the
PageDB costs a crawl).
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

DOCS = Path("/usr/share/doc/python3.11/html")


def serve(port_queue) -> None:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(DOCS))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    port_queue.put(server.server_address[1])
    server.serve_forever()


def crawl_once(tools: Path, port: int, work: Path, poll: bool,
               crawler: Path | None = None) -> tuple[float, int, int]:
    """(CPU seconds of the crawl, pages crawled, /metrics fetched). `crawler`: the
    crawlrank binary that crawls (tools' by default)."""
    db = work / ("poll.db" if poll else "plain.db")
    shutil.rmtree(db, ignore_errors=True)
    allow = rf"^http://127\.0\.0\.1:{port}/[^?#]*\.html$"
    crawl = subprocess.Popen([str(crawler or tools / "crawlrank"), "crawl", str(db),
                              f"http://127.0.0.1:{port}/index.html", "--allow-private",
                              "--delay", "0", "--per-host", "4", "--quiet", "--allow", allow],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    polls = 0
    stop = threading.Event()
    dashboard = None
    if poll:
        while not (db / "data.mdb").exists():
            time.sleep(0.01)
        dashboard = subprocess.Popen([str(tools / "crawlrank"), "dashboard", str(db), "--listen",
                                      "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
        base = re.search(r"on (http://\S+/)", dashboard.stdout.readline()).group(1)
        urls = [base + "metrics"] + ([base + "api/recent?n=1024"] if crawler else [])

        def poller() -> None:
            nonlocal polls
            while not stop.wait(1.0):
                for url in urls:
                    with urllib.request.urlopen(url, timeout=10) as response:
                        response.read()
                polls += 1

        thread = threading.Thread(target=poller, daemon=True)
        thread.start()
    _, status, usage = os.wait4(crawl.pid, 0)
    stop.set()
    if dashboard is not None:
        dashboard.terminate()
        dashboard.wait()
    assert os.waitstatus_to_exitcode(status) == 0
    stats = json.loads(subprocess.run([str(tools / "page_db_stats"), str(db), "--json"],
                                      capture_output=True, text=True, check=True).stdout)
    return usage.ru_utime + usage.ru_stime, stats["crawled_pages"], polls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tools", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path,
                        help="a crawlrank binary to compare with tools' (both polled)")
    args = parser.parse_args()
    ports = multiprocessing.Queue()
    site = multiprocessing.Process(target=serve, args=(ports,), daemon=True)
    site.start()
    port = ports.get()
    results: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for second in ((False, True) if r % 2 == 0 else (True, False)):
                if args.baseline:  # False: the baseline binary; True: tools'; both polled
                    cpu, pages, polls = crawl_once(args.tools, port, Path(tmp), True,
                                                   None if second else args.baseline)
                    label = "new     " if second else "baseline"
                else:
                    cpu, pages, polls = crawl_once(args.tools, port, Path(tmp), second)
                    label = "poller" if second else "plain "
                results[second].append(cpu / pages * 1000)
                print(f"round {r + 1} {label}: {pages} pages, {cpu:.2f} CPU s, "
                      f"{cpu / pages * 1000:.2f} ms/page, {polls} polls", flush=True)
    site.terminate()
    first, second = statistics.median(results[False]), statistics.median(results[True])
    names = ("the baseline", "the new build") if args.baseline else ("without",
                                                                     "with the poller")
    print(f"median CPU ms per page: {names[0]} {first:.2f}, {names[1]} {second:.2f}, "
          f"ratio {second / first:.3f}")


if __name__ == "__main__":
    main()
