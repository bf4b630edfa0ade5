#!/usr/bin/env bash
# The main job on the shipped example: installs what is missing, builds, loads the link
# graph examples/small-web.links into a fresh PageDB, shows it with the tools, ranks it,
# prints its best pages, and what the scheduler would fetch next.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
tools=build/tools
db=build/demo-db
rm -rf "$db"

step() { printf '\n$ %s\n' "$*"; "$@"; }
step "$tools/page_db_load" "$db" examples/small-web.links
step "$tools/page_db_stats" "$db"
printf '\n$ %s\n' "$tools/page_db_dump info $db --header | head -6"
"$tools/page_db_dump" info "$db" --header | head -6
step "$tools/page_db_find" "$db" '^https://wiki\.'
step "$tools/page_db_links" "$db" https://wiki.example.edu/wiki/TrustRank
step "$tools/page_db_path" "$db" https://www.example.org/news/2015/crawl-frontiers
step "$tools/page_db_rank" "$db" --algo pagerank
step "$tools/page_db_top" "$db" --by pagerank -n 5
step "$tools/page_db_rank" "$db" --algo hits
step "$tools/page_db_top" "$db" --by hubs -n 3
step "$tools/page_db_schedule" "$db" -n 5 --hosts --max-hosts 5
