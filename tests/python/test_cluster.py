"""A cluster of crawlrank_serve nodes (issue #43, URLFrontier 2.6's distributed mode): real
server processes on 127.0.0.1, each with its own PageDB, started with one node list.

Covered: membership (the list each node stores, ListNodes, the refusals of a node
restarted as another and of a PageDB that is not one frontier's whole), and writes sent to
any node landing on their owner, acknowledged after the owner's commit. The owner is
worked out here from URLFrontier's formula, independently of node_list.cc.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import threading
import time

import pytest

from cluster_util import free_ports, java_hash, owner_of, urls_of
from serve_client import SERVER, Server, load_api
from tool_runner import run


@pytest.fixture(scope="module")
def api(bin_dir):
    return load_api(bin_dir)


@pytest.fixture
def cluster(bin_dir, api, tmp_path):
    """cluster(n) starts n nodes, tmp_path/node0 ... their PageDBs; returns (nodes, list)."""
    started = []

    def start(count, *args):
        entries = [f"127.0.0.1:{port}" for port in free_ports(count)]
        joined = ",".join(entries)
        for i, entry in enumerate(entries):
            started.append(Server(bin_dir, api, tmp_path / f"node{i}", "--nodes", joined,
                                  "--node", entry, *args, listen=None))
        return started[-count:], entries

    yield start
    for server in started:
        with contextlib.suppress(Exception):
            server.stop(signal.SIGKILL)


def start_fails(bin_dir, db, *args):
    proc = subprocess.run([str(bin_dir / SERVER), str(db), *map(str, args)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    return proc.stderr


def test_every_node_lists_the_cluster_in_java_string_order(cluster, api):
    nodes, entries = cluster(3)
    pb = api[0]
    for node, entry in zip(nodes, entries):
        assert node.address == entry  # --listen defaults to the node's entry
        # ASCII entries: Java's String order is Python's.
        assert list(node.stub.ListNodes(pb.Empty()).values) == sorted(entries)


def test_a_node_restarts_as_itself_and_refuses_another_list_or_entry(cluster, bin_dir, api,
                                                                    tmp_path):
    nodes, entries = cluster(3)
    for node in nodes:
        assert node.stop()[0] == 0
    db = tmp_path / "node1"
    joined = ",".join(entries)
    # Another list: the stored one and the given one are both named, nothing changes.
    fewer = ",".join(entries[:2])
    err = start_fails(bin_dir, db, "--nodes", fewer, "--node", entries[1], "--no-rank-at-exit")
    assert f"is node {entries[1]} of {','.join(sorted(entries))}" in err, err
    assert f"not node {entries[1]} of {','.join(sorted(entries[:2]))}" in err, err
    # Another entry of the same list.
    err = start_fails(bin_dir, db, "--nodes", joined, "--node", entries[0])
    assert f"not node {entries[0]} of" in err, err
    # The same list in another order is the same cluster; no flags at all resume the
    # stored membership (the node listens on its entry again).
    again = Server(bin_dir, api, db, "--nodes", ",".join(reversed(entries)), "--node",
                   entries[1], listen=None)
    assert again.address == entries[1]
    assert again.stop()[0] == 0
    resumed = Server(bin_dir, api, db, listen="127.0.0.1:0")
    try:
        assert list(resumed.stub.ListNodes(api[0].Empty()).values) == sorted(entries)
    finally:
        resumed.stop()
    stats = run(bin_dir, "page_db_stats", db, "--json").stdout
    assert f'"nodes": "{",".join(sorted(entries))}"' in stats, stats


def test_a_nodes_db_is_not_crawled_alone_and_a_lone_crawl_joins_no_cluster(cluster, bin_dir,
                                                                         api, tmp_path):
    nodes, entries = cluster(2)
    for node in nodes:
        node.stop()
    crawl = subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(tmp_path / "node0"),
                            "http://example.invalid/"], capture_output=True, text=True,
                           timeout=60)
    assert crawl.returncode == 1, crawl.stderr
    assert f"of the cluster {','.join(sorted(entries))}" in crawl.stderr, crawl.stderr
    assert "crawlrank crawl --frontier" in crawl.stderr

    alone = Server(bin_dir, api, tmp_path / "alone")
    alone.put(alone.discovered("http://a.example/"))
    alone.stop()
    err = start_fails(bin_dir, tmp_path / "alone", "--nodes", ",".join(entries), "--node",
                      entries[0])
    assert "holds 1 page of a frontier that ran alone" in err, err


def test_bad_node_lists_are_usage_errors(bin_dir, tmp_path):
    for args, said in ((["--nodes", "127.0.0.1:1"], "--nodes and --node go together"),
                       (["--nodes", "127.0.0.1:1,127.0.0.1:2", "--node", "127.0.0.1:3"],
                        "is not in the node list"),
                       (["--nodes", "127.0.0.1:1,127.0.0.1:1", "--node", "127.0.0.1:1"],
                        "twice"),
                       (["--nodes", "127.0.0.1:0", "--node", "127.0.0.1:0"], "port"),
                       # A peer off loopback is reached with a token or TLS only.
                       (["--nodes", "192.0.2.1:7071,127.0.0.1:7072", "--node", "127.0.0.1:7072"],
                        'node "192.0.2.1:7071" is reached over the network')):
        proc = subprocess.run([str(bin_dir / SERVER), str(tmp_path / "db"), *args],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (args, proc.stderr)
        assert said in proc.stderr, (args, proc.stderr)


@pytest.mark.needs_crawlrank
def test_the_python_front_ends_refuse_a_nodes_db(cluster, tmp_path):
    """The Scrapy scheduler and the Frontera backend resolve their configuration through
    PageDb.resolve_config, which refuses a cluster node's PageDB."""
    import crawlrank

    nodes, entries = cluster(2)
    for node in nodes:
        node.stop()
    with crawlrank.PageDb(str(tmp_path / "node1")) as db:
        with pytest.raises(crawlrank.FailedPreconditionError, match="of the cluster"):
            db.resolve_config({})


