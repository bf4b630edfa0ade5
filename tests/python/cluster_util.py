"""What the cluster tests (test_cluster.py, test_cluster_faults.py) share: free ports for
the nodes' entries, URLFrontier's owner formula worked out independently of node_list.cc,
and what a node's PageDB holds."""
from __future__ import annotations

import contextlib
import json
import socket

from tool_runner import run


def free_ports(count):
    """`count` ports free on 127.0.0.1 now (each was bound, then let go)."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]


def java_hash(text):
    """Java's String.hashCode: h = 31 * h + c over UTF-16 code units, wrapping at 32 bits."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def owner_of(host, entries):
    """The entry owning `host`'s queue: abs(h % N) over the list in Java String order
    (Java's % keeps the dividend's sign, so abs(h % N) is abs(h) % N)."""
    nodes = sorted(entries)
    return nodes[abs(java_hash("DEFAULT_" + host.replace("_", "%5F"))) % len(nodes)]


def urls_of(bin_dir, db):
    """{url: state} of the pages a node's PageDB holds (read beside the running node)."""
    out = run(bin_dir, "page_db_dump", "info", db, "--json").stdout
    return {row["url"]: row["state"] for row in map(json.loads, out.splitlines())}
