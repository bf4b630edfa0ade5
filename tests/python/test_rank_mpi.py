"""crawlrank_rank_mpi under mpirun (docs/cluster.md, "Global ranks").

A seeded multi-host graph is loaded into one PageDB (page_db_load, URL pairs) and
resharded over N nodes (crawlrank reshard); `mpirun -n N crawlrank_rank_mpi --db ...`
(each MPI rank opening its node's PageDB) must store, in each node's
ranks/global/ALGO.rank, ranks that agree page by page (by URL) with page_db_rank on the
one PageDB, to 1e-9 in L1. Then an MPI rank killed with SIGKILL at a random point of a
run leaves every node's previous files whole and usable, and a rerun gives the same ranks.
Skips without the job (no MPI at build time) or mpirun.
"""
from __future__ import annotations

import json
import os
import pathlib
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

import pytest

import tool_runner

SEED = int(os.environ.get("CRAWLRANK_MPI_SEED", "0")) or random.randrange(1, 2**31)


def mpirun_command(n: int) -> list[str]:
    """mpirun for n processes on this machine, whatever its cores and user."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("no mpirun (openmpi-bin)")
    cmd = [mpirun, "-n", str(n), "--oversubscribe",
           # Containers may refuse the shared-memory transport's single copy (CMA).
           "--mca", "btl_vader_single_copy_mechanism", "none"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")  # Open MPI refuses root otherwise
    return cmd


@pytest.fixture(scope="module")
def job(bin_dir: pathlib.Path) -> pathlib.Path:
    path = bin_dir / "crawlrank_rank_mpi"
    if not path.exists():
        pytest.skip("crawlrank_rank_mpi not built (MPI not found at build time)")
    return path


def write_graph(path: pathlib.Path, seed: int) -> None:
    """URL pairs over 12 hosts of 40 pages: a third of the links leave their host, and
    pages past 30 of each host are linked to but link nowhere."""
    rng = random.Random(seed)
    lines = []
    for h in range(12):
        for p in range(30):
            for _ in range(rng.randrange(0, 7)):
                host = rng.randrange(12) if rng.random() < 1 / 3 else h
                lines.append(f"http://h{h}.example/p{p} http://h{host}.example/p{rng.randrange(40)}\n")
    path.write_text("".join(lines))


def nodes(n: int) -> str:
    return ",".join(f"127.0.0.1:{7201 + i}" for i in range(n))


def read_rank_file(path: pathlib.Path) -> tuple[list[float], dict]:
    """A rank file's first vector and, for version 3, its run (docs/format.md)."""
    data = path.read_bytes()
    assert data[:8] == b"CRWLRANK"
    version, = struct.unpack_from("<I", data, 8)
    pages, = struct.unpack_from("<Q", data, 40)
    run = {}
    start = 128
    if version == 3:
        run_id, shard, shards, total_pages = struct.unpack_from("<QIIQ", data, 128)
        run = {"run": run_id, "shard": shard, "shards": shards, "pages": total_pages}
        start = 176
    return list(struct.unpack_from(f"<{pages}d", data, start)), run


def urls_by_id(bin_dir: pathlib.Path, db: pathlib.Path) -> dict[int, str]:
    out = tool_runner.run(bin_dir, "page_db_dump", "info", db, "--json", "--ghosts").stdout
    return {row["index"]: row["url"] for row in map(json.loads, out.splitlines())}


def global_ranks(bin_dir: pathlib.Path, shards: list[pathlib.Path], algo: str):
    """Ranks by URL from every shard's global file, and the runs of those files."""
    by_url, runs = {}, []
    for db in shards:
        scores, run = read_rank_file(db / "ranks" / "global" / f"{algo}.rank")
        runs.append(run)
        for i, url in urls_by_id(bin_dir, db).items():
            if url in by_url:
                assert by_url[url] == scores[i], url  # a ghost holds its owner's value
            by_url[url] = scores[i]
    return by_url, runs


