#!/usr/bin/env bash
# A 20-game match of warpmind-chess against Stockfish (Debian's package) at a fast time control, refereed
# by warpmind-referee: every move is checked against the rules and the clock. Exits non-zero if
# warpmind-chess made an illegal move or lost on time. Usage: scripts/match.sh [games] [time_ms] [inc_ms]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v stockfish >/dev/null 2>&1 && [[ ! -x /usr/games/stockfish ]]; then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends stockfish
fi
opponent=$(command -v stockfish || echo /usr/games/stockfish)
bash scripts/build.sh
bin=${WARPMIND_BUILD_DIR:-build}/bin
mkdir -p out/match
"$bin/warpmind-referee" --engine1 "$bin/warpmind-chess" --engine2 "$opponent" --games "${1:-20}" \
  --time "${2:-2000}" --inc "${3:-50}" --log out/match/games.txt
