"""What the trainer tests share: warpmind-datagen from WARPMIND_BIN_DIR (ctest sets it; the tests that
need it are skipped without it) and the trainer's folder on the import path."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.join(ROOT, "train") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "train"))

DATAGEN = os.path.join(os.environ.get("WARPMIND_BIN_DIR", ""), "warpmind-datagen")
needs_datagen = pytest.mark.skipif(not os.access(DATAGEN, os.X_OK), reason="WARPMIND_BIN_DIR has no warpmind-datagen")


def run(*args):
    return subprocess.run([DATAGEN, *args], capture_output=True, text=True)
