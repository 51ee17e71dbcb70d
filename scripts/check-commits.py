#!/usr/bin/env python3
"""Checks the commit messages made since the rule of docs/conventions.md ("Commit messages") began: a
subject of at most 72 characters, not ending in a period, and, where there is a body, a blank line
between the two. Exits 1 naming each commit that breaks it (CI runs this). Standard library only.

usage: scripts/check-commits.py [REVISION]   (default HEAD)
"""

import subprocess
import sys

# The last commit before the rule: every commit after it in the history checked keeps it.
SINCE = "b0b5b49"
LIMIT = 72


def main(argv):
    rev = argv[1] if len(argv) > 1 else "HEAD"
    if subprocess.run(["git", "rev-parse", "--verify", "--quiet", SINCE + "^{commit}"],
                      capture_output=True).returncode != 0:
        print(f"check-commits: {SINCE} is not in this clone's history (fetch the whole history)", file=sys.stderr)
        return 1
    out = subprocess.run(["git", "log", "--format=%h%x00%B%x01", f"{SINCE}..{rev}"], capture_output=True, text=True,
                         check=True).stdout
    bad = []
    for entry in filter(None, (e.strip("\n") for e in out.split("\x01"))):
        commit, message = entry.split("\x00", 1)
        lines = message.split("\n")
        subject = lines[0]
        if len(subject) > LIMIT:
            bad.append(f"{commit}: the subject has {len(subject)} characters (at most {LIMIT}): {subject[:80]}...")
        if subject.endswith("."):
            bad.append(f"{commit}: the subject ends in a period")
        if len(lines) > 1 and lines[1].strip():
            bad.append(f"{commit}: no blank line between the subject and the body")
    for b in bad:
        print(f"check-commits: {b}", file=sys.stderr)
    n = len([e for e in out.split("\x01") if e.strip()])
    print(f"check-commits: {n} commits since {SINCE}; {len(bad)} problem{'s' * (len(bad) != 1)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
