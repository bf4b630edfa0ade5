#!/usr/bin/env bash
# page_db_load of URL pairs against PageDb::AddBatch with URLs (page_db_bench), in the same
# session (issue #14). Writes the generated graph (default S: 1,000,000 pages) as
# `src_url dst_url` lines once, then runs RUNS rounds (default 3) of: page_db_load into a
# fresh DB, the same with another page_db_load build when --baseline names one (e.g. the
# previous commit's), and page_db_bench. Wall and CPU seconds and peak RSS come from
# /usr/bin/time (Debian package `time`). Prints every run, then the medians.
#   benchmarks/run_load_bench.sh [-n RUNS] [--build DIR] [--pages N] [--baseline PAGE_DB_LOAD]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 build=build pages=1000000 baseline=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --pages) pages=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    *) echo "usage: $0 [-n RUNS] [--build DIR] [--pages N] [--baseline PAGE_DB_LOAD]" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d /tmp/crawlrank-load-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$build/benchmarks/web_graph_gen" --pages "$pages" --urls > "$work/pairs.txt"
links=$(wc -l < "$work/pairs.txt")
echo "# $pages pages, $links URL pairs, $(($(stat -c %s "$work/pairs.txt") >> 20)) MiB"

# Runs page_db_load binary $2 into a fresh DB; prints `$1_links_per_s`, `$1_cpu_s`,
# `$1_peak_rss_mib`.
load() {
  rm -rf "$work/db"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$2" "$work/db" "$work/pairs.txt" > /dev/null
  read -r wall user sys kib < "$work/time"
  awk -v k="$1" -v n="$links" -v w="$wall" -v u="$user" -v s="$sys" -v m="$kib" 'BEGIN {
    printf "%s_links_per_s %.0f\n%s_cpu_s %.2f\n%s_peak_rss_mib %.0f\n", k, n / w, k, u + s, k, m / 1024 }'
}

for i in $(seq "$runs"); do
  {
    load load "$build/tools/page_db_load"
    [ -z "$baseline" ] || load baseline "$baseline"
    "$build/benchmarks/page_db_bench" --pages "$pages" --dir "$work/bench" |
      awk '$1 == "ingest_links_per_s" { print "addbatch_links_per_s", $2 }
           $1 == "ingest_cpu_seconds" { print "addbatch_cpu_s", $2 }'
  } > "$work/run$i.txt"
  awk '{ v[$1] = $2 } END { printf "load_vs_addbatch %.3f\n", v["load_links_per_s"] / v["addbatch_links_per_s"] }' \
    "$work/run$i.txt" >> "$work/run$i.txt"
  echo "# run $i"
  cat "$work/run$i.txt"
done
/usr/bin/python3 - "$work"/run*.txt <<'PY'
import statistics, sys
runs = [dict(line.split() for line in open(f) if line.strip()) for f in sys.argv[1:]]
print(f"# median of {len(runs)} runs")
for key in runs[0]:
    values = [float(r[key]) for r in runs]
    print(f"{key} {statistics.median(values):.10g}  (min {min(values):.10g}, max {max(values):.10g})")
PY