def test_the_owner_formula_gives_javas_well_known_hashes():
    assert java_hash("hello") == 99162322
    assert java_hash("Aa") == java_hash("BB") == 2112  # Java's textbook collision
    assert java_hash("polygenelubricants") == -(1 << 31)  # Integer.MIN_VALUE
    assert java_hash("\U0001F600") == 31 * 0xD83D + 0xDE00  # one character, two units
    # "h:10000" sorts before "h:9000"; h of "DEFAULT_a" is 1284467139, and 1284467139 % 3 == 0.
    assert owner_of("a", ["h:9000", "h:10000", "h:2"]) == "h:10000"


def test_urls_sent_to_one_node_land_once_each_on_their_owner(cluster, bin_dir, tmp_path):
    nodes, entries = cluster(3, "--no-rank-at-exit")
    hosts = [f"host{i}.test" for i in range(30)]
    urls = [f"http://{host}/p{j}" for host in hosts for j in range(10)]
    acks = nodes[0].put(*(nodes[0].discovered(url, item_id=url) for url in urls))
    assert sorted(acks) == sorted((url, "OK") for url in urls)
    # Every owner holds its URLs, and no node holds another's.
    by_node = {entry: urls_of(bin_dir, tmp_path / f"node{i}") for i, entry in enumerate(entries)}
    for url in urls:
        owner = owner_of(url.split("/")[2], entries)
        assert [entry for entry, held in by_node.items() if url in held] == [owner], url
    assert sum(map(len, by_node.values())) == len(urls)
    assert len({owner_of(host, entries) for host in hosts}) == 3  # each node owns some
    # Sent again, to another node: each is known to its owner already.
    again = nodes[1].put(*(nodes[1].discovered(url, item_id=url) for url in urls))
    assert sorted(again) == sorted((url, "SKIPPED") for url in urls)


def test_a_report_sent_to_another_node_is_acked_after_the_owners_commit(cluster, bin_dir,
                                                                       tmp_path):
    nodes, entries = cluster(3, "--no-rank-at-exit")
    host = next(f"h{i}.test" for i in range(100) if owner_of(f"h{i}.test", entries) == entries[2])
    url = f"http://{host}/"
    assert nodes[0].put(nodes[0].discovered(url, item_id="d")) == [("d", "OK")]
    [handed] = nodes[2].get()
    assert handed.url == url
    # The report goes to node 0, which does not own it: its OK means node 2 committed it,
    # so a reader of node 2's PageDB sees the page crawled at once.
    assert nodes[0].put(nodes[0].known(url, item_id="r", crawlrank_status="200")) == [("r", "OK")]
    assert urls_of(bin_dir, tmp_path / "node2")[url] == "crawled"
    assert url not in urls_of(bin_dir, tmp_path / "node0")


def test_put_discovered_answers_each_batch_in_order_across_owners(cluster, api):
    nodes, entries = cluster(3, "--no-rank-at-exit")
    pb = api[0]
    hosts = {}
    for i in range(200):
        hosts.setdefault(owner_of(f"b{i}.test", entries), f"b{i}.test")
    first = [f"http://{hosts[e]}/one" for e in entries]
    second = [f"http://{hosts[entries[1]]}/two", first[0], f"http://{hosts[entries[0]]}/two",
              first[2], first[1]]

    def send(batch_id, urls):
        batch = pb.DiscoveredBatch(ID=batch_id, items=[pb.URLInfo(url=u) for u in urls])
        [ack] = nodes[1].stub.PutDiscovered(iter([batch]))
        return ack.ID, [pb.AckMessage.Status.Name(s) for s in ack.statuses]

    assert send("b1", first) == ("b1", ["OK", "OK", "OK"])
    assert send("b2", second) == ("b2", ["OK", "SKIPPED", "OK", "SKIPPED", "SKIPPED"])


