#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs the whole test suite.
# GPU cases skip cleanly where no GPU is usable.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd "${WARPMIND_BUILD_DIR:-build}"
ctest --output-on-failure -j "${WARPMIND_JOBS:-2}"
