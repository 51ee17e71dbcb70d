"""The chess trainer (train/) on the CPU: games from warpmind-datagen, a few epochs of training through
chess_train.py, and the written network's integer values on held-out records equal to the engine's, record
by record (warpmind-datagen score). Bad records and network files are refused.

Needs PyTorch (Debian's python3-torch) and WARPMIND_BIN_DIR, the build's bin folder (ctest sets it).
"""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from datagen_helper import needs_datagen, run  # noqa: E402  (also puts train/ on the import path)

import chess_train  # noqa: E402
from warpmind_train import chess_network as cn  # noqa: E402
from warpmind_train import chess_records  # noqa: E402
from warpmind_train.chess_model import ChessModel, tensors  # noqa: E402

@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Records of 24 short games of warpmind's own search at depth 2 (a few thousand positions)."""
    d = tmp_path_factory.mktemp("chess")
    games, recs = str(d / "games.wmg"), str(d / "records.bin")
    r = run("chess", "--engine", "self", "--depth", "2", "--games", "24", "--threads", "2", "--seed", "5",
            "--random-plies", "8", "--max-plies", "120", "--out", games)
    assert r.returncode == 0, r.stderr
    r = run("info", games)
    assert r.returncode == 0 and "24 games" in r.stdout, r.stdout + r.stderr
    r = run("expand", "--min-ply", "8", "--out", recs, games)
    assert r.returncode == 0, r.stderr
    return recs


@needs_datagen
@pytest.mark.parametrize("residual", [False, True])
def test_training_fits_and_the_engine_computes_the_trainers_integers(records, tmp_path, residual):
    net, summary = str(tmp_path / "net.wmn"), str(tmp_path / "train.json")
    rc = chess_train.main(["--data", records, "--out", net, "--hidden", "32", "--buckets", "4", "--epochs", "4",
                           "--batch", "256", "--lr", "0.003", "--device", "cpu", "--threads", "2", "--json", summary]
                          + ["--residual"] * residual)
    assert rc == 0
    s = json.load(open(summary))
    assert s["records"] > 1000 and 0 < s["held_out"] < s["records"]
    assert s["residual"] == residual and cn.load(net).residual == residual
    hist = s["history"]
    assert hist[-1]["fit_loss"] < hist[0]["fit_loss"]
    if not residual:  # (a residual network starts from the classical evaluation, as good as these labels)
        assert hist[-1]["held_out_loss"] < s["held_out_loss_start"]
    assert s["quantisation_mean_abs_cp"] < 10
    # The engine's values (the network file read by the engine) on the held-out records, record by record.
    recs = chess_records.read(records)
    held = recs[chess_records.held_out(recs)]
    held_path = str(tmp_path / "held.bin")
    held.tofile(held_path)
    r = run("score", "--network", net, held_path)
    assert r.returncode == 0, r.stderr
    engine = np.array([int(x) for x in r.stdout.split()], dtype=np.int64)
    ours = cn.forward(cn.load(net), held)
    assert len(engine) == len(held) > 100
    assert np.array_equal(engine, ours), f"{int((engine != ours).sum())} of {len(ours)} differ"
    assert len(np.unique(ours)) > 20  # values that depend on the position


@needs_datagen
def test_integer_forward_is_the_engines_on_extreme_weights(records, tmp_path):
    """Saturated and wrapped accumulators, int8 extremes and large biases: still the engine's integers."""
    rng = np.random.default_rng(7)
    h = 64
    table = cn.BUCKETS[8]
    w = cn.Weights(h, table, rng.integers(-3000, 3000, (8 * 768, h)), rng.integers(-32768, 32767, h),
                   rng.choice([-128, 127, 0, 5], (8, 16, 2 * h)), rng.integers(-2 ** 31, 2 ** 31 - 1, (8, 16)),
                   rng.integers(-128, 128, (8, 32, 16)), rng.integers(-10 ** 6, 10 ** 6, (8, 32)),
                   rng.integers(-32768, 32767, (8, 32)), rng.integers(-2 ** 31, 2 ** 31 - 1, 8))
    net = str(tmp_path / "extreme.wmn")
    w.save(net)
    recs = chess_records.read(records)[:500]
    part = str(tmp_path / "part.bin")
    recs.tofile(part)
    r = run("score", "--network", net, part)
    assert r.returncode == 0, r.stderr
    engine = np.array([int(x) for x in r.stdout.split()], dtype=np.int64)
    assert np.array_equal(engine, cn.forward(cn.load(net), recs))


@needs_datagen
def test_float_model_and_quantised_network_agree(records):
    recs = chess_records.read(records)[:2000]
    torch.manual_seed(3)
    model = ChessModel(32, cn.BUCKETS[4])
    with torch.no_grad():  # a model whose units are not all clamped: weights of a trained network's size
        model.ft.weight.normal_(0, 0.05)
        model.ft.weight[model.rows].zero_()
    t = tensors(recs, "cpu")
    with torch.no_grad():
        floats = model(t["features"], t["king32"], t["pieces"]).double().numpy() * cn.SCALE
    ints = cn.forward(model.quantised(), recs)
    assert np.mean(np.abs(ints - floats)) < 5


def test_bad_records_and_networks_are_refused(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\0" * 167)
    with pytest.raises(chess_records.BadRecords):
        chess_records.read(str(bad))
    bad.write_bytes(b"\0" * 168)  # no pieces
    with pytest.raises(chess_records.BadRecords):
        chess_records.read(str(bad))
    w = ChessModel(32, cn.BUCKETS[1]).quantised()
    data = w.encode()
    assert cn.decode(data).encode() == data
    for broken in (data[:-1], data + b"\0", b"WMNX" + data[4:], data[:4] + b"\1" + data[5:],
                   data[:8] + b"\x30" + data[9:], data[:16] + b"\x05" + data[17:]):
        with pytest.raises(cn.BadNetwork):
            cn.decode(broken)
    assert chess_train.main(["--data", str(bad), "--out", str(tmp_path / "x.wmn"), "--device", "cpu"]) == 2


@needs_datagen
def test_the_engine_refuses_a_bad_network(records, tmp_path):
    bad = tmp_path / "bad.wmn"
    bad.write_bytes(b"WMNN" + b"\0" * 100)
    r = run("score", "--network", str(bad), records)
    assert r.returncode == 2 and "network" in r.stderr
