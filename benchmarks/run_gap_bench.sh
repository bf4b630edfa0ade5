#!/usr/bin/env bash
# crawlrank's PageRank beside GAPBS's `pr` on the same graphs (issue #14; docs/benchmarks.md,
# "Ranking beside GAPBS"). GAPBS is not part of the project: build it elsewhere (its README:
# clone github.com/sbeamer/gapbs and `make pr converter`) and pass its directory.
#
#   benchmarks/run_gap_bench.sh --gapbs DIR [--work DIR] [--graphs S,L,Lperm,W,kron22]
#                               [--threads 1,2] [--rounds N] [--build DIR] [--per-iteration-only]
#
# Graphs: S (1 M pages) and L (4.85 M pages, LiveJournal's size), web-like with ids in host
# order as a crawl writes them; Lperm, L with its ids permuted; W, L's size with a quarter
# of the links to pages drawn uniformly at random and the rest within their host (issue
# #45: a pull's gathers miss the cache as on a web crawl's graph); kron22, GAPBS's own.
# --per-iteration-only: per iteration and crawlrank's build, without the times to an
# error (which first search each side's iterations: many runs on a large graph).
#
# Per graph: the edge list without self-loops (web_graph_gen, or GAPBS's own Kronecker
# generator), loaded into a PageDB with page_db_load and converted to GAPBS's .sg with its
# converter; both sides must report the same vertices and edges. Then, rounds of
# GAPBS-then-crawlrank with the same thread count:
#   per_iteration  (t(41 iterations) - t(1)) / 40, plain steps on both sides; GAPBS's
#                  "Trial Time" (kernel only), crawlrank's "seconds" (the CSR build cancels);
#   to_1e-04/06    time to that L1 error from each solver's own fixed point: GAPBS's kernel
#                  time for the iterations gap_compare finds its update needs, crawlrank's
#                  page_db_rank seconds (CSR build from LMDB included) for the fewest
#                  iterations whose stored vector is that close (default extrapolation).
# Writes WORK/rounds.csv (every round), WORK/summary.csv, WORK/results.txt (`key value`,
# also printed) and WORK/gap_bench.png (benchmarks/gap_summary.py; needs python3-matplotlib).
# Graphs are cached in WORK/graphs; delete a file there to rebuild it.
set -euo pipefail
cd "$(dirname "$0")/.."

gapbs='' work=/tmp/gap-bench graphs=S,L,Lperm,kron22 threads=1,2 rounds=5 build=build
per_iteration_only=0
usage() {
  sed -n '6,7p' "$0" | sed 's/^# *//' >&2
  exit 2
}
while (($#)); do
  case $1 in
    --per-iteration-only) per_iteration_only=1; shift; continue ;;
    --gapbs) gapbs=$2 ;;
    --work) work=$2 ;;
    --graphs) graphs=$2 ;;
    --threads) threads=$2 ;;
    --rounds) rounds=$2 ;;
    --build) build=$2 ;;
    -h | --help) usage ;;
    *) echo "run_gap_bench.sh: unknown argument $1" >&2; usage ;;
  esac
  (($# >= 2)) || usage
  shift 2
done
[[ -n $gapbs ]] || usage
for b in pr converter; do
  [[ -x $gapbs/$b ]] || { echo "run_gap_bench.sh: no $gapbs/$b (make pr converter in GAPBS)" >&2; exit 2; }
done
tools=$build/tools benches=$build/benchmarks
for b in "$tools/page_db_load" "$tools/page_db_rank" "$benches/web_graph_gen" "$benches/gap_compare"; do
  [[ -x $b ]] || { echo "run_gap_bench.sh: no $b (cmake --build $build --target page_db_load page_db_rank web_graph_gen gap_compare)" >&2; exit 2; }
done
((rounds >= 1)) || usage
IFS=, read -ra graph_list <<<"$graphs"
IFS=, read -ra thread_list <<<"$threads"
targets=(1e-04 1e-06)
((per_iteration_only)) && targets=()

mkdir -p "$work/graphs"
work=$(cd "$work" && pwd)
# One run per work directory: page_db_rank saves every rank it computes into the PageDB,
# where the search for crawlrank's iterations reads it back, and two runs on two cores
# would time each other anyway.
exec 9>"$work/graphs/.lock"
flock -n 9 || { echo "run_gap_bench.sh: another run is using $work" >&2; exit 1; }
results=$work/results.txt rounds_csv=$work/rounds.csv
: >"$results"
echo "graph,threads,measure,round,gapbs_seconds,crawlrank_seconds" >"$rounds_csv"
kv() { echo "$*" | tee -a "$results"; }
die() { echo "run_gap_bench.sh: $*" >&2; exit 1; }
# Both sides with their default thread placement (neither pins threads).
unset OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY

# Kernel seconds of one GAPBS pr run: THREADS ITERATIONS SG
gapbs_seconds() {
  local s
  s=$(OMP_NUM_THREADS=$1 "$gapbs/pr" -f "$3" -i "$2" -t 0 -n 1 | awk '$1 == "Trial" {print $3}')
  [[ -n $s ]] || die "no Trial Time from $gapbs/pr -f $3"
  echo "$s"
}
# Seconds of one page_db_rank run (CSR build included): THREADS ITERATIONS DB [ARGS...]
crawlrank_seconds() {
  local s
  s=$("$tools/page_db_rank" "$3" --algo pagerank --mode csr --tolerance 0 \
    --max-iterations "$2" --threads "$1" "${@:4}" | awk '$1 == "seconds" {print $2}')
  [[ -n $s ]] || die "no seconds from page_db_rank $3"
  echo "$s"
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# Writes WORK/graphs/G.el, G.sg and G.db unless they are there.
prepare() {
  local g=$1 dir=$work/graphs
  local el=$dir/$g.el sg=$dir/$g.sg db=$dir/$g.db
  if [[ ! -s $el ]]; then
    local gen=("$benches/web_graph_gen" --no-self-loops)
    case $g in
      S) "${gen[@]}" --pages 1000000 >"$el.tmp" ;;
      L) "${gen[@]}" --pages 4850000 --degree 21.2 >"$el.tmp" ;;
      Lperm) "${gen[@]}" --pages 4850000 --degree 21.2 --permute 1 >"$el.tmp" ;;
      # 20.8 before duplicates merge: about 69 M links, as L.
      W) "${gen[@]}" --pages 4850000 --degree 20.8 --local 1 --random-share 0.25 >"$el.tmp" ;;
      # GAPBS writes its symmetrized graph with both directions of each edge.
      kron22) "$gapbs/converter" -g 22 -e "$el.tmp" >"$dir/$g.converter.log" ;;
      *) die "unknown graph $g (S, L, Lperm, W or kron22)" ;;
    esac
    mv "$el.tmp" "$el"
  fi
  if [[ ! -s $sg ]]; then
    "$gapbs/converter" -f "$el" -b "$sg.tmp" >"$dir/$g.sg.log"
    mv "$sg.tmp" "$sg"
  fi
  if [[ ! -f $db/data.mdb ]]; then
    rm -rf "$db.tmp"
    "$tools/page_db_load" "$db.tmp" "$el" >"$dir/$g.load.log"
    mv "$db.tmp" "$db"
  fi
}

