"""The Python module against the library: every result equal, bit for bit, to the C API's on the same
inputs (the C API is itself held to the C++ modules by tests/c), plus the module's own contract (errors,
shapes, dtypes). Run by scripts/test.sh with the shared build's python/ folder on PYTHONPATH and
WARPMIND_C_LIBRARY naming that build's libwarpmind_c.so."""
import ctypes
import os

import numpy as np
import pytest

import warpmind as wm

LIB = ctypes.CDLL(os.environ["WARPMIND_C_LIBRARY"])
LIB.wm_last_error.restype = ctypes.c_char_p


class Vec2(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class ChargeKindC(ctypes.Structure):
    _fields_ = [("segments", ctypes.c_int), ("end", ctypes.c_float * 4), ("slope", ctypes.c_float * 4),
                ("intercept", ctypes.c_float * 4)]


class LayerRuleC(ctypes.Structure):
    _fields_ = [("layer", ctypes.c_uint32), ("group", ctypes.c_uint32), ("kind", ctypes.c_uint32)]


class FieldConfigC(ctypes.Structure):
    _fields_ = [("x0", ctypes.c_float), ("y0", ctypes.c_float), ("width", ctypes.c_float),
                ("height", ctypes.c_float), ("cells_x", ctypes.c_int), ("cells_y", ctypes.c_int),
                ("kinds", ctypes.POINTER(ChargeKindC)), ("kind_count", ctypes.c_size_t),
                ("rules", ctypes.POINTER(LayerRuleC)), ("rule_count", ctypes.c_size_t),
                ("layer_count", ctypes.c_uint32)]


class EntityC(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("group", ctypes.c_uint32)]


class CrowdConfigC(ctypes.Structure):
    _fields_ = [("x0", ctypes.c_float), ("y0", ctypes.c_float), ("width", ctypes.c_float),
                ("height", ctypes.c_float), ("radius", ctypes.c_float), ("obstacles_width", ctypes.c_int),
                ("obstacles_height", ctypes.c_int), ("blocked", ctypes.POINTER(ctypes.c_uint8)),
                ("rule", ctypes.c_int), ("variant", ctypes.c_int)]


def ok(status):
    assert status == 0, LIB.wm_last_error().decode()


@pytest.fixture(scope="module")
def contexts():
    c = ctypes.c_void_p()
    ok(LIB.wm_context_create(1, 2, ctypes.byref(c)))  # WM_BACKEND_CPU, 2 threads
    yield wm.Context("cpu", 2), c
    LIB.wm_context_destroy(c)


def as_c(points):
    points = np.ascontiguousarray(points, np.float32)
    return points.ctypes.data_as(ctypes.POINTER(Vec2)), len(points)


SEGMENTS = [(4.0, 0.0, 50.0), (30.0, -2.0, 58.0)]  # a plateau, then a ramp down to 0 at 29


def test_field_equals_the_c_api_bit_for_bit(contexts):
    ctx, c_ctx = contexts
    rng = np.random.default_rng(3)
    kinds = [wm.ChargeKind("ramp", SEGMENTS), wm.charge_kind("own_unit", 3.0)]
    layers = [[(0, 0), (1, 1)], [(1, 0)]]
    field = wm.Field(ctx, world=(0, 0, 200, 100), size=(160, 80), kinds=kinds, layers=layers, variant="cpu-stamp")
    xy = rng.uniform([0, 0], [200, 100], size=(300, 2)).astype(np.float32)
    xy[:5] = [[0, 0], [199.99, 99.99], [100, 50], [100, 50], [0.625, 0.625]]  # corners, a hot spot, a cell edge
    groups = (np.arange(300) % 2).astype(np.uint32)
    field.build(xy, groups)

    ck = (ChargeKindC * 2)()
    ck[0].segments = 2
    for k, (end, slope, intercept) in enumerate(SEGMENTS):
        ck[0].end[k], ck[0].slope[k], ck[0].intercept[k] = end, slope, intercept
    own = kinds[1]
    assert own.cutoff == 3.0
    # The preset's numbers through the C API: rebuild it from its values at its segment ends.
    rules = (LayerRuleC * 3)((0, 0, 0), (0, 1, 1), (1, 1, 0))
    cfg = FieldConfigC(0, 0, 200, 100, 160, 80, ck, 2, rules, 3, 2)
    # kind 1 of the C field: the same segments as the preset own_unit(3) (one flat segment to its cut-off)
    ck[1].segments = 1
    ck[1].end[0], ck[1].slope[0], ck[1].intercept[0] = own.cutoff, 0.0, own.value(0.0)
    f = ctypes.c_void_p()
    ok(LIB.wm_field_create(c_ctx, ctypes.byref(cfg), ctypes.byref(f)))
    ents = (EntityC * 300)(*[(float(x), float(y), int(g)) for (x, y), g in zip(xy, groups)])
    ok(LIB.wm_field_build(f, ents, ctypes.c_size_t(300)))
    pts = rng.uniform([-10, -10], [210, 110], size=(2000, 2)).astype(np.float32)  # outside too: clamped
    for layer in (0, 1):
        ours = field.sample(layer, pts)
        theirs = np.zeros(len(pts), np.float32)
        ok(LIB.wm_field_sample(f, layer, *as_c(pts), theirs.ctypes.data_as(ctypes.POINTER(ctypes.c_float))))
        assert ours.tobytes() == theirs.tobytes()
        grad = field.gradient(layer, pts)
        theirs_g = np.zeros((len(pts), 2), np.float32)
        ok(LIB.wm_field_gradient(f, layer, *as_c(pts), theirs_g.ctypes.data_as(ctypes.POINTER(Vec2))))
        assert grad.tobytes() == theirs_g.tobytes()
        # The whole layer: every cell centre sampled equals the layer's array.
        grid = field.layer(layer)
        assert grid.shape == (80, 160) and grid.dtype == np.float32
        cx, cy = np.meshgrid((np.arange(160) + 0.5) * 1.25, (np.arange(80) + 0.5) * 1.25)
        centres = np.stack([cx.ravel(), cy.ravel()], axis=1).astype(np.float32)
        assert field.sample(layer, centres).tobytes() == grid.ravel().tobytes()
    assert np.count_nonzero(field.layer(0)) > 1000  # the case is not empty
    LIB.wm_field_destroy(f)


def test_crowd_equals_the_c_api_bit_for_bit(contexts):
    ctx, c_ctx = contexts
    blocked = np.zeros((16, 16), np.uint8)
    blocked.ravel()[2::5] = 1
    crowd = wm.Crowd(ctx, (0, 0, 64, 64), 0.5, obstacles=blocked, rule="lowest-id", variant="cpu-reference")
    cfg = CrowdConfigC(0, 0, 64, 64, 0.5, 16, 16, blocked.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), 1, 1)
    c = ctypes.c_void_p()
    ok(LIB.wm_crowd_create_with(c_ctx, ctypes.byref(cfg), ctypes.byref(c)))
    start = np.array([[2 * x + 1, 2 * y + 1] for y in range(32) for x in range(32)
                      if (x + y) % 3 == 0 and not blocked[(2 * y + 1) // 4, (2 * x + 1) // 4]], np.float32)
    crowd.reset(start)
    ok(LIB.wm_crowd_reset(c, *as_c(start)))
    rng = np.random.default_rng(9)
    now = start
    seen = set()
    for _ in range(15):
        proposals = (now + rng.uniform(-1.5, 1.5, size=now.shape)).astype(np.float32)
        stats = crowd.step(proposals)
        ok(LIB.wm_crowd_step(c, *as_c(proposals), None))
        now = crowd.positions
        theirs = np.zeros_like(now)
        ok(LIB.wm_crowd_positions(c, theirs.ctypes.data_as(ctypes.POINTER(Vec2)), ctypes.c_size_t(len(now))))
        assert now.tobytes() == theirs.tobytes()
        verdicts = crowd.verdicts
        theirs_v = np.zeros(len(now), np.uint8)
        ok(LIB.wm_crowd_verdicts(c, theirs_v.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), ctypes.c_size_t(len(now))))
        assert verdicts.tobytes() == theirs_v.tobytes()
        assert sum(stats.values()) == len(now)
        seen.update(verdicts.tolist())
    assert {wm.MOVED, wm.OUT_OF_WORLD, wm.BLOCKED, wm.COLLISION} <= seen
    keep = (np.arange(len(now)) % 3 != 0).astype(np.uint8)
    crowd.retain(keep)
    assert len(crowd) == int(keep.sum())
    assert crowd.positions.tobytes() == now[keep == 1].tobytes()
    LIB.wm_crowd_destroy(c)


def test_engines_answer_as_the_c_api(contexts):
    ctx, c_ctx = contexts
    chess = wm.Chess(ctx, hash_mb=16, threads=1)
    chess.set_position("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    r = chess.search(depth=3)
    assert r["move"] == "a1a8" and r["score"] == 31999  # mate with the move played
    c6 = wm.Connect6(ctx)
    c6.set_position("JJ HHJH")
    mine = c6.search(depth=2)
    h = ctypes.c_void_p()
    ok(LIB.wm_connect6_create(c_ctx, 1, ctypes.byref(h)))
    ok(LIB.wm_connect6_set_position(h, b"JJ HHJH"))

    class Limits(ctypes.Structure):
        _fields_ = [("depth", ctypes.c_int), ("time_ms", ctypes.c_int64), ("nodes", ctypes.c_uint64)]

    class Result(ctypes.Structure):
        _fields_ = [("move", ctypes.c_char * 8), ("score", ctypes.c_int), ("depth", ctypes.c_int),
                    ("nodes", ctypes.c_uint64)]

    res = Result()
    ok(LIB.wm_connect6_search(h, ctypes.byref(Limits(2, 0, 0)), ctypes.byref(res)))
    assert (mine["move"], mine["score"], mine["nodes"]) == (res.move.decode(), res.score, res.nodes)
    LIB.wm_connect6_destroy(h)


def test_bad_arguments_raise_and_change_nothing(contexts):
    ctx, _ = contexts
    with pytest.raises(ValueError, match="backend"):
        wm.Context("gpu")
    with pytest.raises(ValueError):
        wm.ChargeKind("bad", [(5.0, 0.0, 1.0), (4.0, 0.0, 1.0)])  # ends not increasing
    with pytest.raises(ValueError):
        wm.charge_kind("nonsense", 1.0)
    field = wm.Field(ctx, world=(0, 0, 10, 10), size=(10, 10), kinds=[wm.charge_kind("circle", 3.0)], layers=[[(0, 0)]])
    field.build(np.array([[5, 5]], np.float32), np.array([0], np.uint32))
    before = field.layer(0)
    with pytest.raises(ValueError):
        field.build(np.array([[np.nan, 5]], np.float32), np.array([0], np.uint32))
    with pytest.raises(ValueError):
        field.build(np.zeros((3, 3), np.float32), np.zeros(3, np.uint32))  # not (n, 2)
    with pytest.raises(ValueError):
        field.build(np.zeros((3, 2), np.float32), np.zeros(2, np.uint32))  # groups of another length
    assert field.layer(0).tobytes() == before.tobytes()
    with pytest.raises(ValueError):
        field.layer(7)
    with pytest.raises(ValueError):
        field.best_move(0, np.zeros((1, 2)), 64)  # the window: odd, 1..63
    crowd = wm.Crowd(ctx, (0, 0, 10, 10), 0.5)
    crowd.reset(np.array([[1, 1], [3, 3]]))
    with pytest.raises(ValueError):
        crowd.reset(np.array([[1, 1], [1.5, 1]]))  # overlapping
    with pytest.raises(ValueError):
        crowd.step(np.array([[1, 2]]))  # one proposal for two agents
    assert crowd.positions.tolist() == [[1, 1], [3, 3]]
    with pytest.raises(ValueError):
        wm.Crowd(ctx, (0, 0, 10, 10), 0.5, rule="fair")
    with pytest.raises(wm.Unavailable):
        wm.Crowd(ctx, (0, 0, 10, 10), 0.5, variant="gpu-static-grid")
    chess = wm.Chess(ctx)
    with pytest.raises(ValueError, match="not legal"):
        chess.set_position(None, "e2e5")
    assert chess.search(depth=1)["move"] != ""  # the start position, unchanged
