"""The Python module against the library: every result equal, bit for bit, to the C API's on the same
inputs (the C API is itself held to the C++ modules by tests/c), plus the module's own contract (errors,
shapes, dtypes). Run by scripts/test.sh with the shared build's python/ folder on PYTHONPATH and
WARPMIND_C_LIBRARY naming that build's libwarpmind_c.so.

The tests that take `contexts` run once per backend of WARPMIND_TEST_BACKENDS (default "cpu"; "cpu,cuda"
on a GPU machine, as gpu-run.sh's python step sets it): the module's context and the C API's on that
backend, both asserted to be on it. A cuda run where no GPU is usable is skipped, or fails with
WARPMIND_TEST_REQUIRE_GPU=1."""
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
                ("rule", ctypes.c_int), ("variant", ctypes.c_int), ("movement", ctypes.c_int),
                ("max_step", ctypes.c_float), ("min_radius", ctypes.c_float)]


def ok(status):
    assert status == 0, LIB.wm_last_error().decode()


BACKENDS = [b.strip() for b in os.environ.get("WARPMIND_TEST_BACKENDS", "cpu").split(",") if b.strip()]
C_BACKEND = {"cpu": 1, "cuda": 2}  # WM_BACKEND_CPU, WM_BACKEND_CUDA


@pytest.fixture(scope="module", params=BACKENDS)
def contexts(request):
    backend = request.param
    c = ctypes.c_void_p()
    status = LIB.wm_context_create(C_BACKEND[backend], 2, ctypes.byref(c))  # 2 CPU threads
    if backend == "cuda" and status != 0:
        message = LIB.wm_last_error().decode()
        if os.environ.get("WARPMIND_TEST_REQUIRE_GPU") == "1":
            pytest.fail("no usable GPU: " + message)
        pytest.skip("no usable GPU: " + message)
    ok(status)
    ctx = wm.Context(backend, 2)
    assert ctx.backend == backend
    assert ctx.uses_gpu == (backend == "cuda")
    assert LIB.wm_context_uses_gpu(c) == (1 if backend == "cuda" else 0)
    yield ctx, c
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


def test_crowd_agents_of_several_sizes(contexts):
    ctx, _ = contexts
    crowd = wm.Crowd(ctx, (0, 0, 20, 20), 1.0, variant="cpu-reference", min_radius=0.25)
    start = np.array([[5, 5], [6.5, 5]], np.float32)
    with pytest.raises(ValueError):  # 1.0 + 0.6 > 1.5
        crowd.reset(start, radii=np.array([1.0, 0.6], np.float32))
    crowd.reset(start, radii=np.array([0.25, 0.0], np.float32))  # 0: the crowd's radius
    assert crowd.radii.tolist() == [0.25, 1.0]
    ids = crowd.spawn(np.array([[7.9, 5]], np.float32), radii=np.array([0.25], np.float32))
    assert ids.tolist() == [2]
    with pytest.raises(ValueError):  # below min_radius
        crowd.spawn(np.array([[15, 15]], np.float32), radii=np.array([0.2], np.float32))
    # Towards the agent of radius 1: 1.3 away moves, 1.2 (below 1.25) is refused.
    assert crowd.step(np.array([[5, 5], [6.5, 5], [7.8, 5]], np.float32))["moved"] == 1
    assert crowd.step(np.array([[5, 5], [6.5, 5], [7.7, 5]], np.float32))["collisions"] == 1


