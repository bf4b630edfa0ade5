#!/usr/bin/env bash
# Configures and builds crawlrank into ./build (optimised, with line tables), 2 jobs.
#   scripts/build.sh          every part: library, tools, Python module, URLFrontier server,
#                             dashboard, tests, simulator, benchmarks
#   scripts/build.sh --demo   the library and the command-line tools only (scripts/demo.sh):
#                             what scripts/install-deps.sh --demo installs is enough
# Every part's option is given each time, so that one kind of build never inherits the
# other's from the CMake cache. Line tables (-g1) are what backtraces, sanitizer reports and
# profilers read, and compile in about four fifths of the time of full debug information;
# configure a tree by hand (`cmake -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug
# -DPython3_EXECUTABLE=/usr/bin/python3`) to inspect variables in a debugger.
# CRAWLRANK_BENCHMARKS=OFF leaves the benchmarks out (scripts/test.sh does: no test runs
# them, and they take a minute and a half to compile).
set -euo pipefail
cd "$(dirname "$0")/.."
parts=ON
if [ "${1:-}" = "--demo" ]; then parts=OFF; fi
benchmarks="${CRAWLRANK_BENCHMARKS:-ON}"
if [ "$parts" = OFF ]; then benchmarks=OFF; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCRAWLRANK_BUILD_TOOLS=ON \
  -DCRAWLRANK_BUILD_TESTS="$parts" -DCRAWLRANK_BUILD_SIMULATOR="$parts" \
  -DCRAWLRANK_BUILD_PYTHON="$parts" -DCRAWLRANK_BUILD_SERVER="$parts" \
  -DCRAWLRANK_BUILD_DASHBOARD="$parts" \
  -DCRAWLRANK_BUILD_BENCHMARKS="$benchmarks" \
  -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build -j"${JOBS:-2}"
