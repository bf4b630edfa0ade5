"""page_db_rank against networkx on random graphs, and page_db_top's output.

The graph goes into a PageDB through page_db_load (an edge list of page ids), is ranked by
page_db_rank, and read back with page_db_dump --rank. networkx (Debian's python3-networkx)
computes the same ranks independently; the L1 distance must stay below 1e-6.
"""

from __future__ import annotations

import json
import pathlib

import pytest

import tool_runner

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # networkx 2.8 on scipy

nx = pytest.importorskip("networkx")
pytest.importorskip("scipy")


def run(bin_dir: pathlib.Path, tool: str, *args: object, expect: int = 0) -> str:
    """The tool's standard output, or its standard error when it is expected to fail."""
    proc = tool_runner.run(bin_dir, tool, *args, expect=expect)
    return proc.stdout if expect == 0 else proc.stderr


def random_graph(n: int, seed: int) -> "nx.DiGraph":
    graph = nx.gnp_random_graph(n, 4.0 / n, seed=seed, directed=True)
    for node in range(0, n, 9):  # some dangling pages
        graph.remove_edges_from(list(graph.out_edges(node)))
    graph.add_edge(n - 2, n - 1)  # every id up to n - 1 exists in the DB
    return graph


def load(bin_dir: pathlib.Path, graph: "nx.DiGraph", db: pathlib.Path) -> None:
    edges = db.parent / f"{db.name}.edges"
    edges.write_text("".join(f"{s} {t}\n" for s, t in sorted(graph.edges())))
    run(bin_dir, "page_db_load", db, edges)


def ranks(bin_dir: pathlib.Path, db: pathlib.Path, *columns: str) -> dict[str, list[float]]:
    args = [a for c in columns for a in ("--rank", c)]
    rows = [json.loads(line) for line in run(bin_dir, "page_db_dump", "info", db, "--json",
                                             *args).splitlines()]
    assert [row["index"] for row in rows] == list(range(len(rows)))
    return {c: [row[c] for row in rows] for c in columns}


def l1(ours: list[float], theirs: dict[int, float]) -> float:
    # networkx ranks every node of the graph; a short result must not pass.
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    return sum(abs(x - theirs.get(i, 0.0)) for i, x in enumerate(ours))


PRECISE = ("--tolerance", "1e-10", "--max-iterations", "1000")


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("mode", ["stream", "csr"])
def test_pagerank_and_hits_match_networkx(bin_dir, tmp_path, seed, mode):
    print(f"seed {seed}")
    graph = random_graph(400, seed)
    db = tmp_path / "db"
    load(bin_dir, graph, db)
    for algo, damping in (("pagerank", "0.85"), ("hits", "1")):  # 1: Kleinberg's HITS
        out = run(bin_dir, "page_db_rank", db, "--algo", algo, "--mode", mode,
                  "--damping", damping, *PRECISE)
        assert f"({mode} mode" in out and "(converged," in out
    got = ranks(bin_dir, db, "pagerank", "hits", "hubs")
    want = nx.pagerank(graph, alpha=0.85, tol=1e-13, max_iter=1000)
    assert l1(got["pagerank"], want) < 1e-6
    hubs, authorities = nx.hits(graph, max_iter=100000, tol=1e-13)
    assert l1(got["hits"], authorities) < 1e-6
    assert l1(got["hubs"], hubs) < 1e-6


def test_trustrank_matches_personalized_networkx(bin_dir, tmp_path):
    graph = random_graph(300, 7)
    db = tmp_path / "db"
    load(bin_dir, graph, db)
    trusted = [5, 17, 250]
    listing = tmp_path / "trusted.txt"
    listing.write_text("# trusted pages\n" + "".join(f"http://graph.invalid/{i}\n" for i in trusted))
    run(bin_dir, "page_db_rank", db, "--algo", "trustrank", "--trusted", listing, *PRECISE)
    want = nx.pagerank(graph, alpha=0.85, personalization={i: 1 for i in trusted}, tol=1e-13,
                       max_iter=1000)
    assert l1(ranks(bin_dir, db, "trustrank")["trustrank"], want) < 1e-6


