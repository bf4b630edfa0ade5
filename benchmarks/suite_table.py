#!/usr/bin/python3
"""Prints the graph suite's results (crawlrank_simulate's JSON files in DIR, as
benchmarks/run_suite.sh --all leaves them) as one Markdown table: pages to 80% of the hot
pages for each order, the default's ratio to the best baseline, and its PR@10% ratio.

    /usr/bin/python3 benchmarks/suite_table.py [DIR] [--default blend]
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys

COLUMNS = [("breadth-first", "BFS"), ("indegree", "backlink"), ("opic", "OPIC"),
           ("larger-sites-first", "larger sites"), ("rankmass", "RankMass"),
           ("pagerank-every-100", "PR every 100 (W300k: 1,000)"), ("wpr", "wpr"), ("hits", "hits"),
           ("pagerank", "pagerank")]
SUITE_ORDER = ["python", "django", "postgresql", "libstdcxx", "erlang", "rust", "multi",
               "W100k", "W300k"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="/tmp/crawlrank-suite", type=pathlib.Path)
    parser.add_argument("--default", default="blend", help="the order measured")
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

        default = modes.get(args.default)
        cells = [run["graph"]["name"]]
        # Partial PageRank at whichever cadence ran (W300k: every 1,000 pages).
        every = next((n for n in modes if n.startswith("pagerank-every-")), "pagerank-every-100")
        for name, _ in COLUMNS:
            pages = hot80(every if name == "pagerank-every-100" else name)
            cells.append(f"{pages:,}" if pages is not None else "-")
        # The ratios are the simulator's, against the baselines it names (simulate/results.h).
        ratio = default.get("ratio_80_to_best_baseline") if default else None
        pr_ratio = default.get("ratio_pr10_to_best_baseline") if default else None
        if ratio is not None:
            ratios.append(ratio)
            cells += [f"**{default['pages_to_hot']['80']:,}**", f"{ratio:.2f}"]
        else:
            cells += ["-", "-"]
        cells.append(f"{hot80('oracle'):,}" if hot80("oracle") is not None else "-")
        if pr_ratio is not None:
            pr_ratios.append(pr_ratio)
        cells.append(f"{pr_ratio:.2f}" if pr_ratio is not None else "-")
        print("| " + " | ".join(cells) + " |")

    def geomean(values):
        return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan

    print(f"\n{args.default}: geometric mean over {len(ratios)} graphs of pages to 80% hot ÷ the "
          f"best baseline's {geomean(ratios):.2f}, of PR@10% ÷ the best's {geomean(pr_ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
