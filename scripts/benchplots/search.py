"""The search suites chess and connect6 (perft, batches, the whole search) and the hybrid suite's node
counts, beside Li et al.'s numbers."""

from collections import defaultdict

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from results.records import ordered_variants, select, unique

from .draw import SEED_COLOUR, Figure, fmt_count, ratio_axis, set_ticks, style, thin_powers
from .seeds import SEED_BATCH_MAX, SEED_NODES, SEED_SEARCH_HW, SEED_SEARCH_MAX

HYBRID_MODES = {  # (first_child_first, cut_one_by_one) -> (label, line style)
    (False, 1): ("plain (the paper's Algorithm 2)", "-"),
    (True, 1): ("first child first", "--"),
    (True, 2): ("first child first, CUT nodes: 2 children one by one", "-."),
}


def hybrid_mode(first_child_first, cut):
    if (first_child_first, cut) in HYBRID_MODES:
        return HYBRID_MODES[(first_child_first, cut)]
    if first_child_first and cut >= 1 << 20:
        return "CUT nodes one by one", ":"
    return f"first child first={first_child_first}, CUT {cut}", (0, (1, 2, 4, 2))


def batch_ticks(ax, values):
    ax.set_xscale("log", base=2)
    set_ticks(ax, values, lambda v: "2²⁰" if v == 1 << 20 else fmt_count(v), keep=thin_powers(values, 8))


def search_mode(p):
    """A whole search's mode, from a record's params: (pruning, CUT nodes one by one, depth)."""
    return bool(p["pruning"]), bool(p.get("cut_nodes_one_by_one", False)), int(p["depth"])


