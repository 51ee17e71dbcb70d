"""Loading a results file (bench/results/DEVICE/SUITE.json) and picking its records.

Shared by scripts/figures.py (the Markdown tables) and scripts/bench-plots.py (the PNG figures).
Standard library only.
"""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = "bench/results"


class Missing(Exception):
    """A results file or a record a block needs is not there."""


def load_json(path):
    """A results file's JSON (json.JSONDecodeError where it is not valid)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def select(records, variant=None, **params):
    """The records of `variant` (any, where None) whose params hold every given value (None: the key is
    absent)."""
    out = []
    for r in records:
        if variant is not None and r.get("variant") != variant:
            continue
        p = r.get("params", {})
        if all((k not in p) if v is None else (p.get(k) == v) for k, v in params.items()):
            out.append(r)
    return out


def unique(values):
    """The values in the order of their first appearance, each once."""
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def ordered_variants(records):
    """Variants in the order of their first appearance (the order the suite runs them in)."""
    return unique(r["variant"] for r in records)


def unchecked(records):
    """The records whose output was not checked against a reference in the same run."""
    return [r for r in records if not r.get("checked", False)]


class Results:
    """One results file: the JSON's keys and its records (or runs)."""

    def __init__(self, rel, data):
        self.rel = rel  # e.g. "h100/field.json"
        self.path = f"{RESULTS}/{rel}"
        self.data = data
        self.device = data.get("device", "?")
        self.commit = str(data.get("commit") or "")
        self.date = str(data.get("date", "?"))[:10]
        self.suite = data.get("suite", "?")
        self.records = data.get("records", [])
        self.runs = data.get("runs", [])

    @property
    def stale(self):
        """None when the file measures the sources as they are, else a freshness.Stale (asked of git once)."""
        if not hasattr(self, "_stale"):
            from .freshness import staleness
            self._stale = staleness(self)
        return self._stale

    def cite(self):
        """The file's name as a table row cites it, with what makes it stale where it is."""
        name = os.path.basename(self.rel)
        return name if self.stale is None else f"{name} (stale: {self.stale.short})"

    def find(self, variant=None, **params):
        """The records of `variant` whose params hold every given value (None: the key is absent)."""
        return select(self.records, variant, **params)

    def one(self, variant=None, **params):
        """The single record that matches, else Missing."""
        found = self.find(variant, **params)
        if len(found) == 1:
            return found[0]
        what = ", ".join([f"variant {variant}"] * (variant is not None) +
                         [f"{k} {'(absent)' if v is None else v}" for k, v in params.items()])
        if not found:
            raise Missing(f"{self.path}: no record with {what}")
        raise Missing(f"{self.path}: {len(found)} records with {what}, expected one")

    def maybe(self, variant=None, **params):
        found = self.find(variant, **params)
        return found[0] if len(found) == 1 else None

    def run(self, **keys):
        """The single run (demo-battle, server-*) whose keys hold every given value."""
        found = [r for r in self.runs if all(r.get(k) == v for k, v in keys.items())]
        if len(found) != 1:
            what = ", ".join(f"{k} {v}" for k, v in keys.items())
            raise Missing(f"{self.path}: {'no run' if not found else f'{len(found)} runs'} with {what}")
        return found[0]

    def checks(self):
        """What the file says about its records' checks, in a few words."""
        if not self.records:
            return f"{len(self.runs)} runs, not compared with a reference"
        bad = unchecked(self.records)
        names = sorted({r["variant"] for r in bad})
        n = len(self.records)
        if not names:
            return f"{n:,} records, all checked"
        done = n - len(bad)
        return f"{n:,} records, {done:,} checked, not {', '.join(names)}"


class Loader:
    """Loads results files for a block and remembers which it cited."""

    def __init__(self, cache):
        self.cache = cache
        self.cited = []

    def __call__(self, rel):
        if rel not in self.cache:
            path = os.path.join(ROOT, RESULTS, rel)
            if not os.path.exists(path):
                raise Missing(f"{RESULTS}/{rel} does not exist")
            try:
                res = Results(rel, load_json(path))
            except json.JSONDecodeError as e:
                raise Missing(f"{RESULTS}/{rel} is not valid JSON: {e}") from None
            if not res.commit:
                raise Missing(f"{RESULTS}/{rel} names no commit (its key \"commit\" is missing or empty)")
            try:
                res.stale
            except ValueError as e:
                raise Missing(str(e)) from None
            self.cache[rel] = res
        r = self.cache[rel]
        if r not in self.cited:
            self.cited.append(r)
        return r

    def source_line(self):
        """Which files the block comes from, grouped by device folder, with each file's commit and checks, and
        what makes it stale where one is."""
        groups = {}
        for r in self.cited:
            folder = os.path.dirname(r.rel)
            groups.setdefault((folder, r.device), []).append(r)
        parts = []
        for (folder, device), files in groups.items():
            each = "; ".join(f"`{os.path.basename(r.rel)}` at {r.commit[:7]} ({r.date}, {r.checks()}"
                             + ("" if r.stale is None else f"; **stale**: {r.stale.reason}") + ")" for r in files)
            parts.append(f"`{RESULTS}/{folder}/`, {device}: {each}")
        return "*Generated by `scripts/figures.py` from " + "; ".join(parts) + ".*"
