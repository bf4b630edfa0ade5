"""Shared fixtures of the pytest suite that drives crawlrank's command-line tools.

The tools come from a CMake build: point CRAWLRANK_TOOLS_DIR at its tools/ folder
(ctest does, see tests/CMakeLists.txt). Without it, every test that needs a tool is
skipped, so `pytest tests/python` still runs cleanly from a bare checkout.
"""
import os
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def bin_dir() -> Path:
    """The folder holding the built tools (crawlrank_url, page_db_*)."""
    value = os.environ.get("CRAWLRANK_TOOLS_DIR")
    if not value:
        pytest.skip("CRAWLRANK_TOOLS_DIR is not set (point it at <build>/tools)")
    path = Path(value)
    if not path.is_dir():
        pytest.fail(f"CRAWLRANK_TOOLS_DIR={value}: not a directory")
    return path


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data of the source tree."""
    return TESTS_DIR / "data"


# The crawlrank Python package comes from the CMake build too: CRAWLRANK_PYTHON_DIR is the
# folder holding build/python/crawlrank (ctest sets it when the module is built; the
# sanitizer build has no module). Without it, tests of the package skip; with it, a package
# that fails to import fails them.
PYTHON_DIR = os.environ.get("CRAWLRANK_PYTHON_DIR")
if PYTHON_DIR:
    import sys

    sys.path.insert(0, PYTHON_DIR)
# Frontera's snapshot (ctest sets CRAWLRANK_FRONTERA_DIR when ../shared/vendor has one).
FRONTERA_DIR = os.environ.get("CRAWLRANK_FRONTERA_DIR")
if FRONTERA_DIR:
    import sys

    sys.path.append(FRONTERA_DIR)


def pytest_collection_modifyitems(config, items):
    """Skips the tests marked `needs_crawlrank` when no built package is given."""
    if PYTHON_DIR:
        return
    skip = pytest.mark.skip(reason="CRAWLRANK_PYTHON_DIR is not set (point it at <build>/python)")
    for item in items:
        if "needs_crawlrank" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "needs_crawlrank: imports the crawlrank package built by CMake")
