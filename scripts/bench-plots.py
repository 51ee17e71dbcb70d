#!/usr/bin/python3
"""Figures from the warpmind-bench results files (docs/images/bench-*.png).

usage: scripts/bench-plots.py [--results bench/results] [--out docs/images] [--device h100]

Run from the repository root with Debian's Python and matplotlib (`apt-get install -y
python3-matplotlib`); it needs nothing else. It reads <results>/<device>/<suite>.json for the suites
field, crowd, aoi, ddm, chess and connect6, and the node counts of the hybrid suite from
<results>/<device>/hybrid*.json (or <results>/cpu/hybrid*.json, where node counts are kept), draws
each suite's figures and prints the path of every PNG it writes. A suite without a results file is
skipped with a one-line note, so the figures for a suite appear once its file is committed.

Reading the figures:
- Markers are filled where the record's output was checked against the reference in the same run and
  hollow where it was not (`"checked": false`); the title counts the unchecked records.
- The dashed black line is the physical floor the suite prints beside its GPU times (`floor_ms`).
- Lines marked "seed" (dashed, x markers, or grey) are numbers published in the paper the module
  reproduces, measured on that paper's hardware; the tables below give each number's source.

The images depend only on the results files and the matplotlib version: the Agg backend, a fixed size
and DPI, no time stamp and no software tag in the PNG, so a second run on the same input writes the
same bytes.
"""
import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)  # scripts/, where the benchplots and results packages are

from benchplots.field import field_figures  # noqa: E402  (imports matplotlib with the Agg backend)
from benchplots.search import hybrid_figure, search_figures  # noqa: E402
from benchplots.sims import aoi_figures, crowd_figures, ddm_figures  # noqa: E402
from results.records import load_json as load  # noqa: E402  (a results file's JSON)


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--results", default="bench/results", help="results folder (default bench/results)")
    ap.add_argument("--out", default="docs/images", help="where the PNGs go (default docs/images)")
    ap.add_argument("--device", default="h100", help="device folder under --results (default h100)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    folder = os.path.join(a.results, a.device)
    drawers = {
        "field": field_figures, "crowd": crowd_figures, "aoi": aoi_figures, "ddm": ddm_figures,
        "chess": lambda d, out: search_figures(d, out, "chess"),
        "connect6": lambda d, out: search_figures(d, out, "connect6"),
    }
    for suite, draw in drawers.items():
        path = os.path.join(folder, f"{suite}.json")
        if not os.path.exists(path):
            print(f"skip {suite}: no {path}")
            continue
        draw(load(path), a.out)
    hybrids = sorted(glob.glob(os.path.join(folder, "hybrid*.json")))
    if not hybrids:
        hybrids = sorted(glob.glob(os.path.join(a.results, "cpu", "hybrid*.json")))
    if not hybrids:
        print(f"skip hybrid: no {os.path.join(folder, 'hybrid*.json')} or {os.path.join(a.results, 'cpu', 'hybrid*.json')}")
    for path in hybrids:
        stem = os.path.splitext(os.path.basename(path))[0]
        hybrid_figure(load(path), a.out, stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
