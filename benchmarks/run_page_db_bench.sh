#!/usr/bin/env bash
# Runs page_db_bench N times (default 3) with the given options and prints the median of
# every figure. Build first: scripts/build.sh.
#   benchmarks/run_page_db_bench.sh [-n RUNS] [page_db_bench options...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3
if [ "${1:-}" = "-n" ]; then runs=$2; shift 2; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq "$runs"); do
  build/benchmarks/page_db_bench "$@" > "$out/run$i.txt"
done
/usr/bin/python3 - "$out"/run*.txt <<'PY'
import statistics, sys
runs = [dict(line.split() for line in open(f) if line.strip()) for f in sys.argv[1:]]
print(f"# median of {len(runs)} runs")
for key in runs[0]:
    values = [float(r[key]) for r in runs]
    print(f"{key} {statistics.median(values):.10g}  (min {min(values):.10g}, max {max(values):.10g})")
PY
