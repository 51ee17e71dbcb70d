"""The figure tables of README.md and docs/*.md, written from the committed results in bench/results/.

A generated block in a Markdown file is every line between a line `<!-- figures: NAME -->` and the next
line `<!-- /figures -->`; NAME picks a generator (scripts/results/blocks/). Nothing between the two markers
is typed by hand: the generator writes the whole table from the results files and names them, with their
device and commit, under it.

A results file whose sources changed after it was measured is stale (scripts/results/freshness.py says
exactly when). Its figures stay, marked where they stand: the caption under a block says "stale" beside
the file, a table row that names its file says so in that cell, and the blocks `results-state`
(docs/status.md) and `results-stale` (README) list every stale file. So a change to a measured module
lands with the docs regenerated in the same commit, and the figures are measured again when a GPU is
lent; a stale file never fails the check.

The goals (bench/goals.json, scripts/results/goals.py) are data too: the blocks say met or missed from
the results. Outside generated blocks and fenced code, README.md and docs/*.md (not docs/notes/) hold no
commit id and no typed measurement (`typed_figures` below says exactly what counts): --check fails on
either, naming the file and line.

usage:
  scripts/figures.py              rewrite every block of README.md and docs/*.md in place
  scripts/figures.py --check      change nothing; exit 1 when a block's text differs from what the results
                                  files and their staleness say (a hand edit, or docs not regenerated after
                                  a change to what they measure), when a block needs a file or a record
                                  that is missing, when a results file it cites names no commit, when a
                                  goal is malformed, or when a doc types a figure or a commit id (CI)
  scripts/figures.py --list       every results file, its commit and whether it is fresh or stale
  scripts/figures.py --self-test  the block parser and the number formats, on strings

Standard library only (python3 >= 3.9).
"""

import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)  # scripts/, where the results package is, wherever this is run from

from results.blocks import BLOCKS, LATE  # noqa: E402  (the generators: results/blocks/*.py)
from results.freshness import rerun_hint  # noqa: E402
from results.numbers import big, ms, rate, times  # noqa: E402
from results.records import RESULTS, ROOT, Loader, Missing, Results, load_json  # noqa: E402

BEGIN = re.compile(r"^<!-- figures: ([a-z0-9-]+) -->$")
END = "<!-- /figures -->"


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


LATE_CAPTION = ("*Generated by `scripts/figures.py` from the results files that the other blocks cite and git's "
                "history of what they measure.*")


# ------------------------------------------------------------------------------------------------ lint

# Outside generated blocks and fenced code, README.md and docs/*.md (not docs/notes/, whose dated accounts
# keep their history; CHANGELOG.md is not read) hold no commit id and no typed measurement:
HASH = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
# a number with a unit of time, speed-up, rate or strength that has a decimal point or three significant
# digits (1.79 ms, 17.7×, 135 ms, +146 Elo): a measurement; round numbers (50 ms, 20×) are parameters
# and bounds.
# (A speed-up is written 17.7×, the sign against the number; "1024 × 1024" is a product, not flagged.)
MEASURE = re.compile(r"(?<![\w.])[+−-]?(\d[\d,]*(?:\.\d+)?)(?: ?(?:ms|µs|ns|[kMGT]B/s|[kMGT]/s|Elo)|×)(?!\w)")


def typed_figures(text, where):
    """The commit ids and typed measurements outside blocks and fenced code, as 'file:line: what'."""
    found, in_block, in_code = [], False, False
    for i, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s.startswith("```"):
            in_code = not in_code
            continue
        if BEGIN.match(s):
            in_block = True
            continue
        if s == END:
            in_block = False
            continue
        if in_block or in_code:
            continue
        for m in HASH.finditer(line):
            found.append(f"{where}:{i}: a commit id '{m.group(0)}' outside a generated block")
        for m in MEASURE.finditer(line):
            digits = m.group(1).replace(",", "")
            significant = digits.replace(".", "").lstrip("0").rstrip("0")
            if "." in digits or len(significant) >= 3:
                found.append(f"{where}:{i}: a typed measurement '{m.group(0).strip()}' outside a generated block")
    return found


# References stay references: the longest docs' limits in lines (their history goes to docs/notes/).
LINE_LIMITS = {"README.md": 150, "docs/server.md": 700, "docs/search.md": 700}


def too_long(text, where):
    """A doc over its limit in LINE_LIMITS, as 'file: what'."""
    lines, limit = len(text.rstrip("\n").split("\n")), LINE_LIMITS.get(where)
    return [f"{where}: {lines} lines, more than its {limit}"] if limit and lines > limit else []


