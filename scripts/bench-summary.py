#!/usr/bin/env python3
"""Markdown tables from a warpmind-bench results file (the docs/benchmarks.md summaries).

usage: scripts/bench-summary.py bench/results/h100/field.json   (suites: field, crowd)
"""
import json
import sys
from collections import defaultdict


def header(d):
    """Device, commit, date and what the records were checked against, counted."""
    recs = d["records"]
    against = defaultdict(int)
    for r in recs:
        if r.get("checked"):
            against[f"{r['variant']} against {r.get('checked_against')}"] += 1
    checked = sum(against.values())
    detail = "; ".join(f"{k}: {v}" for k, v in sorted(against.items()))
    return (f"Device: {d['device']} · commit {d['commit']} · {d['date']} · {len(recs)} records, "
            f"{checked} checked ({detail})" + ("" if checked == len(recs) else f" · {len(recs) - checked} NOT checked"))


def crowd_summary(d):
    by = defaultdict(dict)  # agents -> variant -> record
    for r in d["records"]:
        by[r["params"]["agents"]][r["variant"]] = r
    gpu = ["gpu-sort", "gpu-tiled", "gpu-static-grid"]
    out = [header(d), "",
           "| agents | ticks | cpu-reference | " + " | ".join(gpu) +
           " | best vs CPU | gpu-static-grid host to host | floor (25 B/agent) |",
           "|---|---|---|" + "---|" * len(gpu) + "---|---|---|"]
    for n in sorted(by):
        v = by[n]
        ref = v["cpu-reference"]
        cells = [f"{v[g]['median_ms']:.4f} ms" if g in v else "–" for g in gpu]
        best = min((v[g]["median_ms"] for g in gpu if g in v), default=None)
        sg = v.get("gpu-static-grid", {})
        wt = f"{sg['with_transfers_ms']:.3f} ms" if sg.get("with_transfers_ms") is not None else "–"
        floor = f"{sg['floor_ms']:.5f} ms" if sg.get("floor_ms") is not None else "–"
        out.append(f"| {n:,} | {ref['params']['ticks']} | {ref['median_ms']:.2f} ms | " + " | ".join(cells) +
                   f" | {ref['median_ms'] / best:.0f}× | {wt} | {floor} |" if best else
                   f"| {n:,} | {ref['params']['ticks']} | {ref['median_ms']:.2f} ms | " + " | ".join(cells) + " | – | – | – |")
    return "\n".join(out)


def field_summary(d):
    by = defaultdict(dict)  # (radius, res, n, scale) -> variant -> record
    for r in d["records"]:
        p = r["params"]
        by[(p["radius"], p["resolution"], p["entities"], p.get("case") == "scale")][r["variant"]] = r
    out = [header(d), ""]
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
    summaries = {"field": field_summary, "crowd": crowd_summary}
    if d.get("suite") not in summaries:
        print(f"no summary for suite {d.get('suite')!r}", file=sys.stderr)
        return 2
    print(summaries[d["suite"]](d))
    return 0


if __name__ == "__main__":
    sys.exit(main())
