"""The crawl-order tests' shared steps (test_crawl_order.py, test_crawl_topic.py): the
simulator of the build, and the graph of Python's manual that benchmarks/doc_suite.py
builds from Debian's python3.11-doc."""

from __future__ import annotations

import pathlib
import subprocess
import sys

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
