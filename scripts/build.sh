#!/usr/bin/env bash
# Configures (once) and builds warpmind into build/ (or $WARPMIND_BUILD_DIR). Extra arguments go to
# cmake's configure step, e.g. -DWARPMIND_CUDA=OFF. Incremental: a second run rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WARPMIND_BUILD_DIR:-build}
jobs=${WARPMIND_JOBS:-2}
if [[ ! -f "$build/CMakeCache.txt" || $# -gt 0 ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$build" -j "$jobs"
