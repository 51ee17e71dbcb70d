"""The goals of bench/goals.json: what each selects in its results file, its bound, and whether the
committed results meet it. The figure blocks write met or missed from here; no doc types it.
Standard library only."""

import json
import os

from .numbers import rate, sig
from .records import ROOT, Missing, select

GOALS_FILE = "bench/goals.json"
_KEYS = {"id", "module", "what", "file", "variant", "params", "run", "field", "at_most", "at_least", "unit", "per",
         "select", "source"}


class Goal:
    def __init__(self, d, where):
        unknown = set(d) - _KEYS
        if unknown:
            raise Missing(f"{where}: unknown keys {', '.join(sorted(unknown))}")
        for key in ("id", "module", "what", "file", "field", "unit", "source"):
            if not isinstance(d.get(key), str) or not d[key]:
                raise Missing(f"{where}: '{key}' must be a non-empty string")
        if ("at_most" in d) == ("at_least" in d):
            raise Missing(f"{where} ({d['id']}): give at_most or at_least")
        self.id, self.module, self.what, self.file = d["id"], d["module"], d["what"], d["file"]
        self.field, self.unit, self.source = d["field"], d["unit"], d["source"]
        self.upper = "at_most" in d
        self.bound = d["at_most"] if self.upper else d["at_least"]
        if not isinstance(self.bound, (int, float)) or isinstance(self.bound, bool):
            raise Missing(f"{where} ({self.id}): the bound must be a number")
        self.variant = d.get("variant")
        self.params = d.get("params", {})
        self.run = d.get("run")
        self.per = d.get("per", [])
        self.select = d.get("select", "every")
        if self.select not in ("every", "best"):
            raise Missing(f"{where} ({self.id}): select is every or best")

    def text(self, value, exact=False):
        """A value in the goal's unit: 1.79 ms, 17.7×, 1.10 T/s (nodes a second); exact: as written (a bound)."""
        if self.unit == "nodes/s":
            return rate(value)
        if self.unit == "share":  # a fraction shown in per cent
            return f"{value * 100:g}%" if exact else f"{sig(value * 100)}%"
        number = f"{value:g}" if exact else sig(value)
        return f"{number}{'' if self.unit == '×' else ' '}{self.unit}"

    def bound_text(self):
        return f"{'≤' if self.upper else '≥'} {self.text(self.bound, exact=True)}"

    def meets(self, value):
        return value <= self.bound if self.upper else value >= self.bound

    def cell(self, value):
        """'≤ 0.1 ms: met' for a value measured against this goal."""
        return f"{self.bound_text()}: {'met' if self.meets(value) else 'missed'}"


def _load():
    path = os.path.join(ROOT, GOALS_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise Missing(f"{GOALS_FILE}: {e}") from None
    goals, seen = [], set()
    for i, d in enumerate(data.get("goals", [])):
        g = Goal(d, f"{GOALS_FILE}: goals[{i}]")
        if g.id in seen:
            raise Missing(f"{GOALS_FILE}: goal id '{g.id}' twice")
        seen.add(g.id)
        goals.append(g)
    return goals


_CACHE = {}


def all_goals():
    if "goals" not in _CACHE:
        _CACHE["goals"] = _load()
    return _CACHE["goals"]


def goal(goal_id):
    for g in all_goals():
        if g.id == goal_id:
            return g
    raise Missing(f"{GOALS_FILE}: no goal '{goal_id}'")


def value_of(item, field):
    """A record's or run's field, dotted for nested keys; Missing when absent."""
    v = item
    for key in field.split("."):
        if not isinstance(v, dict) or key not in v:
            raise Missing(f"no field '{field}'")
        v = v[key]
    return v


class Outcome:
    """A goal against its results file: per group (the `per` keys' values), the value measured and whether
    it meets the goal; met when every group does."""

    def __init__(self, goal, res, groups):
        self.goal, self.res, self.groups = goal, res, groups
        self.met = all(ok for _, _, ok in groups)

    def measured(self):
        return "; ".join(self.goal.text(v) + (f" ({label})" if label else "") for label, v, _ in self.groups)


def evaluate(load, g):
    """The goal's outcome from its results file (loaded through `load`, so the block cites it)."""
    res = load(g.file)
    if g.run is not None:
        items = [r for r in res.runs if all(r.get(k) == v for k, v in g.run.items())]
    else:
        items = select(res.records, g.variant, **g.params)
    items = [r for r in items if _has(r, g.field)]
    if not items:
        raise Missing(f"{res.path}: no record or run for goal '{g.id}'")
    groups = {}
    for r in items:
        key = tuple(r.get("params", r).get(k) for k in g.per)
        groups.setdefault(key, []).append(r)
    out = []
    for key, rs in sorted(groups.items(), key=lambda kv: str(kv[0])):
        values = [value_of(r, g.field) for r in rs]
        if g.select == "best":
            chosen = [min(values) if g.upper else max(values)]
        else:
            chosen = values
        label = ", ".join(f"{k} {v}" for k, v in zip(g.per, key))
        for v in chosen:
            out.append((label, v, g.meets(v)))
    return Outcome(g, res, out)


def _has(r, field):
    try:
        value_of(r, field)
        return True
    except Missing:
        return False