def test_an_owner_that_is_down_makes_its_items_fail_and_a_resend_lands(cluster, bin_dir,
                                                                      api, tmp_path):
    nodes, entries = cluster(2, "--no-rank-at-exit", "--peer-deadline", "2")
    host = next(f"d{i}.test" for i in range(100) if owner_of(f"d{i}.test", entries) == entries[1])
    url = f"http://{host}/"
    nodes[1].stop(signal.SIGKILL)
    started = time.monotonic()
    assert nodes[0].put(nodes[0].discovered(url, item_id="x")) == [("x", "FAIL")]
    assert time.monotonic() - started < 10
    # No flags: the stored membership, listening on its entry again.
    back = Server(bin_dir, api, tmp_path / "node1", listen=None)
    try:
        assert back.address == entries[1]
        deadline = time.monotonic() + 15
        while True:  # the peer's channel reconnects within a second; FAIL asks a resend
            acks = nodes[0].put(nodes[0].discovered(url, item_id="x"))
            if acks == [("x", "OK")] or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert acks == [("x", "OK")]
        assert url in urls_of(bin_dir, tmp_path / "node1")
    finally:
        back.stop(signal.SIGKILL)


def test_a_peer_with_another_node_list_is_refused(cluster, api):
    nodes, entries = cluster(2, "--no-rank-at-exit")
    metadata = (("crawlrank-peer", "127.0.0.1:1"), ("crawlrank-nodes", "127.0.0.1:1"))
    with pytest.raises(api[2].RpcError) as refused:
        nodes[0].put(nodes[0].discovered("http://a.test/"), metadata=metadata)
    assert refused.value.code().name == "FAILED_PRECONDITION"
    assert "has the node list" in refused.value.details()


# ---- the routing table of control and query calls (docs/frontier.md, "A cluster")

def seeded(cluster, *args):
    """Three nodes holding 3 URLs of each of 6 hosts, 2 hosts per node, all sent to node 0.
    Returns (nodes, entries, hosts: {entry: [host, host]}, urls: {host: [url]})."""
    nodes, entries = cluster(3, "--no-rank-at-exit", "--delay", "0", *args)
    hosts = {entry: [] for entry in entries}
    for i in range(500):
        owned = hosts[owner_of(f"r{i}.test", entries)]
        if len(owned) < 2:
            owned.append(f"r{i}.test")
    urls = {h: [f"http://{h}/{j}" for j in range(3)] for owned in hosts.values() for h in owned}
    everything = [u for host_urls in urls.values() for u in host_urls]
    assert {a for _, a in nodes[0].put(*(nodes[0].discovered(u) for u in everything))} == {"OK"}
    return nodes, entries, hosts, urls


def test_stats_and_counts_aggregate_or_go_to_the_owner_and_local_answers_alone(cluster):
    nodes, entries, hosts, urls = seeded(cluster)
    pb = nodes[0].pb
    for i, node in enumerate(nodes):
        mine = hosts[entries[i]][0]
        theirs = hosts[entries[(i + 1) % 3]][0]
        stats = node.stub.GetStats(pb.QueueWithinCrawlParams())
        assert (stats.size, stats.numberOfQueues) == (18, 6)
        alone = node.stub.GetStats(pb.QueueWithinCrawlParams(local=True))
        assert (alone.size, alone.numberOfQueues) == (6, 2)
        # A queue's figures come from its owner, asked anywhere; local: this node's only.
        assert node.stub.GetStats(pb.QueueWithinCrawlParams(key=theirs)).size == 3
        assert node.stub.GetStats(pb.QueueWithinCrawlParams(key=theirs, local=True)).size == 0
        assert node.stub.GetStats(pb.QueueWithinCrawlParams(key=mine, local=True)).size == 3
        count = lambda **kw: node.stub.CountURLs(pb.CountUrlParams(**kw)).value  # noqa: E731
        assert count() == 18 and count(local=True) == 6
        assert count(key=theirs) == 3 and count(key=theirs, local=True) == 0
        assert count(filter="/1") == 6
        assert list(node.stub.ListCrawls(pb.Local()).values) == ["DEFAULT"]


