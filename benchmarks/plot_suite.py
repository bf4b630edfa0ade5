#!/usr/bin/python3
"""Plots the PageRank curves crawlrank_simulate keeps in its JSON (issue #28): for each
graph, the share of the whole graph's PageRank fetched against the share of its pages
fetched, one line per order, in one figure of small panels.

    /usr/bin/python3 benchmarks/plot_suite.py DIR -o FIGURE.png [--orders a,b,...]
        DIR: the NAME.json files of benchmarks/run_suite.sh (default /tmp/crawlrank-suite)

The x axis is linear from 0 to 100% of the pages; a second figure, with --zoom P, shows the
first P% only (where the orders differ most). With --harvest, the topical crawls' harvest
rates instead (the JSON of run_suite.sh --topics, in DIR/topics):

    /usr/bin/python3 benchmarks/plot_suite.py DIR/topics --harvest -o FIGURE.png
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)

DEFAULT_ORDERS = ["blend", "pagerank", "opic", "indegree", "breadth-first", "rankmass", "wpr",
                  "pagerank-every-100", "oracle"]
STYLE = {"blend": dict(color="black", linewidth=2.2, label="default (blend)"),
         "oracle": dict(color="grey", linestyle="--", label="oracle")}
SUITE_ORDER = ["python", "django", "postgresql", "libstdcxx", "erlang", "rust", "multi",
               "W100k", "W300k"]


def load(directory: pathlib.Path) -> list[dict]:
    runs = []
    for path in directory.glob("*.json"):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if "modes" in data and "graph" in data:
            runs.append(data)
    rank = {name: i for i, name in enumerate(SUITE_ORDER)}
    return sorted(runs, key=lambda r: (rank.get(r["graph"]["name"], 99), r["graph"]["name"]))


HARVEST_ORDERS = ["topical", "link-score", "topic-hits", "ppr", "breadth-first", "blend",
                  "topic-oracle"]
HARVEST_STYLE = {"topical": dict(color="black", linewidth=2.2, label="topical"),
                 "link-score": dict(color="grey", linestyle="--", linewidth=1.6,
                                    label="link-score (best-first)"),
                 "topic-oracle": dict(color="grey", linestyle=":", linewidth=1.6,
                                      label="topic oracle (relevance known)")}


def plot(runs: list[dict], orders: list[str], zoom: float, output: pathlib.Path,
         harvest: bool = False) -> None:
    columns = min(4, len(runs))
    rows = math.ceil(len(runs) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), squeeze=False)
    for ax, run in zip(axes.flat, runs):
        graph = run["graph"]
        for mode in run["modes"]:
            name = mode["mode"]
            curve = mode.get("harvest_curve" if harvest else "pagerank_curve")
            if name not in orders or not curve:
                continue
            xs = [100 * (i + 1) / 100 for i in range(len(curve))]
            ys = [100 * y for y in curve]
            style = (HARVEST_STYLE if harvest else STYLE).get(name, dict(label=name, linewidth=1.2))
            if harvest:
                ax.plot(xs, ys, **style)
            else:
                ax.plot([0] + xs, [0] + ys, **style)
        ax.set_title(f"{graph['name']}: {graph['pages']:,} pages", fontsize=10)
        ax.set_xlim(0, zoom)
        if not harvest:
            ax.set_ylim(0, 100)
        ax.grid(True, linewidth=0.4)
        ax.set_xlabel("pages fetched (% of the crawl)" if harvest
                      else "pages fetched (% of the graph)", fontsize=8)
        ax.set_ylabel("harvest rate: relevant among fetched (%)" if harvest
                      else "PageRank fetched (%)", fontsize=8)
        ax.tick_params(labelsize=8)
    for ax in list(axes.flat)[len(runs):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(output, dpi=80)
    print(f"plot_suite.py: wrote {output}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="/tmp/crawlrank-suite", type=pathlib.Path)
    parser.add_argument("-o", "--output", required=True, type=pathlib.Path)
    parser.add_argument("--orders", help="comma-separated (default: "
                        f"{','.join(DEFAULT_ORDERS)}; with --harvest {','.join(HARVEST_ORDERS)})")
    parser.add_argument("--harvest", action="store_true",
                        help="the topical crawls' harvest rates (run_suite.sh --topics)")
    parser.add_argument("--zoom", type=float, default=100, help="show pages 0..P%% only")
    args = parser.parse_args()
    runs = load(args.dir)
    if not runs:
        print(f"plot_suite.py: no crawlrank_simulate JSON in {args.dir}", file=sys.stderr)
        return 2
    orders = args.orders or ",".join(HARVEST_ORDERS if args.harvest else DEFAULT_ORDERS)
    plot(runs, orders.split(","), args.zoom, args.output, args.harvest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