def scipy_pagerank(n: int, edges: list[tuple[int, int]], damping: float = 0.85) -> "list[float]":
    """Plain power iteration with scipy.sparse, to an L1 change of 1e-13: dangling pages'
    rank spread over all pages, as docs/ranking.md defines PageRank."""
    import numpy as np
    import scipy.sparse as sp

    src = np.fromiter((s for s, _ in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((t for _, t in edges), dtype=np.int64, count=len(edges))
    out_degree = np.bincount(src, minlength=n).astype(float)
    weights = 1.0 / out_degree[src]
    matrix = sp.csr_matrix((weights, (dst, src)), shape=(n, n))  # column-stochastic
    dangling = out_degree == 0
    x = np.full(n, 1.0 / n)
    for _ in range(10000):
        nxt = damping * (matrix @ x + x[dangling].sum() / n) + (1 - damping) / n
        change = np.abs(nxt - x).sum()
        x = nxt
        if change < 1e-13:
            break
    return x.tolist()


def test_pagerank_over_partitions_matches_scipy_to_1e_9(bin_dir, tmp_path):
    # Over 2^16 pages the CSR kernel splits the in-links by partitions (rows within one,
    # bins across: src/rank/link_bins.h). Hosts of 40 ids, a quarter of the links anywhere,
    # as on graph W; every 11th page dangling.
    import random

    seed = 20261129
    print(f"seed {seed}")
    rng = random.Random(seed)
    n = 70000
    edges = set()
    for s in range(n):
        if s % 11 == 0:
            continue
        for _ in range(6):
            t = rng.randrange(n) if rng.random() < 0.25 else s // 40 * 40 + rng.randrange(40)
            edges.add((s, min(t, n - 1)))
    edges.add((n - 2, n - 1))
    edges = sorted(edges)
    db = tmp_path / "db"
    listing = tmp_path / "edges"
    listing.write_text("".join(f"{s} {t}\n" for s, t in edges))
    run(bin_dir, "page_db_load", db, listing)
    out = run(bin_dir, "page_db_rank", db, "--mode", "csr", "--threads", "2",
              "--tolerance", "1e-12", "--max-iterations", "1000")
    assert "(csr mode" in out and "(converged," in out
    got = ranks(bin_dir, db, "pagerank")["pagerank"]
    want = scipy_pagerank(n, edges)
    assert len(got) == n
    assert sum(abs(a - b) for a, b in zip(got, want)) < 1e-9


def test_indegree_counts_in_links(bin_dir, tmp_path):
    graph = random_graph(200, 11)
    db = tmp_path / "db"
    load(bin_dir, graph, db)
    run(bin_dir, "page_db_rank", db, "--algo", "indegree")
    got = ranks(bin_dir, db, "indegree")["indegree"]
    assert got == [float(graph.in_degree(i)) for i in range(len(got))]


def ranked_db(bin_dir: pathlib.Path, db: pathlib.Path, n: int, seed: int) -> list[float]:
    """Loads a random graph into db, ranks it with PageRank; returns the ranks by id."""
    load(bin_dir, random_graph(n, seed), db)
    run(bin_dir, "page_db_rank", db)
    return ranks(bin_dir, db, "pagerank")["pagerank"]


def by_rank(scores: list[float]) -> list[int]:
    """Page ids, best first; ties to the lower id (as page_db_top)."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def test_top_lists_the_best_pages_in_order(bin_dir, tmp_path):
    db = tmp_path / "db"
    scores = ranked_db(bin_dir, db, 300, 4)
    lines = run(bin_dir, "page_db_top", db, "--by", "pagerank", "-n", 10).splitlines()
    best = by_rank(scores)[:10]
    assert len(lines) == 10
    for line, index in zip(lines, best):
        fingerprint, url, score = line.split(" ")
        assert len(fingerprint) == 16 and url == f"http://graph.invalid/{index}"
        assert score == f"{scores[index]:.9g}"  # 9 significant digits


def test_rank_tools_errors(bin_dir, tmp_path):
    graph = random_graph(50, 2)
    db = tmp_path / "db"
    load(bin_dir, graph, db)
    assert "no hits rank stored" in run(bin_dir, "page_db_top", db, "--by", "hits", expect=1)
    assert "unknown --by" in run(bin_dir, "page_db_top", db, "--by", "nope", expect=2)
    assert "unknown rank algorithm" in run(bin_dir, "page_db_rank", db, "--algo", "x", expect=2)
    assert "damping" in run(bin_dir, "page_db_rank", db, "--damping", "2", expect=1)
    assert "--trusted goes with" in run(bin_dir, "page_db_rank", db, "--trusted", "f", expect=2)
    missing = tmp_path / "trusted.txt"
    missing.write_text("http://graph.invalid/999999\n")
    err = run(bin_dir, "page_db_rank", db, "--algo", "trustrank", "--trusted", missing, expect=1)
    assert "line 1" in err
    # A rank goes stale as the DB grows: newer pages have no value ('-').
    run(bin_dir, "page_db_rank", db)
    extra = tmp_path / "more.edges"
    extra.write_text("0 60\n")
    run(bin_dir, "page_db_load", db, extra)
    last = run(bin_dir, "page_db_dump", "info", db, "--rank", "pagerank").splitlines()[-1]
    assert last.endswith(" -")


def test_warm_start_and_cross_host_flags(bin_dir, tmp_path):
    graph = random_graph(300, 5)
    db = tmp_path / "db"
    load(bin_dir, graph, db)

    def iterations(out: str) -> int:
        return int(next(line.split()[1] for line in out.splitlines() if line.startswith("iterations")))

    cold = iterations(run(bin_dir, "page_db_rank", db, *PRECISE))
    warm = iterations(run(bin_dir, "page_db_rank", db, "--warm-start", *PRECISE))
    assert warm < cold / 2, (warm, cold)
    # Every page of an edge-list load sits on the host graph.invalid: no cross-host links,
    # so every page is dangling and the rank is uniform.
    out = run(bin_dir, "page_db_rank", db, "--cross-host", *PRECISE)
    assert "and 0 links" in out and "cross-host links only" in out
    assert set(ranks(bin_dir, db, "pagerank")["pagerank"]) == {1 / 300}


def test_top_uncrawled_skips_crawled_pages(bin_dir, tmp_path):
    first = tmp_path / "first"
    scores = ranked_db(bin_dir, first, 200, 6)
    best = by_rank(scores)
    crawled = set(best[:12:2])  # every other page of the top 12
    # The same graph with those pages crawled: edit the full dump, load it back.
    lines = []
    for line in run(bin_dir, "page_db_dump", "info", first, "--all").splitlines():
        fields = line.split(" ")
        if int(fields[1]) in crawled:
            fields[3:5] = ["1700000000.000", "1700000000.000"]  # first and last crawl
            fields[6] = "1"  # crawls
            fields[12] = "200"  # status
        lines.append(" ".join(fields))
    dump = tmp_path / "dump"
    dump.write_text("\n".join(lines) + "\n" + run(bin_dir, "page_db_dump", "links", first))
    db = tmp_path / "db"
    run(bin_dir, "page_db_load", db, dump)
    run(bin_dir, "page_db_rank", db)
    assert ranks(bin_dir, db, "pagerank")["pagerank"] == scores  # same graph, same ranks
    out = run(bin_dir, "page_db_top", db, "--by", "pagerank", "-n", 8, "--uncrawled").splitlines()
    want = [i for i in best if i not in crawled][:8]
    assert [line.split(" ")[1] for line in out] == [f"http://graph.invalid/{i}" for i in want]
    # --crawled: the others; --host: a name compared without case or trailing dot.
    out = run(bin_dir, "page_db_top", db, "--by", "pagerank", "-n", 4, "--crawled").splitlines()
    want = [i for i in best if i in crawled][:4]
    assert [line.split(" ")[1] for line in out] == [f"http://graph.invalid/{i}" for i in want]
    everything = run(bin_dir, "page_db_top", db, "--by", "pagerank", "-n", 5)
    assert run(bin_dir, "page_db_top", db, "--by", "pagerank", "-n", 5,
               "--host", "GRAPH.invalid.") == everything
    assert run(bin_dir, "page_db_top", db, "--by", "pagerank", "--host", "other.invalid") == ""
    assert "excludes" in run(bin_dir, "page_db_top", db, "--crawled", "--uncrawled", expect=2)
