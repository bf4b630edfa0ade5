#!/usr/bin/env bash
# Installs the build tree BUILD_DIR into WORK/prefix, then builds tests/consumer against it
# twice: with find_package(crawlrank) and with pkg-config. Both must print the same line.
set -euo pipefail
build_dir=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
expected="crawlrank $(sed -n 's/^project(crawlrank VERSION \([0-9.]*\).*/\1/p' "$here/../../CMakeLists.txt"): http://example.com/index.html crawled 1 time(s); 3 pages, 2 links"

rm -rf "$work"
mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null

cmake -S "$here" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
got=$("$work/cmake-build/consumer" "$work/db1")
[ "$got" = "$expected" ] || { echo "find_package consumer printed: $got"; echo "expected: $expected"; exit 1; }

export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/$(gcc -print-multiarch)/pkgconfig"
# shellcheck disable=SC2046
g++ -std=c++20 -o "$work/consumer-pc" "$here/main.cc" $(pkg-config --cflags --libs crawlrank)
got=$("$work/consumer-pc" "$work/db2")
[ "$got" = "$expected" ] || { echo "pkg-config consumer printed: $got"; echo "expected: $expected"; exit 1; }
echo "install consumer: OK ($got)"
