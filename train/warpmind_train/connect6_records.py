"""The Connect6 trainer's records (demos/train/connect6_records.h): a header with the board's windows as
the engine numbers them, then 128 bytes a labelled position. NumPy only."""

import numpy as np

from .connect6_network import POW3

RECORD = np.dtype([
    ("board", "u1", (91,)),   # 2 bits a cell: 0 empty, 1 black, 2 white
    ("side", "u1"),           # 1 Black to move, 2 White
    ("score", "<i2"),
    ("result", "u1"),         # for the side to move: 0 lost, 1 drawn, 2 won
    ("zero", "u1"),
    ("best", "<u2", (2,)),
    ("game", "<u4"),
    ("turn", "<u2"),
    ("stones", "<u2"),
    ("pad", "u1", (20,)),
])
assert RECORD.itemsize == 128
MAGIC = b"WMR6"
CELLS = 361


class BadRecords(ValueError):
    """A records file that is not a header and a whole number of well-formed records."""


def read(path):
    """(windows [924, 6], records); BadRecords for a malformed file."""
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size < 12 or raw[:4].tobytes() != MAGIC:
        raise BadRecords(f"{path}: not a Connect6 records file (no WMR6 header)")
    version, windows = raw[4:12].view("<u4")
    if version != 1 or windows != 924:
        raise BadRecords(f"{path}: version {version} with {windows} windows (this reader takes 1 and 924)")
    head = 12 + 924 * 6 * 2
    if raw.size < head or (raw.size - head) % RECORD.itemsize:
        raise BadRecords(f"{path}: {raw.size} bytes is not a header and a whole number of records")
    table = raw[12:head].view("<u2").reshape(924, 6).astype(np.int64)
    if (table >= CELLS).any():
        raise BadRecords(f"{path}: a window cell off the board")
    recs = raw[head:].view(RECORD)
    cells = board_cells(recs)
    stones = (cells != 0).sum(axis=1)
    bad = (recs["side"] < 1) | (recs["side"] > 2) | (recs["result"] > 2) | (stones != recs["stones"])
    bad |= (cells == 3).any(axis=1)
    for k in range(2):
        b = recs["best"][:, k].astype(np.int64)
        bad |= (b >= CELLS) | (cells[np.arange(len(recs)), np.minimum(b, CELLS - 1)] != 0)
    if bad.any():
        raise BadRecords(f"{path}: record {int(np.flatnonzero(bad)[0])} is malformed ({int(bad.sum())} in all)")
    return table, recs


def board_cells(recs):
    """[N, 361] int64: 0 empty, 1 black, 2 white."""
    bits = recs["board"].astype(np.int64)
    cells = np.stack([(bits >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(len(recs), 364)
    return cells[:, :CELLS]


def codes(cells, windows):
    """Every window's code from Black's view [N, 924]."""
    return (cells[:, windows] * POW3[None, None, :]).sum(axis=2)


def held_out(recs, every=20):
    return recs["game"] % every == 0
