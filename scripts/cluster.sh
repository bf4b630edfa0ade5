#!/usr/bin/env bash
# A cluster of N `crawlrank serve` nodes on this machine, to try one (docs/cluster.md):
#
#   scripts/cluster.sh start N DIR [--base-port P] [--rank-every SECONDS] [-- SERVE_OPTION...]
#   scripts/cluster.sh stop DIR
#   scripts/cluster.sh rank DIR [--every SECONDS] [-- JOB_OPTION...]
#
# start: node i listens on 127.0.0.1:(P + i) (P: 7071) with its PageDB DIR/node<i>, its
# log DIR/node<i>.log and its pid in DIR/node<i>.pid; options after -- go to every node
# (e.g. -- --score-mode opic). It waits until every node listens, then prints each node's
# address and how to point crawlers at the cluster. stop: SIGTERM to every node of DIR
# (each drains and exits), waiting for them. A node restarted with the same DIR resumes
# as itself: its membership is in its PageDB.
#
# rank: the cluster's global ranks (docs/cluster.md, "Global ranks"): one MPI job over
# every node's PageDB (mpirun -n N crawlrank_rank_mpi, the nodes in their list's order),
# with JOB_OPTIONs after -- (default --algo pagerank); once, or every SECONDS until
# stopped. start --rank-every SECONDS runs that in the background beside the nodes (its
# log DIR/rank.log), and stop ends it too. Needs crawlrank_rank_mpi (built when MPI is
# found) and mpirun.
#
# Runs build/tools/crawlrank (scripts/build.sh builds it; crawlrank serve needs gRPC), or
# the crawlrank that $CRAWLRANK_BIN names.
set -euo pipefail
cd "$(dirname "$0")/.."
crawlrank=${CRAWLRANK_BIN:-build/tools/crawlrank}

usage() {
  echo "usage: scripts/cluster.sh start N DIR [--base-port P] [--rank-every SECONDS] [-- SERVE_OPTION...]" >&2
  echo "       scripts/cluster.sh stop DIR" >&2
  echo "       scripts/cluster.sh rank DIR [--every SECONDS] [-- JOB_OPTION...]" >&2
  exit 2
}

