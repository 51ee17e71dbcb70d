"""Late blocks: the results files that the other blocks cite, and which of them are stale (docs/status.md
and the README's Status). Their Loader's `others` holds those files (records.Results), sorted by path."""

import os

from . import block, table


@block("results-state", late=True)
def results_state(load):
    """docs/status.md: every results file the docs' figures come from, where and when it was measured, and
    whether the code it measures changed since."""
    rows = []
    for r in load.others:
        state = "fresh" if r.stale is None else f"**stale**: {r.stale.short}"
        rows.append([f"`{r.path}`", r.device, r.commit[:7], r.date, r.checks(), state])
    return table(["results file", "device", "measured at", "date", "records", "state"], rows)


@block("results-stale", late=True)
def results_stale(load):
    """README: one sentence on the stale files, if any."""
    stale = [r for r in load.others if r.stale is not None]
    n = len(load.others)
    if not stale:
        return [f"All {n} results files that the figures above and in docs/ come from measure the code as it is."]
    names = ", ".join(f"`{os.path.basename(r.rel)}` ({r.stale.short})" for r in stale)
    return [f"{len(stale)} of the {n} results files that the figures come from are stale, and the figures "
            f"from them describe older code until they are measured again on a GPU: {names}. "
            f"[status.md](docs/status.md#results) lists them all."]


def _goal_rows(load, module=None):
    from ..goals import all_goals, evaluate
    rows = []
    for g in all_goals():
        if module is not None and g.module != module:
            continue
        o = evaluate(load, g)
        rows.append(([] if module else [g.module]) +
                    [g.what, g.bound_text(), o.measured(), "met" if o.met else "**missed**", o.res.cite()])
    return rows


@block("goals")
def goals_all(load):
    """docs/status.md: every goal of bench/goals.json against its results file."""
    return table(["module", "goal", "bound", "measured", "state", "results"], _goal_rows(load))


@block("goals-missed")
def goals_missed(load):
    """README: the goals not met, in one sentence."""
    from ..goals import all_goals, evaluate
    missed = [g for g in all_goals() if not evaluate(load, g).met]
    n = len(all_goals())
    if not missed:
        return [f"All {n} goals of `bench/goals.json` are met."]
    return [f"{n - len(missed)} of the {n} goals of `bench/goals.json` are met; not met: " +
            "; ".join(f"{g.module} ({g.what}, {g.bound_text()})" for g in missed) +
            " ([status.md](docs/status.md#goals) gives the measured figures)."]


def _module_block(module):
    def gen(load):
        return table(["goal", "bound", "measured", "state", "results"], _goal_rows(load, module))
    gen.__doc__ = f"docs: the {module} module's goals."
    return gen


for _module in ("field", "crowd", "aoi", "ddm", "nav", "search", "engine", "server"):
    block(f"goals-{_module}")(_module_block(_module))
