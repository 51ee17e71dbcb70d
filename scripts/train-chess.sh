#!/usr/bin/env bash
# Trains chess networks on a machine with PyTorch (a CUDA GPU when there is one): expands games files
# (warpmind-datagen chess) into the trainer's records, then runs train/chess_train.py once per
# configuration, each writing OUTDIR/<name>.wmn, <name>.json (the summary: losses per epoch, time) and
# <name>.log. docs/training.md gives the commands that made the built-in network.
#
#   scripts/train-chess.sh DATAGEN OUTDIR CONFIG[,CONFIG...] GAMES.wmg[.gz]...
#
# DATAGEN: the warpmind-datagen program; CONFIG: NAME:HIDDEN:BUCKETS:EPOCHS[:LAMBDA[:LR[:residual]]] (e.g.
# h256b4:256:4:12, or h256r:256:1:10:1:0.001:residual for a residual network). For all: TRAIN_SEED
# (default 1), TRAIN_BATCH (16384), TRAIN_SECONDS (each training's epochs cut to fit this; 0: no cut).
# Every step is bounded by TRAIN_STEP_TIMEOUT seconds (default 540).
set -euo pipefail
if (($# < 4)); then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
datagen=$1 out=$2 configs=$3
shift 3
mkdir -p "$out"
limit=${TRAIN_STEP_TIMEOUT:-540}
python=${TRAIN_PYTHON:-python3}
records="$out/records.bin"
t0=$(date +%s)
timeout "$limit" "$datagen" expand --out "$records" "$@" 2>&1 | tee "$out/expand.log"
echo "train-chess: records in $(($(date +%s) - t0)) s"
IFS=, read -r -a list <<< "$configs"
for c in "${list[@]}"; do
  IFS=: read -r name hidden buckets epochs lambda lr residual <<< "$c"
  PYTHONUNBUFFERED=1 timeout "$limit" "$python" "$here/train/chess_train.py" --data "$records" --out "$out/$name.wmn" \
    --hidden "$hidden" --buckets "$buckets" --epochs "$epochs" --lambda "${lambda:-1}" --lr "${lr:-0.001}" \
    ${residual:+--residual} \
    --seed "${TRAIN_SEED:-1}" --batch "${TRAIN_BATCH:-16384}" --seconds "${TRAIN_SECONDS:-0}" --json "$out/$name.json" \
    2>&1 | tee "$out/$name.log"
done
rm -f "$records"
