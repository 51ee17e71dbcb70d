"""field: build time against cells and entities, gpu-binned's speed-up, and Elmir's thesis beside them."""

from collections import defaultdict

import matplotlib.ticker
from matplotlib.colors import LogNorm
from matplotlib.patches import Patch, Rectangle

from results.records import ordered_variants

from .draw import EXTRA_COLOURS, Figure, floor_of, fmt_ratio, median, ratio_axis, set_ticks, style, \
    thin_powers
from .seeds import SEED_FIELD_COLUMNS, SEED_FIELD_HW, SEED_FIELD_NAMES, SEED_FIELD_SOURCE, SEED_FIELD_TABLES


def seed_field():
    """radius -> (resolution, entities) -> variant -> ms, from the thesis's Appendix A."""
    out = {}
    for radius, text in SEED_FIELD_TABLES.items():
        table = {}
        for line in text.strip().splitlines():
            f = line.split()
            table[(int(f[0]), int(f[1]))] = {v: float(x) for v, x in zip(SEED_FIELD_COLUMNS, f[2:])}
        out[radius] = table
    return out


def field_figures(d, out):
    idx = defaultdict(dict)  # (radius, resolution, entities) -> variant -> record (the seed's 256 world)
    scale = {}
    for r in d["records"]:
        p = r["params"]
        if p.get("case") == "scale":
            scale[r["variant"]] = r
        else:
            idx[(float(p["radius"]), int(p["resolution"]), int(p["entities"]))][r["variant"]] = r
    if not idx:
        print("field: no grid records, nothing to draw")
        return
    variants = ordered_variants(d["records"])
    radii = sorted({k[0] for k in idx}, reverse=True)
    res_all = sorted({k[1] for k in idx})
    counts_all = sorted({k[2] for k in idx})
    n_big, res_big = counts_all[-1], res_all[-1]
    seed = seed_field()

    def cases(radius, by):  # [(x, case key)] along one axis of the grid
        if by == "cells":
            return [(res, (radius, res, n_big)) for res in res_all if (radius, res, n_big) in idx]
        return [(n, (radius, res_big, n)) for n in counts_all if (radius, res_big, n) in idx]

    def axis_labels(ax, by, radius):
        if by == "cells":
            ax.set_xscale("log", base=2)
            set_ticks(ax, res_all, lambda v: f"{int(v)}²", keep=thin_powers(res_all, 4))
            ax.set_xlabel("field cells (side²)")
            ax.set_title(f"radius {radius:g}, {n_big} entities")
        else:
            ax.set_xscale("log", base=2)
            set_ticks(ax, counts_all, keep=thin_powers(counts_all))
            ax.set_xlabel("entities")
            ax.set_title(f"radius {radius:g}, {res_big}² cells")
        ax.set_yscale("log")
        ax.set_ylabel("build time (ms, median)")

    rows = ["cells", "entities"]
    # 1. Time against problem size, per variant, with the floor.
    f = Figure("field-time", d, "field: build time of one 256×256-world field (Elmir's grid), per variant",
               len(rows), len(radii), size=(5.2 * len(radii) + 1, 9.4), legend_lines=1, sharey="row")
    for i, by in enumerate(rows):
        for j, radius in enumerate(radii):
            ax = f.ax(i, j)
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                pts = [(x, idx[k][v]["median_ms"], idx[k][v]["checked"]) for x, k in cases(radius, by) if v in idx[k]]
                handles.append(f.series(ax, pts, v, color, marker))
            handles.append(f.floor(ax, [(x, floor_of(idx[k])) for x, k in cases(radius, by)]))
            axis_labels(ax, by, radius)
            f.collect(handles)
    f.shared_legend(ncol=8)
    f.save(out)

    # 2. gpu-binned's speed-up over cpu-stamp, every case of the grid.
    if any("gpu-binned" in v and "cpu-stamp" in v for v in idx.values()):
        f = Figure("field-speedup", d, "field: gpu-binned's speed-up over multi-threaded cpu-stamp (median ms ratio)",
                   1, len(radii), size=(5.2 * len(radii) + 1.2, 6.6))
        vals = [v["cpu-stamp"]["median_ms"] / v["gpu-binned"]["median_ms"] for v in idx.values()
                if "gpu-binned" in v and "cpu-stamp" in v]
        norm = LogNorm(vmin=min(vals), vmax=max(vals))
        image = None
        for j, radius in enumerate(radii):
            ax = f.ax(0, j)
            ax.grid(False)
            mat = [[float("nan")] * len(res_all) for _ in counts_all]
            for a, n in enumerate(counts_all):
                for b, res in enumerate(res_all):
                    v = idx.get((radius, res, n), {})
                    if "gpu-binned" in v and "cpu-stamp" in v:
                        s = v["cpu-stamp"]["median_ms"] / v["gpu-binned"]["median_ms"]
                        mat[a][b] = s
                        checked = v["cpu-stamp"]["checked"] and v["gpu-binned"]["checked"]
                        dark = norm(s) < 0.55
                        ax.text(b, a, fmt_ratio(s) + ("" if checked else "?"), ha="center", va="center", fontsize=7.5,
                                color="white" if dark else "black")
                        if not checked:
                            f.unchecked = True
                            ax.add_patch(Rectangle((b - 0.5, a - 0.5), 1, 1, fill=False, hatch="///",
                                                   edgecolor="black", lw=0))
            image = ax.imshow(mat, norm=norm, cmap="viridis", origin="lower", aspect="auto")
            ax.set_xticks(range(len(res_all)))
            ax.set_xticklabels([f"{r}²" for r in res_all], rotation=45)
            ax.set_yticks(range(len(counts_all)))
            ax.set_yticklabels([str(n) for n in counts_all])
            ax.set_xlabel("field cells (side²)")
            ax.set_ylabel("entities")
            ax.set_title(f"radius {radius:g}")
        bar = f.fig.colorbar(image, ax=f.axes.ravel().tolist(), label="speed-up (×)", shrink=0.9)
        bar.ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}×"))
        bar.ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:g}×" if f"{v:g}"[0] in "25" else ""))
        if "gpu-binned" in scale and "cpu-stamp" in scale:
            p = scale["gpu-binned"]["params"]
            s = scale["cpu-stamp"]["median_ms"] / scale["gpu-binned"]["median_ms"]
            f.ax(0, 0).annotate(f"scale case ({p['resolution']}², {p['entities']:,} entities, radius {p['radius']:g}, "
                                f"{p['world']:g}-unit world): {fmt_ratio(s)}", (0, -0.22), xycoords="axes fraction",
                                fontsize=8)
        if f.unchecked:
            f.ax(0, len(radii) - 1).annotate("hatched, '?': not checked", (0, -0.22), xycoords="axes fraction",
                                             fontsize=8)
        f.save(out)

    # 3. Beside the seed: the same cases as Appendix A, warpmind solid, the thesis dashed.
    shared_radii = [r for r in radii if int(r) in seed]
    if not shared_radii:
        return
    f = Figure("field-seed", d, f"field: warpmind (solid) beside Elmir 2013, Appendix A (dashed, x; {SEED_FIELD_HW})",
               len(rows), len(shared_radii), size=(5.2 * len(shared_radii) + 1, 9.8), legend_lines=2, sharey="row")
    for i, by in enumerate(rows):
        for j, radius in enumerate(shared_radii):
            ax = f.ax(i, j)
            table = seed[int(radius)]
            handles = []
            for v in variants:
                color, marker = style(v, variants)
                pts = [(x, idx[k][v]["median_ms"], idx[k][v]["checked"]) for x, k in cases(radius, by) if v in idx[k]]
                handles.append(f.series(ax, pts, v, color, marker))
            for v, name in zip(SEED_FIELD_COLUMNS, SEED_FIELD_NAMES):
                xs = [x for x, k in cases(radius, by) if (k[1], k[2]) in table]
                ys = [table[(k[1], k[2])][v] for x, k in cases(radius, by) if (k[1], k[2]) in table]
                handles.append(f.seed(ax, xs, ys, f"seed {name}", color=style(v, variants)[0]))
            axis_labels(ax, by, radius)
            ax.set_title(ax.get_title() + f" — seed: {SEED_FIELD_SOURCE[int(radius)]}")
            f.collect(handles)
    f.shared_legend(ncol=6)
    f.save(out)

    # 4. Speed-up of each variant over the thesis's counterpart, over every case both have.
    pairs = [(v, SEED_FIELD_COLUMNS[k], SEED_FIELD_NAMES[k]) for k, v in enumerate(SEED_FIELD_COLUMNS)]
    pairs.append(("gpu-binned", "gpu-shared", "GPU Shared"))  # the thesis's fastest variant
    pairs = [p for p in pairs if p[0] in variants]
    if not pairs:
        return
    f = Figure("field-seed-speedup", d, "field: speed-up over the thesis's numbers for the same case "
               f"(seed ms ÷ warpmind ms; seed: {SEED_FIELD_HW})", 1, 1, size=(12, 6.2))
    ax = f.ax()
    radius_colours = {15.0: "#1f77b4", 8.0: "#ff7f0e", 4.0: "#2ca02c"}
    width = 0.8 / len(shared_radii)
    handles = []
    for j, radius in enumerate(shared_radii):
        table = seed[int(radius)]
        colour = radius_colours.get(radius, EXTRA_COLOURS[j % len(EXTRA_COLOURS)])
        for i, (v, sv, _) in enumerate(pairs):
            ratios, bad = [], []
            for (rad, res, n), vv in idx.items():
                if rad == radius and v in vv and (res, n) in table:
                    s = table[(res, n)][sv] / vv[v]["median_ms"]
                    ratios.append(s)
                    if not vv[v]["checked"]:
                        bad.append(s)
            if not ratios:
                continue
            x = i + (j - (len(shared_radii) - 1) / 2) * width
            ax.boxplot([ratios], positions=[x], widths=width * 0.85, patch_artist=True, showfliers=True,
                       boxprops=dict(facecolor=colour, alpha=0.55, edgecolor=colour),
                       medianprops=dict(color="black"), whiskerprops=dict(color=colour), capprops=dict(color=colour),
                       flierprops=dict(marker=".", markeredgecolor=colour, ms=4))
            if bad:
                f.unchecked = True
                ax.plot([x] * len(bad), bad, ls="none", marker="o", markerfacecolor="white", markeredgecolor="red",
                        markeredgewidth=1.5)
            m = median(ratios)
            ax.annotate(fmt_ratio(m), (x, max(ratios)), textcoords="offset points", xytext=(0, 4), ha="center",
                        fontsize=7)
        handles.append(Patch(facecolor=colour, alpha=0.55, label=f"radius {radius:g} ({SEED_FIELD_SOURCE[int(radius)]})"))
    ax.axhline(1, color="black", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(pairs)))
    ax.set_xticklabels([f"{v}\nvs seed {name}" + ("\n(all host threads vs 1)" if v.startswith("cpu") else "")
                        for v, _, name in pairs])
    ax.set_ylabel("speed-up over the seed (×, per case; label: median)")
    ratio_axis(ax)
    ax.set_xlabel(f"{len(res_all)} resolutions {res_all[0]}²..{res_all[-1]}² × {len(counts_all)} entity counts "
                  f"{counts_all[0]}..{counts_all[-1]} per radius (cpu-naive only where it ran)")
    f.legend(ax, handles, loc="upper left")
    f.save(out)
