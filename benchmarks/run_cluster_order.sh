#!/usr/bin/env bash
# Crawl order in a cluster (issue #46, docs/benchmarks.md "Crawl order in a cluster"):
# crawlrank_simulate over the suite's multi-host graphs, one node against 2 and 4 nodes
# (each a Scheduler over the hosts it owns, the fetchers reading them in turn), with the
# nodes' global ranks every 2% of the graph's pages and their own re-ranks between.
#
#   benchmarks/run_cluster_order.sh [GRAPH_NAME...]     default: multi W100k W300k
#
# Graphs come from benchmarks/run_suite.sh's folder ($CRAWLRANK_BENCH_DIR, default
# /tmp/crawlrank-suite; `SUITE="multi W100k W300k" benchmarks/run_suite.sh --all` builds
# them). MODES (default "blend pagerank") and SHARDS (default "2 4") narrow the runs;
# GLOBAL_SHARE (default 50: every 1/50 of the pages) sets the global ranks' cadence.
# Prints one row per graph, mode and node count: pages to 80% of the hot pages and the
# ratio to one node's. Build first: cmake --build build --target crawlrank_simulate.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=build/benchmarks/crawlrank_simulate
dir=${CRAWLRANK_BENCH_DIR:-/tmp/crawlrank-suite}
[ -x "$sim" ] || { echo "run_cluster_order.sh: build $sim first" >&2; exit 2; }
graphs=("$@")
(( ${#graphs[@]} )) || graphs=(multi W100k W300k)
hot80() {  # FILE [options]: pages to 80% hot of the one mode crawled
  local file=$1 seeds
  shift
  seeds=$(sed -n 's/^# seeds: *//p' "$file" | head -1)
  "$sim" "$file" ${seeds:+--seeds "$seeds"} --replay oracle "$@" 2>/dev/null |
    awk '$1 == mode { print $4 }' mode="$MODE"
}
echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
printf '%-8s %-9s %6s %9s %8s %8s\n' graph mode nodes "global@" "80% hot" "x 1 node"
for g in "${graphs[@]}"; do
  file=$dir/$g.txt
  [ -r "$file" ] || { echo "run_cluster_order.sh: no $file" >&2; exit 2; }
  pages=$(awk '!/^#/ { print $1; print $2 }' "$file" | sort -u | wc -l)
  every=$(( pages / ${GLOBAL_SHARE:-50} ))
  for MODE in ${MODES:-blend pagerank}; do
    one=$(hot80 "$file" --modes "$MODE")
    printf '%-8s %-9s %6s %9s %8s %8s\n' "$g" "$MODE" 1 - "$one" 1.00
    for n in ${SHARDS:-2 4}; do
      got=$(hot80 "$file" --modes "$MODE" --shards "$n" --global-every "$every")
      printf '%-8s %-9s %6s %9s %8s %8.2f\n' "$g" "$MODE" "$n" "$every" "$got" \
        "$(echo "$got / $one" | bc -l)"
    done
  done
done
