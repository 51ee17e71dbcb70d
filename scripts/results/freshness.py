"""Whether a results file still measures the code: git's history of the sources it measures.

A results file is stale when the sources of what it measures (SOURCES below) changed after the commit it
was measured at: in a later commit of HEAD's history, or in the working tree (uncommitted or untracked
changes count, so that the docs regenerated before a commit say what holds once it is made). It is stale
too when its commit is not in HEAD's history, or when it was measured from a build with uncommitted
changes (a "-dirty" commit). A stale file is not an error: the figures that cite it say so where they
stand, until the file is measured again on a GPU. Standard library only.
"""

import os
import re
import subprocess

from .records import ROOT

# --------------------------------------------------------------------------------------------------------
# What each results file measures: its "suite" key -> the paths (files or folders; a folder covers
# everything under it) whose changes make a measurement stale. To cite a new kind of results file, add its
# suite here.
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
    "crowd": _module("crowd", "crowd_suite.cpp") + ["demos/bench/crowd_avoid_suite.cpp", "tests/oracles/crowd_oracle.h"]
             + _BENCH_COMMON,
    "aoi": _module("aoi", "aoi_suite.cpp") + _BENCH_COMMON,
    "ddm": _module("ddm", "ddm_suite.cpp") + _BENCH_COMMON,
    "chess": _SEARCH + _BENCH_COMMON,
    "connect6": _SEARCH + _BENCH_COMMON,
    "hybrid": _SEARCH + _BENCH_COMMON,
    "tables": _SEARCH + ["demos/bench/tables_suite.cpp", "assets/chess/games.txt", "assets/connect6/games.txt"]
              + _BENCH_COMMON,
    "nav": _module("nav", "nav_suite.cpp") + _BENCH_COMMON,
    # Refereed matches of the engines: the search and its networks, the engines' programs.
    "matches": _SEARCH + ["assets/chess/network.wmn", "assets/connect6/network.wmn", "demos/chess", "demos/connect6"],
    # The trainer, its data's programs and the network inputs they share with the engine.
    "training": ["train", "demos/train", "ai/src/search/chess/chess_network.cpp", "ai/src/search/nnue_layers.cpp",
                 "ai/src/search/nnue_layers.h", "ai/include/warpmind/search/chess_network.h"],
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
    "matches.json": "scripts/match.sh (docs/search.md, Chess strength)",
    "matches-g256b1.json": "scripts/match.sh or gpu-run.sh match-stockfish (docs/search.md, Chess strength)",
    "training.json": "scripts/train-chess.sh (docs/training.md, Commands)",
}


class Stale:
    """Why a results file is stale: `reason` in a few words (the caption under a block says it after the
    file's commit), `short` with the commit (a table row that names the file says it), `detail` for --list."""

    def __init__(self, commit, reason, detail):
        self.reason, self.detail = reason, detail
        self.short = f"measured at {commit[:7]}; {reason}"


def git(*args):
    p = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    return p.returncode, p.stdout.strip()


def _touched(paths, names):
    """The entries of `paths` that cover one of the file names."""
    return sorted({p for p in paths if not p.startswith(":(")
                   for n in names if n == p or n.startswith(p.rstrip("/") + "/")})


def staleness(res):
    """None when the results file `res` (a records.Results) is fresh, else a Stale. ValueError when its
    suite has no SOURCES entry (a results file the docs cannot cite)."""
    suite, commit = res.suite, res.commit
    if suite not in SOURCES:
        raise ValueError(f"{res.path}: no sources are known for suite '{suite}' (add it to SOURCES in "
                         f"scripts/results/freshness.py)")
    short = commit[:7]
    if commit.endswith("-dirty"):
        return Stale(commit, "measured from uncommitted sources",
                     f"measured from a build with uncommitted changes ({commit})")
    rc, full = git("rev-parse", "--verify", "--quiet", commit + "^{commit}")
    if rc != 0 or not re.fullmatch(r"[0-9a-fA-F]{7,40}", commit):
        _, shallow = git("rev-parse", "--is-shallow-repository")
        hint = " (this clone is shallow: fetch the whole history)" if shallow == "true" else ""
        return Stale(commit, "a commit not in this history", f"its commit '{commit}' is unknown to git{hint}")
    if git("merge-base", "--is-ancestor", full, "HEAD")[0] != 0:
        return Stale(commit, "a commit not in this history", f"its commit {short} is not in HEAD's history")
    paths = SOURCES[suite]
    since = "the sources changed since"
    _, log = git("log", "--format=%h %s", f"{full}..HEAD", "--", *paths)
    if log:
        commits = log.splitlines()
        _, names = git("log", "--format=", "--name-only", f"{full}..HEAD", "--", *paths)
        latest = commits[0] if len(commits[0]) <= 90 else commits[0][:87] + "..."
        return Stale(commit, since, f"measured at {short}, and {len(commits)} later commit{'s' * (len(commits) > 1)} changed "
                            f"what it measures ({', '.join(_touched(paths, names.splitlines()))}; latest: {latest})")
    _, changed = git("diff", "--name-only", "HEAD", "--", *paths)
    _, untracked = git("ls-files", "--others", "--exclude-standard", "--", *paths)
    names = (changed + "\n" + untracked).split()
    if names:
        return Stale(commit, since, f"measured at {short}, and uncommitted changes in the working tree change what it "
                            f"measures ({', '.join(_touched(paths, names))})")
    return None


def rerun_hint(res):
    name = os.path.basename(res.rel)
    how = RERUN.get(name, f"warpmind-bench {res.suite}")
    where = "on any machine (node counts)" if res.device.startswith("node counts") else f"on an {res.device}"
    if how.startswith("warpmind-bench"):
        return f"rerun `{how} --out {res.path}` {where} and commit it"
    return f"rerun `{how}` {where}, gather its runs into {res.path} and commit it"