def test_listings_page_through_the_nodes_in_list_order(cluster):
    nodes, entries, hosts, urls = seeded(cluster)
    pb = nodes[1].pb
    order = sorted(entries)  # the merge order: the nodes in list order
    listed = [i.known.info.url for i in nodes[1].stub.ListURLs(pb.ListUrlParams(size=100))]
    assert sorted(listed) == sorted(u for us in urls.values() for u in us)
    owners = [owner_of(u.split("/")[2], entries) for u in listed]
    assert owners == sorted(owners, key=order.index)
    page = [i.known.info.url for i in nodes[2].stub.ListURLs(pb.ListUrlParams(start=5, size=7))]
    assert page == listed[5:12]
    theirs = hosts[entries[0]][1]
    assert sorted(i.known.info.url for i in nodes[2].stub.ListURLs(
        pb.ListUrlParams(key=theirs))) == urls[theirs]
    assert list(nodes[2].stub.ListURLs(pb.ListUrlParams(key=theirs, local=True))) == []
    mine = sorted(i.known.info.url for i in nodes[2].stub.ListURLs(pb.ListUrlParams(local=True)))
    assert mine == sorted(u for h in hosts[entries[2]] for u in urls[h])

    queues = nodes[0].stub.ListQueues(pb.Pagination(size=100))
    assert queues.total == 6 and sorted(queues.values) == sorted(urls)
    assert [owner_of(q, entries) for q in queues.values] == [o for o in order for _ in (0, 1)]
    middle = nodes[2].stub.ListQueues(pb.Pagination(start=1, size=3))
    assert (list(middle.values), middle.total) == (list(queues.values)[1:4], 6)
    assert nodes[2].stub.ListQueues(pb.Pagination(local=True)).total == 2


def test_a_url_status_comes_from_its_owner(cluster, api):
    nodes, entries, hosts, urls = seeded(cluster)
    pb = api[0]
    url = urls[hosts[entries[2]][0]][0]
    item = nodes[0].stub.GetURLStatus(pb.URLStatusRequest(url=url))
    assert item.known.info.url == url
    assert list(item.known.info.metadata["crawlrank.state"].values) == ["queued"]
    with pytest.raises(api[2].RpcError) as missing:
        nodes[0].stub.GetURLStatus(pb.URLStatusRequest(url=url + "x"))
    assert missing.value.code().name == "NOT_FOUND"


def test_steering_calls_reach_the_owner_or_every_node(cluster, bin_dir, tmp_path):
    nodes, entries, hosts, urls = seeded(cluster, "--per-host", 3)
    pb = nodes[0].pb
    far = hosts[entries[2]][0]
    # Blocked through node 0: node 2, its owner, hands none of it out.
    nodes[0].stub.BlockQueueUntil(pb.BlockQueueParams(key=far, time=4102444800))
    assert {i.url for i in nodes[2].get(per_queue=9)} == set(urls[hosts[entries[2]][1]])
    # A crawl limit and a queue's delay through node 1, to their owner.
    other = hosts[entries[0]][0]
    nodes[1].stub.SetCrawlLimit(pb.CrawlLimitParams(key=other, limit=1))
    nodes[1].stub.SetDelay(pb.QueueDelayParams(key=other, delay_requestable=60))
    assert [i.url for i in nodes[0].get(key=other, per_queue=9)] == [urls[other][0]]
    # The default delay goes to every node, which stores it.
    nodes[1].stub.SetDelay(pb.QueueDelayParams(delay_requestable=7))
    # Inactive everywhere, set through one node; one node on again alone.
    nodes[1].stub.SetActive(pb.Active(state=False))
    assert [n.stub.GetActive(pb.Local(local=True)).state for n in nodes] == [False] * 3
    assert nodes[2].get() == []
    nodes[0].stub.SetActive(pb.Active(state=True, local=True))
    assert nodes[2].stub.GetActive(pb.Local()).state is False  # the AND over the nodes
    assert nodes[0].stub.GetActive(pb.Local(local=True)).state is True
    # Removals fan out and add up: a queue through a node that does not own it, then the
    # URLs created before now, then the crawl.
    assert nodes[0].stub.DeleteQueue(pb.QueueWithinCrawlParams(key=far)).value == 3
    assert nodes[1].stub.CountURLs(pb.CountUrlParams(key=far)).value == 0
    assert nodes[2].stub.PurgeURLs(pb.PurgeUrlParams(key=other)).value == 3
    # What is left: 12 pages, none done (4 of them handed out).
    assert nodes[2].stub.DeleteCrawl(pb.DeleteCrawlMessage()).value == 18 - 3 - 3
    for node in nodes:
        assert node.stop()[0] == 0
    for i in range(3):
        stored = json.loads(run(bin_dir, "page_db_stats", tmp_path / f"node{i}", "--json").stdout)
        assert stored["config"]["delay_ms"] == "7000"


def test_the_log_level_is_every_nodes(cluster):
    nodes, entries = cluster(2, "--no-rank-at-exit")
    pb = nodes[0].pb
    nodes[0].stub.SetLogLevel(pb.LogLevelParams(level=pb.LogLevelParams.INFO))
    nodes[1].put(nodes[1].discovered("http://a.test/"))
    _, err = nodes[1].stop()
    assert "SetLogLevel: level INFO from " in err and "PutURLs: from " in err, err


