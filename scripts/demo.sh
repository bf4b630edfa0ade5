#!/usr/bin/env bash
# The main job on a real site: installs what is missing, builds, serves Python's manual
# (Debian's python3.11-doc, about 530 pages) on 127.0.0.1, crawls it with `crawlrank
# crawl`, and prints its most important pages; then shows the PageDB with the tools.
# It installs and builds only what that needs (the library and the command-line tools:
# scripts/install-deps.sh --demo, scripts/build.sh --demo), and prints how long the
# install, the build and the crawl took. scripts/test.sh installs and builds the rest.
# `scripts/demo.sh --graph` runs the older demo instead: the shipped link graph
# examples/small-web.links loaded, ranked and scheduled without a crawl.
set -euo pipefail
cd "$(dirname "$0")/.."
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }
started=$(now)
scripts/install-deps.sh --demo
install_s=$(took "$started")
started=$(now)
scripts/build.sh --demo
build_s=$(took "$started")
tools=build/tools
step() { printf '\n$ %s\n' "$*"; "$@"; }

if [ "${1:-}" = "--graph" ]; then
  db=build/demo-db
  rm -rf "$db"
  step "$tools/page_db_load" "$db" examples/small-web.links
  step "$tools/page_db_stats" "$db"
  step "$tools/page_db_find" "$db" '^https://wiki\.'
  step "$tools/page_db_links" "$db" https://wiki.example.edu/wiki/TrustRank
  step "$tools/page_db_path" "$db" https://www.example.org/news/2015/crawl-frontiers
  step "$tools/page_db_rank" "$db" --algo pagerank
  step "$tools/page_db_top" "$db" --by pagerank -n 5
  step "$tools/page_db_rank" "$db" --algo hits
  step "$tools/page_db_top" "$db" --by hubs -n 3
  step "$tools/page_db_schedule" "$db" -n 5 --hosts --max-hosts 5
  exit 0
fi

site=/usr/share/doc/python3.11/html
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
/usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.1)" 2>/dev/null && break
  sleep 0.1
done
printf 'Serving %s (Debian python3.11-doc) on http://127.0.0.1:%s/\n' "$site" "$port"

db=build/demo-crawl.db
rm -rf "$db"
# --allow-private: the site is on 127.0.0.1, which a crawl refuses by default.
started=$(now)
step build/tools/crawlrank crawl "$db" "http://127.0.0.1:$port/index.html" \
  --same-host --allow-private --delay 0 --per-host 8 --top 10
crawl_s=$(took "$started")
step "$tools/page_db_stats" "$db"
step "$tools/page_db_top" "$db" -n 5  # by the display rank: PageRank without template links
step "$tools/page_db_path" "$db" "http://127.0.0.1:$port/library/asyncio-task.html"
printf '\ninstall %s s, build %s s, crawl %s s\n' \
  "$install_s" "$build_s" "$crawl_s"
