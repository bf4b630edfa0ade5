#!/usr/bin/env bash
# Configures and builds crawlrank into ./build (Release with debug info), 2 jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build -j"${JOBS:-2}"
