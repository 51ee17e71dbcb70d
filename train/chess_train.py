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
from warpmind_train import fit  # noqa: E402
from warpmind_train.chess_model import ChessModel, loss, tensors  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", required=True, help="a records file (repeatable)")
    ap.add_argument("--out", required=True, help="the network file written")
    ap.add_argument("--hidden", type=int, default=256, help="accumulator units a perspective (32..1024, ×32)")
    ap.add_argument("--buckets", type=int, default=4, choices=sorted(cn.BUCKETS), help="king buckets")
    ap.add_argument("--residual", action="store_true", help="the output corrects the classical evaluation")
    fit.add_arguments(ap, batch=16384, lr=1e-3, lam=1.0)
    a = ap.parse_args(argv)
    if not (32 <= a.hidden <= 1024 and a.hidden % 32 == 0):
        ap.error("--hidden must be 32..1024, a multiple of 32")
    fit.start(ap, a)
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
    start_loss = fit.mean_loss(model, test, loss(a.lam))
    history = fit.train_and_write(model, train_set, test, loss(a.lam), a, "chess_train")
    # The written file's integer values on the held-out records against the float model's.
    test_recs = recs[held]
    ints = cn.forward(cn.load(a.out), test_recs)
    with torch.no_grad():
        t = tensors(test_recs, "cpu")
        floats = model(t["features"], t["king32"], t["pieces"]).double().numpy() * cn.SCALE
        if a.residual:
            floats = floats + test_recs["classical"]
    gap = float(np.mean(np.abs(ints - floats))) if len(ints) else float("nan")
    fit.write_summary(a, {"records": int(len(recs)), "held_out": int(held.sum()), "hidden": a.hidden,
                          "buckets": a.buckets, "residual": a.residual, "quantisation_mean_abs_cp": gap},
                      history, start_loss, t0)
    print(f"chess_train: wrote {a.out}; the integer values differ from the model's by {gap:.2f} cp on average "
          f"over the held-out records", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
