#!/usr/bin/env bash
# A match of warpmind-chess against Stockfish (Debian's package), refereed by warpmind-referee: every move
# is checked against the rules and the clock; one thread and 64 MB of hash each. Exits non-zero if
# warpmind-chess made an illegal move or lost on time.
# Usage: scripts/match.sh [games (20)] [time_ms (2000)] [inc_ms (50)] [elo] [seed (1)]
#   elo: Stockfish limited to that UCI_Elo (UCI_LimitStrength); full strength when omitted or 0.
# MATCH_JOBS=J plays the games as J referees at a time (one engine of each side thinking per referee, so
# J cores), referee j on openings seed + 1000 j with games / J games (rounded up to pairs); the games go
# to out/match/games-j.txt and the summary of all of them is printed last. MATCH_OPTIONS1 adds UCI options
# for warpmind-chess (e.g. EvalFile=net.wmn); MATCH_ENGINE1 replaces it (another binary), MATCH_REFEREE the
# referee, MATCH_OPPONENT Stockfish (then nothing is installed), MATCH_OUT the folder out/match.
# The games go to out/match/games.txt (one referee) or out/match/games-j.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MATCH_OPPONENT:-}" ]] && ! command -v stockfish >/dev/null 2>&1 && [[ ! -x /usr/games/stockfish ]]; then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends stockfish
fi
opponent=${MATCH_OPPONENT:-$(command -v stockfish || echo /usr/games/stockfish)}
bin=${WARPMIND_BUILD_DIR:-build}/bin
if [[ -z "${MATCH_ENGINE1:-}" ]]; then bash scripts/build.sh; fi
engine1=${MATCH_ENGINE1:-$bin/warpmind-chess}
referee=${MATCH_REFEREE:-$bin/warpmind-referee}
out=${MATCH_OUT:-out/match}
mkdir -p "$out"
options1="Threads=1,Hash=64${MATCH_OPTIONS1:+,$MATCH_OPTIONS1}"
options2="Threads=1,Hash=64"
if [[ "${4:-0}" != 0 ]]; then options2="$options2,UCI_LimitStrength=true,UCI_Elo=$4"; fi
games=${1:-20} jobs=${MATCH_JOBS:-1} seed=${5:-1}
if ((jobs <= 1)); then
  exec "$referee" --engine1 "$engine1" --options1 "$options1" --engine2 "$opponent" --options2 "$options2" \
    --games "$games" --time "${2:-2000}" --inc "${3:-50}" --seed "$seed" --log "$out/games.txt"
fi
each=$(((games + jobs - 1) / jobs))
each=$((each + each % 2))
pids=()
for ((j = 0; j < jobs; ++j)); do
  "$referee" --engine1 "$engine1" --options1 "$options1" --engine2 "$opponent" --options2 "$options2" \
    --games "$each" --time "${2:-2000}" --inc "${3:-50}" --seed $((seed + 1000 * j)) \
    --log "$out/games-$j.txt" > "$out/referee-$j.txt" 2>&1 &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
# The summary of every referee's games: engine 1's wins, draws and losses, illegal moves and time losses.
cat "$out"/referee-*.txt | awk '
  /^engine 1: \+/ { for (k = 3; k <= 11; ++k) gsub(/[^0-9]/, "", $k); W += $3; D += $4; L += $5; I += $8; T += $11 }
  END {
    n = W + D + L; s = (W + D / 2) / n
    v = (W * (1 - s) ^ 2 + D * (0.5 - s) ^ 2 + L * s ^ 2) / n; h = 1.96 * sqrt(v / n)
    elo = (s > 0 && s < 1) ? sprintf("%+.0f", -400 * log(1 / s - 1) / log(10)) : "inf"
    lo = s - h; hi = s + h
    printf "all referees: %d games, engine 1 +%d =%d -%d, score %.1f%% (95%%: %.1f%% .. %.1f%%), Elo %s; illegal moves %d, time losses %d\n",
      n, W, D, L, 100 * s, 100 * lo, 100 * hi, elo, I, T
  }'
exit $rc
