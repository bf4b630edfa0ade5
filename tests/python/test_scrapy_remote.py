"""The Scrapy scheduler's remote mode (CRAWLRANK_FRONTIER): two Scrapy processes
(scrapy_remote.py) crawl three local sites through one crawlrank serve."""

from __future__ import annotations

import json
import pathlib
import signal
import subprocess
import time

import pytest

from frontier_sites import (PAGES, all_clients_start_together, client_env, expected_paths,
                            require_server, start_server, three_sites)
from tool_runner import run

pytestmark = pytest.mark.needs_crawlrank

SPIDER = pathlib.Path(__file__).with_name("scrapy_remote.py")


@pytest.fixture
def spiders(bin_dir):
    require_server(bin_dir, "scrapy")
    env = client_env()
    procs = []

    def start(address, hosts, out, *urls):
        procs.append(subprocess.Popen(
            ["/usr/bin/python3", str(SPIDER), address, json.dumps(hosts), str(out), *urls],
            env=env, stderr=subprocess.PIPE, text=True))
        return procs[-1]

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def test_two_scrapy_processes_share_one_frontier(spiders, bin_dir, tmp_path):
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0.1,
                                   "--per-host", 1)
    try:
        # Pages that take 0.2 s: one process cannot hold every host (two requests at a time
        # each), so the other gets work too.
        with three_sites(page_delay=0.2) as (hosts, sites):
            names = list(hosts)
            starts = [f"http://{name}/gen/0.html" for name in names]
            outs = [tmp_path / f"spider{i}.json" for i in range(2)]
            with all_clients_start_together(server, address, 2):
                procs = [spiders(address, hosts, out, *starts) for out in outs]
            for proc in procs:
                assert proc.wait(timeout=300) == 0, proc.stderr.read()[-3000:]
            for name, site in sites.items():  # each page once, across both processes
                assert sorted(site.paths()) == sorted(expected_paths()), name
            # /gen/0 yields /gen/1 and /gen/2 (priority 5) at once: /gen/2 goes first.
            for name, site in sites.items():
                paths = [h.path for h in site.log()]
                assert paths.index("/gen/2.html") < paths.index("/gen/1.html"), (name, paths)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    seen = [row for out in outs for row in json.loads(out.read_text())["seen"]]
    assert all(json.loads(out.read_text())["reason"] == "finished" for out in outs)
    assert len({row[3] for row in seen}) == 2, "both processes crawled"
    by_url = {row[0]: row for row in seen}
    assert len(by_url) == len(seen) == 3 * (2 * PAGES + 1)
    # The request each page was queued with came back from the server, wherever it was
    # queued: its callback's keyword arguments and its meta.
    for name in names:
        assert by_url[f"http://{name}/gen/0.html"][1:3] == ["start", "s" + str(names.index(name))]
        assert by_url[f"http://{name}/gen/1.html"][1:3] == [f"http://{name}/gen/0.html", "link"]
    stats = json.loads(run(bin_dir, "page_db_stats", tmp_path / "db", "--json").stdout)
    assert stats["crawled_pages"] == 3 * (2 * PAGES + 1)
    assert stats["links"] == 3 * (2 * PAGES + PAGES - 1)


def test_a_killed_scrapy_process_and_a_restarted_frontier_lose_no_request(spiders, bin_dir,
                                                                          tmp_path):
    db = tmp_path / "db"
    server, address = start_server(bin_dir, db, "127.0.0.1:0", "--delay", 0.1,
                                   "--per-host", 1)
    try:
        with three_sites() as (hosts, sites):
            starts = [f"http://{name}/gen/0.html" for name in hosts]
            doomed = spiders(address, hosts, tmp_path / "doomed.json", *starts)
            deadline = time.monotonic() + 120
            while sum(len(s.paths()) for s in sites.values()) < 20:
                assert time.monotonic() < deadline and doomed.poll() is None
                time.sleep(0.01)
            doomed.kill()  # SIGKILL: what it queued and what it held are the server's now
            doomed.wait()
            fetched_before = {name: set(site.paths()) for name, site in sites.items()}
            server.send_signal(signal.SIGTERM)  # and the frontier restarts
            assert server.wait(timeout=30) == 0
            server, _ = start_server(bin_dir, db, address, "--delay", 0.1, "--per-host", 1)
            survivor = spiders(address, hosts, tmp_path / "survivor.json", *starts)
            assert survivor.wait(timeout=300) == 0, survivor.stderr.read()[-3000:]
            for name, site in sites.items():
                assert set(site.paths()) == expected_paths(), name  # every page, at least once
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    seen = json.loads((tmp_path / "survivor.json").read_text())["seen"]
    assert seen, "the survivor crawled what was left"
    # Its start requests were known already: every page it crawled came from the frontier,
    # queued by the killed process or by itself, each with the callback arguments and meta
    # of the request that queued it (a start request's, or its linking page's).
    for url, origin, tag, _, _ in seen:
        assert (tag == "link" and origin.startswith("http://")) or (
            origin == "start" and tag.startswith("s")), (url, origin, tag)
    # Among them, pages the killed process had queued and not fetched.
    queued_by_doomed = [url for url, origin, *_ in seen
                        if origin != "start" and "/" + origin.split("/", 3)[3] in
                        fetched_before[origin.split("/", 3)[2]]]
    assert queued_by_doomed
