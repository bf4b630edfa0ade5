"""A seeded subset of the damage run (damage.py): 62 damaged copies (20 under ASan), every
tool on each.

No tool may crash on a damaged or cut-short data.mdb, and damage is never written over or
copied. The full run (300 flips, 100 zeroed pages, 100 cuts) is
scripts/damage.sh. The seed is printed and can
be set with CRAWLRANK_DAMAGE_SEED.
"""

from __future__ import annotations

import os
import pathlib

import damage

SANITIZED = os.environ.get("CRAWLRANK_SANITIZED") == "1"


def test_no_tool_crashes_on_damaged_copies(bin_dir: pathlib.Path) -> None:
    seed = int(os.environ.get("CRAWLRANK_DAMAGE_SEED", "20261123"))
    print(f"damage seed {seed}")
    failures: list[str] = []
    # Under ASan every tool process starts slowly: a third of the copies there checks memory
    # safety, the Release pass runs them all (as CRAWLRANK_ROBOTS_FILES does for robots.txt).
    share = 3 if SANITIZED else 1
    results = damage.run_all(bin_dir, seed, flips=36 // share, truncations=14 // share,
                             medium_pages=12000, zeroes=12 // share,
                             log=lambda line: (print(line), failures.append(line)))
    text, clean = damage.summary(results)
    print(text)
    assert clean, f"seed {seed}\n" + "\n".join(failures) + "\n" + text
    # The damage reached the data: some copies must have been refused.
    refused = sum(1 for r in results
                  if any(o.tool == "page_db_check" and o.kind != "ok" for o in r.outcomes))
    assert refused >= 10 // share, text


def test_each_page_of_a_crawl_db_zeroed_in_turn(bin_dir: pathlib.Path, tmp_path) -> None:
    """Issue #41: a zeroed LMDB page made liblmdb assert (SIGABRT) in 40 of 712 runs of the
    reading tools on a small crawl DB. Each page is zeroed in turn: every reader exits 0, or
    1 with one line naming page_db_check. The dashboard answers the request that met the
    damage with an error and keeps serving."""
    import shutil
    import subprocess

    from crawl_site import CrawlSite
    from dashboard_util import Dashboard

    sound = tmp_path / "crawl.db"
    with CrawlSite(pages=150) as site:  # about 50 LMDB pages, 2 of which LMDB asserts on
        subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(sound),
                        f"http://{site.host}/gen/0.html", "--allow-private", "--quiet",
                        "--delay", "0", "--same-host", "--max-retries", "0"],
                       check=True, capture_output=True, timeout=120)
    copy = tmp_path / "copy"
    readers = [["page_db_stats", str(copy)], ["page_db_schedule", str(copy), "--hosts"],
               ["page_db_dump", "info", str(copy), "--all"], ["page_db_dump", "links", str(copy)],
               ["page_db_failed", str(copy)], ["page_db_broken", str(copy)],
               ["page_db_top", str(copy), "-n", "5"], ["page_db_find", str(copy), "gen"]]
    pages = (sound / "data.mdb").stat().st_size // 4096
    crashes, asserted = [], []
    for page in range(pages):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(sound, copy, ignore=shutil.ignore_patterns("lock.mdb"))
        damage.zero_page(copy / "data.mdb", page)
        # Under ASan each page meets half the readers, in turn (every reader still meets
        # every other page); the Release pass runs all of them on every page.
        for argv in readers[page % 2::2] if SANITIZED else readers:
            outcome = damage.run_tool(bin_dir, argv)
            if outcome.kind == "CRASH":
                crashes.append(f"page {page}: {' '.join(argv[:2])}: exit {outcome.returncode}: "
                               f"{outcome.stderr[-500:]}")
            elif "LMDB met a damaged page" in outcome.stderr:
                asserted.append(page)
    print(f"{pages} pages; LMDB asserted with pages {sorted(set(asserted))} zeroed")
    assert crashes == [], "\n".join(crashes)
    if not asserted:
        return  # nothing here made LMDB assert: the dashboard half has no page to use
    shutil.rmtree(copy)
    shutil.copytree(sound, copy, ignore=shutil.ignore_patterns("lock.mdb"))
    damage.zero_page(copy / "data.mdb", asserted[0])
    with Dashboard(bin_dir, copy) as board:
        answers = {path: board.get(path)[0] for path in
                   ("api/summary", "api/hosts", "api/top", "api/failures", "")}
        assert set(answers.values()) <= {200, 500}, answers
        # Still serving, after whatever met the damage.
        assert 500 in answers.values(), answers  # the damage met, and said
        assert board.get("static/dashboard.css")[0] == 200
        assert board.proc.poll() is None