def search_figures(d, out, game):
    recs = d["records"]
    pretty = "Connect6" if game == "connect6" else "chess"
    # 1. Perft: nodes per second, CPU pool against GPU.
    perft = select(recs, experiment="perft")
    if perft:
        cases = unique((r["params"]["position"], r["params"]["depth"]) for r in perft)
        variants = ordered_variants(perft)
        f = Figure(f"{game}-perft", d, f"{game}: perft nodes per second (node counts checked against the published ones)",
                   size=(4 + 2.2 * len(cases) * len(variants), 5.6))
        ax = f.ax()
        width = 0.8 / len(variants)
        for j, v in enumerate(variants):
            colour = style(v, variants)[0]
            for i, c in enumerate(cases):
                r = next((r for r in perft if r["variant"] == v and (r["params"]["position"], r["params"]["depth"]) == c),
                         None)
                if not r:
                    continue
                nps = r.get("nodes_per_s") or r["nodes"] / (r["median_ms"] * 1e-3)
                x = i + (j - (len(variants) - 1) / 2) * width
                ax.bar(x, nps, width=width * 0.9, color=colour if r["checked"] else "white", edgecolor=colour, lw=1.5)
                if not r["checked"]:
                    f.unchecked = True
                rate = f"{nps / 1e9:.2f} G nodes/s" if nps >= 1e9 else f"{nps / 1e6:.1f} M nodes/s"
                ax.annotate(f"{rate}\n{r['median_ms']:.1f} ms", (x, nps), textcoords="offset points",
                            xytext=(0, 3), ha="center", fontsize=8)
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels([f"{p}, depth {dep}\n({next(r['nodes'] for r in perft if r['params']['position'] == p):,} nodes)"
                            for p, dep in cases])
        ax.set_yscale("log")
        ax.set_ylabel("nodes per second")
        ax.grid(axis="x", visible=False)
        ax.margins(y=0.25)
        f.legend(ax, [Patch(facecolor=style(v, variants)[0], label=v) for v in variants], loc="upper left")
        f.save(out)

    # 2. Leaf and branch batches: time and speed-up over one CPU thread (the paper's Figs. 5-6).
    batch = [r for r in recs if r["params"].get("experiment") in ("leaf", "branch")]
    if batch:
        variants = ordered_variants(batch)
        ref = "cpu-1-thread" if "cpu-1-thread" in variants else variants[0]
        kinds = [k for k in ("leaf", "branch") if any(r["params"]["experiment"] == k for r in batch)]
        f = Figure(f"{game}-batch", d, f"{game}: batches of leaf (evaluation) and branch (ordered legal moves) "
                   "calculations on random-game positions, best of 3", 2, len(kinds), size=(6.5 * len(kinds), 9.5))
        for j, kind in enumerate(kinds):
            rows = defaultdict(dict)
            for r in batch:
                if r["params"]["experiment"] == kind:
                    rows[int(r["params"]["batch"])][r["variant"]] = r
            sizes = sorted(rows)
            ax = f.ax(0, j)
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                handles.append(f.series(ax, [(n, rows[n][v]["median_ms"], rows[n][v]["checked"]) for n in sizes
                                             if v in rows[n]], v, color, marker))
            batch_ticks(ax, sizes)
            ax.set_yscale("log")
            ax.set_ylabel("ms per batch (GPU: transfers included)")
            ax.set_xlabel("positions per batch")
            ax.set_title(f"{kind} calculation: time")
            f.legend(ax, handles, loc="upper left")
            ax = f.ax(1, j)
            handles = []
            for v in variants:
                if v == ref:
                    continue
                color, marker = style(v, variants)
                handles.append(f.series(ax, [(n, rows[n][ref]["median_ms"] / rows[n][v]["median_ms"],
                                              rows[n][v]["checked"]) for n in sizes if v in rows[n] and ref in rows[n]],
                                        f"{v} over {ref}", color, marker))
            seed = SEED_BATCH_MAX.get(game, {}).get(kind)
            if seed:
                ax.axhline(seed, color=SEED_COLOUR, ls="--", lw=1.4)
                handles.append(Line2D([], [], color=SEED_COLOUR, ls="--", lw=1.4,
                                      label=f"seed: up to {seed:g}× ({pretty}, Fig. {5 if game == 'connect6' else 6}; "
                                            f"{SEED_SEARCH_HW})"))
            ax.axhline(1, color="black", lw=0.8)
            batch_ticks(ax, sizes)
            ax.set_yscale("log")
            ax.set_ylabel("speed-up (×)")
            ratio_axis(ax)
            ax.set_xlabel("positions per batch")
            ax.set_title(f"{kind} calculation: speed-up over {ref} (as the paper's Figs. 5-6)")
            f.legend(ax, handles, loc="upper left")
        f.save(out)

    # 3. The whole search: speed-up over the serial search and N_hybrid / N_serial against Lmax = Bmax.
    # The hybrid rows (by batch limit); the device-resident and engine rows have no Lmax and are in the tables.
    search = [r for r in recs if r["params"].get("experiment") == "search" and "l_max" in r["params"]]
    if search:
        variants = ordered_variants(search)
        modes = unique(search_mode(r["params"]) for r in search)

        def mode_label(m):
            return (f"depth {m[2]}, " + ("no pruning" if not m[0] else "pruning, CUT nodes one by one" if m[1]
                                         else "pruning (Algorithm 2)"))

        mode_ls = ["-", "--", ":", "-."]
        position = search[0]["params"]["position"]
        f = Figure(f"{game}-search", d, f"{game}: the whole hybrid search from '{position}' against a serial search "
                   "over the same ordered moves", 1, 2, size=(14, 7.2))
        ax = f.ax(0, 0)
        handles = []
        for mi, m in enumerate(modes):
            for v in variants:
                color, marker = style(v, variants)
                pts = []
                for r in search:
                    p = r["params"]
                    if r["variant"] == v and search_mode(p) == m and r["median_ms"] > 0:
                        pts.append((int(p["l_max"]), r["serial_ms"] / r["median_ms"], r["checked"]))
                handles.append(f.series(ax, pts, f"{v}, {mode_label(m)}", color, marker, ls=mode_ls[mi % 4]))
        for pruning, value in sorted(SEED_SEARCH_MAX.get(game, {}).items()):
            seed_style = dict(color=SEED_COLOUR, ls="--" if pruning else "-", lw=2.5, alpha=0.55)
            ax.axhline(value, **seed_style)
            handles.append(Line2D([], [], label=f"seed max, {'pruning' if pruning else 'no pruning'}: {value:g}×",
                                  **seed_style))
        ax.axhline(1, color="black", lw=0.8)
        batch_ticks(ax, [int(r["params"]["l_max"]) for r in search])
        ax.set_yscale("log")
        ax.set_xlabel("Lmax = Bmax")
        ax.set_ylabel("speed-up over the serial search (×)")
        ratio_axis(ax)
        ax.set_title(f"time (seed: {SEED_SEARCH_HW}, Figs. 11-14)")
        f.legend(ax, handles, ncol=2, below=True)
        ax = f.ax(0, 1)
        handles = []
        v0 = variants[0]
        for mi, m in enumerate(modes):
            pts = []
            for r in search:
                p = r["params"]
                if r["variant"] == v0 and search_mode(p) == m:
                    pts.append((int(p["l_max"]), r["n_hybrid"] / r["n_serial"], r["checked"]))
            color, marker = style(v0, variants)
            handles.append(f.series(ax, pts, mode_label(m), "#444444", marker, ls=mode_ls[mi % 4]))
        if game in SEED_NODES:
            hyb, ser = SEED_NODES[game]
            ax.axhline(hyb / ser, color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.55)
            handles.append(Line2D([], [], color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.55,
                                  label=f"seed, pruning: {hyb:,} / {ser:,} = {hyb / ser:.2f}× (Table 3)"))
        ax.axhline(1, color="black", lw=0.8)
        batch_ticks(ax, [int(r["params"]["l_max"]) for r in search])
        ax.set_yscale("log")
        ax.set_xlabel("Lmax = Bmax")
        ax.set_ylabel("N_hybrid / N_serial (nodes computed)")
        ratio_axis(ax)
        ax.set_title("the pruning loss (the GPU computes the same nodes)")
        f.legend(ax, handles, ncol=1, below=True)
        f.save(out)


