"""The Connect6 network file (ai/include/warpmind/search/connect6_network.h): writing and reading it,
quantising float weights into it, and the engine's integer value and cell scores from window codes — the
same integers as the engine (tests/train holds them equal). NumPy only.

Units as chess's (chess_network.py): pattern weights ×127, l2 and l3 weights ×64 (int8), their biases
×127·64, output weights ×256, its bias ×127·256; cell weights are plain int16 scores (the trainer's
float cell weights × CELL_SCALE).
"""

import struct

import numpy as np

MAGIC = b"WMC6"
VERSION = 1
CODES, CELLS_PER_WINDOW = 729, 6
L2, L3 = 16, 32
ACT, SHIFT, OUT_SCALE, SCALE, MAX_VALUE = 127, 6, 256, 400, 20000
CELL_SCALE = 256
POW3 = np.array([1, 3, 9, 27, 81, 243], dtype=np.int64)


def swap_codes():
    """swap[code]: the code with the digits 1 and 2 exchanged (the other perspective)."""
    codes = np.arange(CODES)
    digits = (codes[:, None] // POW3[None, :]) % 3
    swapped = np.where(digits == 0, 0, 3 - digits)
    return (swapped * POW3[None, :]).sum(axis=1)


SWAP = swap_codes()


class BadNetwork(ValueError):
    """A network file the engine would refuse."""


class Weights:
    def __init__(self, features, pattern_weights, pattern_bias, l2_weights, l2_bias, l3_weights, l3_bias, out_weights,
                 out_bias, cell_weights):
        self.features = features
        self.pattern_weights = np.asarray(pattern_weights, dtype=np.int16).reshape(CODES, features)
        self.pattern_bias = np.asarray(pattern_bias, dtype=np.int16).reshape(features)
        self.l2_weights = np.asarray(l2_weights, dtype=np.int8).reshape(L2, 2 * features)
        self.l2_bias = np.asarray(l2_bias, dtype=np.int32).reshape(L2)
        self.l3_weights = np.asarray(l3_weights, dtype=np.int8).reshape(L3, L2)
        self.l3_bias = np.asarray(l3_bias, dtype=np.int32).reshape(L3)
        self.out_weights = np.asarray(out_weights, dtype=np.int16).reshape(L3)
        self.out_bias = int(out_bias)
        self.cell_weights = np.asarray(cell_weights, dtype=np.int16).reshape(CODES, CELLS_PER_WINDOW)

    def encode(self):
        return b"".join([
            MAGIC, struct.pack("<II", VERSION, self.features),
            self.pattern_weights.astype("<i2").tobytes(), self.pattern_bias.astype("<i2").tobytes(),
            self.l2_weights.tobytes(), self.l2_bias.astype("<i4").tobytes(), self.l3_weights.tobytes(),
            self.l3_bias.astype("<i4").tobytes(), self.out_weights.astype("<i2").tobytes(),
            struct.pack("<i", self.out_bias), self.cell_weights.astype("<i2").tobytes()])

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.encode())


def size(features):
    return 12 + 2 * (CODES * features + features) + L2 * 2 * features + 4 * L2 + L3 * L2 + 4 * L3 + 2 * L3 + 4 + \
        2 * CODES * CELLS_PER_WINDOW


def decode(data):
    if len(data) < 12 or data[:4] != MAGIC:
        raise BadNetwork("not a Connect6 network (no WMC6 header)")
    version, features = struct.unpack_from("<II", data, 4)
    if version != VERSION:
        raise BadNetwork(f"Connect6 network version {version} (this reader takes {VERSION})")
    if not (32 <= features <= 256 and features % 32 == 0):
        raise BadNetwork(f"Connect6 network features {features} (32..256, a multiple of 32)")
    if len(data) != size(features):
        raise BadNetwork(f"{len(data)} bytes; a network of {features} features has {size(features)}")
    at = 12
    parts = []
    for dtype, n in (("<i2", CODES * features), ("<i2", features), ("i1", L2 * 2 * features), ("<i4", L2),
                     ("i1", L3 * L2), ("<i4", L3), ("<i2", L3), ("<i4", 1), ("<i2", CODES * CELLS_PER_WINDOW)):
        a = np.frombuffer(data, dtype=dtype, count=n, offset=at)
        at += a.nbytes
        parts.append(a)
    parts[7] = int(parts[7][0])
    return Weights(features, *parts)


