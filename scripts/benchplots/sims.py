"""The simulation suites crowd, aoi and ddm: time, throughput and speed-up, beside the papers' numbers."""

from collections import defaultdict

from matplotlib.lines import Line2D

from results.records import ordered_variants

from .draw import SEED_COLOUR, Figure, floor_of, ratio_axis, set_ticks, style, thin_powers
from .seeds import SEED_AOI, SEED_AOI_CLIENTS, SEED_AOI_HW, SEED_AOI_STAGES, SEED_CROWD_1M, SEED_DDM_HW, \
    SEED_DDM_SPEEDUP

# ---------------------------------------------------------------------------------------------------
# crowd
# ---------------------------------------------------------------------------------------------------


def crowd_figures(d, out):
    recs = d["records"]
    rules = sorted({r["params"].get("rule", "") for r in recs})
    rule = "strict" if "strict" in rules else rules[0]
    recs = [r for r in recs if r["params"].get("rule", "") == rule]
    idx = defaultdict(dict)
    for r in recs:
        idx[int(r["params"]["agents"])][r["variant"]] = r
    agents = sorted(idx)
    variants = ordered_variants(recs)
    p0 = recs[0]["params"]
    setup = f"radius {p0['radius']:g}, lattice pitch {p0['spacing']:g}·2R, step ≤ {p0['step']:g} per axis, rule {rule}"

    def x_axis(ax):
        ax.set_xscale("log")
        set_ticks(ax, agents, keep=thin_powers(agents, 10) if len(agents) > 10 else None)
        ax.set_xlabel("agents")

    # 1. Time per tick against agents.
    f = Figure("crowd-time", d, f"crowd: time of one collision-checked tick, per variant ({setup})", size=(10, 6.4))
    ax = f.ax()
    handles = []
    for v in variants:
        color, marker = style(v, variants)
        handles.append(f.series(ax, [(n, idx[n][v]["median_ms"], idx[n][v]["checked"]) for n in agents if v in idx[n]],
                                v, color, marker))
        tr = [(n, idx[n][v].get("with_transfers_ms"), idx[n][v]["checked"]) for n in agents if v in idx[n]]
        handles.append(f.series(ax, tr, f"{v}, with transfers", color, marker, ls=":", lw=1.2, ms=4))
    handles.append(f.floor(ax, [(n, floor_of(idx[n])) for n in agents],
                           "floor (the tick's minimum bytes at copy bandwidth)"))
    x_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("ms per tick (median; GPU: device time, proposals on the device)")
    f.legend(ax, handles, loc="upper left")
    f.save(out)

    # 2. Throughput (the seed's Figs. 10-11: collision checks per second) and speed-up over the CPU.
    f = Figure("crowd-rate", d, f"crowd: collision checks per second and speed-up over cpu-reference ({setup})",
               1, 2, size=(13, 5.6))
    handles = []
    for v in variants:
        color, marker = style(v, variants)
        pts = []
        for n in agents:
            r = idx[n].get(v)
            if r:
                pts.append((n, r.get("checks_per_s") or n / (r["median_ms"] * 1e-3), r["checked"]))
        handles.append(f.series(f.ax(0, 0), pts, v, color, marker))
    x_axis(f.ax(0, 0))
    f.ax(0, 0).set_yscale("log")
    f.ax(0, 0).set_ylabel("agents checked per second")
    f.ax(0, 0).set_title("throughput (as the seed's Figs. 10-11)")
    f.legend(f.ax(0, 0), handles, loc="upper left")
    handles = []
    ref = variants[0]
    for v in variants[1:]:
        color, marker = style(v, variants)
        pts = [(n, idx[n][ref]["median_ms"] / idx[n][v]["median_ms"], idx[n][v]["checked"] and idx[n][ref]["checked"])
               for n in agents if v in idx[n] and ref in idx[n]]
        handles.append(f.series(f.ax(0, 1), pts, f"{v} over {ref}", color, marker))
    x_axis(f.ax(0, 1))
    f.ax(0, 1).set_yscale("log")
    f.ax(0, 1).set_ylabel("speed-up (×)")
    ratio_axis(f.ax(0, 1))
    f.ax(0, 1).set_title(f"speed-up over {ref} (all host threads)")
    f.legend(f.ax(0, 1), handles, loc="upper left")
    f.save(out)

    # 3. Against the seed: time relative to the sort-based baseline, at one million agents.
    if "gpu-sort" not in variants or 1000000 not in idx or "gpu-sort" not in idx[1000000]:
        return
    f = Figure("crowd-seed", d, "crowd: time relative to the sort-based baseline — warpmind beside Viguera et al. "
               "(Section 6, 1M agents)", 1, 2, size=(14, 5.8), gridspec_kw=dict(width_ratios=[1.2, 1]))
    ax = f.ax(0, 0)
    ax.grid(axis="y", visible=False)
    ours = ["gpu-sort", "gpu-tiled", "gpu-static-grid"]
    groups = [(f"seed, {card}", [(a, cp, rel, None) for a, cp, rel in rows]) for card, rows in SEED_CROWD_1M]
    base = idx[1000000]["gpu-sort"]["median_ms"]
    groups.append((f"warpmind, {d['device']}",
                   [(v, v, idx[1000000][v]["median_ms"] / base, idx[1000000][v]["checked"]) for v in ours
                    if v in idx[1000000]]))
    extra = {"texture memory": "#ffbb78", "static grid, atomics": "#e377c2"}
    y = 0
    ticks, labels = [], []
    for gname, rows in groups:
        for algo, cp, rel, checked in rows:
            colour = style(cp, variants)[0] if cp else extra.get(algo, SEED_COLOUR)
            seed_bar = gname.startswith("seed")
            ax.barh(y, rel, height=0.75, color="white" if checked is False or seed_bar else colour,
                    edgecolor=colour, hatch="///" if seed_bar else None, lw=1.5)
            if checked is False:
                f.unchecked = True
            ax.annotate(f"{rel:.2f}", (rel, y), textcoords="offset points", xytext=(4, 0), va="center", fontsize=8)
            ticks.append(y)
            labels.append(f"{gname}: {algo}")
            y -= 1
        y -= 0.6
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels)
    ax.set_xlim(0, 1.25)
    ax.set_xlabel("time ÷ time of the sort-based baseline, 1M agents")
    ax.set_title("hatched: the seed's reductions at 1M agents (Section 6); solid: warpmind")
    ax = f.ax(0, 1)
    handles = []
    for v in ("gpu-tiled", "gpu-static-grid"):
        if v not in variants:
            continue
        color, marker = style(v, variants)
        pts = [(n, idx[n][v]["median_ms"] / idx[n]["gpu-sort"]["median_ms"], idx[n][v]["checked"]) for n in agents
               if v in idx[n] and "gpu-sort" in idx[n]]
        handles.append(f.series(ax, pts, f"warpmind {v} ÷ gpu-sort", color, marker))
    seed_markers = {"Tesla C870": "^", "Tesla C1060": "v"}
    for card, rows in SEED_CROWD_1M:
        for algo, cp, rel in rows:
            if cp in ("gpu-tiled", "gpu-static-grid"):
                ax.plot([1000000], [rel], ls="none", marker=seed_markers[card], ms=9, color=style(cp, variants)[0],
                        markeredgecolor="black")
    for card, m in seed_markers.items():
        handles.append(Line2D([], [], ls="none", marker=m, ms=9, color="#bbbbbb", markeredgecolor="black",
                              label=f"seed at 1M agents, {card} (colour: counterpart)"))
    ax.axhline(1, color="black", lw=0.8)
    x_axis(ax)
    ax.set_ylim(0, max(1.25, ax.get_ylim()[1]) * 1.45)  # the legend goes above the lines
    ax.set_ylabel("time ÷ gpu-sort time")
    ax.set_title("warpmind against agents; the seed's ratios at 1M agents")
    f.legend(ax, handles, loc="upper left")
    f.save(out)