@pytest.mark.parametrize("movement", ["accept-reject", "avoid"])
def test_crowd_equals_the_c_api_bit_for_bit(contexts, movement):
    ctx, c_ctx = contexts
    blocked = np.zeros((16, 16), np.uint8)
    blocked.ravel()[2::5] = 1
    avoid = movement == "avoid"
    crowd = wm.Crowd(ctx, (0, 0, 64, 64), 0.5, obstacles=blocked, rule="lowest-id", variant="cpu-reference",
                     movement=movement, max_step=1.0 if avoid else 0.0)
    cfg = CrowdConfigC(0, 0, 64, 64, 0.5, 16, 16, blocked.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), 1, 1,
                       1 if avoid else 0, 1.0 if avoid else 0.0)
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
    assert ({wm.MOVED} if avoid else {wm.MOVED, wm.OUT_OF_WORLD, wm.BLOCKED, wm.COLLISION}) <= seen
    keep = (np.arange(len(now)) % 3 != 0).astype(np.uint8)
    crowd.retain(keep)
    assert len(crowd) == int(keep.sum())
    assert crowd.positions.tobytes() == now[keep == 1].tobytes()
    ids = crowd.ids
    assert ids.dtype == np.uint32 and ids.tolist() == [i for i in range(len(now)) if i % 3 != 0]
    # Spawn (ids continue after the last), despawn, and save/restore into another crowd, as the C API's.
    spot = np.array([[63.5, 63.5]], np.float32)
    if np.min(np.hypot(*(crowd.positions - spot[0]).T)) >= 1.0:
        assert crowd.spawn(spot, max_steps=np.array([0.5], np.float32)).tolist() == [len(now)]
    with pytest.raises(ValueError):
        crowd.spawn(crowd.positions[:1])  # onto an agent: nothing changes
    crowd.despawn(np.array([ids[0]], np.uint32))
    with pytest.raises(ValueError):
        crowd.despawn(np.array([ids[0]], np.uint32))  # gone already
    state = crowd.save()
    ok(LIB.wm_crowd_restore(c, ctypes.c_char_p(state), ctypes.c_size_t(len(state))))
    other = wm.Crowd(ctx, (0, 0, 64, 64), 0.5, obstacles=blocked, rule="lowest-id", variant="cpu-reference",
                     movement=movement, max_step=1.0 if avoid else 0.0)
    other.restore(state)
    assert other.positions.tobytes() == crowd.positions.tobytes() and other.ids.tolist() == crowd.ids.tolist()
    theirs = np.zeros((len(crowd), 2), np.float32)
    ok(LIB.wm_crowd_positions(c, theirs.ctypes.data_as(ctypes.POINTER(Vec2)), ctypes.c_size_t(len(crowd))))
    assert theirs.tobytes() == crowd.positions.tobytes()
    with pytest.raises(ValueError):
        crowd.restore(state[:-1])
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


def test_tables_answer_as_the_c_api(contexts):
    ctx, c_ctx = contexts

    class Result(ctypes.Structure):
        _fields_ = [("move", ctypes.c_char * 8), ("score", ctypes.c_int), ("depth", ctypes.c_int),
                    ("nodes", ctypes.c_uint64)]

    cases = (("chess", 0, ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                           "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
                           "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"], 3),
             ("connect6", 1, ["", "JJ", "JJ HHJH", "JJ HHJH KKLL"], 2))
    for game, code, positions, depth in cases:
        tables = wm.Tables(ctx, game, width=8)
        results, nodes = tables.search(positions, depth)
        t = ctypes.c_void_p()
        ok(LIB.wm_tables_create(c_ctx, code, 8, ctypes.byref(t)))
        arr = (ctypes.c_char_p * len(positions))(*[x.encode() for x in positions])
        theirs = (Result * len(positions))()
        theirs_nodes = ctypes.c_uint64()
        ok(LIB.wm_tables_search(t, arr, ctypes.c_size_t(len(positions)), depth, theirs, ctypes.byref(theirs_nodes)))
        LIB.wm_tables_destroy(t)
        assert nodes == theirs_nodes.value and nodes > 0
        for mine, c in zip(results, theirs):
            assert (mine["move"], mine["score"], mine["depth"]) == (c.move.decode(), c.score, c.depth)
    assert results[0]["move"] != ""
    with pytest.raises(ValueError, match="positions"):
        wm.Tables(ctx, "chess").search(["not a fen"], 2)
    with pytest.raises(ValueError):
        wm.Tables(ctx, "go")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_context_log_callback_and_thread_limit():
    lines = []
    ctx = wm.Context("auto", 2, log=lambda level, message: lines.append((level, message)))
    assert len(lines) == 1, lines
    if ctx.uses_gpu:
        assert lines[0][0] == "info" and lines[0][1].startswith("using CUDA device")
    else:
        assert lines[0][0] == "warning" and lines[0][1].startswith("using the CPU backend (")
    quiet = []
    wm.Context("cpu", 1, log=lambda level, message: quiet.append(message))
    assert quiet == []  # the CPU backend, asked for, is not news

    def broken(level, message):
        raise RuntimeError("the game's logger failed")

    assert wm.Context("auto", 1, log=broken).backend in ("cpu", "cuda")  # dropped, not raised
    with pytest.raises(ValueError, match="cpu_threads"):
        wm.Context("cpu", 4097)
    with pytest.raises(TypeError):
        wm.Context("cpu", 1, log=42)


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


