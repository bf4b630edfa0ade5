"""`pip install --no-build-isolation .` in a venv made with --system-site-packages works
offline (no index is reachable: --no-index), and the installed package runs a tiny crawl."""

from __future__ import annotations

import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs_crawlrank

ROOT = Path(__file__).resolve().parents[2]

TINY_CRAWL = r"""
import crawlrank, sys
assert crawlrank.__file__.startswith(sys.prefix), crawlrank.__file__
with crawlrank.PageDb(sys.argv[1]) as db, crawlrank.Scheduler(db, delay_ms=0) as s:
    s.add_seeds(["http://a.test/"])
    pages = {"http://a.test/": ["http://a.test/b", "http://a.test/c"], "http://a.test/b": ["http://a.test/c"]}
    while not s.stats().finished:
        for r in s.next(8):
            s.crawled(crawlrank.CrawledPage(r.url, pages.get(r.url, [])), r.lease)
    rank = db.rank("pagerank", save=False)
    print(db.info()["crawled_pages"], round(float(rank.scores.sum()), 6))
"""


def test_pip_installs_offline_into_a_venv(tmp_path):
    # A copy of the source tree as git would check it out (nothing from a build).
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    source = tmp_path / "src"
    for name in files:
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CRAWLRANK_PYTHON_DIR")}
    env["CRAWLRANK_BUILD_JOBS"] = "2"
    env["CRAWLRANK_UNOPTIMIZED"] = "1"  # what is tested is the install, not the code's speed
    proc = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation",
                           "--no-index", "--no-deps", str(source)],
                          env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    run = subprocess.run([str(python), "-c", TINY_CRAWL, str(tmp_path / "db")], env=env,
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["3", "1.0"]
