#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, with clang-14, ASan and UBSan) in build-fuzz/ and runs
# each for SECONDS_PER_TARGET seconds (default 300), one a core at a time (FUZZ_JOBS sets
# how many), on a scratch copy of its seed corpus fuzz/corpus/<name>/: the committed corpus
# never grows by itself.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      all targets
#   FUZZ_TARGETS="url page_record" scripts/fuzz.sh 60
#   FUZZ_BUILD=build-sanitize scripts/fuzz.sh 10   in a tree configured already (clang,
#                                                  CRAWLRANK_BUILD_FUZZERS=ON), as test.sh does
#
# Exits non-zero when a target crashes, printing the path of the input that crashed it
# (kept under build-fuzz/crashes/<name>/). docs/fuzzing.md says what each target checks.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-300}"
targets=(${FUZZ_TARGETS:-url link_block page_record rank_file page_line robots html_extract html_scan
  sitemap content_decoding})
build="${FUZZ_BUILD:-build-fuzz}"

if [ -n "${FUZZ_BUILD:-}" ] && ! grep -qs '^CRAWLRANK_BUILD_FUZZERS:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "fuzz.sh: FUZZ_BUILD=$build is not a tree configured with CRAWLRANK_BUILD_FUZZERS=ON" \
       "(scripts/test.sh makes build-sanitize/ so); leave FUZZ_BUILD unset to use build-fuzz/" >&2
  exit 2
fi
if [ -z "${FUZZ_BUILD:-}" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCRAWLRANK_BUILD_FUZZERS=ON -DCRAWLRANK_BUILD_TESTS=OFF -DCRAWLRANK_BUILD_TOOLS=OFF \
    -DCRAWLRANK_BUILD_BENCHMARKS=OFF -DCRAWLRANK_BUILD_PYTHON=OFF >/dev/null
fi
cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]/%/_fuzz}"

# Runs one target; its log in $build/run/<name>/log, "ok" or "crashed" in .../result.
run_target() {
  local name=$1 work="$build/run/$1" crashes="$build/crashes/$1"
  rm -rf "$work" "$crashes"
  mkdir -p "$work/corpus" "$crashes"
  cp fuzz/corpus/"$name"/* "$work/corpus/"
  # Leaks are checked too; -rss_limit_mb stays at libFuzzer's 2 GB default.
  if "$build/fuzz/${name}_fuzz" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$crashes/" "$work/corpus" >"$work/log" 2>&1; then
    echo ok >"$work/result"
  else
    echo crashed >"$work/result"
  fi
}

# FUZZ_JOBS targets at once (default: one a core), each single-threaded.
jobs="${FUZZ_JOBS:-$(nproc)}"
running=0
for name in "${targets[@]}"; do
  echo "fuzz.sh: $name for ${seconds}s" >&2
  run_target "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=()
for name in "${targets[@]}"; do
  work="$build/run/$name"
  crashes="$build/crashes/$name"
  if [ "$(cat "$work/result" 2>/dev/null)" != ok ]; then
    tail -n 40 "$work/log" >&2
    failed+=("$name")
    for input in "$crashes"/*; do
      [ -e "$input" ] && echo "fuzz.sh: $name crashed on $input (reproduce: $build/fuzz/${name}_fuzz $input)" >&2
    done
    continue
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
    "$work/log" | sed "s/^/fuzz.sh: $name /" >&2 || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: ${#targets[@]} targets ran ${seconds}s each without a crash" >&2