class AoiConfigC(ctypes.Structure):
    _fields_ = [("x0", ctypes.c_float), ("y0", ctypes.c_float), ("width", ctypes.c_float),
                ("height", ctypes.c_float), ("aoi", ctypes.c_float), ("shape", ctypes.c_int),
                ("max_move", ctypes.c_float), ("attack_range", ctypes.c_float), ("track_visibility", ctypes.c_int),
                ("variant", ctypes.c_int), ("chunk_notifications", ctypes.c_uint64)]


class PlayerC(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("hp", ctypes.c_int32)]


class NotificationC(ctypes.Structure):
    _fields_ = [("receiver", ctypes.c_uint32), ("subject", ctypes.c_uint32), ("field", ctypes.c_uint32),
                ("value", ctypes.c_uint32)]


class EventC(ctypes.Structure):
    _fields_ = [("receiver", ctypes.c_uint32), ("other", ctypes.c_uint32)]


def test_aoi_equals_the_c_api(contexts):
    ctx, c_ctx = contexts
    rng = np.random.default_rng(21)
    n = 400
    xy = rng.uniform(0, 200, size=(n, 2)).astype(np.float32)
    xy[:20] = [100, 100]  # a hot spot: everyone in one bucket
    hp = rng.integers(1, 100, size=n).astype(np.int32)
    world = wm.Aoi(ctx, (0, 0, 200, 200), 20.0, shape="circle", max_move=5.0, attack_range=15.0, variant="cpu-fast")
    world.reset(xy, hp)
    cfg = AoiConfigC(0, 0, 200, 200, 20.0, 1, 5.0, 15.0, 1, 2, 0)  # circle, cpu-fast
    a = ctypes.c_void_p()
    ok(LIB.wm_aoi_create(c_ctx, ctypes.byref(cfg), ctypes.byref(a)))
    players = (PlayerC * n)(*[(float(x), float(y), int(h)) for (x, y), h in zip(xy, hp)])
    ok(LIB.wm_aoi_reset(a, players, ctypes.c_size_t(n)))
    for tick in range(5):
        cmds = np.zeros(n, wm.COMMAND_DTYPE)
        cmds["player"] = np.arange(n)
        cmds["dx"] = rng.uniform(-5, 5, n)
        cmds["dy"] = rng.uniform(-5, 5, n)
        attack = rng.random(n) < 0.2
        cmds["type"][attack] = 1
        cmds["target"][attack] = rng.integers(0, n, attack.sum())
        cmds["damage"][attack] = 3
        cmds["type"][3] = 0
        cmds["dx"][3] = 99.0  # a bad move: rejected, counted
        ours = world.tick(cmds)
        ok(LIB.wm_aoi_tick(a, cmds.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(n), None))
        notes = ctypes.POINTER(NotificationC)()
        count = ctypes.c_size_t()
        ok(LIB.wm_aoi_notifications(a, ctypes.byref(notes), ctypes.byref(count)))
        theirs = np.ctypeslib.as_array(ctypes.cast(notes, ctypes.POINTER(ctypes.c_uint32)), (count.value * 4,))
        assert ours["notifications"].tobytes() == theirs.tobytes()
        assert len(ours["notifications"]) > n  # the tick notified
        entered, left = ctypes.POINTER(EventC)(), ctypes.POINTER(EventC)()
        ne, nl = ctypes.c_size_t(), ctypes.c_size_t()
        ok(LIB.wm_aoi_visibility(a, ctypes.byref(entered), ctypes.byref(ne), ctypes.byref(left), ctypes.byref(nl)))
        assert len(ours["entered"]) == ne.value and len(ours["left"]) == nl.value
        if ne.value:
            e = np.ctypeslib.as_array(ctypes.cast(entered, ctypes.POINTER(ctypes.c_uint32)), (ne.value * 2,))
            assert ours["entered"].tobytes() == e.tobytes()
        assert ours["rejected"][2] >= 1  # the bad move
    pos, hp_now = world.state()
    theirs = (PlayerC * n)()
    ok(LIB.wm_aoi_players(a, theirs, ctypes.c_size_t(n)))
    assert pos.tobytes() == np.array([(p.x, p.y) for p in theirs], np.float32).tobytes()
    assert hp_now.tolist() == [p.hp for p in theirs]
    # Save and restore: the C API's bytes are the binding's, and a restored world continues identically.
    saved = world.save()
    c_bytes, c_size = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_size_t()
    ok(LIB.wm_aoi_save(a, ctypes.byref(c_bytes), ctypes.byref(c_size)))
    assert ctypes.string_at(c_bytes, c_size.value) == saved and len(saved) == 64 + 12 * n
    copy = wm.Aoi(ctx, (0, 0, 200, 200), 20.0, shape="circle", max_move=5.0, attack_range=15.0, variant="cpu-grid")
    copy.restore(saved)
    cmds = np.zeros(n, wm.COMMAND_DTYPE)
    cmds["player"] = np.arange(n)
    cmds["dx"] = 1.5
    assert world.tick(cmds)["notifications"].tobytes() == copy.tick(cmds)["notifications"].tobytes()
    with pytest.raises(ValueError, match="restore"):
        copy.restore(saved[:-1])
    LIB.wm_aoi_destroy(a)
    with pytest.raises(ValueError):
        world.tick(np.zeros(3, np.float32))  # not commands


