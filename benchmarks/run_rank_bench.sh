#!/usr/bin/env bash
# The ranking benchmark of docs/benchmarks.md: graphs S and L, crawlrank's rank_bench
# (stream and CSR modes, and a plain Jacobi baseline in the same binary), then scipy and
# graph-tool on the same edges (benchmarks/rank_peers.py).
#   benchmarks/run_rank_bench.sh [S|L]...    (default: S L)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CRAWLRANK_BENCH_DIR:-/tmp/crawlrank-rank-bench}
mkdir -p "$dir"
(( $# )) || set -- S L
for g in "$@"; do
  case $g in
    S) args=(--pages 1000000) ;;                 # 16.8 M links
    L) args=(--pages 4850000 --degree 21.2) ;;   # LiveJournal scale (seed 003)
    *) echo "unknown graph $g (S or L)" >&2; exit 2 ;;
  esac
  echo "# graph $g"
  build/benchmarks/rank_bench "${args[@]}" --dir "$dir" --repeats 3 --export-edges "$dir/$g.edges" |
    tee "$dir/$g.out"
  pages=$(awk '$1 == "pages" {print $2}' "$dir/$g.out")
  /usr/bin/python3 benchmarks/rank_peers.py "$dir/$g.edges" "$pages" --threads 2 --repeats 3
  rm -f "$dir/$g.edges"
done
