"""The chess network file (version 2 of ai/include/warpmind/search/chess_network.h): writing and reading
it, quantising float weights into it, and the engine's integer forward pass on the trainer's records —
the same integers as the engine, position by position (tests/train holds them equal). NumPy only.

Units (the header's): accumulators ×127, l2 and l3 weights ×64 (int8), their biases ×127·64, output
weights ×256 (int16), its bias ×127·256; value = o · 400 / (127 · 256) truncated toward zero, within
±20,000 centipawns.
"""

import struct

import numpy as np

from .chess_records import FEATURES, NO_FEATURE

MAGIC = b"WMNN"
VERSION = 2
L2, L3, STACKS = 16, 32, 8
ACT, SHIFT, OUT_SCALE, SCALE, MAX_VALUE = 127, 6, 256, 400, 20000
KING_SQUARES = 32

# King bucket layouts by count (index: the oriented king's rank · 4 + file, files a–d).
BUCKETS = {
    1: [0] * 32,
    4: [0, 0, 1, 1] + [2] * 4 + [3] * 24,
    8: [0, 1, 2, 3] + [4, 4, 5, 5] + [6] * 8 + [7] * 16,
}


class BadNetwork(ValueError):
    """A network file the engine would refuse."""


class Weights:
    """A network in the file's integer units."""

    def __init__(self, hidden, king_bucket, feature_weights, feature_bias, l2_weights, l2_bias, l3_weights, l3_bias,
                 out_weights, out_bias, buckets=None, residual=False):
        self.hidden = hidden
        self.residual = bool(residual)
        self.king_bucket = np.asarray(king_bucket, dtype=np.uint8)
        self.buckets = int(self.king_bucket.max()) + 1 if buckets is None else buckets
        self.feature_weights = np.asarray(feature_weights, dtype=np.int16).reshape(self.buckets * FEATURES, hidden)
        self.feature_bias = np.asarray(feature_bias, dtype=np.int16).reshape(hidden)
        self.l2_weights = np.asarray(l2_weights, dtype=np.int8).reshape(STACKS, L2, 2 * hidden)
        self.l2_bias = np.asarray(l2_bias, dtype=np.int32).reshape(STACKS, L2)
        self.l3_weights = np.asarray(l3_weights, dtype=np.int8).reshape(STACKS, L3, L2)
        self.l3_bias = np.asarray(l3_bias, dtype=np.int32).reshape(STACKS, L3)
        self.out_weights = np.asarray(out_weights, dtype=np.int16).reshape(STACKS, L3)
        self.out_bias = np.asarray(out_bias, dtype=np.int32).reshape(STACKS)

    def encode(self):
        parts = [MAGIC, struct.pack("<IIII", VERSION, self.hidden, self.buckets, int(self.residual)),
                 self.king_bucket.tobytes(),
                 self.feature_weights.astype("<i2").tobytes(), self.feature_bias.astype("<i2").tobytes()]
        for s in range(STACKS):
            parts += [self.l2_weights[s].tobytes(), self.l2_bias[s].astype("<i4").tobytes(),
                      self.l3_weights[s].tobytes(), self.l3_bias[s].astype("<i4").tobytes(),
                      self.out_weights[s].astype("<i2").tobytes(), self.out_bias[s:s + 1].astype("<i4").tobytes()]
        return b"".join(parts)

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.encode())


def _stack_bytes(h):
    return L2 * 2 * h + 4 * L2 + L3 * L2 + 4 * L3 + 2 * L3 + 4


def decode(data):
    """Weights from a file's bytes; BadNetwork for anything the engine refuses."""
    if len(data) < 20 + KING_SQUARES or data[:4] != MAGIC:
        raise BadNetwork("not a warpmind network (no WMNN header)")
    version, hidden, buckets, flags = struct.unpack_from("<IIII", data, 4)
    if version != VERSION:
        raise BadNetwork(f"network version {version} (this reader takes {VERSION})")
    if not (32 <= hidden <= 1024 and hidden % 32 == 0):
        raise BadNetwork(f"network hidden size {hidden} (32..1024, a multiple of 32)")
    if not 1 <= buckets <= 32:
        raise BadNetwork(f"network king buckets {buckets} (1..32)")
    if flags > 1:
        raise BadNetwork(f"network flags {flags} (bit 0 alone is known)")
    table = np.frombuffer(data, dtype=np.uint8, count=KING_SQUARES, offset=20)
    if (table >= buckets).any():
        raise BadNetwork("a king bucket out of range")
    size = 20 + KING_SQUARES + 2 * (buckets * FEATURES * hidden + hidden) + STACKS * _stack_bytes(hidden)
    if len(data) != size:
        raise BadNetwork(f"{len(data)} bytes; a network of this shape has {size}")
    at = 20 + KING_SQUARES

    def take(dtype, count):
        nonlocal at
        a = np.frombuffer(data, dtype=dtype, count=count, offset=at)
        at += a.nbytes
        return a

    fw = take("<i2", buckets * FEATURES * hidden)
    fb = take("<i2", hidden)
    stacks = [[], [], [], [], [], []]
    for _ in range(STACKS):
        for k, (dtype, n) in enumerate((("i1", L2 * 2 * hidden), ("<i4", L2), ("i1", L3 * L2), ("<i4", L3),
                                        ("<i2", L3), ("<i4", 1))):
            stacks[k].append(take(dtype, n))
    return Weights(hidden, table, fw, fb, *[np.concatenate(s) for s in stacks], buckets=buckets, residual=flags & 1)


