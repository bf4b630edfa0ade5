#!/usr/bin/env bash
# Global ranks with MPI (issue #46; docs/benchmarks.md, "Global ranks over MPI"): two MPI
# ranks with one thread each, each holding half of a web-like graph split by host as a
# cluster splits it, against one process with two threads over the whole graph, in
# alternating rounds on this machine.
#
#   benchmarks/run_mpi_rank_bench.sh [--work DIR] [--rounds N] [--iterations I]
#
# The graph: web_graph_gen --pages 5000000 --degree 20.4 --urls --no-self-loops (70.2 M
# links, a fifth of them leaving their host) loaded into WORK/whole with page_db_load,
# and resharded over two nodes with `crawlrank reshard` into WORK/n2.0 and WORK/n2.1
# (built once; delete them to rebuild). Each round runs, PageRank with I plain iterations
# (tolerance 0), nothing saved:
#   mpi2x1   mpirun -n 2 crawlrank_rank_mpi --threads 1 --db WORK/n2.0 --db WORK/n2.1
#   mpi1x2   mpirun -n 1 crawlrank_rank_mpi --threads 2 --db WORK/whole (the same kernel)
#   csr1x2   page_db_rank WORK/whole --mode csr --threads 2 --extrapolate 0 (the
#            single-node kernel: float gathers, partitions), (t(I) - t(1)) / (I - 1)
# and prints each run's seconds per iteration and setup, the medians, the ratios of mpi2x1
# to the two others, and the bytes each MPI rank sent per iteration.
set -euo pipefail
cd "$(dirname "$0")/.."
work=/tmp/mpi-bench rounds=5 iterations=41
while (($#)); do
  case $1 in
    --work) work=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    *) sed -n '7p' "$0" | sed 's/^# *//' >&2; exit 2 ;;
  esac
done
tools=build/tools
job=$tools/crawlrank_rank_mpi
[ -x "$job" ] || { echo "run_mpi_rank_bench.sh: build $job first (MPI found at build time)" >&2; exit 2; }
mkdir -p "$work"
if [ ! -d "$work/n2.1" ]; then
  rm -rf "$work/whole" "$work"/n2.*
  build/benchmarks/web_graph_gen --pages 5000000 --degree 20.4 --urls --no-self-loops |
    "$tools/page_db_load" "$work/whole"
  "$tools/crawlrank" reshard "$work/whole" --nodes 127.0.0.1:7301,127.0.0.1:7302 --out "$work/n2"
fi
mpi=(mpirun --oversubscribe --mca btl_vader_single_copy_mechanism none)
if [ "$(id -u)" -eq 0 ]; then mpi+=(--allow-run-as-root); fi
rank=(--algo pagerank --tolerance 0 --max-iterations "$iterations" --no-save)
per_iteration() {  # job output: ranking seconds / iterations, and setup seconds
  awk '/^iterations/ {i = $2} /^seconds/ {setup = $2; ranking = $4}
       END {printf "%.4f %.2f\n", ranking / i, setup}'
}
csr_seconds() {  # page_db_rank with I iterations: its seconds (CSR build included)
  "$tools/page_db_rank" "$work/whole" --mode csr --threads 2 --extrapolate 0 --tolerance 0 \
    --max-iterations "$1" | awk '/^seconds/ {print $2}'
}
echo "# $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), $(nproc) CPUs: $(lscpu | sed -n 's/^Model name: *//p')"
echo "round run     s/iteration setup_s"
out=$(mktemp)
for ((r = 1; r <= rounds; r++)); do
  "${mpi[@]}" -n 2 "$job" --threads 1 --db "$work/n2.0" --db "$work/n2.1" "${rank[@]}" >"$out"
  [ "$r" -gt 1 ] || grep '^node ' "$out" | sed 's/^/# /'
  echo "$r mpi2x1 $(per_iteration <"$out")"
  # Open MPI binds a process to one core by default: this one's two threads need both.
  "${mpi[@]}" -n 1 --bind-to none "$job" --threads 2 --db "$work/whole" "${rank[@]}" >"$out"
  echo "$r mpi1x2 $(per_iteration <"$out")"
  long=$(csr_seconds "$iterations")
  short=$(csr_seconds 1)
  echo "$r csr1x2 $(echo "($long - $short) / ($iterations - 1)" | bc -l | xargs printf '%.4f') $short"
done | tee "$out.rounds"
/usr/bin/python3 - "$out.rounds" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0].isdigit():
        runs.setdefault(f[1], []).append((float(f[2]), float(f[3])))
m = {k: statistics.median(x for x, _ in v) for k, v in runs.items()}
for k, v in runs.items():
    print(f"median {k} {m[k]:.4f} s/iteration, setup {statistics.median(s for _, s in v):.2f} s")
print(f"ratio mpi2x1/mpi1x2 {m['mpi2x1'] / m['mpi1x2']:.2f}")
print(f"ratio mpi2x1/csr1x2 {m['mpi2x1'] / m['csr1x2']:.2f}")
PY
rm -f "$out" "$out.rounds"
