#!/usr/bin/python3
"""What a Prometheus server scraping `crawlrank dashboard` costs a running crawl
(issue #27): CPU seconds per page of `crawlrank crawl`, with a poller fetching /metrics
every second from a dashboard on the same PageDB, against the same crawl without one.

Python's manual (Debian's python3.11-doc) is served on 127.0.0.1 by a separate process, so
that only the crawler's own CPU (user + system, from wait4) is counted. Rounds alternate
the two modes, the order swapped every round; medians are printed.

    /usr/bin/python3 benchmarks/dashboard_poll_bench.py BUILD/tools [--rounds 5]
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


def crawl_once(tools: Path, port: int, work: Path, poll: bool) -> tuple[float, int, int]:
    """(CPU seconds of the crawl, pages crawled, /metrics fetched)."""
    db = work / ("poll.db" if poll else "plain.db")
    shutil.rmtree(db, ignore_errors=True)
    allow = rf"^http://127\.0\.0\.1:{port}/[^?#]*\.html$"
    crawl = subprocess.Popen([str(tools / "crawlrank"), "crawl", str(db),
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
        url = re.search(r"on (http://\S+/)", dashboard.stdout.readline()).group(1) + "metrics"

        def poller() -> None:
            nonlocal polls
            while not stop.wait(1.0):
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
    args = parser.parse_args()
    ports = multiprocessing.Queue()
    site = multiprocessing.Process(target=serve, args=(ports,), daemon=True)
    site.start()
    port = ports.get()
    results: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for poll in ((False, True) if r % 2 == 0 else (True, False)):
                cpu, pages, polls = crawl_once(args.tools, port, Path(tmp), poll)
                results[poll].append(cpu / pages * 1000)
                print(f"round {r + 1} {'poller' if poll else 'plain '}: {pages} pages, "
                      f"{cpu:.2f} CPU s, {cpu / pages * 1000:.2f} ms/page, {polls} polls",
                      flush=True)
    site.terminate()
    plain, polled = statistics.median(results[False]), statistics.median(results[True])
    print(f"median CPU ms per page: without {plain:.2f}, with the poller {polled:.2f}, "
          f"ratio {polled / plain:.3f}")


if __name__ == "__main__":
    main()