kv "date $(date -u +%Y-%m-%dT%H:%MZ)"
kv "machine $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
kv "crawlrank $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
gapbs_version=$(git -C "$gapbs" describe --always --dirty 2>/dev/null || echo "not a git checkout")
[[ -f $gapbs/src/pr.cc ]] && gapbs_version+=", src/pr.cc sha1 $(sha1sum <"$gapbs/src/pr.cc" | cut -c1-12)"
kv "gapbs $gapbs ($gapbs_version)"
kv "note_error crawlrank: L1 to its own PageRank fixed point (dangling pages' share spread" \
  "over all pages); GAPBS: L1 to the fixed point of pr's own equation (float Gauss-Seidel," \
  "dangling share dropped), computed in double by gap_compare; vectors normalised to sum 1;" \
  "fixed points to an L1 change of 1e-12"
rank_sha=$(sha1sum "$tools/page_db_rank" | cut -c1-12)
started=$SECONDS

for g in "${graph_list[@]}"; do
  t0=$SECONDS
  prepare "$g"
  sg=$work/graphs/$g.sg db=$work/graphs/$g.db
  kv "${g}_prepare_seconds $((SECONDS - t0))"

  # Same graph on both sides; these runs also bring the files into the page cache.
  gout=$(OMP_NUM_THREADS=1 "$gapbs/pr" -f "$sg" -i 1 -t 0 -n 1)
  read -r gn gm < <(sed -n 's/^Graph has \([0-9]*\) nodes and \([0-9]*\) directed edges.*/\1 \2/p' <<<"$gout")
  cout=$("$tools/page_db_rank" "$db" --algo pagerank --mode csr --extrapolate 0 --tolerance 0 \
    --max-iterations 1 --threads 1)
  read -r cn cm < <(sed -n 's/^pagerank over \([0-9]*\) pages and \([0-9]*\) links.*/\1 \2/p' <<<"$cout")
  [[ -n $gn && $gn == "$cn" && $gm == "$cm" ]] ||
    die "$g: GAPBS has $gn vertices and $gm edges, crawlrank $cn pages and $cm links"
  kv "${g}_vertices $gn"
  kv "${g}_edges $gm"

  declare -A kG=() kC=()
  if ((!per_iteration_only)); then
    # GAPBS's iterations to each error (a property of the graph: cached), and a check that
    # gap_compare's replica of pr's update gives pr's own top five after 20 iterations.
    iters=$work/graphs/$g.gapbs-iterations.txt
    if [[ ! -s $iters ]]; then
      "$benches/gap_compare" gapbs-iterations "$sg" --targets 1e-4,1e-6 --top-after 20 \
        --csv "$work/graphs/$g.gapbs-error.csv" >"$iters.tmp"
      mv "$iters.tmp" "$iters"
    fi
    theirs=$(OMP_NUM_THREADS=1 "$gapbs/pr" -f "$sg" -i 20 -t 0 -n 1 -a | grep -E '^[0-9]+:' | sort)
    ours=$(awk '$1 == "replica_top" {print $2}' "$iters" | sort)
    kv "${g}_replica_top5_equals_pr_t1 $([[ $theirs == "$ours" ]] && echo yes || echo NO)"
    kv "${g}_gapbs_fixed_point_mass $(awk '$1 == "fixed_point_mass" {print $2}' "$iters")"
    for e in "${targets[@]}"; do
      kG[$e]=$(awk -v k="gapbs_iterations_$e" '$1 == k {print $2}' "$iters")
      [[ ${kG[$e]} =~ ^[0-9]+$ ]] || die "$g: GAPBS's update does not reach $e (see $iters)"
      kv "${g}_gapbs_iterations_to_$e ${kG[$e]}"
      kv "${g}_gapbs_error_at_$e $(awk -v k="gapbs_l1_error_$e" '$1 == k {print $2}' "$iters")"
    done

    # crawlrank: its fixed point, then the fewest iterations to each error (cached per
    # page_db_rank binary). One run per iteration count: error against iterations is not
    # monotone around the extrapolations.
    ctraj=$work/graphs/$g.crawlrank-error.$rank_sha.csv
    ref=$work/graphs/$g.ref.$rank_sha
    if [[ ! -s $ctraj ]]; then
      out=$("$tools/page_db_rank" "$db" --algo pagerank --mode csr --tolerance 1e-12 \
        --max-iterations 10000 --threads 2)
      grep -q '(converged' <<<"$out" || die "$g: crawlrank's fixed point did not converge: $out"
      mkdir -p "$ref/ranks"
      cp "$db/ranks/pagerank.rank" "$ref/ranks/pagerank.rank"
      echo "iteration,l1_error" >"$ctraj.tmp"
      for ((k = 1; k <= 300; k++)); do
        "$tools/page_db_rank" "$db" --algo pagerank --mode csr --tolerance 0 --max-iterations $k \
          --threads 2 >/dev/null
        err=$("$benches/gap_compare" rank-l1 "$ref" "$db" | awk '$1 == "l1" {print $2}')
        echo "$k,$err" >>"$ctraj.tmp"
        le "$err" "${targets[-1]}" && break
      done
      mv "$ctraj.tmp" "$ctraj"
    fi
    for e in "${targets[@]}"; do
      kC[$e]=$(awk -F, -v e="$e" 'NR > 1 && $2 + 0 <= e + 0 {print $1; exit}' "$ctraj")
      [[ -n ${kC[$e]} ]] || die "$g: crawlrank did not reach $e in 300 iterations"
      kv "${g}_crawlrank_iterations_to_$e ${kC[$e]}"
      kv "${g}_crawlrank_error_at_$e $(awk -F, -v k="${kC[$e]}" '$1 == k {print $2}' "$ctraj")"
    done

  fi

  for t in "${thread_list[@]}"; do
    for ((r = 1; r <= rounds; r++)); do
      # GAPBS's timer starts after its read of the .sg; crawlrank's CSR build reads LMDB
      # through the page cache: bring the DB back in case other work pushed it out.
      cat "$db/data.mdb" >/dev/null
      g41=$(gapbs_seconds "$t" 41 "$sg")
      g1=$(gapbs_seconds "$t" 1 "$sg")
      c41=$(crawlrank_seconds "$t" 41 "$db" --extrapolate 0)
      c1=$(crawlrank_seconds "$t" 1 "$db" --extrapolate 0)
      awk -v g="$g" -v t="$t" -v r="$r" -v a="$g41" -v b="$g1" -v c="$c41" -v d="$c1" \
        'BEGIN { printf "%s,%s,per_iteration,%d,%.6f,%.6f\n", g, t, r, (a - b) / 40, (c - d) / 40 }' \
        >>"$rounds_csv"
      # crawlrank's build: its 1-iteration run less one iteration.
      awk -v g="$g" -v t="$t" -v r="$r" -v c="$c41" -v d="$c1" \
        'BEGIN { printf "%s,%s,crawlrank_build,%d,,%.6f\n", g, t, r, d - (c - d) / 40 }' \
        >>"$rounds_csv"
      for e in "${targets[@]}"; do
        cat "$db/data.mdb" >/dev/null
        gs=$(gapbs_seconds "$t" "${kG[$e]}" "$sg")
        cs=$(crawlrank_seconds "$t" "${kC[$e]}" "$db")
        echo "$g,$t,to_$e,$r,$gs,$cs" >>"$rounds_csv"
      done
    done
  done
  kv "${g}_seconds $((SECONDS - t0))"
done
kv "total_seconds $((SECONDS - started))"
/usr/bin/python3 benchmarks/gap_summary.py "$work" | tee -a "$results"
