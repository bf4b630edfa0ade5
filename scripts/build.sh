#!/usr/bin/env bash
# Configures and builds crawlrank into ./build (optimised, with line tables), 2 jobs.
# Line tables (-g1) are what backtraces, sanitizer reports and profilers read, and compile
# in about four fifths of the time of full debug information; configure a tree by hand
# (`cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DPython3_EXECUTABLE=/usr/bin/python3`)
# to inspect variables in a debugger. CRAWLRANK_BENCHMARKS=OFF leaves the benchmarks out
# (scripts/test.sh does: no test runs them, and they take a minute and a half to compile).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCRAWLRANK_BUILD_BENCHMARKS="${CRAWLRANK_BENCHMARKS:-ON}" \
  -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build -j"${JOBS:-2}"
