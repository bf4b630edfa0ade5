"""Crawling a cluster of three crawlrank_serve nodes (issue #44) with clients attached to
every node: `crawlrank crawl --frontier H1,H2,H3` (and --discover) and the Scrapy
scheduler's remote mode over the same list, on a local site of 20 hosts (h0.test ...,
one server on 127.0.0.1 answering for each name) whose pages link within and across hosts.

What the site's own log shows is checked against the graph the site is built from
(cluster_site.py): every reachable page fetched exactly once, each host's requests at
least the delay apart; and what the nodes' PageDBs hold: each host's pages on its owner
(URLFrontier's formula worked out independently, cluster_util.py) and on no other node,
the union of the nodes' links equal to the site's graph.

With a node killed (SIGKILL at seeded moments, CRAWLRANK_CLUSTER_SEED sets the seed;
CRAWLRANK_CLUSTER_CRAWL_KILLS the number, 2 here) and restarted on its PageDB, the crawl
still ends with every page crawled and every link kept; a page fetched twice is one whose
host the killed node owns (its leases were in flight), and they are counted and printed.
"""
from __future__ import annotations

import collections
import contextlib
import json
import os
import pathlib
import random
import signal
import subprocess
import time
from urllib.parse import urlsplit

import pytest

from cluster_site import ClusterSite
from cluster_util import free_ports, owner_of
from frontier_sites import client_env, require_server
from serve_client import Server, load_api
from tool_runner import run

pytestmark = pytest.mark.needs_crawlrank

SPIDER = pathlib.Path(__file__).with_name("scrapy_remote.py")
DELAY = 0.4  # seconds between two hand-outs of a host, on every node


@pytest.fixture(scope="module")
def api(bin_dir):
    return load_api(bin_dir)


class Nodes:
    """Three nodes on 127.0.0.1, node i's PageDB tmp_path/node<i>, started with one list."""

    def __init__(self, bin_dir, api, tmp_path, *args):
        self.bin_dir, self.api, self.tmp_path = bin_dir, api, tmp_path
        self.entries = [f"127.0.0.1:{port}" for port in free_ports(3)]
        self.servers = [Server(bin_dir, api, self.db(i), "--nodes", ",".join(self.entries),
                               "--node", entry, *args, listen=None)
                        for i, entry in enumerate(self.entries)]

    def db(self, i):
        return self.tmp_path / f"node{i}"

    def kill(self, i):
        self.servers[i].stop(signal.SIGKILL)

    def restart(self, i):
        # The stored membership: the node comes back as itself, on its own entry.
        self.servers[i] = Server(self.bin_dir, self.api, self.db(i), listen=None)

    def stop_all(self):
        for server in self.servers:
            with contextlib.suppress(Exception):
                assert server.stop()[0] == 0

    def pages(self, i):
        """{url: state} of node i's pages, ghosts left out."""
        out = run(self.bin_dir, "page_db_dump", "info", self.db(i), "--json").stdout
        return {row["url"]: row["state"] for row in map(json.loads, out.splitlines())}

    def links(self, i):
        out = run(self.bin_dir, "page_db_dump", "links", self.db(i), "--urls").stdout
        return {tuple(line.split()) for line in out.splitlines()}


@pytest.fixture
def setup(bin_dir, api, tmp_path):
    require_server(bin_dir)
    procs, clusters = [], []

    def start_nodes(*args, delay=DELAY):
        clusters.append(Nodes(bin_dir, api, tmp_path, "--delay", delay, "--per-host", 1,
                              "--no-rank-at-exit", *args))
        return clusters[-1]

    yield start_nodes, procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    for nodes in clusters:
        for server in nodes.servers:
            with contextlib.suppress(Exception):
                server.stop(signal.SIGKILL)


