#!/usr/bin/python3
"""PageRank of peer libraries on the graph rank_bench exports (--export-edges FILE).

scipy: the power iteration networkx uses (sparse matrix-vector products, dangling mass to
the teleport vector); graph-tool: its C++/OpenMP `pagerank`. Both get the same graph as
crawlrank's rank_bench, damping 0.85, and report seconds per iteration and the iterations
and seconds to an L1 change of 1e-4 and 1e-6. Prints `key value` lines.

    /usr/bin/python3 benchmarks/rank_peers.py EDGES PAGES [--threads 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import scipy.sparse


def scipy_pagerank(matrix: scipy.sparse.csr_matrix, dangling: np.ndarray, n: int,
                   tolerance: float, max_iterations: int) -> tuple[int, float]:
    """Jacobi power iteration as networkx's _pagerank_scipy does; returns (iterations, s)."""
    x = np.full(n, 1.0 / n)
    p = np.full(n, 1.0 / n)
    start = time.perf_counter()
    for iteration in range(1, max_iterations + 1):
        last = x
        x = 0.85 * (x @ matrix + last[dangling].sum() * p) + 0.15 * p
        if np.abs(x - last).sum() <= tolerance:
            break
    return iteration, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("edges")
    parser.add_argument("pages", type=int)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()
    n = args.pages
    pairs = np.fromfile(args.edges, dtype="<u4").reshape(-1, 2)
    print(f"pages {n}\nlinks {len(pairs)}")

    out_degree = np.bincount(pairs[:, 0], minlength=n).astype(float)
    weights = 1.0 / out_degree[pairs[:, 0]]
    matrix = scipy.sparse.csr_matrix((weights, (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    dangling = np.flatnonzero(out_degree == 0)
    times = []
    for _ in range(args.repeats):
        iterations, seconds = scipy_pagerank(matrix, dangling, n, 0.0, args.iterations)
        times.append(seconds / iterations)
    print(f"scipy_t1_seconds_per_iteration {statistics.median(times):.4f}")
    for tolerance in (1e-4, 1e-6):
        iterations, seconds = scipy_pagerank(matrix, dangling, n, tolerance, 1000)
        print(f"tol_{tolerance:g}_scipy_iterations {iterations}")
        print(f"tol_{tolerance:g}_scipy_seconds {seconds:.3f}")
    del matrix

    try:
        import graph_tool.all as gt
    except ImportError:
        print("graph_tool missing (apt-get install python3-graph-tool)")
        return
    gt.openmp_set_num_threads(args.threads)
    graph = gt.Graph(directed=True)
    graph.add_vertex(n)
    graph.add_edge_list(pairs)
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        gt.pagerank(graph, damping=0.85, epsilon=0.0, max_iter=args.iterations)
        times.append((time.perf_counter() - start) / args.iterations)
    print(f"graph_tool_t{args.threads}_seconds_per_iteration {statistics.median(times):.4f}")
    for tolerance in (1e-4, 1e-6):
        start = time.perf_counter()
        _, iterations = gt.pagerank(graph, damping=0.85, epsilon=tolerance, ret_iter=True)
        print(f"tol_{tolerance:g}_graph_tool_iterations {iterations}")
        print(f"tol_{tolerance:g}_graph_tool_seconds {time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    main()
