"""examples/scrapy_project works as the README says: `scrapy crawl site` on crawlrank's
native scheduler, and the same project through Frontera with its frontera_settings."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doc_site import DocSite

pytestmark = pytest.mark.needs_crawlrank

ROOT = Path(__file__).resolve().parents[2]


def project(tmp_path: Path) -> Path:
    copy = tmp_path / "scrapy_project"
    shutil.copytree(ROOT / "examples" / "scrapy_project", copy)
    return copy


def run(cwd: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    proc = subprocess.run(["/usr/bin/python3", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def crawled_pages(db: Path) -> int:
    import crawlrank

    with crawlrank.PageDb(str(db), read_only=True) as pdb:
        return pdb.info()["crawled_pages"]


def test_native_scheduler_project(tmp_path):
    cwd = project(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.environ["CRAWLRANK_PYTHON_DIR"])
    with DocSite() as site:
        start = f"http://{site.host}/index.html"
        args = ["-m", "scrapy", "crawl", "site", "-a", f"start_url={start}", "-s",
                "CRAWLRANK_MAX_PAGES=40", "-s", "DOWNLOAD_DELAY=0", "-s", "ROBOTSTXT_OBEY=False"]
        proc = run(cwd, *args, env=env)
        assert "'finish_reason': 'finished'" in proc.stderr
        assert crawled_pages(cwd / "site.crawlrank") == 40
        # Run again: the crawl goes on from its PageDB.
        run(cwd, *args[:-6], "-s", "CRAWLRANK_MAX_PAGES=60", "-s", "DOWNLOAD_DELAY=0", "-s",
            "ROBOTSTXT_OBEY=False", env=env)
        assert crawled_pages(cwd / "site.crawlrank") == 60
        assert len(site.paths()) == 60  # nothing fetched twice


def test_frontera_settings_project(tmp_path):
    frontera_dir = os.environ.get("CRAWLRANK_FRONTERA_DIR")
    if not frontera_dir and importlib.util.find_spec("frontera") is None:
        pytest.skip("Frontera is not on the path (CRAWLRANK_FRONTERA_DIR)")
    cwd = project(tmp_path)
    paths = [os.environ["CRAWLRANK_PYTHON_DIR"], str(cwd)]
    paths += [frontera_dir] if frontera_dir else [p for p in sys.path if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths),
               SCRAPY_SETTINGS_MODULE="docs_crawl.frontera_settings")
    with DocSite() as site:
        start = f"http://{site.host}/index.html"
        proc = subprocess.run(["/usr/bin/python3", "-m", "crawlrank.frontera.add_seeds",
                               "--config", "docs_crawl.frontera_settings", "--seeds-file", "-"],
                              input=start + "\n", cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        run(cwd, "-m", "scrapy", "crawl", "site", "-a", f"start_url={start}", "-a", "seeded=1",
            "-s", "CRAWLRANK_SCHEDULER_OPTIONS={\"max_pages\": 25}", "-s", "DOWNLOAD_DELAY=0",
            env=env)
        assert crawled_pages(cwd / "site-frontera.crawlrank") == 25