def crawl(bin_dir, frontier, site, *args):
    resolve = [a for name in site.names() for a in ("--resolve", f"{name}:{site.port}:127.0.0.1")]
    return subprocess.Popen(
        [str(bin_dir / "crawlrank"), "crawl", "--frontier", frontier, site.url(0, 0),
         "--allow-private", "--quiet", *resolve, *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def scrapy(frontier, site, out):
    hosts = {f"{name}:{site.port}": site.port for name in site.names()}
    return subprocess.Popen(["/usr/bin/python3", str(SPIDER), frontier, json.dumps(hosts),
                             str(out), "--every-page", site.url(0, 0)],
                            env=client_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_all(procs, timeout):
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, (proc.args[:4], out[-2000:], err[-3000:])


def check_shards(nodes, site):
    """Each host's pages on its owner only; every page crawled; the links the site's."""
    owner = {name: nodes.entries.index(owner_of(name, nodes.entries)) for name in site.names()}
    reachable = site.reachable()
    held = {}
    for i in range(3):
        for url, state in nodes.pages(i).items():
            assert url not in held, f"{url} on node {held[url]} and node {i}"
            held[url] = i
            assert owner[urlsplit(url).hostname] == i, (url, i)
            assert state == "crawled", (url, state)
    assert set(held) == reachable
    assert set().union(*(nodes.links(i) for i in range(3))) == site.graph()
    for i in range(3):
        assert "no damage found" in run(nodes.bin_dir, "page_db_check", nodes.db(i)).stdout


def test_two_crawlers_and_scrapy_over_three_nodes_fetch_each_page_once(setup, bin_dir,
                                                                       tmp_path):
    pytest.importorskip("scrapy")
    start_nodes, procs = setup
    nodes = start_nodes()
    listed = ",".join(nodes.entries)
    from crawlrank.frontier import Client
    with ClusterSite(hosts=20, pages=5) as site, Client(listed) as client:
        # Nothing handed out until the three clients are up, so that each takes part.
        client.set_active(False)
        procs += [crawl(bin_dir, listed, site), crawl(bin_dir, nodes.entries[1], site,
                                                      "--discover", "--user-agent", "second/1"),
                  scrapy(listed, site, tmp_path / "scrapy.json")]
        deadline = time.monotonic() + 60
        while client.stats()["size"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)  # the seed's arrival
        time.sleep(2)  # Scrapy's start-up
        client.set_active(True)
        wait_all(procs, timeout=240)
        fetched = site.fetched()
        agents = collections.Counter(site.agents())
    twice = [url for url, n in collections.Counter(fetched).items() if n > 1]
    assert not twice, twice
    assert set(fetched) == site.reachable() and len(fetched) == 120
    print("fetches by user agent:", dict(agents))
    assert len(agents) == 3, agents  # each process took part
    for name, times in site.times_by_host().items():
        gaps = [b - a for a, b in zip(times, times[1:])]
        # Less 150 ms for the time from a node's hand-out to the request reaching the
        # site: three fetching processes and three nodes share two cores while ctest runs
        # other suites beside them (a full test run once saw 104 ms). A host handed out
        # twice at once, or without its delay, shows as a gap near 0.
        assert min(gaps) >= DELAY - 0.15, (name, min(gaps))
    nodes.stop_all()
    check_shards(nodes, site)


def test_a_node_killed_and_restarted_under_two_crawlers_loses_nothing(setup, bin_dir):
    seed = int(os.environ.get("CRAWLRANK_CLUSTER_SEED", random.randrange(1 << 30)))
    kills = int(os.environ.get("CRAWLRANK_CLUSTER_CRAWL_KILLS", "2"))
    print(f"CRAWLRANK_CLUSTER_SEED={seed} kills={kills}")
    rng = random.Random(seed)
    start_nodes, procs = setup
    nodes = start_nodes()
    listed = ",".join(nodes.entries)
    kills_at = []  # (monotonic time, node): the site's log keeps the same clock
    with ClusterSite(hosts=20, pages=8, page_delay=0.05) as site:
        procs += [crawl(bin_dir, listed, site, "--frontier-give-up", 60) for _ in range(2)]
        for _ in range(kills):
            time.sleep(rng.uniform(0.5, 2.0))
            victim = rng.randrange(3)
            if procs[0].poll() is not None and procs[1].poll() is not None:
                break
            nodes.kill(victim)
            kills_at.append((time.monotonic(), victim))
            time.sleep(rng.uniform(0.2, 1.5))
            nodes.restart(victim)
        wait_all(procs, timeout=240)
        fetched = collections.Counter(site.fetched())
        times = site.times_by_url()
    assert set(fetched) == site.reachable()
    twice = sorted(url for url, n in fetched.items() if n > 1)
    print(f"fetched twice: {len(twice)} of {len(fetched)} pages; kills (s, node): "
          f"{[(round(t - kills_at[0][0], 1), v) for t, v in kills_at]}")
    for url in twice:
        # Its owner was killed after a first fetch began (less the time a hand-out takes to
        # be fetched) and before the next one: the lease died with the node.
        owner = nodes.entries.index(owner_of(urlsplit(url).hostname, nodes.entries))
        first, again = times[url][0], times[url][1]
        assert any(v == owner and first - 2 <= t <= again for t, v in kills_at), url
    nodes.stop_all()
    check_shards(nodes, site)


def test_the_python_clients_owner_is_the_nodes_formula():
    from crawlrank import _cluster
    entries = ["127.0.0.1:7072", "127.0.0.1:7071", "10.0.0.9:80", "[::1]:7071"]
    ordered = _cluster.java_order(entries)
    assert ordered == sorted(entries)  # ASCII: Java String order is byte order
    for host in ["a.test", "x_y.example", "b\u00fccher.de", "\U0001f600.test", "h7.test"]:
        assert ordered[_cluster.owner_index(host, 4)] == owner_of(host, entries), host


def test_the_python_client_goes_on_without_a_node_and_resends_its_reports(setup, bin_dir):
    start_nodes, _ = setup
    nodes = start_nodes(delay=0)
    from crawlrank.frontier import Client
    hosts = {}
    for k in range(60):  # two hosts each node owns
        hosts.setdefault(owner_of(f"w{k}.test", nodes.entries), []).append(f"w{k}.test")
    down = nodes.entries.index(owner_of("w0.test", nodes.entries))
    with Client(nodes.entries[(down + 1) % 3], discover_nodes=True, retry_for=30) as client:
        assert client.nodes == sorted(nodes.entries)
        urls = [f"http://{h}/" for entry in nodes.entries for h in hosts[entry][:2]]
        assert client.discover(urls) == ["ok"] * 6
        handed = {u.url for _ in range(6) for u in client.get_urls(6, lease=60)}
        assert handed == set(urls)  # round robin: every node's in turn
        nodes.kill(down)
        doomed = [u for u in urls if owner_of(u.split("/")[2], nodes.entries) ==
                  nodes.entries[down]]
        for url in urls:
            client.crawled(url, links=[url + "next"])
        assert client.unsent() == 2  # the killed node's two reports, kept
        assert client.discover([doomed[0] + "more"]) == ["pending"]
        # The others hand out their pages' links meanwhile; the cluster is not done.
        alive = {u.url for _ in range(8) for u in client.get_urls(10, lease=60)}
        assert alive == {u + "next" for u in urls if u not in doomed}
        assert client.stats()["size"] > 0
        nodes.restart(down)
        deadline = time.monotonic() + 30
        while client.unsent() and time.monotonic() < deadline:
            client.get_urls(1, lease=60)  # each call sends what the outboxes hold
            time.sleep(0.2)
        assert client.unsent() == 0
    pages = nodes.pages(down)
    assert all(pages[u] == "crawled" for u in doomed), pages
    assert doomed[0] + "more" in pages and doomed[0] + "next" in pages
