#!/usr/bin/env python3
"""Markdown tables from a warpmind-bench results file (the docs/benchmarks.md summaries).

usage: scripts/bench-summary.py bench/results/h100/field.json
"""
import json
import sys
from collections import defaultdict


def field_summary(d):
    by = defaultdict(dict)  # (radius, res, n, scale) -> variant -> record
    for r in d["records"]:
        p = r["params"]
        by[(p["radius"], p["resolution"], p["entities"], p.get("case") == "scale")][r["variant"]] = r
    out = [f"Device: {d['device']} · commit {d['commit']} · {d['date']} · {len(d['records'])} records, "
           f"all checked bit-exact: {all(r['checked'] for r in d['records'])}", ""]
    variants = ["cpu-naive", "cpu-stamp", "gpu-naive", "gpu-coalesced", "gpu-shared", "gpu-binned"]

    def row(key):
        v = by[key]
        cells = [f"{v[x]['median_ms']:.4f}" if x in v else "–" for x in variants]
        stamp, binned = v.get("cpu-stamp"), v.get("gpu-binned")
        ratio = f"{stamp['median_ms'] / binned['median_ms']:.1f}×" if stamp and binned else "–"
        floor = f"{binned['floor_ms']:.4f}" if binned and binned["floor_ms"] is not None else "–"
        evals = next(iter(v.values()))["params"]["evaluations"] / 1e6
        return f"| {key[0]} | {key[1]}² | {key[2]} | {evals:.1f} | " + " | ".join(cells) + f" | {ratio} | {floor} |"

    head = ("| radius | cells | entities | evals (M) | " + " | ".join(variants) +
            " | binned vs stamp | floor |\n|" + "---|" * (len(variants) + 6))
    out += ["### Largest cases (median ms)", "", head]
    for key in sorted(k for k in by if k[1] == 2048 and k[2] == 2048) + [k for k in by if k[3]]:
        out.append(row(key))
    out += ["", "### gpu-binned speed-up over multi-threaded cpu-stamp, radius 15", ""]
    res = sorted({k[1] for k in by if not k[3]})
    counts = sorted({k[2] for k in by if not k[3]})
    out.append("| entities \\ cells | " + " | ".join(f"{r}²" for r in res) + " |")
    out.append("|---|" + "---|" * len(res))
    for n in counts:
        cells = []
        for r in res:
            v = by.get((15, r, n, False), {})
            cells.append(f"{v['cpu-stamp']['median_ms'] / v['gpu-binned']['median_ms']:.1f}×"
                         if "cpu-stamp" in v and "gpu-binned" in v else "–")
        out.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        d = json.load(f)
    if d.get("suite") != "field":
        print(f"no summary for suite {d.get('suite')!r}", file=sys.stderr)
        return 2
    print(field_summary(d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
