#!/usr/bin/env bash
# scripts/soak.sh MINUTES BOTS — one warpmind-server up for MINUTES minutes on this machine (loopback
# only), played by BOTS bots with churn (SOAK_CHURN, default 5% a second: leaves and rejoins, restarts
# and resumes) in runs of one minute each, back to back: every run is checked whole by the bots
# (docs/server.md, "What the bots check"), and the server never restarts (its own time limit is far past
# the runs': each run is bounded by 240 s, its check included). The server's resident memory
# (VmRSS) is sampled every minute. Prints a line a minute (the run's players lost and inconsistencies,
# the RSS) and, last, one JSON object: every sample, the runs' totals, the RSS growth after the first
# minute, and "ok" (no run lost a player or saw an inconsistency, and the growth is at most
# SOAK_MAX_GROWTH, default 0.05). Exit status 0 when ok.
#
# Environment: WARPMIND_BIN_DIR (the programs; default build/bin), SOAK_MAP (default: the bots' usual
# density, 22 per 1,000 world units squared: 989 for 2,000 bots), SOAK_BACKEND (cpu), SOAK_THREADS (bot
# threads, 4), SOAK_CHURN (0.05), SOAK_MAX_GROWTH (0.05), SOAK_BIND (the bots' local addresses, as
# warpmind-bots --bind takes them, e.g. 127.0.10.0/24 for players from 254 loopback addresses; default
# none: every bot on 127.0.0.1, which the server's per-address rules treat as one host), SOAK_LOG (a
# folder for the logs; default a temporary one).
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: scripts/soak.sh MINUTES BOTS" >&2
  exit 2
fi
minutes=$1 bots=$2
[[ "$minutes" =~ ^[0-9]+$ && "$minutes" -ge 2 && "$minutes" -le 1440 ]] || { echo "soak: MINUTES must be 2..1440" >&2; exit 2; }
[[ "$bots" =~ ^[0-9]+$ && "$bots" -ge 1 && "$bots" -le 4000 ]] || { echo "soak: BOTS must be 1..4000" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${WARPMIND_BIN_DIR:-$root/build/bin}
for p in "$bin/warpmind-server" "$bin/warpmind-bots"; do
  [[ -x "$p" ]] || { echo "soak: missing $p (scripts/build.sh)" >&2; exit 2; }
done
map=${SOAK_MAP:-$(python3 -c "import math; print(round(math.sqrt($bots / 2000) * 989))")}
backend=${SOAK_BACKEND:-cpu}
threads=${SOAK_THREADS:-4}
churn=${SOAK_CHURN:-0.05}
max_growth=${SOAK_MAX_GROWTH:-0.05}
bind=()
[[ -n "${SOAK_BIND:-}" ]] && bind=(--bind "$SOAK_BIND")
log=${SOAK_LOG:-$(mktemp -d)}
mkdir -p "$log"

"$bin/warpmind-server" --port 0 --max-clients $((bots + bots / 10 + 16 > 4000 ? 4000 : bots + bots / 10 + 16)) --map "$map" --aoi 20 --backend "$backend" \
  --seconds $((minutes * 240 + 60)) --json > "$log/server.json" 2> "$log/server.err" &
server=$!
trap 'kill -INT $server 2> /dev/null || true' EXIT
for _ in $(seq 400); do grep -q "listening on 127.0.0.1:[0-9]*," "$log/server.err" && break; sleep 0.05; done
port=$(grep -o "listening on 127.0.0.1:[0-9]*," "$log/server.err" | grep -o "[0-9]*,$" | tr -d ,)
[[ -n "$port" ]] || { echo "soak: the server did not start: $(cat "$log/server.err")" >&2; exit 1; }
echo "soak: server on 127.0.0.1:$port (pid $server), map $map, $bots bots${SOAK_BIND:+ from $SOAK_BIND}, churn $churn, $minutes minutes, logs in $log"

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$server/status" 2> /dev/null || echo 0; }
: > "$log/runs.jsonl"
samples=()
for ((m = 1; m <= minutes; ++m)); do
  # One minute of bots (58 s of play and their check): a run's States are all held for its check, so
  # the runs are kept to a minute each.
  timeout 240 "$bin/warpmind-bots" --server "127.0.0.1:$port" --bots "$bots" --threads "$threads" --seconds 58 \
    --churn "$churn" --seed "$m" "${bind[@]}" --json > "$log/bots-$m.out" 2>&1 || true
  tail -1 "$log/bots-$m.out" >> "$log/runs.jsonl"
  rss=$(rss_kb)
  samples+=("$rss")
  python3 - "$log/bots-$m.out" "$m" "$rss" <<'EOF'
import json, sys
try:
    r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
except (ValueError, IndexError):
    r = {}
print(f"minute {sys.argv[2]}: rss {int(sys.argv[3]) / 1024:.1f} MiB; sessions {r.get('sessions', '?')}, "
      f"players lost {r.get('players_lost', '?')}, inconsistencies {r.get('inconsistencies', '?')}, "
      f"ticks checked {r.get('ticks_checked', '?')}")
EOF
done
kill -INT "$server"
wait "$server" || true
trap - EXIT
python3 - "$log" "$max_growth" "$minutes" "$bots" "$churn" "${samples[@]}" <<'EOF'
import json, sys
log, max_growth, minutes, bots, churn = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
rss = [int(x) for x in sys.argv[6:]]
runs = []
for line in open(f"{log}/runs.jsonl"):
    try:
        runs.append(json.loads(line))
    except ValueError:
        runs.append({})
total = lambda k: sum(int(r.get(k, 0)) for r in runs)
bad_runs = sum(1 for r in runs if "inconsistencies" not in r)
try:
    server = json.loads(open(f"{log}/server.json").read().strip().splitlines()[-1])
except (ValueError, IndexError, OSError):
    server = {}
growth = (rss[-1] - rss[0]) / rss[0] if len(rss) > 1 and rss[0] > 0 else None
ok = (bad_runs == 0 and total("players_lost") == 0 and total("inconsistencies") == 0 and
      total("players_duplicated") == 0 and growth is not None and growth <= max_growth)
print(json.dumps({
    "program": "soak", "minutes": minutes, "bots": bots, "churn": churn, "rss_kb": rss,
    "rss_growth_after_first_minute": growth, "max_growth": max_growth, "runs": len(runs),
    "runs_without_summary": bad_runs, "sessions": total("sessions"), "players_lost": total("players_lost"),
    "players_duplicated": total("players_duplicated"), "inconsistencies": total("inconsistencies"),
    "ticks_checked": total("ticks_checked"), "states_checked": total("states_checked"),
    "resumes_checked": total("resumes_checked"),
    "server": {k: server.get(k) for k in ("ticks", "late_ticks", "clients", "tick_ms", "dropped")},
    "ok": ok, "logs": log}))
sys.exit(0 if ok else 1)
EOF