def load(path):
    with open(path, "rb") as f:
        return decode(f.read())


def _round(x, lo, hi, dtype):
    return np.clip(np.rint(np.asarray(x, dtype=np.float64)), lo, hi).astype(dtype)


def quantise(f):
    """Weights from the model's float arrays (connect6_model.Connect6Model.float_weights())."""
    i16, i32 = (-32768, 32767), (-2 ** 31, 2 ** 31 - 1)
    return Weights(
        features=f["pattern_bias"].shape[0],
        pattern_weights=_round(f["pattern_weights"] * ACT, *i16, np.int16),
        pattern_bias=_round(f["pattern_bias"] * ACT, *i16, np.int16),
        l2_weights=_round(f["l2_weights"] * (1 << SHIFT), -128, 127, np.int8),
        l2_bias=_round(f["l2_bias"] * ACT * (1 << SHIFT), *i32, np.int32),
        l3_weights=_round(f["l3_weights"] * (1 << SHIFT), -128, 127, np.int8),
        l3_bias=_round(f["l3_bias"] * ACT * (1 << SHIFT), *i32, np.int32),
        out_weights=_round(f["out_weights"] * OUT_SCALE, *i16, np.int16),
        out_bias=int(_round(f["out_bias"] * ACT * OUT_SCALE, *i32, np.int32)),
        cell_weights=_round(f["cell_weights"] * CELL_SCALE, *i16, np.int16))


def value(w, codes_black, black_to_move):
    """The engine's value of positions (int64), from their window codes in Black's view [N, 924] and the
    side to move [N] (True: Black)."""
    out = np.empty(len(codes_black), dtype=np.int64)
    pw = w.pattern_weights.astype(np.int64)
    chunk = max(1, (1 << 22) // (924 * w.features))
    for s in range(0, len(out), chunk):
        cb = codes_black[s:s + chunk].astype(np.int64)
        accs = []
        for codes in (cb, SWAP[cb]):  # Black's perspective, White's
            acc = w.pattern_bias.astype(np.int64)[None, :] + (pw[codes] * (codes != 0)[:, :, None]).sum(axis=1)
            accs.append(np.clip((acc + 32768) % 65536 - 32768, 0, ACT))
        btm = np.asarray(black_to_move[s:s + chunk])[:, None]
        us, them = np.where(btm, accs[0], accs[1]), np.where(btm, accs[1], accs[0])
        x = np.concatenate([us, them], axis=1)
        h2 = np.clip((x @ w.l2_weights.astype(np.int64).T + w.l2_bias) >> SHIFT, 0, ACT)
        h3 = np.clip((h2 @ w.l3_weights.astype(np.int64).T + w.l3_bias) >> SHIFT, 0, ACT)
        o = h3 @ w.out_weights.astype(np.int64) + w.out_bias
        num, den = o * SCALE, ACT * OUT_SCALE
        out[s:s + chunk] = np.clip(np.sign(num) * (np.abs(num) // den), -MAX_VALUE, MAX_VALUE)
    return out


def cell_scores(w, codes_black, black_to_move, windows):
    """Every cell's score for the side to move [N, 361] (int64): Σ over the windows through the cell of
    cell_weights[code][index]; `windows` [924, 6] the cells of each window."""
    cb = codes_black.astype(np.int64)
    mover = np.where(np.asarray(black_to_move)[:, None], cb, SWAP[cb])
    n = len(cb)
    scores = np.zeros((n, 361), dtype=np.int64)
    cw = w.cell_weights.astype(np.int64)
    for i in range(CELLS_PER_WINDOW):
        np.add.at(scores, (np.arange(n)[:, None], windows[None, :, i]), cw[mover, i])
    return scores
