"""Drawing helpers: matplotlib's settings (Agg, a fixed size and DPI), the variants' styles, axis ticks and
the Figure class that writes one deterministic PNG."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from results.records import unchecked  # noqa: E402

DPI = 100
plt.rcParams.update({
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "legend.fontsize": 8,
    "legend.framealpha": 0.9,
    "svg.hashsalt": "warpmind",
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
})

STYLE = {  # variant -> (colour, marker)
    "cpu-naive": ("#8c564b", "v"), "cpu-stamp": ("#1f77b4", "s"), "gpu-naive": ("#ff7f0e", "^"),
    "gpu-coalesced": ("#bcbd22", "D"), "gpu-shared": ("#2ca02c", "P"), "gpu-binned": ("#d62728", "o"),
    "cpu-reference": ("#1f77b4", "s"), "gpu-sort": ("#ff7f0e", "^"), "gpu-tiled": ("#2ca02c", "P"),
    "gpu-static-grid": ("#d62728", "o"),
    "cpu-fast": ("#1f77b4", "s"), "cpu-grid": ("#8c564b", "v"), "gpu-seed": ("#ff7f0e", "^"), "gpu-sorted": ("#ff7f0e", "^"),
    "gpu-fast": ("#d62728", "o"),
    "cpu-sort": ("#1f77b4", "s"), "cpu-brute": ("#8c564b", "v"), "gpu-region": ("#ff7f0e", "^"),
    "gpu-grid": ("#d62728", "o"),
    "cpu-1-thread": ("#8c564b", "v"), "cpu-pool": ("#1f77b4", "s"), "gpu": ("#d62728", "o"),
    "perft-cpu": ("#1f77b4", "s"), "perft-gpu": ("#d62728", "o"),
    "hybrid-cpu-pool": ("#1f77b4", "s"), "hybrid-gpu": ("#d62728", "o"), "hybrid-cpu": ("#1f77b4", "s"),
}
EXTRA_COLOURS = ["#9467bd", "#e377c2", "#17becf", "#7f7f7f", "#aec7e8", "#ffbb78"]
SEED_COLOUR = "#7f7f7f"
FLOOR_STYLE = dict(color="black", ls="--", lw=1.2)


def style(variant, order):
    if variant in STYLE:
        return STYLE[variant]
    return EXTRA_COLOURS[order.index(variant) % len(EXTRA_COLOURS)] if variant in order else "#7f7f7f", "o"


def check_summary(records):
    n = len(records)
    bad = len(unchecked(records))
    against = sorted({r["checked_against"] for r in records if r.get("checked") and r.get("checked_against")})
    ref = f" against {', '.join(against)}" if against else ""
    if bad == 0:
        return f"all {n} records checked{ref}"
    return f"{bad} of {n} records NOT checked (hollow markers)"


def fmt_count(v):
    """1,024 / 10k / 1M / 2²⁰: counts as the suites choose them (round thousands or powers of two)."""
    v = float(v)
    if v >= 1e6 and v % 1e5 == 0:
        return f"{v / 1e6:g}M"
    if v >= 1e4 and v % 1e3 == 0:
        return f"{v / 1e3:g}k"
    if v >= 1 << 20 and int(v) & (int(v) - 1) == 0:
        return "2" + str(int(v).bit_length() - 1).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{int(v):,}" if v == int(v) else f"{v:g}"


def fmt_ratio(v):
    return f"{v:.0f}×" if v >= 9.95 else f"{v:.1f}×" if v >= 0.995 else f"{v:.2f}×"


def set_ticks(ax, values, fmt=fmt_count, axis="x", keep=None):
    """Major ticks at the given data values (every one, or those in `keep`), labelled with fmt."""
    values = sorted(set(values))
    shown = [v for v in values if keep is None or v in keep]
    a = ax.xaxis if axis == "x" else ax.yaxis
    a.set_ticks(shown)
    a.set_ticklabels([fmt(v) for v in shown])
    a.set_minor_locator(matplotlib.ticker.FixedLocator([v for v in values if v not in shown]))
    a.set_minor_formatter(matplotlib.ticker.NullFormatter())


def ratio_axis(ax):
    """Plain numbers (0.5, 2, 30, 100) on a logarithmic ratio axis, minor labels included where shown."""
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(matplotlib.ticker.LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.5)))


def thin_powers(values, limit=7):
    """A readable subset of tick values: powers of two (or of ten) first, at most `limit` of them."""
    values = sorted(set(values))
    if len(values) <= limit:
        return set(values)
    pick = [v for v in values if int(v) == v and int(v) & (int(v) - 1) == 0]
    if len(pick) < 2:
        pick = values
    while len(pick) > limit:
        pick = pick[::2]
    return set(pick)


class Figure:
    """One PNG: a grid of panels, a title naming the suite, device and commit, and hollow markers for
    unchecked records."""

    def __init__(self, name, data, title, nrows=1, ncols=1, size=(10, 6), legend_lines=0, **kw):
        """legend_lines > 0: a strip of that many legend rows under the panels, for one legend shared by all
        panels (see shared_legend)."""
        self.name = name
        self.data = data
        self.fig = plt.figure(figsize=size, layout="constrained")
        self.bottom = None
        top = self.fig
        if legend_lines:
            strip = 0.2 * legend_lines + 0.25
            top, self.bottom = self.fig.subfigures(2, 1, height_ratios=[size[1] - strip, strip])
        self.axes = top.subplots(nrows, ncols, squeeze=False, **kw)
        self.unchecked = False
        self.shared = {}  # label -> handle, for shared_legend
        subtitle = f"{data['device']} · commit {data['commit']} · {check_summary(data['records'])}"
        self.fig.suptitle(f"{title}\n{subtitle}", fontsize=11)

    def ax(self, i=0, j=0):
        return self.axes[i][j]

    def series(self, ax, pts, label, color, marker="o", ls="-", lw=1.6, ms=5, zorder=3):
        """pts: (x, y, checked). Draws the line and the markers (hollow where not checked); returns a legend
        handle, or None when nothing was drawn."""
        pts = sorted((x, y, c) for x, y, c in pts if y is not None and y > 0 and x is not None)
        if not pts:
            return None
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ls=ls, color=color, lw=lw, zorder=zorder)
        ok = [p for p in pts if p[2]]
        bad = [p for p in pts if not p[2]]
        if ok:
            ax.plot([p[0] for p in ok], [p[1] for p in ok], ls="none", marker=marker, ms=ms, color=color,
                    zorder=zorder + 1)
        if bad:
            self.unchecked = True
            ax.plot([p[0] for p in bad], [p[1] for p in bad], ls="none", marker=marker, ms=ms + 1.5,
                    markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.6, zorder=zorder + 2)
        return Line2D([], [], color=color, ls=ls, lw=lw, marker=marker, ms=ms, label=label)

    def seed(self, ax, xs, ys, label, color=SEED_COLOUR, ls="--", marker="x", lw=1.3):
        pts = [(x, y) for x, y in zip(xs, ys) if y is not None and y > 0]
        if not pts:
            return None
        ax.plot([p[0] for p in pts], [p[1] for p in pts], ls=ls, color=color, lw=lw, marker=marker, ms=5,
                alpha=0.85, zorder=2)
        return Line2D([], [], color=color, ls=ls, lw=lw, marker=marker, ms=5, label=label)

    def floor(self, ax, pts, label="floor"):
        pts = sorted((x, y) for x, y in pts if y is not None and y > 0)
        if not pts:
            return None
        ax.plot([p[0] for p in pts], [p[1] for p in pts], zorder=2, **FLOOR_STYLE)
        return Line2D([], [], label=label, **FLOOR_STYLE)

    def legend(self, ax, handles, loc="best", ncol=1, title=None, below=False):
        """below: under the panel (constrained layout makes room), for legends that would hide lines."""
        handles = [h for h in handles if h is not None]
        if self.unchecked:
            handles.append(Line2D([], [], ls="none", marker="o", markerfacecolor="white", markeredgecolor="black",
                                  markeredgewidth=1.6, ms=6.5, label="hollow: output NOT checked"))
        if not handles:
            return None
        if below:
            return ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=ncol, title=title)
        return ax.legend(handles=handles, loc=loc, ncol=ncol, title=title)

    def collect(self, handles):
        """Keeps the handles (by label, first wins) for shared_legend."""
        for h in handles:
            if h is not None and h.get_label() not in self.shared:
                self.shared[h.get_label()] = h

    def shared_legend(self, ncol=4):
        handles = list(self.shared.values())
        if self.unchecked:
            handles.append(Line2D([], [], ls="none", marker="o", markerfacecolor="white", markeredgecolor="black",
                                  markeredgewidth=1.6, ms=6.5, label="hollow: output NOT checked"))
        if handles:
            self.bottom.legend(handles=handles, loc="center", ncol=ncol, frameon=False)

    def save(self, out):
        path = os.path.join(out, f"bench-{self.name}.png")
        self.fig.savefig(path, dpi=DPI, metadata={"Software": None})
        plt.close(self.fig)
        print(path)
        return path


def floor_of(case):
    """The physical floor of a case (variant -> record): the first record's floor_ms that is there."""
    return next((r["floor_ms"] for r in case.values() if r.get("floor_ms")), None)


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if v else None