def test_chunked_tick_hands_over_the_ticks_notifications(contexts):
    ctx, _ = contexts
    rng = np.random.default_rng(4)
    n = 300
    xy = rng.uniform(0, 100, size=(n, 2)).astype(np.float32)
    hp = np.full(n, 50, np.int32)
    cmds = np.zeros(n, wm.COMMAND_DTYPE)
    cmds["player"] = np.arange(n)
    cmds["dx"] = rng.uniform(-3, 3, n)
    kept = wm.Aoi(ctx, (0, 0, 100, 100), 12.0, shape="circle", max_move=5.0, variant="cpu-fast")
    chunked = wm.Aoi(ctx, (0, 0, 100, 100), 12.0, shape="circle", max_move=5.0, variant="cpu-fast",
                     chunk_notifications=40)
    kept.reset(xy, hp)
    chunked.reset(xy, hp)
    want = kept.tick(cmds)["notifications"]
    seen = []

    def on_chunk(first, end, first_notification, notes):
        assert first == (seen[-1][1] if seen else 0)  # every receiver once, in order
        assert first_notification == sum(len(s[2]) for s in seen)
        seen.append((first, end, notes))

    d = chunked.tick_chunked(cmds, on_chunk)
    got = np.concatenate([s[2] for s in seen])
    assert len(seen) > 3 and len(want) > 200 and len(d["notifications"]) == 0
    assert got.tobytes() == want.tobytes()

    def stop(*_):
        raise KeyError("stop")

    with pytest.raises(KeyError):
        chunked.tick_chunked(cmds, stop)