def cluster(bin_dir: pathlib.Path, tmp: pathlib.Path, n: int) -> tuple[pathlib.Path, list]:
    whole = tmp / "whole"
    if not whole.exists():
        write_graph(tmp / "pairs", SEED)
        tool_runner.run(bin_dir, "page_db_load", whole, tmp / "pairs")
    tool_runner.run(bin_dir, "crawlrank", "reshard", whole, "--nodes", nodes(n),
                    "--out", tmp / f"n{n}")
    return whole, [tmp / f"n{n}.{i}" for i in range(n)]


PRECISE = ["--tolerance", "1e-13", "--max-iterations", "3000"]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_the_union_of_the_nodes_global_ranks_is_the_one_page_dbs_rank(bin_dir, job, tmp_path, n):
    print(f"seed {SEED}")
    whole, shards = cluster(bin_dir, tmp_path, n)
    for algo in ["pagerank", "ppr", "trustrank", "hits", "topic-hits", "wpr"]:
        tool_runner.run(bin_dir, "page_db_rank", whole, "--algo", algo, "--mode", "csr",
                        "--extrapolate", "0", *PRECISE)
        want, _ = read_rank_file(whole / "ranks" / f"{algo}.rank")
        want_by_url = {url: want[i] for i, url in urls_by_id(bin_dir, whole).items()}
        proc = subprocess.run(
            mpirun_command(n) + [str(job), "--algo", algo, "--threads", "1", *PRECISE]
            + [a for db in shards for a in ("--db", str(db))],
            capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "(converged," in proc.stdout, proc.stdout
        got, runs = global_ranks(bin_dir, shards, algo)
        assert sorted(got) == sorted(want_by_url)
        assert sum(abs(got[u] - want_by_url[u]) for u in got) <= 1e-9
        assert len({r["run"] for r in runs}) == 1
        assert [r["shard"] for r in runs] == list(range(n))
        assert all(r["shards"] == n and r["pages"] == len(want) for r in runs)


def test_the_job_refuses_a_page_db_given_as_another_node(bin_dir, job, tmp_path):
    _, shards = cluster(bin_dir, tmp_path, 2)
    proc = subprocess.run(
        mpirun_command(2) + [str(job), "--db", str(shards[1]), "--db", str(shards[0])],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "is node 1 of 2" in proc.stderr and "opens it as node 0 of 2" in proc.stderr, proc.stderr
    assert not (shards[0] / "ranks" / "global" / "pagerank.rank").exists()


def ranks_of(proc: subprocess.Popen, n: int) -> list[int]:
    """The pids of mpirun `proc`'s n job processes, once it has started them all; none
    when the job ended first (it then succeeded)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "crawlrank_rank_mpi"],
                               capture_output=True, text=True).stdout.split()
        if len(found) == n:
            return [int(p) for p in found]
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    out, err = proc.communicate(timeout=60)
    # A job that ended (successfully) before its processes were seen has none left.
    assert proc.returncode == 0, f"mpirun did not run {n} processes: exit {proc.returncode}\n{out}\n{err}"
    return []


def kill_one(proc: subprocess.Popen, n: int, rng: random.Random) -> int | None:
    """SIGKILL to one of the running job's processes, chosen by `rng`; None when the job
    ended first (it then succeeded)."""
    ranks = ranks_of(proc, n)
    if not ranks:
        return None
    victim = rng.choice(ranks)
    try:
        os.kill(victim, signal.SIGKILL)
    except ProcessLookupError:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, f"exit {proc.returncode}\n{out}\n{err}"
        return None
    return victim


def end_after_kill(proc: subprocess.Popen, tmp_path: pathlib.Path) -> None:
    """Waits for mpirun to end after one of its processes was killed. Open MPI 4.1 can hang
    when a process dies inside MPI_Init (the others wait in its start-up fence); an operator
    would then kill the job, and so does this: every process whose command line names this
    test's directory. The files the test checks next are whatever the kills left."""
    try:
        proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        print("mpirun still running 60 s after the kill: killing the job's processes")
        subprocess.run(["pkill", "-KILL", "-f", str(tmp_path)], check=False)
        proc.communicate(timeout=60)


def test_a_rank_killed_mid_run_leaves_the_last_run_and_a_rerun_gives_the_same(
        bin_dir, job, tmp_path):
    # The job is killed at a random point of its own run time: before the nodes meet, every
    # node keeps the last run; after, each node has that run or the new one (whole files);
    # a job that ended first wrote a new run on every node. The ranks are the same either way.
    print(f"seed {SEED}")
    rng = random.Random(SEED)
    n = 3
    _, shards = cluster(bin_dir, tmp_path, n)
    command = mpirun_command(n) + [str(job), "--threads", "1", *PRECISE] + [
        a for db in shards for a in ("--db", str(db))]
    start = time.monotonic()
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    duration = time.monotonic() - start
    before, before_runs = global_ranks(bin_dir, shards, "pagerank")
    killed = 0
    for attempt in range(6):
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        delay = rng.uniform(0, duration / 2)  # the run itself is shorter than mpirun
        time.sleep(delay)
        victim = kill_one(proc, n, rng)
        end_after_kill(proc, tmp_path)
        after, after_runs = global_ranks(bin_dir, shards, "pagerank")
        new = {r["run"] for r in after_runs} - {r["run"] for r in before_runs}
        print(f"attempt {attempt}: SIGKILL to {victim} after {delay:.2f} s of {duration:.2f}: "
              f"exit {proc.returncode}, runs {[r['run'] for r in after_runs]}")
        if victim is None:
            assert len({r["run"] for r in after_runs}) == 1 and new
        else:
            killed += 1
            assert proc.returncode != 0 and len(new) <= 1
        assert sum(abs(after[u] - before[u]) for u in after) <= 1e-12
        before_runs = after_runs
    assert killed >= 1, "every job ended before its kill"
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    again, again_runs = global_ranks(bin_dir, shards, "pagerank")
    assert len({r["run"] for r in again_runs}) == 1 and again_runs != before_runs
    assert sum(abs(again[u] - before[u]) for u in again) <= 1e-12
    leftovers = [p for db in shards for p in (db / "ranks" / "global").iterdir()
                 if ".tmp." in p.name]
    assert leftovers == []

def test_the_nodes_top_lists_by_global_pagerank_merge_into_the_whole_crawls(
        bin_dir, job, tmp_path):
    whole, shards = cluster(bin_dir, tmp_path, 3)
    tool_runner.run(bin_dir, "page_db_rank", whole, "--mode", "csr", "--extrapolate", "0",
                    *PRECISE)
    subprocess.run(mpirun_command(3) + [str(job), *PRECISE]
                   + [a for db in shards for a in ("--db", str(db))],
                   check=True, capture_output=True, timeout=300)

    def top(db: pathlib.Path, by: str) -> list[tuple[str, float]]:
        out = tool_runner.run(bin_dir, "page_db_top", db, "--by", by, "-n", "8").stdout
        return [(line.split()[1], float(line.split()[2])) for line in out.splitlines()
                if line and not line.startswith("ranked ")]

    want = top(whole, "pagerank")
    lists = [top(db, "global-pagerank") for db in shards]
    urls = [u for li in lists for u, _ in li]
    assert len(urls) == len(set(urls))  # a ghost is listed by its owner only
    merged = sorted((p for li in lists for p in li), key=lambda p: -p[1])[:8]
    assert [u for u, _ in merged] == [u for u, _ in want]
    assert all(abs(a[1] - b[1]) < 1e-9 for a, b in zip(merged, want))
    head = tool_runner.run(bin_dir, "page_db_top", shards[1], "--by", "global-pagerank",
                           "-n", "1").stderr
    assert "node 1 of a global rank over 3 nodes" in head, head


def test_page_db_check_names_the_run_of_every_node_and_reports_a_mix(bin_dir, job, tmp_path):
    _, shards = cluster(bin_dir, tmp_path, 3)
    args = mpirun_command(3) + [str(job)] + [a for db in shards for a in ("--db", str(db))]
    subprocess.run(args, check=True, capture_output=True, timeout=300)
    first = (shards[1] / "ranks" / "global" / "pagerank.rank").read_bytes()
    out = tool_runner.run(bin_dir, "page_db_check", "--quick", *shards).stdout
    assert "global pagerank: run " in out and " on 3 of 3 nodes" in out, out
    subprocess.run(args, check=True, capture_output=True, timeout=300)
    # Node 1 as if its process had died after the meeting, before its rename.
    (shards[1] / "ranks" / "global" / "pagerank.rank").write_bytes(first)
    out = tool_runner.run(bin_dir, "page_db_check", "--quick", *shards).stdout
    assert "global pagerank: a mix of 2 runs:" in out, out
    assert f"on node 1 ({shards[1]});" in out and f"node 0 ({shards[0]}), node 2" in out, out


@pytest.mark.needs_crawlrank
def test_python_and_the_dashboard_read_a_nodes_global_rank(bin_dir, job, tmp_path):
    import crawlrank

    from dashboard_util import Dashboard

    _, shards = cluster(bin_dir, tmp_path, 2)
    proc = subprocess.run(mpirun_command(2) + [str(job)]
                          + [a for db in shards for a in ("--db", str(db))],
                          check=True, capture_output=True, text=True, timeout=300)
    run_line = [line for line in proc.stdout.splitlines() if line.startswith("run ")][0]
    with crawlrank.PageDb(str(shards[1]), read_only=True) as db:
        rank = db.load_rank("global-pagerank")
        run = rank.global_run
        assert f"{run['run']:016x}" == run_line.split()[1]
        assert (run["node"], run["nodes"]) == (1, 2)
        top = db.top(5, by="global-pagerank")
        urls = {url for url, _ in top}
        with pytest.raises(crawlrank.InvalidArgumentError):
            db.top(5, by="global-indegree")
    with Dashboard(bin_dir, shards[1]) as dash:
        got = dash.json("api/top?n=5&by=global-pagerank")
        assert {row["url"] for row in got["rows"]} == urls
        assert got["global"]["node"] == 1 and got["global"]["run"] == run["run"]
        assert dash.get("api/top?by=global-nonsense")[0] == 400


def test_cluster_sh_runs_the_job_every_so_often_and_stop_ends_it(bin_dir, job, tmp_path):
    script = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "cluster.sh"
    env = dict(os.environ, CRAWLRANK_BIN=str(bin_dir / "crawlrank"))
    base = str(random.Random(SEED).randrange(20000, 40000))
    out = subprocess.run([str(script), "start", "2", str(tmp_path / "cl"), "--base-port", base,
                          "--rank-every", "1"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    try:
        log = tmp_path / "cl" / "rank.log"
        deadline = time.monotonic() + 60
        while log.read_text().count("saved ") < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert log.read_text().count("saved ") >= 2, log.read_text()
        once = subprocess.run([str(script), "rank", str(tmp_path / "cl"), "--", "--algo", "hits"],
                              env=env, capture_output=True, text=True, timeout=120)
        assert once.returncode == 0 and "hits over 2 nodes" in once.stdout, once.stderr
    finally:
        stopped = subprocess.run([str(script), "stop", str(tmp_path / "cl")], env=env,
                                 capture_output=True, text=True, timeout=120)
    assert stopped.stdout.strip().endswith("stopped 2 nodes of " + str(tmp_path / "cl")
                                           + " and its global ranks"), stopped.stdout
    for db in ("node0", "node1"):
        assert (tmp_path / "cl" / db / "ranks" / "global" / "pagerank.rank").exists()
    assert subprocess.run(["pgrep", "-f", str(tmp_path / "cl")]).returncode == 1


DOC_SITES = {  # name -> a Debian documentation package's HTML, served on 127.0.0.1
    "python.docs.test": pathlib.Path("/usr/share/doc/python3.11/html"),
    "lmdb.docs.test": pathlib.Path("/usr/share/doc/lmdb-doc/html"),
    "pg.docs.test": pathlib.Path("/usr/share/doc/postgresql-doc-15/html"),
}


def test_a_crawl_of_three_doc_sites_over_three_nodes_ranks_as_one_page_db(bin_dir, job,
                                                                          tmp_path):
    # Three `crawlrank serve` nodes (scripts/cluster.sh) crawled by `crawlrank crawl` over
    # three documentation sites; the crawl's one PageDB is the nodes resharded onto one
    # node. Their links to pages off the sites (docs.python.org, ...) are dangling pages of
    # whichever node owns those hosts: ghosts on the node of the linking page.
    if not (bin_dir / "crawlrank_serve").exists():
        pytest.skip("no crawlrank_serve (built without gRPC)")
    missing = [str(p) for p in DOC_SITES.values() if not (p / "index.html").exists()]
    if missing:
        pytest.skip(f"documentation packages not installed: {missing}")
    script = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "cluster.sh"
    env = dict(os.environ, CRAWLRANK_BIN=str(bin_dir / "crawlrank"))
    servers, resolve, seeds = [], [], []
    base = str(random.Random(SEED + 1).randrange(20000, 40000))
    cl = tmp_path / "cl"
    try:
        for name, root in DOC_SITES.items():
            server = subprocess.Popen([sys.executable, "-m", "http.server", "0", "--bind",
                                       "127.0.0.1", "--directory", str(root)],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            servers.append(server)
            port = int(server.stdout.readline().split(" port ")[1].split()[0])
            resolve += ["--resolve", f"{name}:{port}:127.0.0.1"]
            seeds.append(f"http://{name}:{port}/index.html")
        allow = "^http://(" + "|".join(re.escape(n) for n in DOC_SITES) + "):"
        subprocess.run([str(script), "start", "3", str(cl), "--base-port", base, "--",
                        "--delay", "0", "--per-host", "4", "--no-rank-at-exit",
                        "--max-pages", "1200", "--allow", allow],
                       env=env, check=True, capture_output=True, timeout=120)
        frontier = ",".join(f"127.0.0.1:{int(base) + i}" for i in range(3))
        # The seeds before --resolve, whose values run on to the next option.
        subprocess.run([str(bin_dir / "crawlrank"), "crawl", *seeds, "--frontier", frontier,
                        "--allow-private", "--quiet", *resolve],
                       check=True, capture_output=True, timeout=600)
    finally:
        subprocess.run([str(script), "stop", str(cl)], env=env, capture_output=True, timeout=120)
        for server in servers:
            server.kill()
            server.communicate()
    shards = [cl / f"node{i}" for i in range(3)]  # the list's order: ports of one length
    tool_runner.run(bin_dir, "crawlrank", "reshard", *shards, "--nodes", "127.0.0.1:1",
                    "--out", tmp_path / "one")
    whole = tmp_path / "one.0"
    tool_runner.run(bin_dir, "page_db_rank", whole, "--mode", "csr", "--extrapolate", "0",
                    *PRECISE)
    want, _ = read_rank_file(whole / "ranks" / "pagerank.rank")
    want_by_url = {url: want[i] for i, url in urls_by_id(bin_dir, whole).items()}
    assert len(want_by_url) >= 1000
    proc = subprocess.run(mpirun_command(3) + [str(job), *PRECISE]
                          + [a for db in shards for a in ("--db", str(db))],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ghosts = sum(int(line.split(" ghosts")[0].split()[-1]) for line in proc.stdout.splitlines()
                 if line.startswith("node "))
    assert ghosts > 0, proc.stdout
    got, runs = global_ranks(bin_dir, shards, "pagerank")
    assert sorted(got) == sorted(want_by_url)
    assert sum(abs(got[u] - want_by_url[u]) for u in got) <= 1e-9
    assert len({r["run"] for r in runs}) == 1