def test_an_aggregate_with_a_node_down_fails_naming_it(cluster, api):
    nodes, entries = cluster(3, "--no-rank-at-exit", "--peer-deadline", "2")
    pb = api[0]
    down = sorted(entries)[2]
    nodes[entries.index(down)].stop(signal.SIGKILL)
    up = nodes[entries.index(sorted(entries)[0])]
    for call, request in ((up.stub.GetStats, pb.QueueWithinCrawlParams()),
                          (up.stub.CountURLs, pb.CountUrlParams()),
                          (up.stub.GetActive, pb.Local()),
                          (up.stub.ListQueues, pb.Pagination())):
        with pytest.raises(api[2].RpcError) as failed:
            call(request)
        assert f"node {down}" in failed.value.details(), failed.value.details()
    assert up.stub.GetStats(pb.QueueWithinCrawlParams(local=True)).size == 0


def test_a_crawl_wide_page_limit_is_shared_equally_in_list_order(cluster):
    nodes, entries = cluster(3, "--no-rank-at-exit", "--delay", "0", "--per-host", 9,
                             "--max-pages", 10)
    urls = [f"http://m{i}.test/{j}" for i in range(30) for j in range(3)]
    assert {a for _, a in nodes[0].put(*(nodes[0].discovered(u) for u in urls))} == {"OK"}
    handed = {entry: 0 for entry in entries}
    for _ in range(10):  # until no node hands anything out
        got = 0
        for node, entry in zip(nodes, entries):
            for info in node.get(per_queue=9, queues=100):
                node.put(node.known(info.url, crawlrank_status="200"))
                handed[entry] += 1
                got += 1
        if got == 0:
            break
    # 10 over 3 nodes: 4, 3, 3 in list order, and every node has pages enough.
    assert [handed[e] for e in sorted(entries)] == [4, 3, 3]


def test_a_node_stops_at_once_though_its_peers_keep_streams_open_to_it(cluster):
    nodes, entries = cluster(2, "--no-rank-at-exit")
    host = next(f"s{i}.test" for i in range(100) if owner_of(f"s{i}.test", entries) == entries[1])
    # Node 0 opens its long-lived stream to node 1, which never ends on its own.
    assert nodes[0].put(nodes[0].discovered(f"http://{host}/", item_id="a")) == [("a", "OK")]
    started = time.monotonic()
    code, _ = nodes[1].stop()
    assert code == 0
    assert time.monotonic() - started < 3  # not the 5 s grace a running call gets
    # Node 0 finds its owner gone: the item is answered FAIL, not left waiting.
    assert nodes[0].put(nodes[0].discovered(f"http://{host}/2", item_id="b")) == [("b", "FAIL")]


def test_peers_reach_each_other_over_mutual_tls_with_the_token(bin_dir, api, tmp_path):
    """Every node serves TLS only, asks clients for a certificate of the CA, and needs the
    token: a node reaches its peers with --peer-tls-ca, showing its own certificate, and
    sends its token. Without --peer-tls-ca a node's forwards FAIL."""
    from test_frontier_client import make_certificates

    pb, pb_grpc, grpc = api
    pki = make_certificates(tmp_path)
    entries = [f"127.0.0.1:{port}" for port in free_ports(2)]
    tls = ("--tls-cert", pki / "server.pem", "--tls-key", pki / "server.key",
           "--tls-client-ca", pki / "ca.pem", "--token", "s3cret", "--no-rank-at-exit")

    def start(i, *extra):
        return Server(bin_dir, api, tmp_path / f"node{i}", "--nodes", ",".join(entries),
                      "--node", entries[i], *tls, *extra, listen=None)

    credentials = grpc.ssl_channel_credentials(
        root_certificates=(pki / "ca.pem").read_bytes(),
        private_key=(pki / "client.key").read_bytes(),
        certificate_chain=(pki / "client.pem").read_bytes())
    host = next(f"t{i}.test" for i in range(100) if owner_of(f"t{i}.test", entries) == entries[1])
    token = (("authorization", "Bearer s3cret"),)

    def put(url):
        with grpc.secure_channel(entries[0], credentials) as channel:
            stub = pb_grpc.URLFrontierStub(channel)
            item = pb.URLItem(discovered=pb.DiscoveredURLItem(info=pb.URLInfo(url=url)), ID=url)
            return [pb.AckMessage.Status.Name(a.status)
                    for a in stub.PutURLs(iter([item]), metadata=token, timeout=30)]

    nodes = [start(0, "--peer-tls-ca", pki / "ca.pem"), start(1, "--peer-tls-ca", pki / "ca.pem")]
    try:
        assert put(f"http://{host}/") == ["OK"]
        nodes[0].stop()
        nodes[0] = start(0, "--peer-deadline", "2")  # plain text to a TLS peer: no answer
        assert put(f"http://{host}/2") == ["FAIL"]
    finally:
        for node in nodes:
            node.stop()
    held = urls_of(bin_dir, tmp_path / "node1")
    assert f"http://{host}/" in held and f"http://{host}/2" not in held


