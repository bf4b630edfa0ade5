#!/usr/bin/env bash
# The crawl-order suite of issue #28 (docs/benchmarks.md, "Crawl order on the graph suite"):
# crawlrank_simulate over one graph file, or over the whole suite.
#
#   benchmarks/run_suite.sh GRAPH_FILE [crawlrank_simulate options]
#       any `src_url dst_url` file; its `# seeds: URL,...` comment line, when it has one,
#       gives the seeds (else the simulator's: the first link's source)
#   benchmarks/run_suite.sh --topics [crawlrank_simulate options]
#       the topical crawls (docs/benchmarks.md, "Topical crawls"): the multi graph with each
#       topic's page and link scores (benchmarks/topics/NAME.keywords, doc_suite.py
#       --keywords), crawled in topical, link-score (best-first), topic-hits, ppr,
#       breadth-first and blend, and the topic oracle replayed (relevance known: the
#       relevant pages first among those discovered); harvest rates against
#       benchmarks/topics/NAME.relevant; JSON in $dir/topics
#   benchmarks/run_suite.sh --all [crawlrank_simulate options]
#       builds the doc graphs (benchmarks/doc_suite.py; they are kept in
#       $CRAWLRANK_BENCH_DIR, default /tmp/crawlrank-suite, and built only once) and runs
#       python django postgresql rust libstdcxx erlang multi W100k W300k
#
# JSON goes beside each graph as NAME.json, tables to standard output. Build first, in a
# tree with the benchmarks (scripts/build.sh; scripts/test.sh leaves them out):
#   cmake --build build -j1 --target crawlrank_simulate web_graph_gen
# SUITE="python multi" narrows --all; REPEATS (default 1) repeats each crawl (the counts
# are deterministic and checked to be equal; seconds are the median).
set -euo pipefail
cd "$(dirname "$0")/.."
sim=build/benchmarks/crawlrank_simulate
gen=build/benchmarks/web_graph_gen
dir=${CRAWLRANK_BENCH_DIR:-/tmp/crawlrank-suite}
[ -x "$sim" ] || { echo "run_suite.sh: build $sim first (see the top of this file)" >&2; exit 2; }
(( $# )) || { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

one() {  # one graph file: NAME FILE [options]
  local name=$1 file=$2
  shift 2
  local seeds
  seeds=$(sed -n 's/^# seeds: *//p' "$file" | head -1)
  echo
  echo "## $name"
  "$sim" "$file" --name "$name" ${seeds:+--seeds "$seeds"} --repeats "${REPEATS:-1}" \
    --json-file "${file%.*}.json" "$@"
}

modified=$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')
echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)$modified"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM"
doc_graph() {  # builds $dir/NAME.txt once
  if [ ! -s "$dir/$1.txt" ]; then
    /usr/bin/python3 benchmarks/doc_suite.py "$1" -o "$dir/$1.txt.part"
    mv "$dir/$1.txt.part" "$dir/$1.txt"
  fi
}
if [ "$1" = "--topics" ]; then
  shift
  mkdir -p "$dir/topics"
  doc_graph multi
  for topic in ${TOPICS:-sql-commands asyncio}; do
    scores=$dir/topics/$topic.scores
    if [ ! -s "$scores" ]; then
      /usr/bin/python3 benchmarks/doc_suite.py multi -o /dev/null \
        --keywords "benchmarks/topics/$topic.keywords" --scores "$scores.part"
      mv "$scores.part" "$scores"
    fi
    cp "$dir/multi.txt" "$dir/topics/$topic.txt"
    one "$topic" "$dir/topics/$topic.txt" --scores "$scores" \
      --relevant "benchmarks/topics/$topic.relevant" \
      --modes topical,link-score,topic-hits,ppr,breadth-first,blend --replay topic-oracle "$@"
  done
  exit 0
fi
if [ "$1" != "--all" ]; then
  file=$1
  shift
  [ -r "$file" ] || { echo "run_suite.sh: cannot read $file" >&2; exit 2; }
  name=$(basename "$file")
  one "${name%.*}" "$file" "$@"
  exit 0
fi
shift
mkdir -p "$dir"
for g in ${SUITE:-python django postgresql rust libstdcxx erlang multi W100k W300k}; do
  case $g in
    W100k | W300k)
      if [ ! -s "$dir/$g.txt" ]; then
        "$gen" --pages $(( ${g:1:3} * 1000 )) --urls > "$dir/$g.txt"
      fi
      ;;
    *) doc_graph "$g" ;;
  esac
  one "$g" "$dir/$g.txt" "$@"
done
