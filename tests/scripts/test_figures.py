"""scripts/figures.py on a clone of this repository: a change to a measured module lands with the docs
regenerated and its figures marked stale (the check passes), while a hand edit of a generated figure, a
results file without a commit, a missing record, a figure or commit id typed outside a block, or a
malformed goal fails the check; the goals of bench/goals.json say met or missed from the results.

The clone is made from this checkout's history with the working tree's scripts and docs copied over and
regenerated, so the tests try the figures code as it is being changed. Skipped where the source tree is
not a git checkout with its history.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GIT = ["git", "-c", "user.name=figures test", "-c", "user.email=figures@test.invalid", "-c", "commit.gpgsign=false"]


def git(repo, *args):
    return subprocess.run(GIT + ["-C", repo, *args], capture_output=True, text=True, check=True).stdout


def figures(repo, *args):
    return subprocess.run([sys.executable, os.path.join(repo, "scripts", "figures.py"), *args],
                          capture_output=True, text=True)


def read(repo, rel):
    with open(os.path.join(repo, rel), encoding="utf-8") as f:
        return f.read()


def write(repo, rel, text):
    with open(os.path.join(repo, rel), "w", encoding="utf-8") as f:
        f.write(text)


def block(text, name):
    """The lines of generated block NAME in a Markdown text."""
    m = re.search(rf"<!-- figures: {name} -->\n(.*?)<!-- /figures -->", text, re.S)
    assert m, f"no block {name}"
    return m.group(1)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A clone whose HEAD holds the working tree's figures code and freshly generated docs."""
    if subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("the source tree is not a git checkout")
    if git(ROOT, "rev-parse", "--is-shallow-repository").strip() == "true":
        pytest.skip("a shallow clone: the results files' commits are not in its history")
    repo = str(tmp_path_factory.mktemp("figures") / "repo")
    subprocess.run(["git", "clone", "-q", ROOT, repo], check=True)
    for rel in ("scripts/figures.py", "scripts/results", "README.md", "docs", "bench/results", "bench/goals.json"):
        src, dst = os.path.join(ROOT, rel), os.path.join(repo, rel)
        if os.path.isdir(src):
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, dst)
    r = figures(repo)
    assert r.returncode == 0, r.stderr
    git(repo, "add", "-A")
    if git(repo, "status", "--porcelain").strip():
        git(repo, "commit", "-q", "-m", "test: the working tree's figures code and docs")
    return repo, git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture()
def repo(base):
    path, head = base
    git(path, "reset", "-q", "--hard", head)
    git(path, "clean", "-q", "-fdx")
    return path


def test_regenerated_docs_pass_the_check(repo):
    r = figures(repo, "--check")
    assert r.returncode == 0, r.stderr
    assert "0 problems" in r.stdout


def test_a_change_to_a_measured_module_lands_with_its_figures_marked_stale(repo):
    fresh_at_head(repo, "bench/results/h200/crowd.json", "bench/results/h200/field.json")
    crowd = "ai/src/crowd/crowd_solver.cpp"
    write(repo, crowd, read(repo, crowd) + "// a change to what the crowd suite measures\n")
    # Committed without regenerating: the docs still call crowd.json fresh, and the check says so.
    git(repo, "commit", "-q", "-am", "crowd: a change")
    r = figures(repo, "--check")
    assert r.returncode == 1
    assert "differs from what the results files and their staleness say" in r.stderr
    # Regenerated and committed: the check passes with the stale file's figures marked.
    assert figures(repo).returncode == 0
    git(repo, "commit", "-q", "-am", "docs: regenerated")
    r = figures(repo, "--check")
    assert r.returncode == 0, r.stderr
    assert "crowd.json is stale" in r.stdout
    readme = read(repo, "README.md")
    row = next(line for line in block(readme, "performance").splitlines() if line.startswith("| crowd, "))
    assert re.search(r"crowd\.json \(stale: measured at [0-9a-f]{7}; the sources changed since\) \|$", row)
    assert re.search(r"`crowd\.json` at [0-9a-f]{7} \([^)]*; \*\*stale\*\*: the sources changed since\)",
                     block(readme, "performance"))
    # Rows from fresh files are not marked.
    field = next(line for line in block(readme, "performance").splitlines() if line.startswith("| field 2048²"))
    assert field.endswith("| field.json |")
    assert "`crowd.json`" in block(readme, "results-stale")
    state = block(read(repo, "docs/status.md"), "results-state")
    assert re.search(r"\| `bench/results/h200/crowd\.json` \|.*\| \*\*stale\*\*: measured at", state)
    assert re.search(r"\| `bench/results/h200/field\.json` \|.*\| fresh \|", state)
    # --list keeps listing it (the stop hook reads this).
    assert re.search(r"bench/results/h200/crowd\.json .* STALE: ", figures(repo, "--list").stdout)


def test_docs_regenerated_before_the_commit_are_right_after_it(repo):
    nav = "ai/src/nav/nav.cpp"
    write(repo, nav, read(repo, nav) + "// a change to what the nav suite measures\n")
    assert figures(repo).returncode == 0  # counts the uncommitted change
    git(repo, "commit", "-q", "-am", "nav: a change, docs regenerated")
    r = figures(repo, "--check")
    assert r.returncode == 0, r.stderr
    assert "nav.json (stale: measured at" in read(repo, "README.md")


