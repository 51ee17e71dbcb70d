#!/usr/bin/env python3
"""The figure tables of README.md and docs/*.md, written from the committed results in bench/results/.

A generated block in a Markdown file is every line between a line `<!-- figures: NAME -->` and the next
line `<!-- /figures -->`; NAME picks a generator (scripts/results/blocks/). Nothing between the two markers is typed by
hand: the generator writes the whole table from the results files and names them, with their device and
commit, under it.

usage:
  scripts/figures.py              rewrite every block of README.md and docs/*.md in place
  scripts/figures.py --check      change nothing; exit 1 when a block's text differs from what the results
                                  files say, when a block needs a file or a record that is missing, or when
                                  a results file a block cites is stale (CI runs this)
  scripts/figures.py --list       every results file, its commit and whether it is fresh or stale
  scripts/figures.py --self-test  the block parser and the number formats, on strings

  --no-stale   skip the staleness test (local experiments only; CI never passes it)

Stale: a results file is stale when a commit after the one it was measured at changed the sources of
what it measures (SOURCES below), when its commit is unknown to git or not in HEAD's history, or when it
was measured from a build with uncommitted changes (a "-dirty" commit). A stale file's figures are
rerun on the machine they name and committed again, or the figures that cite them are dropped.
Standard library only (python3 >= 3.9).
"""

import difflib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)  # scripts/, where the results package is, wherever this is run from

from results.blocks import BLOCKS  # noqa: E402  (the generators: results/blocks/modules.py and search.py)
from results.numbers import big, ms, rate, times  # noqa: E402
from results.records import RESULTS, ROOT, Loader, Missing, Results  # noqa: E402

# --------------------------------------------------------------------------------------------------------
# What each results file measures: its "suite" key -> the paths (files or folders; a folder covers
# everything under it) whose changes make a measurement stale. A commit after the file's own commit that
# touches any of these paths makes the file stale. To cite a new kind of results file, add its suite here.
# --------------------------------------------------------------------------------------------------------
_BENCH_COMMON = ["ai/src/core", "gpu/src/core", "demos/bench/results.cpp"]
_SEARCH = ["ai/include/warpmind/search", "ai/src/search", "gpu/src/search", "demos/bench/search_suites.cpp",
           "demos/bench/hybrid_suite.cpp", "demos/bench/serial_search.h"]


def _module(name, suite_file):
    return [f"ai/include/warpmind/{name}", f"ai/src/{name}", f"gpu/src/{name}", f"demos/bench/{suite_file}"]


# The server's steps: its sources, and (where the step runs warpmind-bots) the bots'. A ":(exclude)" entry
# is git's pathspec for a path left out of the one above it.
_SERVER = ["demos/server", "ai/include/warpmind/aoi", "ai/src/aoi", "gpu/src/aoi", "ai/src/core", "gpu/src/core"]
_BOTS = ["demos/server/bots_main.cpp", "demos/server/bots_check.cpp", "demos/server/bots_check.h",
         "demos/server/bots.h"]

SOURCES = {
    "field": _module("field", "field_suite.cpp") + _BENCH_COMMON,
    "crowd": _module("crowd", "crowd_suite.cpp") + ["demos/bench/crowd_avoid_suite.cpp", "demos/oracles/crowd_oracle.h"]
             + _BENCH_COMMON,
    "aoi": _module("aoi", "aoi_suite.cpp") + _BENCH_COMMON,
    "ddm": _module("ddm", "ddm_suite.cpp") + _BENCH_COMMON,
    "chess": _SEARCH + _BENCH_COMMON,
    "connect6": _SEARCH + _BENCH_COMMON,
    "hybrid": _SEARCH + _BENCH_COMMON,
    "tables": _SEARCH + ["demos/bench/tables_suite.cpp", "assets/chess/games.txt", "assets/connect6/games.txt"]
              + _BENCH_COMMON,
    "nav": _module("nav", "nav_suite.cpp") + _BENCH_COMMON,
    "demo-battle": ["demos/demo", "engine/src", "ai/include/warpmind/field", "ai/src/field", "gpu/src/field",
                    "ai/include/warpmind/crowd", "ai/src/crowd", "gpu/src/crowd", "ai/include/warpmind/combat",
                    "ai/src/combat", "gpu/src/combat", "ai/src/core", "gpu/src/core"],
    "server-virtual": _SERVER + [":(exclude)" + p for p in _BOTS],  # no bots: in-process clients
    "server-sockets": _SERVER,
    "server-churn": _SERVER,
    "server-10k": _SERVER,
    "server-kill": _SERVER,
}