def load(path):
    with open(path, "rb") as f:
        return decode(f.read())


def _round(x, lo, hi, dtype):
    return np.clip(np.rint(np.asarray(x, dtype=np.float64)), lo, hi).astype(dtype)


def quantise(float_weights, king_bucket, residual=False):
    """Weights from the model's float arrays (chess_model.ChessModel.float_weights())."""
    f = float_weights
    i16, i32 = (-32768, 32767), (-2 ** 31, 2 ** 31 - 1)
    return Weights(
        hidden=f["feature_bias"].shape[0], king_bucket=king_bucket,
        feature_weights=_round(f["feature_weights"] * ACT, *i16, np.int16),
        feature_bias=_round(f["feature_bias"] * ACT, *i16, np.int16),
        l2_weights=_round(f["l2_weights"] * (1 << SHIFT), -128, 127, np.int8),
        l2_bias=_round(f["l2_bias"] * ACT * (1 << SHIFT), *i32, np.int32),
        l3_weights=_round(f["l3_weights"] * (1 << SHIFT), -128, 127, np.int8),
        l3_bias=_round(f["l3_bias"] * ACT * (1 << SHIFT), *i32, np.int32),
        out_weights=_round(f["out_weights"] * OUT_SCALE, *i16, np.int16),
        out_bias=_round(f["out_bias"] * ACT * OUT_SCALE, *i32, np.int32), residual=residual)


def stacks(recs):
    """Each record's layer stack: (pieces − 1) // 4."""
    return np.clip((recs["count"].astype(np.int64) - 1) // 4, 0, STACKS - 1)


def forward(w, recs):
    """The engine's value of each record's position (int64 centipawns), in integers exactly as
    chess::evaluate(p, network) computes it."""
    out = np.empty(len(recs), dtype=np.int64)
    chunk = max(1, (1 << 23) // (32 * w.hidden))
    fw = w.feature_weights.astype(np.int64)
    for start in range(0, len(recs), chunk):
        r = recs[start:start + chunk]
        n = len(r)
        x = []
        for k in range(2):  # the side to move's perspective, then the other's
            feats = r["features"][:, k, :].astype(np.int64)
            used = feats != NO_FEATURE
            rows = w.king_bucket[r["king32"][:, k]].astype(np.int64)[:, None] * FEATURES + np.where(used, feats, 0)
            acc = w.feature_bias.astype(np.int64)[None, :] + (fw[rows] * used[:, :, None]).sum(axis=1)
            acc = (acc + 32768) % 65536 - 32768  # int16 arithmetic wraps around
            x.append(np.clip(acc, 0, ACT))
        x = np.concatenate(x, axis=1)
        s = stacks(r)
        h2 = np.einsum("bi,bji->bj", x, w.l2_weights[s].astype(np.int64)) + w.l2_bias[s].astype(np.int64)
        h2 = np.clip(h2 >> SHIFT, 0, ACT)
        h3 = np.einsum("bj,bkj->bk", h2, w.l3_weights[s].astype(np.int64)) + w.l3_bias[s].astype(np.int64)
        h3 = np.clip(h3 >> SHIFT, 0, ACT)
        o = (h3 * w.out_weights[s].astype(np.int64)).sum(axis=1) + w.out_bias[s].astype(np.int64)
        num, den = o * SCALE, ACT * OUT_SCALE
        v = np.clip(np.sign(num) * (np.abs(num) // den), -MAX_VALUE, MAX_VALUE)  # C++ division truncates
        if w.residual:  # the output corrects the classical evaluation the record holds
            v = np.clip(v + r["classical"].astype(np.int64), -MAX_VALUE, MAX_VALUE)
        out[start:start + n] = v
    return out
