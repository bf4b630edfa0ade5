#!/usr/bin/env bash
# Installs missing dependencies, builds, and runs every test (C++ and Python) with CTest;
# then builds again with clang, AddressSanitizer, UBSan and libFuzzer's coverage
# (build-sanitize/), runs every test there too, and runs each libFuzzer target of that build
# for 5 s on its seed corpus (scripts/fuzz.sh). `scripts/test.sh --quick` skips the
# sanitizer and fuzz passes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
CRAWLRANK_BENCHMARKS=OFF scripts/build.sh  # no test runs the benchmarks (but the simulator)
# One more test at a time than cores: the Python entries spend much of their time waiting on
# their local servers and crawl delays (330 s here against 461 s with -j2, issue #48).
ctest --test-dir build --output-on-failure -j"$(( ${JOBS:-2} + 1 ))"
if [ "${1:-}" = "--quick" ]; then exit 0; fi
# clang, not GCC, for this pass: it compiles the sanitizers' checks in half GCC's time, and
# its libFuzzer lets the fuzz targets share the tests' instrumented library.
if [ -f build-sanitize/CMakeCache.txt ] &&
    ! grep -q '^CMAKE_CXX_COMPILER:.*clang++-14' build-sanitize/CMakeCache.txt; then
  rm -rf build-sanitize  # configured with GCC by an older test.sh
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug \
  -DCRAWLRANK_SANITIZE=ON -DCRAWLRANK_BUILD_FUZZERS=ON -DCRAWLRANK_BUILD_BENCHMARKS=OFF \
  -DCRAWLRANK_BUILD_SIMULATOR=OFF -DCRAWLRANK_BUILD_MPI=OFF \
  -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build-sanitize -j"${JOBS:-2}"
# install_consumer links the user's project without the sanitizer runtime: skip it there.
# One more test at a time than cores: here the Python entries mostly wait on their local
# servers (the Scrapy and install ones skip), beside the C++ tests' CPU.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$(( ${JOBS:-2} + 1 ))" -E install_consumer
# A short, bounded fuzz pass (5 s a target, one a core at a time): longer runs are
# scripts/fuzz.sh's default.
FUZZ_BUILD=build-sanitize scripts/fuzz.sh 5