# How to measure a file again, where it is not `warpmind-bench SUITE --out FILE` (gpu-run.sh runs a suite
# with options as the step bench-SUITE:ARG,ARG on a staged CUDA machine).
RERUN = {
    "chess-perft.json": "warpmind-bench chess --part perft",
    "field-only-scale.json": "warpmind-bench field --only-scale",
    "crowd-no-scale.json": "warpmind-bench crowd --no-scale",
    "ddm.json": "warpmind-bench ddm --no-brute --steps 5",
    "hybrid-w48-d5.json": "warpmind-bench hybrid --width 48 --depth 5",
    "tables-chess-d5.json": "warpmind-bench tables --game chess --depth 5 --tables 2000",
    # gpu-run.sh steps whose runs are gathered into one file of the same shape ({"suite", "device",
    # "commit", "date", "command", "runs": [...]}, a run per stats.json or JSON line)
    "demo-battle.json": "gpu-run.sh STAGE OUT demo-battle",
    "server-virtual.json": "gpu-run.sh STAGE OUT server-virtual",
    "server-sockets.json": "gpu-run.sh STAGE OUT server-sockets",
    "server-churn.json": "gpu-run.sh STAGE OUT server-churn",
    "server-10k.json": "gpu-run.sh STAGE OUT server-10k",
    "server-kill.json": "gpu-run.sh STAGE OUT server-kill",
}

BEGIN = re.compile(r"^<!-- figures: ([a-z0-9-]+) -->$")
END = "<!-- /figures -->"


# ------------------------------------------------------------------------------------------------ git

def git(*args):
    p = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    return p.returncode, p.stdout.strip()


def staleness(res):
    """None when the results file is fresh, else why it is stale (one line)."""
    suite = res.suite
    commit = res.commit
    if suite not in SOURCES:
        return f"no sources are known for suite '{suite}' (add it to SOURCES in scripts/figures.py)"
    if commit.endswith("-dirty"):
        return f"measured from a build with uncommitted changes ({commit})"
    rc, full = git("rev-parse", "--verify", "--quiet", commit + "^{commit}")
    if rc != 0 or not re.fullmatch(r"[0-9a-fA-F]{7,40}", commit):
        _, shallow = git("rev-parse", "--is-shallow-repository")
        hint = " (this clone is shallow: fetch the whole history)" if shallow == "true" else ""
        return f"its commit '{commit}' is unknown to git{hint}"
    if git("merge-base", "--is-ancestor", full, "HEAD")[0] != 0:
        return f"its commit {commit[:7]} is not in HEAD's history"
    paths = SOURCES[suite]
    _, log = git("log", "--format=%h %s", f"{full}..HEAD", "--", *paths)
    if not log:
        return None
    commits = log.splitlines()
    _, names = git("log", "--format=", "--name-only", f"{full}..HEAD", "--", *paths)
    touched = sorted({p for p in paths if not p.startswith(":(")
                      for n in names.splitlines() if n == p or n.startswith(p.rstrip("/") + "/")})
    latest = commits[0] if len(commits[0]) <= 90 else commits[0][:87] + "..."
    return (f"measured at {commit[:7]}, and {len(commits)} later commit{'s' * (len(commits) > 1)} changed what it "
            f"measures ({', '.join(touched)}; latest: {latest})")


def rerun_hint(res):
    name = os.path.basename(res.rel)
    how = RERUN.get(name, f"warpmind-bench {res.suite}")
    where = "on any machine (node counts)" if res.device.startswith("node counts") else f"on an {res.device}"
    if how.startswith("warpmind-bench"):
        return f"rerun `{how} --out {res.path}` {where} and commit it, or drop the figures that cite it"
    return (f"rerun `{how}` {where}, gather its runs into {res.path} and commit it, or drop the figures that "
            f"cite it")


