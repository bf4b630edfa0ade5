"""A minimal crawler process over crawlrank.frontier.Client, for the shared-frontier tests
(test_frontier_crawl.py): it asks the frontier for URLs, fetches each from a local test
site, and reports the page with its links, until the frontier has nothing left.

    frontier_fetcher.py ADDRESS HOSTS LOG [--lease S] [--batch N]

HOSTS is JSON: {"a.test:PORT": PORT, ...}: the names the test sites stand for, each served
on 127.0.0.1:PORT (the URL keeps its name; the Host header carries it). A URL of another
host fails for good. LOG gets one JSON line per URL handed out ("got", with the time it
arrived) and per report ("done"), flushed at once, so that a test that kills this process
knows what it had: "sent" before a report goes out, "done" once it is acknowledged.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import sys
import time
import urllib.parse

from crawlrank.frontier import Client

LINK = re.compile(rb'href="([^"]+)"')


def fetch(hosts: dict[str, int], url: str) -> tuple[int, list[str]]:
    """(status, absolute links of the page); status 0 for a host that is not served."""
    parts = urllib.parse.urlsplit(url)
    port = hosts.get(parts.netloc)
    if port is None:
        return 0, []
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", parts.path or "/", headers={"Host": parts.netloc})
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    links = [urllib.parse.urljoin(url, href.decode()) for href in LINK.findall(body)]
    return response.status, links


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("address")
    parser.add_argument("hosts")
    parser.add_argument("log")
    parser.add_argument("--lease", type=int, default=30)
    parser.add_argument("--batch", type=int, default=4)
    args = parser.parse_args()
    hosts = json.loads(args.hosts)
    with open(args.log, "a", buffering=1) as log, Client(args.address, retry_for=60) as frontier:
        def note(event: str, url: str) -> None:
            log.write(json.dumps({"event": event, "url": url, "time": time.time(),
                                  "pid": os.getpid()}) + "\n")

        while True:
            batch = frontier.get_urls(args.batch, lease=args.lease)
            for handed in batch:
                note("got", handed.url)
            if not batch:
                if frontier.stats()["size"] == 0:
                    return 0
                time.sleep(0.02)
                continue
            for handed in batch:
                status, links = fetch(hosts, handed.url)
                note("sent", handed.url)  # the report goes out (it may or may not land)
                if status == 0:
                    frontier.failed(handed.url, "unknown host", retryable=False)
                else:
                    frontier.crawled(handed.url, status=status, links=links)
                note("done", handed.url)


if __name__ == "__main__":
    sys.exit(main())
