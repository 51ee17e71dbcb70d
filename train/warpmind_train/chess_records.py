"""The chess trainer's records (demos/train/training_records.h): 168 bytes a labelled position, read with
NumPy. Standard library and NumPy only."""

import numpy as np

RECORD = np.dtype([
    ("occupied", "<u8"),
    ("pieces", "u1", (16,)),
    ("score", "<i2"),
    ("result", "u1"),      # for the side to move: 0 lost, 1 drawn, 2 won
    ("side", "u1"),
    ("king32", "u1", (2,)),  # [side to move's perspective, the other's]
    ("count", "u1"),
    ("zero", "u1"),
    ("game", "<u4"),
    ("ply", "<u2"),
    ("classical", "<i2"),  # the classical evaluation (what a residual network's output is added to)
    ("features", "<u2", (2, 32)),  # 0xFFFF past count
])
assert RECORD.itemsize == 168
NO_FEATURE = 0xFFFF
FEATURES = 768


class BadRecords(ValueError):
    """A records file that is not a whole number of well-formed records."""


def read(path):
    """A records file as a structured NumPy array; BadRecords for a malformed one."""
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size % RECORD.itemsize:
        raise BadRecords(f"{path}: {raw.size} bytes is not a whole number of {RECORD.itemsize}-byte records")
    recs = raw.view(RECORD)
    check(recs, path)
    return recs


def check(recs, where="records"):
    """Raises BadRecords unless every record is well formed: its piece count matches its occupancy and its
    features, results, sides and king squares are in range."""
    if recs.size == 0:
        return
    occ = recs["occupied"]
    popcount = np.unpackbits(np.ascontiguousarray(occ).view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)
    count = recs["count"].astype(np.int64)
    bad = (popcount != count) | (count < 2) | (count > 32) | (recs["result"] > 2) | (recs["side"] > 1)
    bad |= (recs["king32"] > 31).any(axis=1)
    feats = recs["features"].astype(np.int64)
    slot = np.arange(32)[None, None, :]
    used = slot < count[:, None, None]
    bad |= (used & (feats >= FEATURES)).any(axis=(1, 2)) | (~used & (feats != NO_FEATURE)).any(axis=(1, 2))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise BadRecords(f"{where}: record {first} is malformed ({int(bad.sum())} malformed in all)")


def held_out(recs, every=20):
    """The records of every `every`-th game (by game index): the positions the trainer does not fit."""
    return recs["game"] % every == 0