def hybrid_figure(d, out, stem):
    recs = d["records"]
    games = [g for g in ("connect6", "chess") if any(r["params"]["game"] == g for r in recs)]
    games += sorted({r["params"]["game"] for r in recs} - set(games))
    f = Figure(f"{stem}-ratio", d, f"hybrid ({stem}.json): nodes computed with pruning, N_hybrid / N_serial, as the batch "
               "limits grow (b_max = l_max / 4)", 1, len(games), size=(7.5 * len(games), 7.4), sharey=True)
    position_colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    markers = ["o", "s", "^", "D"]
    for j, game in enumerate(games):
        ax = f.ax(0, j)
        rows = select(recs, game=game)
        positions = unique(r["params"]["position"] for r in rows)
        groups = defaultdict(list)
        for r in rows:
            p = r["params"]
            groups[(p["position"], bool(p["first_child_first"]), int(p["cut_one_by_one"]))].append(r)
        handles, mode_handles = [], {}
        for (pos, fcf, cut), rs in sorted(groups.items(), key=lambda kv: (positions.index(kv[0][0]), kv[0][1], kv[0][2])):
            label, ls = hybrid_mode(fcf, cut)
            k = positions.index(pos)
            pts = [(int(r["params"]["l_max"]), r["n_hybrid"] / r["n_serial"], r["checked"]) for r in rs]
            f.series(ax, pts, pos, position_colours[k % 4], markers[k % 4], ls=ls, lw=1.4, ms=4.5)
            mode_handles.setdefault(label, Line2D([], [], color="#444444", ls=ls, lw=1.4, label=label))
        for k, pos in enumerate(positions):
            r0 = next(r for r in rows if r["params"]["position"] == pos)
            handles.append(Line2D([], [], color=position_colours[k % 4], marker=markers[k % 4], ms=4.5, lw=1.4,
                                  label=f"{pos}: depth {r0['params']['depth']}, N_serial {r0['n_serial']:,}"))
        handles += list(mode_handles.values())
        if game in SEED_NODES:
            hyb, ser = SEED_NODES[game]
            ax.axhline(hyb / ser, color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.6)
            handles.append(Line2D([], [], color=SEED_COLOUR, ls="--", lw=2.5, alpha=0.6,
                                  label=f"seed: {hyb:,} / {ser:,} = {hyb / ser:.2f}× (Table 3, pruning)"))
        ax.axhline(1, color="black", lw=0.8)
        batch_ticks(ax, [int(r["params"]["l_max"]) for r in rows])
        ax.set_yscale("log")
        ax.set_xlabel("l_max (leaf batch limit; 2²⁰: unlimited)")
        ax.set_ylabel("N_hybrid / N_serial")
        ratio_axis(ax)
        ax.set_title(game)
        f.legend(ax, handles, ncol=2, below=True)
    f.save(out)