def generate(name, cache, others=()):
    """The block's lines and the results files it cited; Missing when it cannot be made. A late block
    (blocks.LATE) is given `others`, the files every other block cited."""
    load = Loader(cache)
    load.others = sorted(others, key=lambda r: r.path)
    try:
        lines = BLOCKS[name](load)
    except KeyError as e:
        raise Missing(f"a record lacks the key {e} (files: {', '.join(r.path for r in load.cited)})") from None
    caption = LATE_CAPTION if name in LATE else load.source_line()
    return [""] + lines + ["", caption], load.cited


def main(argv):
    args = set(argv[1:])
    unknown = args - {"--check", "--list", "--self-test", "-h", "--help"}
    if unknown or "-h" in args or "--help" in args:
        print(__doc__.strip(), file=sys.stderr if unknown else sys.stdout)
        return 2 if unknown else 0
    if "--self-test" in args:
        return self_test()
    if "--list" in args:
        return list_results()
    check = "--check" in args
    docs, errors = [], []
    for path in markdown_files():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        errors += typed_figures(text, rel) + too_long(text, rel)
        try:
            docs.append((path, rel, text, parse(text, rel)))
        except ValueError as e:
            errors.append(str(e))
    cache, changed, cited_by, made = {}, [], {}, {}

    def make(rel, name, old, indent, late):
        """A block's new lines (the old ones where it cannot be made); late blocks wait for the others."""
        if name not in BLOCKS:
            errors.append(f"{rel}: block '{name}': no such generator (known: {', '.join(sorted(BLOCKS))})")
            return old
        if (name in LATE) != late:
            return old
        try:
            others = [r for r, _ in cited_by.values()] if late else ()
            lines, cited = generate(name, cache, others)
            lines = indented(lines, indent)
        except Missing as e:
            errors.append(f"{rel}: block '{name}': {e}")
            return old
        if not late:
            for r in cited:
                cited_by.setdefault(r.path, (r, []))[1].append(f"{rel} '{name}'")
        if lines != old:
            changed.append((rel, name, old, lines))
        made[rel, name, late] = True
        return lines

    for late in (False, True):
        for i, (path, rel, text, pieces) in enumerate(docs):
            new = render(pieces, lambda name, old, indent, rel=rel: make(rel, name, old, indent, late))
            docs[i] = (path, rel, text, parse(new, rel))
    for path, rel, text, pieces in docs:
        new = render(pieces, lambda name, old, indent: old)
        if new != text and not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    for rel, name, old, lines in changed:
        if check:
            diff = list(difflib.unified_diff(old, lines, lineterm="", n=0))[2:]
            shown = "\n".join("    " + d for d in diff[:12]) + ("\n    ..." if len(diff) > 12 else "")
            errors.append(f"{rel}: block '{name}' differs from what the results files and their staleness say "
                          f"(run scripts/figures.py and commit what it writes):\n{shown}")
        else:
            print(f"figures: rewrote {rel}, block '{name}'")
    stale = []
    for path, (res, users) in sorted(cited_by.items()):
        if res.stale is not None:
            stale.append(f"{path} is stale ({res.stale.detail}); its figures are marked so.\n"
                         f"    Cited by {', '.join(users)}; {rerun_hint(res)}.")
    for e in errors:
        print(f"figures: {e}", file=sys.stderr)
    for s in stale:
        print(f"figures: {s}")
    print(f"figures: {len(made)} blocks, {len(cited_by)} results files cited; {len(errors)} problem"
          f"{'s' * (len(errors) != 1)}, {len(stale)} stale file{'s' * (len(stale) != 1)} (marked, not a problem)",
          file=sys.stderr if errors else sys.stdout)
    return 1 if errors else 0


def list_results():
    """Every results file under bench/results/, fresh or stale (a JSON file with no "suite", such as a test
    report, is named as such)."""
    rc = 0
    for device in sorted(os.listdir(os.path.join(ROOT, RESULTS))):
        folder = os.path.join(ROOT, RESULTS, device)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json"):
                continue
            try:
                if "suite" not in load_json(os.path.join(folder, name)):
                    print(f"{RESULTS}/{device}/{name}: no suite (a test report, not a benchmark results file)")
                    continue
                res = Loader({})(f"{device}/{name}")
            except (Missing, ValueError) as e:
                print(f"{RESULTS}/{device}/{name}: {e}")
                rc = 1
                continue
            state = "fresh" if res.stale is None else f"STALE: {res.stale.detail}"
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
