"""The crawl-order tests' shared steps (test_crawl_order.py, test_crawl_topic.py): the
simulator of the build, the graph of Python's manual that benchmarks/doc_suite.py
builds from Debian's python3.11-doc, and the replayed orders of sim_orders.h in plain
Python."""

from __future__ import annotations

import heapq
import pathlib
import subprocess
import sys

import networkx as nx
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = pathlib.Path("/usr/share/doc/python3.11/html")


def simulator(bin_dir: pathlib.Path) -> pathlib.Path:
    """crawlrank_simulate beside the tools; skips the test when the build or the docs lack."""
    simulate = bin_dir.parent / "benchmarks" / "crawlrank_simulate"
    if not simulate.exists():
        pytest.skip(f"{simulate} is not built (CRAWLRANK_BUILD_SIMULATOR)")
    if not (DOCS / "index.html").exists():
        pytest.skip("needs python3.11-doc (scripts/install-deps.sh)")
    return simulate


def python_graph(out: pathlib.Path, *options: str) -> str:
    """Writes the python graph to `out` (doc_suite.py OPTIONS) and returns its seeds line."""
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "doc_suite.py"), "python", "-o",
                    str(out), *options], check=True, capture_output=True, timeout=300)
    return next(line.split(":", 1)[1].strip() for line in out.read_text().splitlines()
                if line.startswith("# seeds:"))


def read_graph(path: pathlib.Path) -> tuple[list[tuple[str, str]], nx.DiGraph]:
    """A `src dst` graph file's links, in file order, and the graph they make."""
    edges = [tuple(line.split()) for line in path.read_text().splitlines()
             if line and not line.startswith("#")]
    g = nx.DiGraph()
    g.add_edges_from(edges)
    return edges, g


def mention_order(edges) -> dict:
    """Each page's node id in the simulator: the order of first mention in the file."""
    mention = {}
    for u, v in edges:
        mention.setdefault(u, len(mention))
        mention.setdefault(v, len(mention))
    return mention


def replay(g, mention, seeds, initial, follow) -> list[str]:
    """An order as sim_orders.h defines them, one page at a time (the doc graph's batch):
    the best priority first, ties by discovery; a page's links in the simulator's order
    (node ids: first mention in the file). `initial(u)`: a page's priority when discovered;
    `follow(u, v)`: v's new priority after u is fetched, or None."""
    seq, prio, heap, fetched, order = {}, {}, [], set(), []

    def discover(u):
        if u not in seq:
            seq[u] = len(seq)
            prio[u] = initial(u)
            heapq.heappush(heap, (-prio[u], seq[u], u))

    for s in seeds:
        discover(s)
    while heap:
        p, _, u = heapq.heappop(heap)
        if u in fetched or -p != prio[u]:
            continue
        fetched.add(u)
        order.append(u)
        for v in sorted(g.successors(u), key=mention.get):
            discover(v)
            new = follow(u, v)
            if new is not None and v not in fetched:
                prio[v] = new
                heapq.heappush(heap, (-new, seq[v], v))
    return order
