#!/usr/bin/env bash
# The crawl guidance benchmark of docs/benchmarks.md ("Crawl guidance quality"): every
# score mode crawls three graphs through crawlrank_simulate, three times each (the counts
# are deterministic and checked to be equal; the seconds are the median of the three):
#   doc    Python 3.11's HTML manual (benchmarks/doc_graph.py; needs python3.11-doc)
#   W100k  web_graph_gen --pages 100000, with its URLs (hosts of Pareto sizes)
#   W300k  web_graph_gen --pages 300000, the same
# Tables go to standard output, JSON to $CRAWLRANK_BENCH_DIR (default
# /tmp/crawlrank-simulate). Build first:
#   cmake --build build -j1 --target crawlrank_simulate web_graph_gen
#   benchmarks/run_simulate.sh [doc|W100k|W300k]...   (default: all three)
#   SIMULATE_ARGS="--modes breadth-first,pagerank" REPEATS=1 benchmarks/run_simulate.sh W100k
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CRAWLRANK_BENCH_DIR:-/tmp/crawlrank-simulate}
mkdir -p "$dir"
sim=build/benchmarks/crawlrank_simulate
gen=build/benchmarks/web_graph_gen
read -r -a extra <<< "${SIMULATE_ARGS:-}"
(( $# )) || set -- doc W100k W300k

modified=$(git diff --quiet HEAD || echo ' (modified)')
echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)$modified"
cpu=$(lscpu | sed -n 's/^Model name: *//p')
echo "# $cpu, $(nproc) CPUs, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, $(uname -sr)"
for g in "$@"; do
  echo
  echo "## $g"
  case $g in
    doc)
      if [ ! -s "$dir/doc.txt" ]; then
        /usr/bin/python3 benchmarks/doc_graph.py /usr/share/doc/python3.11/html -o "$dir/doc.txt"
      fi
      "$sim" "$dir/doc.txt" --name doc --seeds http://docs.python.local/index.html \
        --repeats "${REPEATS:-3}" --json-file "$dir/doc.json" "${extra[@]}"
      ;;
    W100k | W300k)
      pages=$(( ${g:1:3} * 1000 ))
      # The generator's URL form keeps its hosts; the graph goes through a pipe, not a file.
      "$gen" --pages "$pages" --urls |
        "$sim" - --name "$g" --repeats "${REPEATS:-3}" --json-file "$dir/$g.json" "${extra[@]}"
      ;;
    *) echo "unknown graph $g (doc, W100k or W300k)" >&2; exit 2 ;;
  esac
done
