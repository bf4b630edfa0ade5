"""A seeded subset of the damage run (damage.py): 50 damaged copies, every tool on each.

No tool may crash on a damaged or cut-short data.mdb, and damage is never written over or
copied. The full run (300 flips, 100 cuts) is scripts/damage.sh. The seed is printed and can
be set with CRAWLRANK_DAMAGE_SEED.
"""

from __future__ import annotations

import os
import pathlib

import damage


def test_no_tool_crashes_on_damaged_copies(bin_dir: pathlib.Path) -> None:
    seed = int(os.environ.get("CRAWLRANK_DAMAGE_SEED", "20261123"))
    print(f"damage seed {seed}")
    failures: list[str] = []
    results = damage.run_all(bin_dir, seed, flips=36, truncations=14, medium_pages=12000,
                             log=lambda line: (print(line), failures.append(line)))
    text, clean = damage.summary(results)
    print(text)
    assert clean, f"seed {seed}\n" + "\n".join(failures) + "\n" + text
    # The damage reached the data: some copies must have been refused.
    refused = sum(1 for r in results
                  if any(o.tool == "page_db_check" and o.kind != "ok" for o in r.outcomes))
    assert refused >= 10, text
