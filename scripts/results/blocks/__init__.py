"""The generators of the figure blocks of README.md and docs/*.md (see scripts/figures.py).

BLOCKS maps a block's NAME (`<!-- figures: NAME -->`) to its generator: a function of a Loader (which
loads a results file by its path under bench/results/ and remembers it) that returns the block's
Markdown lines, or raises Missing. The generators are in modules.py (field, crowd, aoi, ddm, the demo
and the server), search.py (chess, Connect6, perft, hybrid) and state.py (which results files the docs
cite, and which of them are stale: a late block, made once every other block is). Standard library only.
"""

BLOCKS = {}
LATE = set()  # blocks about the other blocks' files: made after them, their Loader's `others` set


def block(name, late=False):
    def add(fn):
        BLOCKS[name] = fn
        if late:
            LATE.add(name)
        return fn
    return add


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


from . import modules, search, state  # noqa: E402,F401  (their @block generators fill BLOCKS)