# The global ranks job over DIR's nodes, in the order of their list, into rank_cmd (each
# node's entry is in DIR/node<i>.entry; the list is sorted as bytes, which is Java's String
# order for these ASCII entries). JOB_OPTIONs follow (default --algo pagerank).
rank_command() {
  local dir=$1
  shift
  local job=${CRAWLRANK_RANK_MPI:-$(dirname "$crawlrank")/crawlrank_rank_mpi}
  [ -x "$job" ] || { echo "cluster.sh: $job is missing: MPI was not found at build time" >&2; exit 1; }
  command -v mpirun >/dev/null || { echo "cluster.sh: no mpirun (apt-get install openmpi-bin)" >&2; exit 1; }
  local dbs=() entry file
  while read -r entry file; do
    dbs+=(--db "${file%.entry}")
  done < <(for file in "$dir"/node*.entry; do
             [ -e "$file" ] && echo "$(cat "$file") $file"
           done | LC_ALL=C sort)
  [ ${#dbs[@]} -gt 0 ] || { echo "cluster.sh: no nodes in $dir (scripts/cluster.sh start first)" >&2; exit 1; }
  rank_cmd=(mpirun -n $((${#dbs[@]} / 2)) --oversubscribe)
  if [ "$(id -u)" -eq 0 ]; then rank_cmd+=(--allow-run-as-root); fi  # Open MPI refuses root otherwise
  [ $# -gt 0 ] || set -- --algo pagerank
  rank_cmd+=("$job" "${dbs[@]}" "$@")
}

rank() {
  local dir=$1 every=0
  shift
  while [ $# -gt 0 ]; do
    case $1 in
      --every) every=${2:?--every needs seconds}; shift 2 ;;
      --) shift; break ;;
      *) usage ;;
    esac
  done
  [[ $every =~ ^[0-9]+$ ]] || { echo "cluster.sh: --every $every: a whole number of seconds" >&2; exit 2; }
  rank_command "$dir" "$@"
  if [ "$every" -eq 0 ]; then
    exec "${rank_cmd[@]}"
  fi
  # Stopped by SIGTERM (cluster.sh stop): ends the run under way (every node keeps its
  # last complete one) and the wait.
  local child=''
  trap '[ -n "$child" ] && kill "$child" 2>/dev/null; exit 0' TERM INT
  while true; do  # a failed run is logged, and the next one tries again
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) global ranks of $dir"
    "${rank_cmd[@]}" &
    child=$!
    wait "$child" || echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) the job failed; the nodes keep their last run"
    sleep "$every" &
    child=$!
    wait "$child" || true
  done
}

port_free() {
  /usr/bin/python3 - "$1" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds it
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
PY
}

stop() {
  local dir=$1 pid
  local pids=()
  local ranking=''
  for file in "$dir"/rank.pid "$dir"/node*.pid; do
    [ -e "$file" ] || continue
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      if [ "$file" = "$dir/rank.pid" ]; then ranking=' and its global ranks'; else pids+=("$pid"); fi
    fi
    rm -f "$file"
  done
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  done
  echo "stopped ${#pids[@]} nodes of $dir$ranking"
}

start() {
  local n=$1 dir=$2
  shift 2
  local base=7071 rank_every=0
  while [ $# -gt 0 ]; do
    case $1 in
      --base-port) base=${2:?--base-port needs a port}; shift 2 ;;
      --rank-every) rank_every=${2:?--rank-every needs seconds}; shift 2 ;;
      --) shift; break ;;
      *) usage ;;
    esac
  done
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "cluster.sh: N must be a whole number from 1" >&2; exit 2; }
  [[ $base =~ ^[0-9]+$ ]] && [ $((base + n - 1)) -le 65535 ] && [ "$base" -ge 1 ] ||
    { echo "cluster.sh: --base-port $base: ports $base to $((base + n - 1)) are not all valid" >&2; exit 2; }
  [ -x "$crawlrank" ] || { echo "cluster.sh: $crawlrank is missing: run scripts/build.sh" >&2; exit 1; }
  mkdir -p "$dir"
  for file in "$dir"/node*.pid; do
    if [ -e "$file" ] && kill -0 "$(cat "$file")" 2>/dev/null; then
      echo "cluster.sh: $dir has nodes running (scripts/cluster.sh stop $dir first)" >&2
      exit 1
    fi
  done
  local entries=() i
  for ((i = 0; i < n; i++)); do
    if ! port_free $((base + i)); then
      echo "cluster.sh: port $((base + i)) is taken: give another --base-port" >&2
      exit 1
    fi
    entries+=("127.0.0.1:$((base + i))")
  done
  local list
  list=$(IFS=,; echo "${entries[*]}")
  for ((i = 0; i < n; i++)); do
    "$crawlrank" serve "$dir/node$i" --nodes "$list" --node "${entries[$i]}" "$@" \
      >"$dir/node$i.log" 2>&1 &
    echo $! >"$dir/node$i.pid"
    echo "${entries[$i]}" >"$dir/node$i.entry"
  done
  for ((i = 0; i < n; i++)); do
    local waited=0
    until grep -q '^listening on ' "$dir/node$i.log"; do
      if ! kill -0 "$(cat "$dir/node$i.pid")" 2>/dev/null || [ $waited -ge 300 ]; then
        echo "cluster.sh: node ${entries[$i]} did not start; its log ($dir/node$i.log):" >&2
        cat "$dir/node$i.log" >&2
        stop "$dir" >/dev/null
        exit 1
      fi
      sleep 0.1
      waited=$((waited + 1))
    done
  done
  if [ "$rank_every" != 0 ]; then
    [[ $rank_every =~ ^[0-9]+$ ]] || { echo "cluster.sh: --rank-every $rank_every: a whole number of seconds" >&2; stop "$dir" >/dev/null; exit 2; }
    "$0" rank "$dir" --every "$rank_every" >"$dir/rank.log" 2>&1 &
    echo $! >"$dir/rank.pid"
    echo "Global ranks every $rank_every s (log $dir/rank.log)."
  fi
  echo "$n nodes of one frontier, each with its PageDB in $dir/node<i>:"
  for ((i = 0; i < n; i++)); do echo "  node $i: ${entries[$i]} (log $dir/node$i.log)"; done
  cat <<EOF
Crawl every node from each crawler process (as many processes as you like, each given the
whole list and the seeds; each reads the nodes in turn and ends when the cluster is done):
  $crawlrank crawl --frontier $list SEED...
  $crawlrank crawl --frontier ${entries[0]} --discover SEED...   (the same: the list from ListNodes)
Scrapy: scrapy crawl SPIDER -s CRAWLRANK_FRONTIER=$list
StormCrawler (untested here): urlfrontier.address: "$list", one spout task per node.
Watch a node: $crawlrank dashboard $dir/node0 (its share; /metrics labels node and cluster).
Global ranks over every node (MPI): scripts/cluster.sh rank $dir
Stop: scripts/cluster.sh stop $dir
EOF
}

case ${1:-} in
  start) [ $# -ge 3 ] || usage; shift; start "$@" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  rank) [ $# -ge 2 ] || usage; shift; rank "$@" ;;
  *) usage ;;
esac
