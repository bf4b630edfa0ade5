#!/usr/bin/python3
"""Scheduler costs of two builds measured in the same run, alternating: a refactor's
before and after (docs/benchmarks.md, "Scheduler before and after the split").

Each round runs, for build A then build B (the order rotates every round):
  frontier  scheduler_bench frontier: Next(64) p50 and p99 while idle (ms)
  ingest    scheduler_bench ingest: pages/s of CrawledBatch reports through the Scheduler,
            and the ratio to the bare PageDB's time in the same process (the report cost)
and prints each round, then the medians and B/A ratios.

    /usr/bin/python3 benchmarks/scheduler_ab.py BUILD_A BUILD_B [--rounds 5]
        [--pages 2000000] [--hosts 20000] [--calls 5000] [--report-pages 20000]
        [--batch 100] [--dir /tmp/scheduler-ab]

BUILD_* are build directories holding benchmarks/scheduler_bench.
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
from pathlib import Path

IDLE = re.compile(r"^idle: Next\(64\) over \d+ calls: p50 ([\d.]+) ms, p99 ([\d.]+) ms", re.M)
INGEST = re.compile(r"through the Scheduler (\d+) pages/s: ([\d.]+)x the time", re.M)


def run(build: str, args, what: str) -> str:
    bench = Path(build) / "benchmarks" / "scheduler_bench"
    work = Path(args.dir) / Path(build).name
    work.mkdir(parents=True, exist_ok=True)
    cmd = [str(bench), what, "--dir", str(work)]
    if what == "frontier":
        cmd += ["--pages", str(args.pages), "--hosts", str(args.hosts), "--calls", str(args.calls)]
    else:
        cmd += ["--report-pages", str(args.report_pages), "--batch", str(args.batch),
                "--repeats", "1"]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def measure(build: str, args) -> dict:
    frontier = IDLE.search(run(build, args, "frontier"))
    ingest = INGEST.search(run(build, args, "ingest"))
    if not frontier or not ingest:
        raise SystemExit(f"{build}: scheduler_bench printed no figures")
    return {"p50_ms": float(frontier.group(1)), "p99_ms": float(frontier.group(2)),
            "report_pages_s": float(ingest.group(1)), "report_cost_x": float(ingest.group(2))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_a")
    parser.add_argument("build_b")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pages", type=int, default=2_000_000)
    parser.add_argument("--hosts", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--report-pages", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--dir", default="/tmp/scheduler-ab")
    args = parser.parse_args()
    rows: dict[str, list[dict]] = {"A": [], "B": []}
    for r in range(args.rounds):
        order = [("A", args.build_a), ("B", args.build_b)]
        if r % 2:
            order.reverse()
        for name, build in order:
            row = measure(build, args)
            rows[name].append(row)
            print(f"round {r + 1} {name}: " + ", ".join(f"{k} {v}" for k, v in row.items()),
                  flush=True)
    print(f"medians of {args.rounds} rounds (A: {args.build_a}, B: {args.build_b}):")
    for key in rows["A"][0]:
        a = statistics.median(row[key] for row in rows["A"])
        b = statistics.median(row[key] for row in rows["B"])
        print(f"  {key}: A {a:g}, B {b:g}, B/A {b / a:.3f}")


if __name__ == "__main__":
    main()
