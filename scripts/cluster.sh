#!/usr/bin/env bash
# A cluster of N `crawlrank serve` nodes on this machine, to try one (docs/cluster.md):
#
#   scripts/cluster.sh start N DIR [--base-port P] [-- SERVE_OPTION...]
#   scripts/cluster.sh stop DIR
#
# start: node i listens on 127.0.0.1:(P + i) (P: 7071) with its PageDB DIR/node<i>, its
# log DIR/node<i>.log and its pid in DIR/node<i>.pid; options after -- go to every node
# (e.g. -- --score-mode opic). It waits until every node listens, then prints each node's
# address and how to point crawlers at the cluster. stop: SIGTERM to every node of DIR
# (each drains and exits), waiting for them. A node restarted with the same DIR resumes
# as itself: its membership is in its PageDB.
#
# Runs build/tools/crawlrank (scripts/build.sh builds it; crawlrank serve needs gRPC), or
# the crawlrank that $CRAWLRANK_BIN names.
set -euo pipefail
cd "$(dirname "$0")/.."
crawlrank=${CRAWLRANK_BIN:-build/tools/crawlrank}

usage() {
  echo "usage: scripts/cluster.sh start N DIR [--base-port P] [-- SERVE_OPTION...]" >&2
  echo "       scripts/cluster.sh stop DIR" >&2
  exit 2
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
  for file in "$dir"/node*.pid; do
    [ -e "$file" ] || continue
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      pids+=("$pid")
    fi
    rm -f "$file"
  done
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  done
  echo "stopped ${#pids[@]} nodes of $dir"
}

start() {
  local n=$1 dir=$2
  shift 2
  local base=7071
  while [ $# -gt 0 ]; do
    case $1 in
      --base-port) base=${2:?--base-port needs a port}; shift 2 ;;
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
Stop: scripts/cluster.sh stop $dir
EOF
}

case ${1:-} in
  start) [ $# -ge 3 ] || usage; shift; start "$@" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  *) usage ;;
esac
