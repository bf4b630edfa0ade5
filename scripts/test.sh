#!/usr/bin/env bash
# Installs missing dependencies, builds, and runs every test (C++ and Python) with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j"${JOBS:-2}"
