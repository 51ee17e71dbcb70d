"""The Connect6 trainer (train/connect6_train.py) on the CPU: games of warpmind's own search from
warpmind-datagen, a few epochs, and the written network's integer value and cell scores equal to the
engine's on every held-out record (warpmind-datagen connect6-score). Bad records and files are refused.

Needs PyTorch (Debian's python3-torch) and WARPMIND_BIN_DIR, the build's bin folder (ctest sets it).
"""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from datagen_helper import needs_datagen, run  # noqa: E402  (also puts train/ on the import path)

import connect6_train  # noqa: E402
from warpmind_train import connect6_network as c6n  # noqa: E402
from warpmind_train import connect6_records as c6r  # noqa: E402
from warpmind_train.connect6_model import Connect6Model, fit_scale  # noqa: E402

@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Records of 60 games of warpmind's Connect6 search at depth 2 (several hundred positions)."""
    d = tmp_path_factory.mktemp("connect6")
    games, recs = str(d / "games.wmg6"), str(d / "records.bin")
    r = run("connect6", "--depth", "2", "--threats", "0", "--games", "60", "--threads", "2", "--seed", "9",
            "--out", games)
    assert r.returncode == 0, r.stderr
    r = run("connect6-info", games)
    assert r.returncode == 0 and "60 games" in r.stdout, r.stdout + r.stderr
    r = run("connect6-expand", "--out", recs, games)
    assert r.returncode == 0, r.stderr
    return recs


def engine_view(net, records):
    """The engine's value and cell scores of each record (connect6-score): [N], and [N] lists."""
    r = run("connect6-score", "--network", net, records)
    assert r.returncode == 0, r.stderr
    rows = [[int(x) for x in line.split()] for line in r.stdout.splitlines()]
    return np.array([row[0] for row in rows]), [row[1:] for row in rows]


def ours(weights, windows, recs):
    cells = c6r.board_cells(recs)
    codes = c6r.codes(cells, windows)
    values = c6n.value(weights, codes, recs["side"] == 1)
    scores = c6n.cell_scores(weights, codes, recs["side"] == 1, windows)
    return values, [list(scores[i][cells[i] == 0]) for i in range(len(recs))]


@needs_datagen
def test_training_fits_and_the_engine_computes_the_trainers_integers(records, tmp_path):
    net, summary = str(tmp_path / "net.wmn"), str(tmp_path / "train.json")
    rc = connect6_train.main(["--data", records, "--out", net, "--epochs", "6", "--batch", "128", "--lr", "0.005",
                              "--device", "cpu", "--threads", "2", "--json", summary])
    assert rc == 0
    s = json.load(open(summary))
    assert s["records"] > 200 and s["held_out"] > 0
    assert s["history"][-1]["fit_loss"] < s["history"][0]["fit_loss"]
    windows, recs = c6r.read(records)
    engine_values, engine_scores = engine_view(net, records)
    values, scores = ours(c6n.load(net), windows, recs)
    assert np.array_equal(engine_values, values)
    assert engine_scores == scores
    assert len(np.unique(values)) > 10


@needs_datagen
def test_integer_forward_is_the_engines_on_extreme_weights(records, tmp_path):
    rng = np.random.default_rng(4)
    f = 64
    w = c6n.Weights(f, rng.integers(-32768, 32767, (729, f)), rng.integers(-32768, 32767, f),
                    rng.choice([-128, 127, 0, 3], (16, 2 * f)), rng.integers(-2 ** 31, 2 ** 31 - 1, 16),
                    rng.integers(-128, 128, (32, 16)), rng.integers(-10 ** 6, 10 ** 6, 32),
                    rng.integers(-32768, 32767, 32), int(rng.integers(-2 ** 31, 2 ** 31 - 1)),
                    rng.integers(-32768, 32767, (729, 6)))
    net = str(tmp_path / "extreme.wmn")
    w.save(net)
    windows, recs = c6r.read(records)
    engine_values, engine_scores = engine_view(net, records)
    values, scores = ours(c6n.load(net), windows, recs)
    assert np.array_equal(engine_values, values)
    assert engine_scores == scores


def test_scale_fit_finds_the_labels_scale():
    rng = np.random.default_rng(1)
    score = rng.normal(0, 800, 20000)
    result = 2 * (rng.random(20000) < 1 / (1 + np.exp(-score / 300)))
    assert 250 < fit_scale(score, result) < 360


def test_bad_records_and_networks_are_refused(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"WMR6" + b"\0" * 20)
    with pytest.raises(c6r.BadRecords):
        c6r.read(str(bad))
    windows = np.arange(924 * 6).reshape(924, 6) % 361
    data = Connect6Model(32, windows).quantised().encode()
    assert c6n.decode(data).encode() == data
    for broken in (data[:-1], data + b"\0", b"WMCX" + data[4:], data[:4] + b"\2" + data[5:], data[:8] + b"\x30" + data[9:]):
        with pytest.raises(c6n.BadNetwork):
            c6n.decode(broken)
    assert connect6_train.main(["--data", str(bad), "--out", str(tmp_path / "x.wmn"), "--device", "cpu"]) == 2
