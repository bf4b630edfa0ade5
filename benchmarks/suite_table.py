#!/usr/bin/python3
"""Prints the graph suite's results (crawlrank_simulate's JSON files in DIR, as
benchmarks/run_suite.sh --all leaves them) as one Markdown table: pages to 80% of the hot
pages for each order, the default's ratio to the best baseline, and its PR@10% ratio.

    /usr/bin/python3 benchmarks/suite_table.py [DIR] [--default pagerank]
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys

COLUMNS = [("breadth-first", "BFS"), ("indegree", "backlink"), ("opic", "OPIC"),
           ("larger-sites-first", "larger sites"), ("rankmass", "RankMass"),
           ("pagerank-every-100", "PR every 100 (W300k: 1,000)"), ("wpr", "wpr"), ("hits", "hits")]
BASELINES = {"breadth-first", "indegree", "opic", "larger-sites-first", "rankmass",
             "pagerank-every-100"}
SUITE_ORDER = ["python", "django", "postgresql", "libstdcxx", "erlang", "rust", "multi",
               "W100k", "W300k"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="/tmp/crawlrank-suite", type=pathlib.Path)
    parser.add_argument("--default", default="pagerank", help="the order measured")
    args = parser.parse_args()
    runs = []
    for path in args.dir.glob("*.json"):
        data = json.loads(path.read_text())
        if "modes" in data:
            runs.append(data)
    if not runs:
        print(f"suite_table.py: no crawlrank_simulate JSON in {args.dir}", file=sys.stderr)
        return 2
    ratios, pr_ratios = [], []
    rank = {n: i for i, n in enumerate(SUITE_ORDER)}
    runs.sort(key=lambda r: rank.get(r["graph"]["name"], 99))
    head = ["Graph"] + [title for _, title in COLUMNS] + [
        f"**{args.default}**", "÷ best baseline", "oracle", "PR@10% ÷ best"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for run in runs:
        modes = {m["mode"]: m for m in run["modes"] if "pages_to_hot" in m}

        def hot80(name):
            m = modes.get(name)
            return m["pages_to_hot"]["80"] if m else None

        # Partial PageRank at whichever cadence ran (W300k: every 1,000 pages).
        names = BASELINES | {n for n in modes if n.startswith("pagerank-every-")}
        baselines = [hot80(n) for n in names if hot80(n) is not None]
        shares = [modes[n]["pagerank_share_at"]["10"] for n in names
                  if n in modes and modes[n]["pagerank_share_at"]["10"] is not None]
        default = modes.get(args.default)
        cells = [run["graph"]["name"]]
        every = next((n for n in modes if n.startswith("pagerank-every-")), "pagerank-every-100")
        cells += [f"{hot80(every if n == 'pagerank-every-100' else n):,}"
                  if hot80(every if n == "pagerank-every-100" else n) is not None else "-"
                  for n, _ in COLUMNS]
        if default and baselines and default["pages_to_hot"]["80"] is not None:
            cells.append(f"**{default['pages_to_hot']['80']:,}**")
            ratios.append(default["pages_to_hot"]["80"] / min(baselines))
            cells.append(f"{ratios[-1]:.2f}")
        else:
            cells += ["-", "-"]
        cells.append(f"{hot80('oracle'):,}" if hot80("oracle") is not None else "-")
        share = default["pagerank_share_at"]["10"] if default else None
        if share is not None and shares:
            pr_ratios.append(share / max(shares))
        cells.append(f"{pr_ratios[-1]:.2f}" if share is not None and shares else "-")
        print("| " + " | ".join(cells) + " |")

    def geomean(values):
        return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan

    print(f"\n{args.default}: geometric mean over {len(ratios)} graphs of pages to 80% hot ÷ the "
          f"best baseline's {geomean(ratios):.2f}, of PR@10% ÷ the best's {geomean(pr_ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
