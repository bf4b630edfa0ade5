"""crawlrank's bindings under Python threads (issue #23): the first numpy call from
several threads.

It runs in fresh interpreters (subprocesses with a timeout): what it checks happens once
per process, at the first numpy call.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

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
