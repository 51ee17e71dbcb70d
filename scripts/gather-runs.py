#!/usr/bin/env python3
"""One results file from the runs of a gpu-run.sh step that runs programs rather than a benchmark suite.

usage: gather-runs.py STEP OUTDIR STAGE     (STEP: demo-battle, server-virtual, server-sockets, server-churn, server-10k,
                                             server-kill, server-devices)

Writes OUTDIR/STEP.json: {"suite", "device", "host_threads", "command", "commit", "date", "runs": [...]},
a run per stats.json (demo-battle, labelled by its configuration) or per JSON line the step wrote
(server-virtual.jsonl, server-sockets.jsonl, server-churn.jsonl), as they are. The commit is the stage's (STAGE/COMMIT), the
device the first GPU nvidia-smi names. Exits 1 when a run's output is missing or not JSON.
"""
import datetime
import json
import os
import subprocess
import sys

COMMANDS = {
    "demo-battle": "gpu-run.sh STAGE OUT demo-battle: warpmind-demo --headless --units 50000 --resolution 2048 "
                   "--gap 16 --ticks-per-frame 3 (--sight 20|10, --backend cuda|cpu, --no-interop)",
    "server-virtual": "gpu-run.sh STAGE OUT server-virtual: warpmind-server --virtual-clients N --map M --aoi 20 "
                      "--ticks T --backend cuda|cpu (N, M: 100000 7000; 1000000 22140; 4000000 44280)",
    "server-churn": "gpu-run.sh STAGE OUT server-churn: warpmind-server --max-clients 4000 --map 989 --aoi 20 "
                    "(default backend); warpmind-bots --bots 2000 --threads 8 over loopback, --seconds 10 --seed 1, 2, 3 "
                    "one run after another, then --seconds 30 --churn 0.05 --seed 4; the server's summary last",
    "server-10k": "gpu-run.sh STAGE OUT server-10k: warpmind-server --sockets 3 --max-clients 10000 --map 2212 --aoi 20 "
                  "(default backend); BOTS_BIND_BLOCKS=1 scripts/bot-processes.sh 4 10000 1 -- --threads 4 over "
                  "loopback (4 processes of 2,500 bots, each from 254 addresses of its own): --seconds 10 (all "
                  "connecting at once), then a new server and --seconds 12 --ramp-seconds 4",
    "server-kill": "gpu-run.sh STAGE OUT server-kill: CLUSTER_MAP=1980 CLUSTER_BACKEND=auto CLUSTER_BOT_THREADS=8 "
                   "CLUSTER_KILL_ZONE=1 CLUSTER_KILL_AT=5 CLUSTER_RESUME_AFTER_MS=1000 scripts/cluster.sh 4 8000 12; then "
                   "CLUSTER_MAP=989 "
                   "CLUSTER_KILL_ZONE=0 CLUSTER_KILL_TICK=100 CLUSTER_CHURN=0.05 scripts/cluster.sh 2 2000 12",
    "server-devices": "gpu-run.sh STAGE OUT server-devices: CLUSTER_MAP=1400 CLUSTER_BACKEND=cuda CLUSTER_BOT_THREADS=8 "
                      "CLUSTER_SOCKETS=2 CLUSTER_SINGLE=0 CLUSTER_DEVICES=1|2 scripts/cluster.sh 2 8000 10 (both zones "
                      "on GPU 0, then zone K on GPU K), each GPU's peak memory and utilisation sampled by nvidia-smi",
    "server-sockets": "gpu-run.sh STAGE OUT server-sockets: warpmind-server --max-clients 4000 --map 989|1400 "
                      "--aoi 20 (default backend) with warpmind-bots --bots 2000|4000 --threads 8 --seconds 10 "
                      "over loopback; then CLUSTER_MAP=1980 CLUSTER_BACKEND=auto CLUSTER_BOT_THREADS=8 "
                      "scripts/cluster.sh 4 8000 10; then CLUSTER_MAP=4428 CLUSTER_ROWS=2 CLUSTER_SOCKETS=2 "
                      "CLUSTER_NETNS=1 (where allowed) CLUSTER_BOT_THREADS=4 CLUSTER_BOT_PROCESSES=4 "
                      "scripts/cluster.sh 8 40000 10",
}
# demo-battle's runs: the folder gpu-run.sh writes each to, and its label.
BATTLE = [("demo-cuda", "cuda, sight 20, interop"), ("demo-cuda-sight10", "cuda, sight 10, interop"),
          ("demo-cuda-sight10-upload", "cuda, sight 10, host upload"), ("demo-cpu", "cpu, sight 20, host upload")]


def device_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30).stdout.strip().splitlines()
        return out[0].strip() if out else "cpu"
    except (OSError, subprocess.SubprocessError):
        return "cpu"


def main(argv):
    if len(argv) != 4 or argv[1] not in COMMANDS:
        sys.stderr.write(__doc__)
        return 2
    step, out, stage = argv[1], argv[2], argv[3]
    runs = []
    try:
        if step == "demo-battle":
            for folder, label in BATTLE:
                with open(os.path.join(out, folder, "stats.json")) as f:
                    run = json.load(f)
                run["label"] = label
                runs.append(run)
        else:
            with open(os.path.join(out, step + ".jsonl")) as f:
                runs = [json.loads(line) for line in f if line.strip().startswith("{")]
    except (OSError, ValueError) as e:
        sys.stderr.write(f"gather-runs.py {step}: {e}\n")
        return 1
    if not runs:
        sys.stderr.write(f"gather-runs.py {step}: no runs\n")
        return 1
    try:
        with open(os.path.join(stage, "COMMIT")) as f:
            commit = f.read().strip()
    except OSError:
        commit = "unknown"
    doc = {"suite": step, "device": device_name(), "host_threads": os.cpu_count(), "command": COMMANDS[step],
           "commit": commit, "date": datetime.date.today().isoformat(), "runs": runs}
    with open(os.path.join(out, step + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.join(out, step + '.json')} ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