# ---------------------------------------------------------------------------------------------------
# aoi
# ---------------------------------------------------------------------------------------------------


def aoi_figures(d, out):
    recs = d["records"]
    formats = sorted({r["params"].get("format", "records") for r in recs})
    fmt = "records" if "records" in formats else formats[0]
    recs = [r for r in recs if r["params"].get("format", "records") == fmt]
    variants = ordered_variants(recs)
    idx = defaultdict(lambda: defaultdict(dict))  # (map, aoi) -> clients -> variant -> record
    for r in recs:
        p = r["params"]
        idx[(float(p["map"]), float(p["aoi"]))][int(p["clients"])][r["variant"]] = r
    panels = sorted(idx)
    ncols = 2 if len(panels) > 1 else 1
    nrows = (len(panels) + ncols - 1) // ncols
    clients_all = sorted({n for pk in panels for n in idx[pk]} | set(SEED_AOI_CLIENTS))

    def x_axis(ax):
        ax.set_xscale("log", base=2)
        set_ticks(ax, clients_all, keep=thin_powers(clients_all, 7))
        ax.set_xlabel("clients")

    # 1. Tick time against clients per (map, AOI), with the thesis's CPU and GPU times.
    f = Figure("aoi-time", d, f"aoi: one server tick (logic, conflict merge, range query), per variant — "
               f"notifications as {fmt}", nrows, ncols, size=(6.3 * ncols, 4.8 * nrows + 1.6), legend_lines=2,
               sharey=True)
    for i, pk in enumerate(panels):
        ax = f.ax(i // ncols, i % ncols)
        rows = idx[pk]
        handles = []
        for v in variants:
            color, marker = style(v, variants)
            handles.append(f.series(ax, [(n, rows[n][v]["median_ms"], rows[n][v]["checked"]) for n in rows if v in rows[n]],
                                    v, color, marker))
        handles.append(f.floor(ax, [(n, floor_of(rows[n])) for n in rows], "floor (notification list written once)"))
        s = SEED_AOI.get((int(pk[0]), int(pk[1])))
        if s:
            handles.append(f.seed(ax, SEED_AOI_CLIENTS, s["cpu"], "seed CPU (Tables 4-5/4-6)", color=SEED_COLOUR))
            handles.append(f.seed(ax, SEED_AOI_CLIENTS, s["gpu"], "seed GPU with transfers (Tables 4-5/4-6)",
                                  color="#9467bd", ls=":"))
            handles.append(f.seed(ax, SEED_AOI_CLIENTS, s["gpu_compute"], "seed GPU without transfers (4-9/4-10)",
                                  color="#9467bd", ls="--"))
        x_axis(ax)
        ax.set_yscale("log")
        ax.set_ylabel("ms per tick (median)")
        ax.set_title(f"map {pk[0]:g}², AOI {pk[1]:g}" + (f" — seed: {SEED_AOI_HW}" if s else ""))
        f.collect(handles)
    f.shared_legend(ncol=4)
    for i in range(len(panels), nrows * ncols):
        f.ax(i // ncols, i % ncols).set_visible(False)
    f.save(out)

    # 2. The tick's stages as in the thesis's Table 4-8 (map 2500², AOI 10), one panel per GPU variant
    #    (the CPU variants where the file has no GPU rows).
    pk = (2500.0, 10.0) if (2500.0, 10.0) in idx else panels[0]
    rows = idx[pk]
    shown = [v for v in variants if any(rows[n].get(v, {}).get("backend") == "cuda" for n in rows)] or variants
    stages = [("upload_ms", "upload", "#17becf"), ("sort_ms", "sort", "#ff7f0e"), ("logic_ms", "logic", "#2ca02c"),
              ("query_ms", "range query", "#d62728"), ("download_ms", "download", "#9467bd"),
              ("download_floor_ms", "download floor (link bandwidth)", "black")]
    seed_stages = [("upload", "upload", "#17becf"), ("sort", "bucket sorting", "#ff7f0e"),
                   ("logic", "logic processing (incl. range query)", "#2ca02c"), ("download", "download", "#9467bd")]
    f = Figure("aoi-stages", d, f"aoi: the tick's stages, map {pk[0]:g}², AOI {pk[1]:g} (as the thesis's Table 4-8)",
               1, len(shown), size=(6.3 * len(shown) + 1, 6.6), legend_lines=2, sharey=True)
    for j, v in enumerate(shown):
        ax = f.ax(0, j)
        handles = []
        for key, label, colour in stages:
            pts = [(n, rows[n][v].get(key), rows[n][v]["checked"]) for n in rows if v in rows[n]]
            handles.append(f.series(ax, pts, label, colour, "o", ls="-" if key != "download_floor_ms" else "-.",
                                    lw=1.4, ms=4))
        if pk == (2500.0, 10.0):
            for key, label, colour in seed_stages:
                handles.append(f.seed(ax, SEED_AOI_CLIENTS, SEED_AOI_STAGES[key], f"seed {label}", color=colour))
        x_axis(ax)
        ax.set_yscale("log")
        ax.set_ylabel("ms per tick (median)")
        ax.set_title(f"{v}" + (f" — seed (dashed, x): Table 4-8, {SEED_AOI_HW.split(' / ')[0]}"
                               if pk == (2500.0, 10.0) else ""))
        f.collect(handles)
    f.shared_legend(ncol=4)
    f.save(out)


# ---------------------------------------------------------------------------------------------------
# ddm
# ---------------------------------------------------------------------------------------------------


def ddm_figures(d, out):
    recs = d["records"]
    variants = ordered_variants(recs)
    fixed = defaultdict(lambda: defaultdict(dict))  # (distribution, side) -> regions -> variant -> record
    sweep = defaultdict(lambda: defaultdict(dict))  # alpha -> regions -> variant -> record
    for r in recs:
        p = r["params"]
        if float(p.get("alpha", 0)) > 0:
            sweep[float(p["alpha"])][int(p["regions"])][r["variant"]] = r
        else:
            fixed[(p["distribution"], float(p["side"]))][int(p["regions"])][r["variant"]] = r

    def match(r):
        return r.get("match_ms", r["median_ms"])

    def x_axis(ax, values):
        ax.set_xscale("log", base=2)
        set_ticks(ax, values, keep=thin_powers(values, 7))
        ax.set_xlabel("regions (half publications, half subscriptions)")

    def time_panels(name, title, groups, panel_title):
        keys = sorted(groups, key=lambda k: (k[0] != "uniform", k[1]) if isinstance(k, tuple) else k)
        ncols = 2 if len(keys) > 1 else 1
        nrows = (len(keys) + ncols - 1) // ncols
        f = Figure(name, d, title, nrows, ncols, size=(6.3 * ncols, 4.8 * nrows + 1.4), legend_lines=1, sharey=True)
        for i, k in enumerate(keys):
            ax = f.ax(i // ncols, i % ncols)
            rows = groups[k]
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                handles.append(f.series(ax, [(n, match(rows[n][v]), rows[n][v]["checked"]) for n in rows if v in rows[n]],
                                        v, color, marker))
            handles.append(f.floor(ax, [(n, floor_of(rows[n])) for n in rows],
                                   "floor (boxes read, pairs written once)"))
            x_axis(ax, list(rows))
            ax.set_yscale("log")
            ax.set_ylabel("ms per full match (GPU: device time)")
            ax.set_title(panel_title(k, rows))
            f.collect(handles)
        f.shared_legend(ncol=5)
        for i in range(len(keys), nrows * ncols):
            f.ax(i // ncols, i % ncols).set_visible(False)
        f.save(out)

    def side_title(k, rows):
        pairs = [r.get("pairs") for n in sorted(rows) for r in rows[n].values()][-1:]
        return f"{k[0]}, side {k[1]:g}" + (f" ({pairs[0]:,} pairs at {max(rows):,})" if pairs and pairs[0] else "")

    if fixed:
        # 1. Match time against regions (Lo et al.'s grid).
        time_panels("ddm-time", "ddm: matching every publication against every subscription, per variant "
                    "(10000² space, Lo et al.'s grid)", fixed, side_title)
        # 2. Speed-up over cpu-brute, with the paper's published speed-ups of its GPU over its CPU.
        keys = sorted(fixed, key=lambda k: (k[0] != "uniform", k[1]))
        ref = "cpu-brute" if "cpu-brute" in variants else variants[0]
        ncols = 2 if len(keys) > 1 else 1
        nrows = (len(keys) + ncols - 1) // ncols
        f = Figure("ddm-speedup", d, f"ddm: speed-up over {ref} (full match) beside Lo et al.'s published speed-ups "
                   f"(dotted; {SEED_DDM_HW})", nrows, ncols, size=(6.3 * ncols, 4.8 * nrows + 1.6), legend_lines=2,
                   sharey=True)
        for i, k in enumerate(keys):
            ax = f.ax(i // ncols, i % ncols)
            rows = fixed[k]
            handles = []
            for v in variants:
                if v == ref:
                    continue
                color, marker = style(v, variants)
                pts = [(n, match(rows[n][ref]) / match(rows[n][v]), rows[n][v]["checked"] and rows[n][ref]["checked"])
                       for n in rows if v in rows[n] and ref in rows[n]]
                handles.append(f.series(ax, pts, f"{v} over {ref}", color, marker))
            for v, value, note in SEED_DDM_SPEEDUP.get(k[0], []):
                colour = style(v, variants)[0]
                ax.axhline(value, color=colour, ls=":", lw=1.5)
                handles.append(Line2D([], [], color=colour, ls=":", lw=1.5, label=f"seed {v}: {note}"))
            ax.axhline(1, color="black", lw=0.8)
            x_axis(ax, list(rows))
            ax.set_yscale("log")
            ax.set_ylabel("speed-up (×)")
            ratio_axis(ax)
            ax.set_title(f"{k[0]}, side {k[1]:g}")
            f.collect(handles)
        f.shared_legend(ncol=3)
        for i in range(len(keys), nrows * ncols):
            f.ax(i // ncols, i % ncols).set_visible(False)
        f.save(out)
    if sweep:
        # 3. The alpha sweep (overlap degree) up to a million regions.
        time_panels("ddm-alpha", "ddm: overlap-degree sweep (side from alpha), match time per variant", sweep,
                    lambda k, rows: f"alpha {k:g}")
