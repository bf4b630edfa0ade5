"""crawlrank's bindings under Python threads: the first numpy call from several threads,
a daemon thread inside a call while the interpreter exits, and ranks saved from two
threads at once (issue #23).

The first two run in fresh interpreters (subprocesses with a timeout): what they check
happens once per process, at the first numpy call or at exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading

import pytest

pytestmark = pytest.mark.needs_crawlrank


def run_python(code: str, tmp_path, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter that imports crawlrank from the build. A hang
    fails the test (subprocess.TimeoutExpired) instead of blocking the suite."""
    env = dict(os.environ, PYTHONPATH=os.environ["CRAWLRANK_PYTHON_DIR"])
    tmp_path.mkdir()
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=timeout)


def test_threads_whose_first_numpy_call_races_do_not_hang(tmp_path):
    """pybind11 sets numpy up on its first array, under a C++ static guard, with the GIL
    held: four threads whose first call returned an array, with numpy not imported yet,
    deadlocked every time. The module now does it when it is imported."""
    code = """
        import sys, threading
        assert "numpy" not in sys.modules
        import crawlrank
        db = crawlrank.PageDb(sys.argv[1] + "/db")
        db.add(crawlrank.CrawledPage("http://a.test/", ["http://a.test/b", "http://a.test/c"]))
        sizes = []
        def first_numpy_call():
            with db.snapshot() as snap:
                sources, targets = snap.edges()
            sizes.append(len(sources))
        threads = [threading.Thread(target=first_numpy_call) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(sizes)
    """
    for run in range(3):
        result = run_python(code, tmp_path / str(run), timeout=30)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "[2, 2, 2, 2]"


# A daemon thread calls into crawlrank in a loop while the main thread exits. CPython ends
# such a thread when it takes the GIL back during finalization; through pybind11's
# gil_scoped_release destructor that aborted the process (`terminate called without an
# active exception`, rc 134), 20 runs in 20: what `scrapy shell` did at exit.
DAEMON_CALLS = {
    "stats": """
        sched = crawlrank.Scheduler(db)
        sched.add_seeds(["http://a.test/"])
        def loop():
            while True:
                sched.stats()
    """,
    # Snapshots opened and dropped: their destructor releases the GIL too.
    "snapshots and writes": """
        def loop():
            i = 0
            while True:
                i += 1
                db.add(crawlrank.CrawledPage(f"http://a.test/{i}", ["http://a.test/"]))
                with db.snapshot() as snap:
                    len(snap)
                db.snapshot()
    """,
}


@pytest.mark.parametrize("calls", sorted(DAEMON_CALLS))
def test_a_daemon_thread_in_a_call_does_not_abort_the_exit(tmp_path, calls):
    code = "\n".join(textwrap.dedent(part) for part in ("""
        import sys, threading, time
        import crawlrank
        db = crawlrank.PageDb(sys.argv[1] + "/db")
    """, DAEMON_CALLS[calls], """
        for _ in range(2):
            threading.Thread(target=loop, daemon=True).start()
        time.sleep(0.02)
        print("exiting")
    """))
    for run in range(20):
        result = run_python(code, tmp_path / str(run), timeout=30)
        assert (result.returncode, result.stdout, result.stderr) == (0, "exiting\n", ""), \
            f"run {run}"


def test_two_threads_save_one_rank_at_once(tmp_path):
    """Both saves used the temp file `ranks/pagerank.rank.tmp.<pid>`; one of the two failed
    with IoError about half the time."""
    import crawlrank

    with crawlrank.PageDb(str(tmp_path / "db"), durability="none") as db:
        db.add_batch([crawlrank.CrawledPage(f"http://a.test/{i}",
                                            [f"http://a.test/{i // k}" for k in range(2, 6)])
                      for i in range(500)])
        expected = db.rank("pagerank", save=False).scores
        errors: list[BaseException] = []

        def rank():
            for _ in range(20):
                try:
                    db.rank("pagerank")
                except crawlrank.Error as e:
                    errors.append(e)

        threads = [threading.Thread(target=rank) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert (db.load_rank("pagerank").scores == expected).all()
    assert sorted(p.name for p in (tmp_path / "db" / "ranks").iterdir()) == ["pagerank.rank"]
