#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the main demo.
# For now that is the potential-field demo: the bundled RTS scenario's layers as PNG heat maps in out/
# plus a stats summary (the windowed engine demo replaces it when the engine lands).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
mkdir -p out
bin=${WARPMIND_BUILD_DIR:-build}/bin
"$bin/warpmind" field --scenario assets/scenarios/field_demo.json --png out/field.png --repeat 5 "$@"
echo "demo: heat maps written to out/field-<layer>.png"