def test_regions_combat_and_nav_equal_the_c_api(contexts):
    ctx, c_ctx = contexts
    rng = np.random.default_rng(5)
    # Regions in 2-D and 3-D: 300 boxes of each kind; the pairs equal the C API's.
    for dims in (2, 3):
        regions = wm.Regions(ctx, variant="cpu-sort", dimensions=dims)
        r = ctypes.c_void_p()
        ok(LIB.wm_regions_create(c_ctx, dims, 2, ctypes.c_float(0), ctypes.byref(r)))
        for kind in ("publication", "subscription"):
            for _ in range(300):
                lo = rng.uniform(0, 100, dims).astype(np.float32)
                hi = lo + rng.uniform(0, 25, dims).astype(np.float32)
                ours = regions.add(kind, tuple(lo) + tuple(hi))
                theirs = ctypes.c_uint32()
                ok(LIB.wm_regions_add(r, 0 if kind == "publication" else 1,
                                      lo.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                      hi.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), ctypes.byref(theirs)))
                assert ours == theirs.value
        pairs = regions.match()
        p = ctypes.POINTER(ctypes.c_uint32)()
        count = ctypes.c_size_t()
        ok(LIB.wm_regions_match(r, ctypes.byref(p), ctypes.byref(count)))
        assert count.value > 0 and pairs.tobytes() == np.ctypeslib.as_array(p, (count.value * 2,)).tobytes()
        LIB.wm_regions_destroy(r)
        with pytest.raises(ValueError):
            regions.add("publication", (5,) * dims + (1,) * dims)  # lo > hi
        with pytest.raises(ValueError):
            regions.add("publication", (1,) * (2 * dims + 1))  # not 2 * dims numbers
    with pytest.raises(ValueError):
        wm.Regions(ctx, dimensions=4)
    # Combat: the keep flags and the survivors' state equal the C API's.
    n = 300
    teams = (np.arange(n) % 3).astype(np.uint8)
    hp = rng.uniform(5, 40, n).astype(np.float32)
    pos = rng.uniform(0, 60, size=(n, 2)).astype(np.float32)
    ours = wm.Combat(ctx, (0, 0, 60, 60), range=6.0, damage=12.0, cooldown_ticks=1, variant="cpu")
    ours.reset(teams, hp)

    class CombatConfigC(ctypes.Structure):
        _fields_ = [(f, ctypes.c_float) for f in ("x0", "y0", "width", "height", "range", "damage")] + \
                   [("cooldown_ticks", ctypes.c_int), ("variant", ctypes.c_int)]

    c = ctypes.c_void_p()
    ok(LIB.wm_combat_create(c_ctx, ctypes.byref(CombatConfigC(0, 0, 60, 60, 6, 12, 1, 1)), ctypes.byref(c)))
    ok(LIB.wm_combat_reset(c, teams.ctypes.data_as(ctypes.c_void_p), hp.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(n)))
    keep = ours.fire(pos)
    theirs = np.zeros(n, np.uint8)
    ok(LIB.wm_combat_fire(c, *as_c(pos), theirs.ctypes.data_as(ctypes.c_void_p)))
    assert keep.tobytes() == theirs.tobytes() and 0 < keep.sum() < n
    t, h, cd = ours.state()
    m = len(ours)
    th, hh, cdh = np.zeros(m, np.uint8), np.zeros(m, np.float32), np.zeros(m, np.int32)
    ok(LIB.wm_combat_state(c, th.ctypes.data_as(ctypes.c_void_p), hh.ctypes.data_as(ctypes.c_void_p),
                           cdh.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(m)))
    assert (t.tobytes(), h.tobytes(), cd.tobytes()) == (th.tobytes(), hh.tobytes(), cdh.tobytes())
    LIB.wm_combat_destroy(c)
    # Navigation fields: a walled map, three goals; distances and directions equal the C API's.
    costs = np.ones((40, 60), np.uint8)
    costs[10:30, 30] = 0  # a wall
    costs[5, :50] = 0
    costs[20:25, 40:45] = 7  # a costly patch
    goals = np.array([[0, 0], [59, 39], [45, 22]], np.int32)
    dist, dirs = wm.distance_fields(ctx, costs, goals)
    assert dist.shape == (3, 40, 60) and dirs.dtype == np.int8
    d2 = np.zeros(dist.size, np.float32)
    r2 = np.zeros(dist.size, np.int8)
    ok(LIB.wm_nav_fields(c_ctx, 60, 40, costs.ctypes.data_as(ctypes.c_void_p), goals.ctypes.data_as(ctypes.c_void_p),
                         ctypes.c_size_t(3), d2.ctypes.data_as(ctypes.c_void_p), r2.ctypes.data_as(ctypes.c_void_p)))
    assert dist.tobytes() == d2.tobytes() and dirs.tobytes() == r2.tobytes()
    assert dist[0, 0, 0] == 0 and np.isinf(dist[0, 20, 30]) and dirs[0, 0, 0] == -1
    with pytest.raises(ValueError):
        wm.distance_fields(ctx, costs, np.array([[30, 15]], np.int32))  # a goal on the wall
    # Steering by goal 1's field: equal to the C API's for points inside, on edges, outside and NaN.
    pts = np.vstack([rng.uniform(-2, 62, size=(200, 2)), [[0, 0], [59.999, 39.5], [60, 10], [np.nan, 3]]])
    pts = pts.astype(np.float32)
    st, sd = wm.steer(costs, dist[1], dirs[1], pts)
    st2 = np.zeros((len(pts), 2), np.float32)
    sd2 = np.zeros(len(pts), np.float32)
    ok(LIB.wm_nav_steer(60, 40, dist[1].ctypes.data_as(ctypes.c_void_p), dirs[1].ctypes.data_as(ctypes.c_void_p),
                        pts.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(len(pts)), st2.ctypes.data_as(ctypes.c_void_p),
                        sd2.ctypes.data_as(ctypes.c_void_p)))
    assert st.tobytes() == st2.tobytes() and sd.tobytes() == sd2.tobytes()
    assert np.isinf(sd[-2]) and st[-1].tolist() == [0, 0] and np.count_nonzero(st[:200]) > 100
    with pytest.raises(ValueError):
        wm.steer(costs, dist[1][:10], dirs[1], pts)  # not the map's shape
    # The goal set's field: the least of the three fields, equal to the C API's.
    gd, gr = wm.goal_set_field(ctx, costs, goals)
    assert gd.shape == (40, 60) and gd.tobytes() == dist.min(axis=0).tobytes()
    d3 = np.zeros(gd.size, np.float32)
    r3 = np.zeros(gd.size, np.int8)
    ok(LIB.wm_nav_goal_set_field(c_ctx, 60, 40, costs.ctypes.data_as(ctypes.c_void_p),
                                 goals.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(3),
                                 d3.ctypes.data_as(ctypes.c_void_p), r3.ctypes.data_as(ctypes.c_void_p)))
    assert gd.tobytes() == d3.tobytes() and gr.tobytes() == r3.tobytes()
    assert gr[0, 0] == -1 and gr[39, 59] == -1 and np.isinf(wm.goal_set_field(ctx, costs, np.zeros((0, 2), np.int32))[0]).all()


