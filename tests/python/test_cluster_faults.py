"""A cluster of three crawlrank_serve nodes under SIGKILL (issue #43): a client streams
PutURLs items and PutDiscovered batches to random nodes while a random node is killed at
seeded moments and restarted on its PageDB, and a fetcher takes URLs from random nodes and
reports them. Afterwards every item a node acknowledged (OK or SKIPPED) is on its owner's
disk, reports included, no node holds another's URL, page_db_check finds every PageDB
sound, and a URL handed out twice was leased by the node killed under it (a restarted
node returns its leases to the queue): the fetches twice are bounded by the leases out at
the kills. Some discovered URLs name a source (a page acknowledged before): such a URL
goes to its source's owner, which keeps the link, and on to its own owner; every link
acknowledged is on the source owner's disk.

The seed is printed (CRAWLRANK_CLUSTER_SEED sets it); CRAWLRANK_CLUSTER_KILLS sets the
number of kills (3 here; the slow entry of tests/CMakeLists.txt runs 25).
"""
from __future__ import annotations

import os
import random
import signal
import threading
import time

import pytest

from serve_client import Server, load_api
from cluster_util import free_ports, owner_of, urls_of
from tool_runner import run


@pytest.fixture(scope="module")
def api(bin_dir):
    return load_api(bin_dir)


class Sender(threading.Thread):
    """Sends items to random nodes until stopped; keeps what was acknowledged."""

    def __init__(self, nodes, rng):
        super().__init__(daemon=True)
        self.nodes, self.rng = nodes, rng
        self.pb = nodes[0].pb
        self.stopping = threading.Event()
        self.acked_urls: set[str] = set()     # discovered, acknowledged OK or SKIPPED
        self.acked_reports: set[str] = set()  # reports acknowledged OK
        self.acked_links: set[tuple[str, str]] = set()  # (source, url) acknowledged
        self.sources: dict[str, str] = {}  # url -> the source it was sent with
        self.sent = 0
        self.errors = 0

    def next_urls(self, count):
        urls = [f"http://k{self.rng.randrange(40)}.test/{self.sent + i}" for i in range(count)]
        self.sent += count
        return urls

    def put_urls(self, node):
        urls = self.next_urls(self.rng.randrange(5, 60))
        known = sorted(self.acked_urls)
        items = []
        for u in urls:
            if known and self.rng.random() < 0.3:  # a link from a page acknowledged before
                self.sources[u] = self.rng.choice(known)
                items.append(node.discovered(u, item_id="d " + u,
                                             crawlrank_source=self.sources[u]))
            else:
                items.append(node.discovered(u, item_id="d " + u))
        done = sorted(self.acked_urls - self.acked_reports)[:5]
        items += [node.known(u, item_id="r " + u, crawlrank_status="200") for u in done]
        for ack in node.stub.PutURLs(iter(items), timeout=30):
            kind, url = ack.ID.split(" ", 1)
            if ack.status == self.pb.AckMessage.FAIL:
                continue
            if kind == "d":
                self.acked_urls.add(url)
                if url in self.sources:
                    self.acked_links.add((self.sources[url], url))
            elif ack.status == self.pb.AckMessage.OK:
                self.acked_reports.add(url)

    def put_discovered(self, node):
        urls = self.next_urls(10)
        batch = self.pb.DiscoveredBatch(ID="b", items=[self.pb.URLInfo(url=u) for u in urls])
        for ack in node.stub.PutDiscovered(iter([batch]), timeout=30):
            for url, status in zip(urls, ack.statuses):
                if status != self.pb.AckMessage.FAIL:
                    self.acked_urls.add(url)

    def run(self):
        while not self.stopping.is_set():
            node = self.nodes[self.rng.randrange(len(self.nodes))]
            try:
                if self.rng.random() < 0.8:
                    self.put_urls(node)
                else:
                    self.put_discovered(node)
            except Exception:  # the node was killed under the stream: nothing counted
                self.errors += 1
                time.sleep(0.05)


