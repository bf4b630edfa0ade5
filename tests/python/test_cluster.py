"""A cluster of crawlrank_serve nodes (issue #43, URLFrontier 2.6's distributed mode): real
server processes on 127.0.0.1, each with its own PageDB, started with one node list.

This part covers membership: the list each node stores, ListNodes, and the refusals of a
node restarted as another and of a PageDB that is not one frontier's whole.
"""
from __future__ import annotations

import contextlib
import signal
import socket
import subprocess

import pytest

from serve_client import SERVER, Server, load_api
from tool_runner import run


@pytest.fixture(scope="module")
def api(bin_dir):
    return load_api(bin_dir)


def free_ports(count):
    """`count` ports free on 127.0.0.1 now (each was bound, then let go)."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]


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
                       (["--nodes", "127.0.0.1:0", "--node", "127.0.0.1:0"], "port")):
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
