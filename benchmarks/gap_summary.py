"""Summarises benchmarks/run_gap_bench.sh's rounds: medians, ranges, ratios and a plot.

    /usr/bin/python3 benchmarks/gap_summary.py WORK

Reads WORK/rounds.csv (one line per graph, thread count, measure and round), prints
`key value` lines, writes WORK/summary.csv and, when matplotlib is installed
(python3-matplotlib; benchmarks only), WORK/gap_bench.png. The ratio is crawlrank's
seconds over GAPBS's within each round; its median is the median of those per-round ratios.
Measures `to_*_kernel_only` take crawlrank's CSR build (its 1-iteration run less one
iteration, same round) off its time to an error, as GAPBS's time never includes a build.
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def main(work):
    rows = defaultdict(list)  # (graph, threads, measure) -> [(gapbs, crawlrank)]
    rounds = defaultdict(list)  # the same keys -> round numbers
    order = []
    with open(work / "rounds.csv", newline="") as f:
        for r in csv.DictReader(f):
            key = (r["graph"], int(r["threads"]), r["measure"])
            if key not in rows:
                order.append(key)
            gapbs = float(r["gapbs_seconds"]) if r["gapbs_seconds"] else None
            rows[key].append((gapbs, float(r["crawlrank_seconds"])))
            rounds[key].append(r["round"])

    # crawlrank's time to an error less its CSR build in the same round (GAPBS's time
    # never includes building its CSR: the .sg file holds it).
    build = {(g, t, r): runs[i][1] for (g, t, m), runs in rows.items() if m == "crawlrank_build"
             for i, r in enumerate(rounds[(g, t, m)])}
    for key in list(order):
        graph, threads, measure = key
        if not measure.startswith("to_") or (graph, threads, rounds[key][0]) not in build:
            continue
        kernel_key = (graph, threads, measure + "_kernel_only")
        order.append(kernel_key)
        rows[kernel_key] = [(gp, cr - build[(graph, threads, r)])
                            for (gp, cr), r in zip(rows[key], rounds[key])]

    summary = []
    for key in order:
        graph, threads, measure = key
        runs = rows[key]
        c = [cr for _, cr in runs]
        line = {"graph": graph, "threads": threads, "measure": measure, "rounds": len(runs),
                "crawlrank_median": statistics.median(c), "crawlrank_min": min(c),
                "crawlrank_max": max(c)}
        if runs[0][0] is not None:
            g = [gp for gp, _ in runs]
            ratios = [cr / gp for gp, cr in runs if gp > 0]
            line.update({"gapbs_median": statistics.median(g), "gapbs_min": min(g),
                         "gapbs_max": max(g), "ratio_median": statistics.median(ratios),
                         "ratio_min": min(ratios), "ratio_max": max(ratios)})
        summary.append(line)
        prefix = f"{graph}_t{threads}_{measure}"
        for side in ("gapbs", "crawlrank"):
            if f"{side}_median" in line:
                print(f"{prefix}_{side}_seconds {line[side + '_median']:.4g} "
                      f"({line[side + '_min']:.4g}-{line[side + '_max']:.4g})")
        if "ratio_median" in line:
            print(f"{prefix}_ratio_crawlrank_over_gapbs {line['ratio_median']:.3g} "
                  f"({line['ratio_min']:.3g}-{line['ratio_max']:.3g})")

    fields = ["graph", "threads", "measure", "rounds", "gapbs_median", "gapbs_min", "gapbs_max",
              "crawlrank_median", "crawlrank_min", "crawlrank_max", "ratio_median", "ratio_min",
              "ratio_max"]
    with open(work / "summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows({k: f"{v:.4g}" if isinstance(v, float) else v for k, v in line.items()}
                    for line in summary)
    plot(work, summary)


def plot(work, summary):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot none (no matplotlib: apt-get install python3-matplotlib)")
        return
    measures = [m for m in ("per_iteration", "to_1e-04", "to_1e-06")
                if any(s["measure"] == m for s in summary)]
    graphs = list(dict.fromkeys(s["graph"] for s in summary))
    titles = {"per_iteration": "s per iteration", "to_1e-04": "s to L1 error 1e-4",
              "to_1e-06": "s to L1 error 1e-6"}
    # One panel per measure and graph, each on its own scale; bars by thread count.
    fig, axes = plt.subplots(len(measures), len(graphs), squeeze=False,
                             figsize=(3.2 * len(graphs), 2.6 * len(measures)))
    width = 0.38
    for row, m in enumerate(measures):
        for col, graph in enumerate(graphs):
            ax = axes[row][col]
            lines = [s for s in summary if s["measure"] == m and s["graph"] == graph]
            for offset, side, colour in ((-width / 2, "gapbs", "tab:gray"),
                                         (width / 2, "crawlrank", "tab:blue")):
                med = [s[side + "_median"] for s in lines]
                err = [[s[side + "_median"] - s[side + "_min"] for s in lines],
                       [s[side + "_max"] - s[side + "_median"] for s in lines]]
                ax.bar([i + offset for i in range(len(lines))], med, width, yerr=err,
                       capsize=2, color=colour,
                       label="GAPBS pr" if side == "gapbs" else "crawlrank")
            # Whiskers span min-max; an outlier round must not flatten the bars.
            top = max([max(s["gapbs_median"], s["crawlrank_median"]) for s in lines] + [0])
            ax.set_ylim(0, top * 1.45 if top > 0 else 1)
            for i, s in enumerate(lines):
                ax.annotate(f"{s['ratio_median']:.2f}x",
                            (i, max(s["gapbs_median"], s["crawlrank_median"]) * 1.12),
                            ha="center", fontsize=8)
            ax.set_xticks(range(len(lines)), [f"{s['threads']} thr" for s in lines],
                          fontsize=8)
            ax.tick_params(axis="y", labelsize=7)
            ax.set_title(f"{graph}: {titles[m]}", fontsize=9)
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle("crawlrank PageRank beside GAPBS pr\nmedian, whiskers min-max (clipped); "
                 "label: crawlrank / GAPBS,\nmedian of the per-round ratios", fontsize=9)
    fig.tight_layout()
    fig.savefig(work / "gap_bench.png", dpi=110)
    print(f"plot {work / 'gap_bench.png'}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
