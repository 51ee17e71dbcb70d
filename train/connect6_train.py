#!/usr/bin/env python3
"""Trains warpmind's Connect6 network on the records of `warpmind-datagen connect6-expand` and writes it
as a network file the engine reads (ai/include/warpmind/search/connect6_network.h). The records of every
20th game are held out: the loss on them is reported each epoch, with how often the labelling search's
first stone is the network's best-scored candidate cell (from the written file's integers).

usage: connect6_train.py --data FILE [--data FILE ...] --out NET.wmn [--features 32] [--epochs 10]
                         [--batch 4096] [--lr 0.002] [--lambda 0.5] [--mu 0.05] [--seed 1] [--device cpu|cuda]
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

from warpmind_train import connect6_network as c6n  # noqa: E402
from warpmind_train import connect6_records as c6r  # noqa: E402
from warpmind_train import fit  # noqa: E402
from warpmind_train.connect6_model import Connect6Model, fit_scale, loss, near_mask, tensors  # noqa: E402


def top_cell_rate(weights, cells, codes, recs, windows):
    """How often the labelling search's first stone is the best-scored candidate by the file's integers."""
    if len(recs) == 0:
        return float("nan")
    scores = c6n.cell_scores(weights, codes, recs["side"] == 1, windows)
    scores = np.where(near_mask(torch.from_numpy(cells)).numpy(), scores, np.iinfo(np.int64).min)
    best = np.argmax(scores, axis=1)
    return float(np.mean((best == recs["best"][:, 0]) | (best == recs["best"][:, 1])))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", required=True, help="a records file (repeatable)")
    ap.add_argument("--out", required=True, help="the network file written")
    ap.add_argument("--features", type=int, default=32, help="accumulator units a perspective (32..256, ×32)")
    ap.add_argument("--mu", type=float, default=0.05, help="weight of the policy's loss")
    fit.add_arguments(ap, batch=4096, lr=2e-3, lam=0.5)
    a = ap.parse_args(argv)
    if not (32 <= a.features <= 256 and a.features % 32 == 0):
        ap.error("--features must be 32..256, a multiple of 32")
    fit.start(ap, a)
    t0 = time.time()
    try:
        parts = [c6r.read(p) for p in a.data]
    except (OSError, c6r.BadRecords) as e:
        print(f"connect6_train: {e}", file=sys.stderr)
        return 2
    windows = parts[0][0]
    if any(not np.array_equal(w, windows) for w, _ in parts):
        print("connect6_train: the records files number the windows differently", file=sys.stderr)
        return 2
    recs = np.concatenate([r for _, r in parts])
    cells = c6r.board_cells(recs)
    codes = c6r.codes(cells, windows)
    held = c6r.held_out(recs)
    scale = fit_scale(recs["score"][~held], recs["result"][~held]) if (~held).any() else 400.0
    print(f"connect6_train: {len(recs):,} records ({int(held.sum()):,} held out), score scale {scale:.0f}, "
          f"in {time.time() - t0:.1f} s; device {a.device}", flush=True)
    train_set = tensors(cells[~held], codes[~held], recs[~held], a.device)
    test = tensors(cells[held], codes[held], recs[held], a.device)
    model = Connect6Model(a.features, windows).to(a.device)
    objective = loss(a.lam, scale, a.mu)
    start_loss = fit.mean_loss(model, test, objective)
    history = fit.train_and_write(model, train_set, test, objective, a, "connect6_train")
    w = c6n.load(a.out)
    rate = top_cell_rate(w, cells[held], codes[held], recs[held], windows)
    fit.write_summary(a, {"records": int(len(recs)), "held_out": int(held.sum()), "features": a.features,
                          "mu": a.mu, "score_scale": scale, "held_out_top_cell": rate}, history, start_loss, t0)
    print(f"connect6_train: wrote {a.out}; the search's stone is the best-scored candidate in {rate:.1%} of the "
          f"held-out positions", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