def dump_rows(bin_dir, db, *args):
    out = run(bin_dir, "page_db_dump", "info", db, "--json", *args).stdout
    return {row["url"]: row for row in map(json.loads, out.splitlines())}


def test_a_link_across_nodes_stays_with_its_source_and_its_target_goes_on_deeper(
        cluster, bin_dir, api, tmp_path):
    nodes, entries = cluster(3, "--no-rank-at-exit", "--max-depth", 2, "--per-host", 3,
                             "--delay", "0")
    pb = api[0]
    owned = {}
    for i in range(300):
        owned.setdefault(owner_of(f"g{i}.test", entries), f"g{i}.test")
    a, b = owned[entries[0]], owned[entries[1]]
    p, p2, q, r = f"http://{a}/p", f"http://{a}/p2", f"http://{b}/q", f"http://{a}/r"
    # Everything through node 2, which owns neither host: p (a seed, depth 0) -> p2 (1) on
    # node 0, then p2 -> q (2): node 0 keeps that link with q as a ghost and sends q on to
    # node 1, which answers; then q -> r (3): node 1 keeps it and node 0 files r too deep.
    send = nodes[2].put
    assert send(nodes[2].discovered(p, item_id="p")) == [("p", "OK")]
    assert send(nodes[2].discovered(p2, item_id="p2", crawlrank_source=p)) == [("p2", "OK")]
    assert send(nodes[2].discovered(q, item_id="q", crawlrank_source=p2,
                                    crawlrank_link_score="0.5")) == [("q", "OK")]
    assert send(nodes[2].discovered(r, item_id="r", crawlrank_source=q)) == [("r", "OK")]
    # Sent again: the owners know them (the links are merged again, idempotent).
    assert send(nodes[2].discovered(q, item_id="q", crawlrank_source=p2)) == [("q", "SKIPPED")]
    batch = pb.DiscoveredBatch(ID="b", items=[pb.URLInfo(
        url=q, metadata={"crawlrank.source": pb.StringList(values=[p])})])
    [ack] = nodes[2].stub.PutDiscovered(iter([batch]))
    assert [pb.AckMessage.Status.Name(s) for s in ack.statuses] == ["SKIPPED"]

    node0, node1 = tmp_path / "node0", tmp_path / "node1"
    assert set(dump_rows(bin_dir, node0)) == {p, p2, r}
    ghosts = dump_rows(bin_dir, node0, "--ghosts")
    assert ghosts[q]["state"] == "elsewhere" and ghosts[q]["depth"] == 2
    assert set(dump_rows(bin_dir, node1)) == {q}
    assert dump_rows(bin_dir, node1)[q]["depth"] == 2
    assert dump_rows(bin_dir, node1)[q]["link_score"] == 0.5
    assert dump_rows(bin_dir, node1, "--ghosts")[r]["state"] == "elsewhere"
    assert dump_rows(bin_dir, node0)[r]["depth"] == 3
    links = lambda db: set(tuple(line.split()) for line in run(  # noqa: E731
        bin_dir, "page_db_dump", "links", db, "--urls").stdout.splitlines())
    assert links(node0) == {(p, p2), (p2, q), (p, q)}
    assert links(node1) == {(q, r)}
    assert links(tmp_path / "node2") == set()
    # Each node hands out its own pages within the depth: node 0 never q, nor r (depth 3).
    assert sorted(i.url for i in nodes[0].get(per_queue=9)) == [p, p2]
    assert [i.url for i in nodes[1].get(per_queue=9)] == [q]
    assert nodes[1].stub.CountURLs(pb.CountUrlParams()).value == 4  # p p2 r, q: no ghost
    for i in range(3):
        assert "no damage found" in run(bin_dir, "page_db_check", tmp_path / f"node{i}").stdout
    stats = json.loads(run(bin_dir, "page_db_stats", node0, "--json").stdout)
    assert stats["ghosts"] == 1 and stats["pages"] == 3


