#!/usr/bin/env bash
# Damages copies of a PageDB (300 single-byte flips, 100 whole 4 KiB pages zeroed and 100
# cuts of data.mdb by default) and runs every tool on each: none may crash, none may write
# over or copy damage. Runs the Release tools (build/) and, when built, the ASan+UBSan
# tools (build-sanitize/).
#   scripts/damage.sh [--flips N] [--zeroes N] [--truncations N] [--seed S]
# Build first with scripts/test.sh (or scripts/build.sh for build/ only).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for dir in build build-sanitize; do
  [ -x "$dir/tools/page_db_check" ] || continue
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    /usr/bin/python3 tests/python/damage.py --tools "$dir/tools" "$@" || status=1
done
exit $status
