#!/usr/bin/env bash
# A match of warpmind-chess against Stockfish (Debian's package), refereed by warpmind-referee: every move
# is checked against the rules and the clock; one thread and 64 MB of hash each. Exits non-zero if
# warpmind-chess made an illegal move or lost on time.
# Usage: scripts/match.sh [games (20)] [time_ms (2000)] [inc_ms (50)] [elo] [seed (1)]
#   elo: Stockfish limited to that UCI_Elo (UCI_LimitStrength); full strength when omitted or 0.
# The games go to out/match/games.txt.
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
options2="Threads=1,Hash=64"
if [[ "${4:-0}" != 0 ]]; then options2="$options2,UCI_LimitStrength=true,UCI_Elo=$4"; fi
"$bin/warpmind-referee" --engine1 "$bin/warpmind-chess" --options1 Threads=1,Hash=64 --engine2 "$opponent" \
  --options2 "$options2" --games "${1:-20}" --time "${2:-2000}" --inc "${3:-50}" --seed "${5:-1}" \
  --log out/match/games.txt