def test_linked_batches_streamed_into_every_node_at_once_all_land_on_their_owners(
        cluster, bin_dir, api, tmp_path):
    """Each node takes a client's stream while it sends first hops to its peers and hands
    on their links: the nodes wait on each other both ways at once, and must never wait in
    a cycle (each stream pipelines its batches; a deadlock shows as the call's timeout)."""
    nodes, entries = cluster(3, "--no-rank-at-exit")
    pb = api[0]
    seed = int(os.environ.get("CRAWLRANK_CLUSTER_SEED", random.randrange(1 << 31)))
    print(f"seed {seed} (CRAWLRANK_CLUSTER_SEED)")
    rng = random.Random(seed)
    hosts = [f"l{i}.test" for i in range(40)]
    links, streams = set(), []
    for n in range(3):
        batches = []
        for b in range(40):
            source = f"http://{rng.choice(hosts)}/s{n}-{b}"
            targets = [f"http://{rng.choice(hosts)}/t{rng.randrange(400)}" for _ in range(25)]
            links.update((source, t) for t in targets)
            batches.append(pb.DiscoveredBatch(ID=f"{n}-{b}", items=[pb.URLInfo(
                url=t, metadata={"crawlrank.source": pb.StringList(values=[source])})
                for t in targets]))
        streams.append(batches)
    answers = [None] * 3

    def send(n):
        acks = nodes[n].stub.PutDiscovered(iter(streams[n]), timeout=90)
        answers[n] = {a.ID: [pb.AckMessage.Status.Name(s) for s in a.statuses] for a in acks}

    threads = [threading.Thread(target=send, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n in range(3):
        assert answers[n] is not None, f"node {n}'s stream failed (see the exception above)"
        assert sorted(answers[n]) == sorted(b.ID for b in streams[n])
        for batch in streams[n]:
            statuses = answers[n][batch.ID]
            assert len(statuses) == 25 and set(statuses) <= {"OK", "SKIPPED"}, statuses
    pages = {u for link in links for u in link}
    held = {e: set(dump_rows(bin_dir, tmp_path / f"node{i}")) for i, e in enumerate(entries)}
    for url in pages:
        assert [e for e in entries if url in held[e]] == [owner_of(url.split("/")[2], entries)]
    assert sum(map(len, held.values())) == len(pages)
    kept = set()
    for i in range(3):
        out = run(bin_dir, "page_db_dump", "links", tmp_path / f"node{i}", "--urls").stdout
        kept.update(tuple(line.split()) for line in out.splitlines())
    assert kept == links


def test_reshard_gives_each_node_of_a_new_list_its_hosts_and_the_nodes_serve_them(
        cluster, bin_dir, api, tmp_path):
    nodes, entries = cluster(2, "--no-rank-at-exit", "--delay", "0", "--per-host", 9)
    hosts = [f"s{i}.test" for i in range(12)]
    urls = [f"http://{h}/{j}" for h in hosts for j in range(4)]
    items = [nodes[0].discovered(u) for u in urls]
    # Links across hosts: from each host's first page to the next host's pages.
    items += [nodes[0].discovered(f"http://{hosts[(i + 1) % 12]}/{j}",
                                  crawlrank_source=f"http://{h}/0")
              for i, h in enumerate(hosts) for j in range(4)]
    assert {status for _, status in nodes[1].put(*items)} <= {"OK", "SKIPPED"}
    crawled = [i.url for node in nodes for i in node.get(per_queue=1)]
    assert nodes[0].put(*(nodes[0].known(u, crawlrank_status="200") for u in crawled))
    before = {}
    for i in range(2):
        before.update(urls_of(bin_dir, tmp_path / f"node{i}"))
    links = lambda dbs: set(tuple(line.split()) for db in dbs for line in run(  # noqa: E731
        bin_dir, "page_db_dump", "links", db, "--urls").stdout.splitlines())
    links_before = links([tmp_path / "node0", tmp_path / "node1"])
    assert len(links_before) == 48
    for node in nodes:
        node.stop()

    new = [f"127.0.0.1:{port}" for port in free_ports(3)]
    out = run(bin_dir, "crawlrank", "reshard", tmp_path / "node0", tmp_path / "node1",
              "--nodes", ",".join(new), "--out", tmp_path / "new").stdout
    assert len(out.splitlines()) == 3 and "ghosts" in out
    after = {}
    for i, entry in enumerate(sorted(new)):
        held = urls_of(bin_dir, tmp_path / f"new.{i}")
        assert all(owner_of(u.split("/")[2], new) == entry for u in held)
        after.update(held)
    assert after == before  # every page once, in the state it had
    assert links([tmp_path / f"new.{i}" for i in range(3)]) == links_before
    # The new nodes start from their PageDBs alone, and each hands out its own hosts.
    started = [Server(bin_dir, api, tmp_path / f"new.{i}", listen=None) for i in range(3)]
    try:
        assert sorted(s.address for s in started) == sorted(new)
        handed = {}
        for server in started:
            for item in server.get(per_queue=9):
                assert owner_of(item.url.split("/")[2], new) == server.address
                handed[item.url] = server.address
        assert set(handed) == {u for u, state in before.items() if state == "pending"}
    finally:
        for server in started:
            server.stop(signal.SIGKILL)


def test_a_push_modes_share_crosses_to_the_owner_and_orders_its_queue(cluster, bin_dir,
                                                                      tmp_path):
    nodes, entries = cluster(2, "--no-rank-at-exit", "--delay", "0", "--score-mode", "indegree")
    owned = {}
    for i in range(300):
        owned.setdefault(owner_of(f"i{i}.test", entries), f"i{i}.test")
    a, b = owned[entries[0]], owned[entries[1]]
    p, first, second = f"http://{a}/", f"http://{b}/first", f"http://{b}/second"
    # Two seeds on node 1, equal in-degree (0): the first created goes first.
    assert nodes[0].put(*(nodes[0].discovered(u, item_id=u) for u in (p, first, second))) == [
        (p, "OK"), (first, "OK"), (second, "OK")]
    [handed] = nodes[0].get()
    assert handed.url == p
    # p links to `second` (node 1's page: a ghost on node 0) and is crawled: node 0 passes
    # the link's in-degree on to node 1.
    assert sorted(nodes[1].put(nodes[1].discovered(second, item_id="l", crawlrank_source=p),
                               nodes[1].known(p, item_id="r", crawlrank_status="200"))) == [
        ("l", "SKIPPED"), ("r", "OK")]  # the link's ack comes back from node 1, after two hops
    deadline = time.monotonic() + 15
    while json.loads(run(bin_dir, "page_db_stats", tmp_path / "node1", "--json").stdout)[
            "pages_with_shares"] == 0:
        assert time.monotonic() < deadline, "the share never reached node 1"
        time.sleep(0.05)
    assert [i.url for i in nodes[1].get(per_queue=1)] == [second]


def test_a_nodes_dashboard_says_which_node_and_labels_its_metrics(cluster, bin_dir, tmp_path):
    parser = pytest.importorskip("prometheus_client.parser")
    if not (bin_dir / "crawlrank_dashboard").exists():
        pytest.skip("built without the dashboard")
    from dashboard_util import Dashboard
    nodes, entries = cluster(2, "--no-rank-at-exit")
    owned = {}
    for i in range(300):
        owned.setdefault(owner_of(f"m{i}.test", entries), f"m{i}.test")
    a, b = owned[entries[0]], owned[entries[1]]
    mine = [f"http://{a}/{j}" for j in range(3)]
    items = [nodes[0].discovered(u) for u in mine]
    items.append(nodes[0].discovered(f"http://{b}/x", crawlrank_source=mine[0]))  # a ghost
    assert {s for _, s in nodes[0].put(*items)} == {"OK"}
    for node in nodes:
        node.stop()
    index = sorted(entries).index(entries[0])
    with Dashboard(bin_dir, tmp_path / "node0") as dash:
        summary = dash.json("api/summary")
        _, page, _ = dash.get("")
        _, text, _ = dash.get("metrics")
    assert summary["cluster"] == {"node": entries[0], "index": index, "nodes": 2,
                                  "list": ",".join(sorted(entries))}
    assert summary["pages"] == 3 and summary["ghost_pages"] == 1
    assert f"Node {index + 1} of 2 ({entries[0]})" in page
    labels = (("cluster", ",".join(sorted(entries))), ("node", entries[0]))
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in parser.text_string_to_metric_families(text)
               for s in family.samples}
    assert samples[("crawlrank_pages", labels)] == 3
    assert samples[("crawlrank_ghost_pages", labels)] == 1
    assert all(dict(key[1]).get("node") == entries[0] for key in samples), samples


def test_the_cluster_script_starts_nodes_that_know_each_other_and_stops_them(bin_dir, api,
                                                                            tmp_path):
    import socket
    from pathlib import Path
    script = Path(__file__).resolve().parents[2] / "scripts" / "cluster.sh"

    def free(port):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return True
            except OSError:
                return False
    base = next(p for p in free_ports(20) if p + 2 < 65536 and all(free(p + i) for i in range(3)))
    env = dict(os.environ, CRAWLRANK_BIN=str(bin_dir / "crawlrank"))
    started = subprocess.run([str(script), "start", "3", str(tmp_path / "cl"), "--base-port",
                              str(base), "--", "--no-rank-at-exit"],
                             capture_output=True, text=True, env=env, timeout=120)
    try:
        assert started.returncode == 0, started.stderr
        entries = [f"127.0.0.1:{base + i}" for i in range(3)]
        assert f"--frontier {','.join(entries)} SEED" in started.stdout
        assert f"--frontier {entries[0]} --discover" in started.stdout
        pb, pb_grpc, grpc = api
        for entry in entries:
            with grpc.insecure_channel(entry) as channel:
                listed = pb_grpc.URLFrontierStub(channel).ListNodes(pb.Empty(), timeout=10)
                assert list(listed.values) == sorted(entries)
        again = subprocess.run([str(script), "start", "3", str(tmp_path / "cl")],
                               capture_output=True, text=True, env=env, timeout=60)
        assert again.returncode == 1 and "has nodes running" in again.stderr
    finally:
        stopped = subprocess.run([str(script), "stop", str(tmp_path / "cl")],
                                 capture_output=True, text=True, env=env, timeout=60)
    assert stopped.returncode == 0 and "stopped 3 nodes" in stopped.stdout, stopped.stderr
    for i in range(3):  # each drained and exited, its PageDB sound
        assert "no damage found" in run(bin_dir, "page_db_check", tmp_path / "cl" / f"node{i}").stdout