def test_nav_fields_follow_changes_and_maps_round_trip(contexts):
    ctx, _ = contexts
    # A generated maze written as a Moving AI map and read back is the same grid.
    maze = wm.generate_map("maze", 96, 64, seed=3)
    assert maze.shape == (64, 96) and maze.dtype == np.uint8 and 0 < np.count_nonzero(maze) < maze.size
    text = wm.write_map(maze)
    assert text.startswith("type octile") and wm.read_map(text).tobytes() == maze.tobytes()
    with pytest.raises(ValueError):
        wm.read_map("type octile\nheight 2\nwidth 2\nmap\n..\n")  # a row short
    with pytest.raises(ValueError):
        wm.generate_map("caves", 8, 8)
    # Fields kept up to date: after each batch of changes, equal bit for bit to fields computed afresh.
    open_cells = np.argwhere(maze == 1)
    goals = open_cells[[0, len(open_cells) // 2, -1]][:, ::-1].astype(np.int32)  # (x, y)
    fields = wm.NavFields(ctx, maze, goals)
    assert len(fields) == 3
    rng = np.random.default_rng(8)
    costs = maze.copy()
    goal_cells = {(int(x), int(y)) for x, y in goals}
    for _ in range(4):
        changes = []
        for _ in range(40):
            x, y = int(rng.integers(0, 96)), int(rng.integers(0, 64))
            if (x, y) in goal_cells:
                continue
            cost = int(rng.choice([0, 1, 5]))
            changes.append((x, y, cost))
            costs[y, x] = cost
        fields.update(np.array(changes, np.int32))
        want_d, want_r = wm.distance_fields(ctx, costs, goals)
        for g in range(3):
            assert fields.distance(g).tobytes() == want_d[g].tobytes()
            assert fields.direction(g).tobytes() == want_r[g].tobytes()
    before = fields.distance(0)
    gx, gy = goals[0]
    with pytest.raises(ValueError):
        fields.update(np.array([[gx, gy, 0]], np.int32))  # blocking a goal
    with pytest.raises(ValueError):
        fields.update(np.array([[500, 1, 1]], np.int32))  # outside the grid
    with pytest.raises(ValueError):
        fields.update(np.array([[1, 1, 300]], np.int32))  # not a cost
    assert fields.distance(0).tobytes() == before.tobytes()  # nothing changed
    with pytest.raises(ValueError):
        fields.distance(3)
    # Saved and restored into fields of another map: the same fields, bit for bit.
    state = fields.save()
    copy = wm.NavFields(ctx, np.ones((3, 4), np.uint8), np.array([[0, 0]], np.int32))
    copy.restore(state)
    assert len(copy) == 3
    for g in range(3):
        assert copy.distance(g).tobytes() == fields.distance(g).tobytes()
    with pytest.raises(ValueError, match="restore"):
        copy.restore(state[:-1])


def test_world_map_equals_the_c_api_and_walls_the_crowd(contexts):
    ctx, c_ctx = contexts
    w = wm.World((0, 0, 64, 32), (64, 32))
    w.fill_rect((2, 2), (10, 6))
    w.draw_line((0, 31), (63, 0), thickness=1.5)
    w.fill_polygon(np.array([[40, 20], [60, 22], [55, 30], [42, 28]]), cost=5)
    costs = w.costs
    assert costs.shape == (32, 64) and costs.dtype == np.uint8
    assert (costs == 0).sum() > 60 and (costs == 5).sum() > 50 and costs[4, 5] == 0
    # The same shapes through the C API give the same cells.
    LIB.wm_world_create.argtypes = [ctypes.c_float] * 4 + [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    LIB.wm_world_fill_rect.argtypes = [ctypes.c_void_p, Vec2, Vec2, ctypes.c_uint8]
    LIB.wm_world_draw_line.argtypes = [ctypes.c_void_p, Vec2, Vec2, ctypes.c_float, ctypes.c_uint8]
    LIB.wm_world_fill_polygon.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint8]
    LIB.wm_world_costs.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    LIB.wm_world_destroy.argtypes = [ctypes.c_void_p]
    c = ctypes.c_void_p()
    ok(LIB.wm_world_create(0, 0, 64, 32, 64, 32, ctypes.byref(c)))
    ok(LIB.wm_world_fill_rect(c, Vec2(2, 2), Vec2(10, 6), 0))
    ok(LIB.wm_world_draw_line(c, Vec2(0, 31), Vec2(63, 0), 1.5, 0))
    poly = np.array([[40, 20], [60, 22], [55, 30], [42, 28]], np.float32)
    ok(LIB.wm_world_fill_polygon(c, poly.ctypes.data_as(ctypes.c_void_p), 4, 5))
    theirs = np.zeros(64 * 32, np.uint8)
    ok(LIB.wm_world_costs(c, theirs.ctypes.data_as(ctypes.c_void_p), theirs.size))
    assert theirs.tobytes() == costs.tobytes()
    LIB.wm_world_destroy(c)
    # The crowd over the same world: a move into the rectangle is blocked.
    crowd = wm.Crowd(ctx, (0, 0, 64, 32), 0.25, obstacles=(costs == 0).astype(np.uint8), variant="cpu-reference")
    crowd.reset(np.array([[1.5, 4.0]], np.float32))
    crowd.step(np.array([[12.0, 4.0]], np.float32))
    assert crowd.verdicts.tolist() == [wm.BLOCKED]
    pos, groups = w.walls(3)
    assert pos.shape[1] == 2 and len(pos) == len(groups) and set(groups.tolist()) == {3}
    with pytest.raises(ValueError):
        w.draw_line((0, 0), (1, 1), thickness=-1)
    with pytest.raises(ValueError):
        w.walls(64)
    assert w.costs.tobytes() == costs.tobytes()


def test_nav_sizes_sight_and_unreachable_equal_the_c_api(contexts):
    """Clearance, class costs, size classes, line of sight, waypoints and the nearest-cell option through
    the module equal the C API's, on the backend of `contexts`."""
    ctx, c_ctx = contexts
    rng = np.random.default_rng(17)
    costs = np.ones((30, 40), np.uint8)
    costs[:, 20] = 0  # a wall from edge to edge: the right half cannot reach a goal on the left
    costs[rng.uniform(size=costs.shape) < 0.08] = 0
    costs[5, 5] = 1
    ptr = costs.ctypes.data_as(ctypes.c_void_p)
    clear = wm.clearance(costs)
    c_clear = np.zeros(costs.shape, np.uint16)
    ok(LIB.wm_nav_clearance(40, 30, ptr, c_clear.ctypes.data_as(ctypes.c_void_p)))
    assert clear.dtype == np.uint16 and clear.tobytes() == c_clear.tobytes() and clear[:, 20].max() == 0
    cls = wm.class_costs(costs, 2)
    c_cls = np.zeros(costs.shape, np.uint8)
    ok(LIB.wm_nav_class_costs(40, 30, ptr, 2, c_cls.ctypes.data_as(ctypes.c_void_p)))
    assert cls.tobytes() == c_cls.tobytes() and np.array_equal(cls > 0, clear >= 2)
    assert wm.size_class(0.5) == 1 and wm.size_class(1.2) == 2
    with pytest.raises(ValueError):
        wm.size_class(-1.0)
    with pytest.raises(ValueError):
        wm.class_costs(costs, 0)
    visible = ctypes.c_int(7)
    for a, b in [((0, 0), (19, 29)), ((5, 5), (30, 5)), ((2, 3), (2, 3))]:
        ok(LIB.wm_nav_line_of_sight(40, 30, ptr, a[0], a[1], b[0], b[1], ctypes.byref(visible)))
        assert wm.line_of_sight(costs, a, b) == bool(visible.value)
    assert not wm.line_of_sight(costs, (5, 5), (30, 5))  # through the wall
    goal = np.array([[5, 5]], np.int32)
    for unreachable, code in [("infinity", 0), ("nearest", 1)]:
        dist, dirs = wm.goal_set_field(ctx, costs, goal, unreachable=unreachable)
        d2 = np.zeros(costs.size, np.float32)
        r2 = np.zeros(costs.size, np.int8)
        ok(LIB.wm_nav_fields_with(c_ctx, 40, 30, ptr, goal.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(1), 1, code,
                                  d2.ctypes.data_as(ctypes.c_void_p), r2.ctypes.data_as(ctypes.c_void_p)))
        assert dist.tobytes() == d2.tobytes() and dirs.tobytes() == r2.tobytes()
        many, _ = wm.distance_fields(ctx, costs, goal, unreachable=unreachable)
        assert many[0].tobytes() == dist.tobytes()
        assert np.isinf(dist[:, 21:][costs[:, 21:] > 0]).any() == (unreachable == "infinity")
    with pytest.raises(ValueError):
        wm.goal_set_field(ctx, costs, goal, unreachable="everywhere")
    way = wm.waypoints(ctx, costs, dist, dirs)
    w2 = np.zeros(costs.size, np.uint32)
    ok(LIB.wm_nav_waypoints(c_ctx, 40, 30, ptr, dist.ctypes.data_as(ctypes.c_void_p),
                            dirs.ctypes.data_as(ctypes.c_void_p), w2.ctypes.data_as(ctypes.c_void_p)))
    assert way.dtype == np.uint32 and way.tobytes() == w2.tobytes() and way[5, 5] == 5 * 40 + 5
    pts = rng.uniform(-1, 41, size=(100, 2)).astype(np.float32)
    st, sd = wm.steer_to_waypoints(costs, dist, way, pts)
    st2 = np.zeros((len(pts), 2), np.float32)
    sd2 = np.zeros(len(pts), np.float32)
    ok(LIB.wm_nav_steer_waypoints(40, 30, dist.ctypes.data_as(ctypes.c_void_p), way.ctypes.data_as(ctypes.c_void_p),
                                  pts.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(len(pts)),
                                  st2.ctypes.data_as(ctypes.c_void_p), sd2.ctypes.data_as(ctypes.c_void_p)))
    assert st.tobytes() == st2.tobytes() and sd.tobytes() == sd2.tobytes()
    with pytest.raises(ValueError):
        wm.waypoints(ctx, costs, dist[:5], dirs)
