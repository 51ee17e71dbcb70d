#!/usr/bin/env bash
# scripts/bot-processes.sh PROCESSES BOTS SEED LOG -- [warpmind-bots flags...] — one run of BOTS bots split
# over PROCESSES warpmind-bots processes started together (for more bots than one process may open
# sockets, or than one process can service): process i runs BOTS / PROCESSES of them (the first BOTS mod
# PROCESSES one more) with seed SEED + i, records what they received (--record LOG/bots-i.rec), and then
# one warpmind-bots --check-records checks every record together, as if one process had run every bot
# (docs/server.md, "Bots in several processes"). The flags after -- go to every process (--server, --threads,
# --seconds, ...; not --bots, --seed, --record or --json, which this script sets).
#
# BOTS_BIND_BLOCKS=1 binds process i's sockets to the loopback block 127.0.(10 + i).0/24 (--bind; 254
# addresses a process), so a server on 127.0.0.1 sees its players come from many addresses, as it would
# on a network. Only for a server on a loopback address: a socket on 127/8 reaches nothing else.
#
# Prints one JSON object (the last line): each process's own summary under "runs" (first), then the
# processes' counts summed (bots, joined, players lost and duplicated, ...), the longest State gap of any,
# and the check's ticks, States and inconsistencies. Exit status: 0 when some bot joined and nothing was
# inconsistent, lost or duplicated, 1 otherwise, 2 on bad arguments. WARPMIND_BIN_DIR: the programs
# (default build/bin).
set -euo pipefail

if [[ $# -lt 5 || $5 != -- ]]; then
  echo "usage: scripts/bot-processes.sh PROCESSES BOTS SEED LOG -- [warpmind-bots flags...]" >&2
  exit 2
fi
processes=$1 bots=$2 seed=$3 log=$4
shift 5
[[ "$bots" =~ ^[0-9]+$ && "$bots" -ge 1 ]] || { echo "bot-processes: BOTS must be a positive integer" >&2; exit 2; }
[[ "$processes" =~ ^[1-9][0-9]*$ ]] && ((processes <= 64 && processes <= bots)) ||
  { echo "bot-processes: PROCESSES must be 1..64 and at most BOTS" >&2; exit 2; }
[[ "$seed" =~ ^[0-9]+$ ]] || { echo "bot-processes: SEED must be a non-negative integer" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${WARPMIND_BIN_DIR:-$root/build/bin}
[[ -x "$bin/warpmind-bots" ]] || { echo "bot-processes: missing $bin/warpmind-bots (scripts/build.sh)" >&2; exit 2; }
mkdir -p "$log"

records=() pids=()
for ((i = 0; i < processes; ++i)); do
  n=$((bots / processes + (i < bots % processes ? 1 : 0)))
  bind=()
  [[ ${BOTS_BIND_BLOCKS:-0} == 1 ]] && bind=(--bind "127.0.$((10 + i)).0/24")
  records+=("$log/bots-$i.rec")
  "$bin/warpmind-bots" "$@" ${bind[@]+"${bind[@]}"} --bots "$n" --seed "$((seed + i))" --json \
    --record "$log/bots-$i.rec" >"$log/bots-$i.json" 2>"$log/bots-$i.err" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
"$bin/warpmind-bots" --check-records "$(IFS=,; echo "${records[*]}")" >"$log/check.json" 2>"$log/check.err" || true
python3 - "$log" "$processes" <<'PY'
import json, sys
log, n = sys.argv[1], int(sys.argv[2])
def last(path):
    try:
        return json.loads(open(path).read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return None
runs, check = [last(f"{log}/bots-{i}.json") for i in range(n)], last(f"{log}/check.json")
if check is None or None in runs:
    for i in range(n):
        sys.stderr.write(open(f"{log}/bots-{i}.err").read())
    sys.stderr.write(open(f"{log}/check.err").read())
    sys.stderr.write("bot-processes: a process or the check wrote no summary (its errors above)\n")
    sys.exit(1)
# The processes' own summaries first: a reader that takes a key's last occurrence on the line (cluster.sh's
# field) finds the run's total.
out = {"program": "warpmind-bots", "processes": n, "checked": True, "runs": runs}
for k in ("bots", "joined", "refused", "players_lost", "players_duplicated", "duplicate_states", "crash_resumes",
          "catch_ups_behind", "snapshots", "bad_messages", "sessions", "reconnects"):
    out[k] = sum(r.get(k, 0) for r in runs)
out["longest_state_gap_ms"] = max(r.get("longest_state_gap_ms", 0) for r in runs)
for k in ("ticks_checked", "states_checked", "resumes_checked", "resume_errors", "shared_ids"):
    out[k] = check[k]
out["inconsistencies"] = check["inconsistencies"] + out["bad_messages"]
print(json.dumps(out, separators=(",", ":")))
ok = out["joined"] > 0 and out["inconsistencies"] == 0 and out["players_lost"] == 0 and out["players_duplicated"] == 0
sys.exit(0 if ok else 1)
PY
