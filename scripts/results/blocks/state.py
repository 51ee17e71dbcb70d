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