def test_a_hand_edit_of_a_generated_figure_fails(repo):
    readme = read(repo, "README.md")
    perf = block(readme, "performance")
    edited = re.sub(r"\| (\d[\d,]*)× \|", lambda m: f"| {int(m.group(1).replace(',', '')) + 1}× |", perf, count=1)
    assert edited != perf
    write(repo, "README.md", readme.replace(perf, edited))
    r = figures(repo, "--check")
    assert r.returncode == 1
    assert "README.md: block 'performance' differs" in r.stderr


def fresh_at_head(repo, *results):
    """The results files measured at the copy's head (fresh, whatever the real files' state), docs
    regenerated and committed."""
    head = git(repo, "rev-parse", "HEAD").strip()
    for rel in results:
        write(repo, rel, re.sub(r'"commit": "[0-9a-f]+"', f'"commit": "{head}"', read(repo, rel), count=1))
    assert figures(repo).returncode == 0
    git(repo, "commit", "-q", "-am", "results: measured at the head")


def test_a_hand_edit_of_a_stale_mark_fails(repo):
    fresh_at_head(repo, "bench/results/h200/crowd.json")
    state_doc = read(repo, "docs/status.md")
    state = block(state_doc, "results-state")
    edited = state.replace("| fresh |", "| **stale**: measured at 0000000; the sources changed since |", 1)
    assert edited != state
    write(repo, "docs/status.md", state_doc.replace(state, edited))
    assert figures(repo, "--check").returncode == 1


def test_a_results_file_without_a_commit_fails(repo):
    rel = "bench/results/h200/nav.json"
    data = json.loads(read(repo, rel))
    del data["commit"]
    write(repo, rel, json.dumps(data))
    r = figures(repo, "--check")
    assert r.returncode == 1
    assert "nav.json names no commit" in r.stderr


def test_a_missing_record_fails(repo):
    rel = "bench/results/h200/nav.json"
    data = json.loads(read(repo, rel))
    data["records"] = [x for x in data["records"] if x["variant"] != "gpu"]
    write(repo, rel, json.dumps(data))
    r = figures(repo, "--check")
    assert r.returncode == 1
    assert "no record" in r.stderr


def test_self_test_passes(repo):
    r = figures(repo, "--self-test")
    assert r.returncode == 0, r.stderr


def test_figures_and_commit_ids_typed_outside_blocks_fail(repo):
    crowd = read(repo, "docs/crowd.md")
    for typed in ("A tick took 1.79 ms on the GPU.", "It ran 17.7× faster.", "Measured at 8b0b4fb.",
                  "It gained +146 Elo."):
        write(repo, "docs/crowd.md", crowd + "\n" + typed + "\n")
        r = figures(repo, "--check")
        assert r.returncode == 1, typed
        assert "docs/crowd.md:" in r.stderr and "outside a generated block" in r.stderr, r.stderr
    # Parameters and products are not measurements; accounts under docs/notes/ keep their figures.
    write(repo, "docs/crowd.md", crowd + "\nA 1024 × 1024 map, 50 ms a tick, 20× the CPU.\n")
    write(repo, "docs/notes/2026-01-01-account.md", "Measured at 8b0b4fb: 1.79 ms, 17.7×.\n")
    r = figures(repo, "--check")
    assert r.returncode == 0, r.stderr


def test_references_over_their_line_limits_fail(repo):
    for rel, limit in (("docs/server.md", 700), ("docs/search.md", 700), ("README.md", 150)):
        text = read(repo, rel)
        lines = len(text.rstrip("\n").split("\n"))
        write(repo, rel, text + "\nA line.\n" * (limit - lines + 1))
        r = figures(repo, "--check")
        assert r.returncode == 1, rel
        assert f"{rel}: " in r.stderr and f"more than its {limit}" in r.stderr, r.stderr
        write(repo, rel, text)


def test_goals_say_met_or_missed_from_the_results(repo):
    goals = json.loads(read(repo, "bench/goals.json"))
    g = next(x for x in goals["goals"] if x["id"] == "crowd-16m")
    status = read(repo, "docs/status.md")
    row = next(line for line in block(status, "goals").splitlines() if "16,000,000 agents" in line)
    assert "| met |" in row
    g["at_most"] = g["at_most"] / 100  # now out of reach
    write(repo, "bench/goals.json", json.dumps(goals))
    assert figures(repo, "--check").returncode == 1
    assert figures(repo).returncode == 0
    row = next(line for line in block(read(repo, "docs/status.md"), "goals").splitlines() if "16,000,000 agents" in line)
    assert "| **missed** |" in row
    assert "crowd (accept/reject, 16,000,000 agents" in block(read(repo, "README.md"), "goals-missed")
    assert figures(repo, "--check").returncode == 0
    g["colour"] = "red"  # an unknown key
    write(repo, "bench/goals.json", json.dumps(goals))
    r = figures(repo, "--check")
    assert r.returncode == 1 and "unknown keys colour" in r.stderr