# ------------------------------------------------------------------------------------------------ files

def markdown_files():
    files = [os.path.join(ROOT, "README.md")]
    docs = os.path.join(ROOT, "docs")
    if os.path.isdir(docs):
        files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return [f for f in files if os.path.exists(f)]


def parse(text, where="text"):
    """Splits Markdown into pieces: a list of lines kept as they are (markers included), or a tuple
    (name, lines, indent) for a block's contents, indent being its opening marker's (a block inside a
    list item is indented like it). Raises ValueError on a marker out of place."""
    pieces, current, name, start, indent = [], [], None, 0, ""
    for i, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        m = BEGIN.match(s)
        if m:
            if name is not None:
                raise ValueError(f"{where}:{i}: block '{m.group(1)}' opens inside block '{name}' (line {start})")
            pieces.append(current + [line])
            current, name, start, indent = [], m.group(1), i, line[:len(line) - len(line.lstrip())]
        elif s == END:
            if name is None:
                raise ValueError(f"{where}:{i}: '{END}' without an opening '<!-- figures: NAME -->'")
            pieces.append((name, current, indent))
            current, name = [line], None
        elif s.startswith("<!-- figures") or s.startswith("<!-- /figures"):
            raise ValueError(f"{where}:{i}: malformed marker {s!r} (write '<!-- figures: NAME -->' and '{END}')")
        else:
            current.append(line)
    if name is not None:
        raise ValueError(f"{where}:{start}: block '{name}' is not closed by '{END}'")
    pieces.append(current)
    return pieces


def render(pieces, generated):
    """The text again, each block's lines replaced by generated(name, old_lines, indent)."""
    lines = []
    for p in pieces:
        lines += generated(*p) if isinstance(p, tuple) else p
    return "\n".join(lines)


def indented(lines, indent):
    """A block's lines indented like its opening marker (a block inside a list item)."""
    return [indent + x if x else x for x in lines]


def generate(name, cache):
    """The block's lines and the results files it cited; Missing or KeyError when it cannot be made."""
    load = Loader(cache)
    try:
        lines = BLOCKS[name](load)
    except KeyError as e:
        raise Missing(f"a record lacks the key {e} (files: {', '.join(r.path for r in load.cited)})") from None
    return [""] + lines + ["", load.source_line()], load.cited


def main(argv):
    args = set(argv[1:])
    unknown = args - {"--check", "--list", "--no-stale", "--self-test", "-h", "--help"}
    if unknown or "-h" in args or "--help" in args:
        print(__doc__.strip(), file=sys.stderr if unknown else sys.stdout)
        return 2 if unknown else 0
    if "--self-test" in args:
        return self_test()
    if "--list" in args:
        return list_results()
    check = "--check" in args
    stale_test = "--no-stale" not in args
    cache, errors, changed, cited_by, n_blocks = {}, [], [], {}, 0
    for path in markdown_files():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            pieces = parse(text, rel)
        except ValueError as e:
            errors.append(str(e))
            continue

        def new_lines(name, old, indent, rel=rel):
            nonlocal n_blocks
            n_blocks += 1
            if name not in BLOCKS:
                errors.append(f"{rel}: block '{name}': no such generator (known: {', '.join(sorted(BLOCKS))})")
                return old
            try:
                lines, cited = generate(name, cache)
                lines = indented(lines, indent)
            except Missing as e:
                errors.append(f"{rel}: block '{name}': {e}")
                return old
            for r in cited:
                cited_by.setdefault(r.path, (r, []))[1].append(f"{rel} '{name}'")
            if lines != old:
                changed.append((rel, name, old, lines))
            return lines

        new = render(pieces, new_lines)
        if new != text and not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    for rel, name, old, lines in changed:
        if check:
            diff = list(difflib.unified_diff(old, lines, lineterm="", n=0))[2:]
            shown = "\n".join("    " + d for d in diff[:12]) + ("\n    ..." if len(diff) > 12 else "")
            errors.append(f"{rel}: block '{name}' differs from what the results files say "
                          f"(run scripts/figures.py):\n{shown}")
        else:
            print(f"figures: rewrote {rel}, block '{name}'")
    stale = []
    if stale_test:
        for path, (res, users) in sorted(cited_by.items()):
            why = staleness(res)
            if why:
                stale.append(f"{path} is stale: {why}.\n    Cited by {', '.join(users)}; {rerun_hint(res)}.")
    for e in errors:
        print(f"figures: {e}", file=sys.stderr)
    for s in stale:
        print(f"figures: {s}", file=sys.stderr if check else sys.stdout)
    summary = (f"{n_blocks} blocks, {len(cited_by)} results files cited; {len(errors)} problem"
               f"{'s' * (len(errors) != 1)}, {len(stale)} stale file{'s' * (len(stale) != 1)}"
               + ("" if stale_test else " (staleness not tested: --no-stale)"))
    print(f"figures: {summary}", file=sys.stderr if (errors or stale) and check else sys.stdout)
    if check:
        return 1 if errors or stale else 0
    return 1 if errors else 0


