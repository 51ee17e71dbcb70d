#!/usr/bin/env python3
"""Trains warpmind's chess network on the records of `warpmind-datagen expand` and writes it as a network
file the engine reads (version 2 of ai/include/warpmind/search/chess_network.h). The records of every
20th game are held out: the loss on them is reported each epoch, and the engine's integer values on them
are computed from the written file (chess_network.forward, the engine's arithmetic) and compared with the
float model's. Reproducible for a seed on one device (CUDA kernels may add in other orders).

usage: chess_train.py --data FILE [--data FILE ...] --out NET.wmn [--hidden 256] [--buckets 4] [--epochs 10]
                      [--residual] [--batch 16384] [--lr 0.001] [--lambda 1] [--seed 1] [--device cpu|cuda] [--json FILE]
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402

from warpmind_train import chess_network as cn  # noqa: E402
from warpmind_train import chess_records  # noqa: E402
from warpmind_train.chess_model import ChessModel, loss, tensors  # noqa: E402
from warpmind_train.fit import fit, mean_loss  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", required=True, help="a records file (repeatable)")
    ap.add_argument("--out", required=True, help="the network file written")
    ap.add_argument("--hidden", type=int, default=256, help="accumulator units a perspective (32..1024, ×32)")
    ap.add_argument("--buckets", type=int, default=4, choices=sorted(cn.BUCKETS), help="king buckets")
    ap.add_argument("--residual", action="store_true", help="the output corrects the classical evaluation")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--qat-epochs", type=int, default=2, help="the last epochs quantisation-aware")
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lambda", dest="lam", type=float, default=1.0, help="weight of the score against the result")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0, help="fewer epochs if they would take longer than this")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (0: its default)")
    ap.add_argument("--json", help="a summary written as JSON")
    a = ap.parse_args(argv)
    if not (32 <= a.hidden <= 1024 and a.hidden % 32 == 0):
        ap.error("--hidden must be 32..1024, a multiple of 32")
    if not 0 <= a.lam <= 1:
        ap.error("--lambda must be in [0, 1]")
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    t0 = time.time()
    try:
        recs = np.concatenate([chess_records.read(p) for p in a.data])
    except (OSError, chess_records.BadRecords) as e:
        print(f"chess_train: {e}", file=sys.stderr)
        return 2
    held = chess_records.held_out(recs)
    print(f"chess_train: {len(recs):,} records ({int(held.sum()):,} held out) in {time.time() - t0:.1f} s; "
          f"device {a.device}", flush=True)
    train_set, test = tensors(recs[~held], a.device), tensors(recs[held], a.device)
    table = cn.BUCKETS[a.buckets]
    model = ChessModel(a.hidden, table, a.residual).to(a.device)
    start_loss = mean_loss(model, test, loss(a.lam))
    history = fit(model, train_set, test, loss(a.lam), a.epochs, a.batch, a.lr, a.seed,
                  log=lambda m: print(f"chess_train: {m}", flush=True), qat_epochs=min(a.qat_epochs, a.epochs),
                  after_epoch=lambda h: model.quantised().save(a.out), seconds=a.seconds)
    model.cpu()
    # The written file's integer values on the held-out records against the float model's.
    test_recs = recs[held]
    ints = cn.forward(cn.load(a.out), test_recs)
    with torch.no_grad():
        t = tensors(test_recs, "cpu")
        floats = model(t["features"], t["king32"], t["pieces"]).double().numpy() * cn.SCALE
        if a.residual:
            floats = floats + test_recs["classical"]
    gap = float(np.mean(np.abs(ints - floats))) if len(ints) else float("nan")
    summary = {
        "records": int(len(recs)), "held_out": int(held.sum()), "hidden": a.hidden, "buckets": a.buckets,
        "residual": a.residual,
        "epochs": a.epochs, "qat_epochs": a.qat_epochs, "batch": a.batch, "lr": a.lr, "lambda": a.lam, "seed": a.seed, "device": a.device,
        "device_name": torch.cuda.get_device_name(0) if a.device.startswith("cuda") else "cpu",
        "held_out_loss_start": start_loss, "history": history,
        "quantisation_mean_abs_cp": gap, "seconds": round(time.time() - t0, 1), "network": a.out,
        "network_bytes": os.path.getsize(a.out),
    }
    print(f"chess_train: wrote {a.out}; the integer values differ from the model's by {gap:.2f} cp on average "
          f"over the held-out records", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