class Fetcher(threading.Thread):
    """Takes URLs from random nodes and reports each to the node that handed it out."""

    def __init__(self, nodes, rng):
        super().__init__(daemon=True)
        self.nodes, self.rng = nodes, rng
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.handed: dict[str, int] = {}  # URL -> times handed out
        self.leased = [set() for _ in nodes]  # by node: handed out, report not acked
        self.at_kills: set[str] = set()  # what the killed nodes had leased to us

    def killed(self, node):
        """After node `node` died: what it had leased may come back from its restart."""
        with self.lock:
            self.at_kills |= self.leased[node]
            self.leased[node] = set()

    def run(self):
        while not self.stopping.is_set():
            i = self.rng.randrange(len(self.nodes))
            node = self.nodes[i]
            try:
                infos = node.get(delay=30, per_queue=1, queues=20, timeout=10)
                with self.lock:
                    for info in infos:
                        self.handed[info.url] = self.handed.get(info.url, 0) + 1
                        self.leased[i].add(info.url)
                for info in infos:
                    acks = node.put(node.known(info.url, item_id=info.url,
                                               crawlrank_status="200"), timeout=10)
                    if acks and acks[0][1] != "FAIL":
                        with self.lock:
                            self.leased[i].discard(info.url)
            except Exception:  # the node was killed under the call
                time.sleep(0.05)
            time.sleep(0.01)


def test_killed_nodes_lose_nothing_they_acknowledged(bin_dir, api, tmp_path):
    seed = int(os.environ.get("CRAWLRANK_CLUSTER_SEED", str(random.randrange(1 << 30))))
    kills = int(os.environ.get("CRAWLRANK_CLUSTER_KILLS", "3"))
    print(f"cluster fault seed {seed}, {kills} kills")
    rng = random.Random(seed)
    entries = [f"127.0.0.1:{port}" for port in free_ports(3)]
    joined = ",".join(entries)
    dbs = [tmp_path / f"node{i}" for i in range(3)]
    nodes = [Server(bin_dir, api, db, "--nodes", joined, "--node", entry, "--no-rank-at-exit",
                    "--peer-deadline", "2", listen=None) for db, entry in zip(dbs, entries)]
    sender = Sender(list(nodes), random.Random(seed + 1))
    fetcher = Fetcher(list(nodes), random.Random(seed + 2))
    sender.start()
    fetcher.start()
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(0.1, 0.6))
            victim = rng.randrange(3)
            nodes[victim].stop(signal.SIGKILL)
            fetcher.killed(victim)
            # Its stored membership: listening on its entry again.
            nodes[victim] = Server(bin_dir, api, dbs[victim], "--no-rank-at-exit",
                                   "--peer-deadline", "2", listen=None)
            sender.nodes[victim] = fetcher.nodes[victim] = nodes[victim]
        time.sleep(0.5)
    finally:
        sender.stopping.set()
        fetcher.stopping.set()
        sender.join(timeout=60)
        fetcher.join(timeout=60)
        assert not sender.is_alive() and not fetcher.is_alive(), seed  # read below
        for node in nodes:
            node.stop()
    print(f"sent {sender.sent} URLs; acknowledged {len(sender.acked_urls)} and "
          f"{len(sender.acked_reports)} reports; {sender.errors} streams cut")
    twice = {url for url, times in fetcher.handed.items() if times > 1}
    print(f"handed out {len(fetcher.handed)} URLs, {len(twice)} of them again; "
          f"{len(fetcher.at_kills)} were leased at the kills")
    assert sender.acked_urls and sender.acked_reports and fetcher.handed
    assert twice <= fetcher.at_kills, (seed, sorted(twice - fetcher.at_kills)[:5])
    held = {entry: urls_of(bin_dir, db) for entry, db in zip(entries, dbs)}
    for url in sender.acked_urls:
        assert url in held[owner_of(url.split("/")[2], entries)], (seed, url)
    for url in sender.acked_reports:
        assert held[owner_of(url.split("/")[2], entries)][url] == "crawled", (seed, url)
    for entry, urls in held.items():
        assert all(owner_of(u.split("/")[2], entries) == entry for u in urls), seed
    for db in dbs:
        assert "no damage found" in run(bin_dir, "page_db_check", db).stdout, seed
    links = {entry: set(tuple(line.split()) for line in run(
        bin_dir, "page_db_dump", "links", db, "--urls").stdout.splitlines())
        for entry, db in zip(entries, dbs)}
    assert sender.acked_links, seed
    for source, url in sender.acked_links:
        assert (source, url) in links[owner_of(source.split("/")[2], entries)], (seed, source, url)