def list_results():
    rc = 0
    for device in sorted(os.listdir(os.path.join(ROOT, RESULTS))):
        folder = os.path.join(ROOT, RESULTS, device)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json"):
                continue
            try:
                res = Loader({})(f"{device}/{name}")
            except Missing as e:
                print(f"{RESULTS}/{device}/{name}: {e}")
                rc = 1
                continue
            why = staleness(res)
            state = "fresh" if why is None else f"STALE: {why}"
            print(f"{res.path}  suite {res.suite}  commit {res.commit[:12]}  {res.date}  {state}")
    return rc


# ------------------------------------------------------------------------------------------------ self-test

def self_test():
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    doc = "# t\n<!-- figures: x -->\nold\n<!-- /figures -->\ntail\n"
    pieces = parse(doc)
    expect("parse pieces", pieces, [["# t", "<!-- figures: x -->"], ("x", ["old"], ""), ["<!-- /figures -->", "tail", ""]])
    expect("indented", render(parse("- a\n  <!-- figures: x -->\n  <!-- /figures -->"),
                              lambda n, o, i: indented(["", "t"], i)),
           "- a\n  <!-- figures: x -->\n\n  t\n  <!-- /figures -->")
    expect("render", render(pieces, lambda n, o, i: ["new", "lines"]),
           "# t\n<!-- figures: x -->\nnew\nlines\n<!-- /figures -->\ntail\n")
    expect("render keeps", render(pieces, lambda n, o, i: o), doc)
    empty = "<!-- figures: y -->\n<!-- /figures -->"
    expect("empty block", render(parse(empty), lambda n, o, i: ["a"]), "<!-- figures: y -->\na\n<!-- /figures -->")
    for bad in ("<!-- figures: a -->\n", "<!-- /figures -->\n", "<!-- figures: a -->\n<!-- figures: b -->\n",
                "<!-- figures:a -->\n"):
        try:
            parse(bad)
            failures.append(f"parse accepted {bad!r}")
        except ValueError:
            pass
    expect("ms", [ms(7113.999), ms(466.18), ms(16.5595), ms(4.7734), ms(0.0455), ms(0.00560)],
           ["7,114 ms", "466 ms", "16.6 ms", "4.77 ms", "0.0455 ms", "0.00560 ms"])
    expect("times", [times(104.8), times(4641.4), times(7.86), times(2.66), times(0.0178)],
           ["105×", "4,641×", "7.9×", "2.7×", "0.018×"])
    expect("rate", [rate(286.6e9), rate(1.612e12), rate(113.8e6)], ["287 G/s", "1.61 T/s", "114 M/s"])
    expect("big", [big(71785163), big(4542171113), big(198455)], ["71.8 M", "4,542 M", "198 k"])
    recs = Results("x/y.json", {"records": [{"variant": "a", "params": {"n": 1}}, {"variant": "a", "params": {"n": 2,
                                                                                                              "case": "s"}}]})
    expect("find absent key", len(recs.find("a", case=None)), 1)
    try:
        recs.one("b")
        failures.append("one() found a missing record")
    except Missing:
        pass
    for f in failures:
        print(f"self-test: {f}", file=sys.stderr)
    print(f"self-test: {'failed' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
