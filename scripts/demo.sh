#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the main demo — the RTS battle.
# With a display it opens the window (ImGui panels; battle, crowd and field scenes); without one it runs
# headless and writes out/demo/frame-NNNN.png and out/demo/stats.json. Extra arguments go to
# warpmind-demo (see warpmind-demo --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
bin=${WARPMIND_BUILD_DIR:-build}/bin
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  "$bin/warpmind-demo" --window --map-file assets/maps/battle.json --out out/demo "$@"
else
  "$bin/warpmind-demo" --headless --map-file assets/maps/battle.json --frames 40 --ticks-per-frame 10 --save-every 10 --out out/demo "$@"
  echo "demo: no display; frames and stats.json written to out/demo/"
fi
