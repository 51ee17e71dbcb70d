"""Blocks of the simulation suites (field, crowd, aoi, ddm), the battle demo and the server, and the
README's headline table (which also cites the search suites)."""

from ..goals import goal
from ..numbers import big, count, ms, rate, sig, times
from ..records import Missing
from . import block, table
from .search import SEARCHES, _best_cpu, _gpu_label, _search


def _field_case(f, radius, resolution, entities, scale):
    params = dict(radius=radius, resolution=resolution, entities=entities, case="scale" if scale else None)
    return {r["variant"]: r for r in f.find(**params)}


@block("performance")
def performance(load):
    """README: one headline row per module."""
    rows = []
    f = load("h200/field.json")
    for radius, res, n, scale, what in ((15, 2048, 2048, False, "the seed's heaviest case"),
                                        (15, 4096, 100000, True, "the scale case")):
        v = _field_case(f, radius, res, n, scale)
        if "cpu-stamp" not in v or "gpu-binned" not in v:
            raise Missing(f"{f.path}: no cpu-stamp and gpu-binned records at {res}², {n} entities")
        c, g = v["cpu-stamp"], v["gpu-binned"]
        rows.append([f"field {res}², {n:,} entities of radius {radius} ({what})", f"{ms(c['median_ms'])} (cpu-stamp)",
                     f"{ms(g['median_ms'])} (gpu-binned); host to host {ms(g.get('with_transfers_ms'))}",
                     times(c["median_ms"] / g["median_ms"]), ms(g["floor_ms"]), f.cite()])
    cr = load("h200/crowd.json")
    c, g = cr.one("cpu-reference", agents=1000000), cr.one("gpu-static-grid", agents=1000000)
    rows.append(["crowd, 1,000,000 agents, a tick of random moves", f"{ms(c['median_ms'])} (cpu-reference)",
                 f"{ms(g['median_ms'])} (gpu-static-grid); host to host {ms(g.get('with_transfers_ms'))}",
                 times(c["median_ms"] / g["median_ms"]), ms(g["floor_ms"]), cr.cite()])
    a = load("h200/aoi.json")
    top = max(r["params"]["clients"] for r in a.find("gpu-fast"))
    g = a.one("gpu-fast", clients=top)
    c = a.one("cpu-fast", clients=top)
    rows.append([f"AOI server tick, {top:,} clients ({big(g['notifications_per_tick'])} notifications), device time",
                 f"{ms(c['median_ms'])} (cpu-fast)",
                 f"{ms(g['median_ms'])} (gpu-fast); the notifications' download {ms(g['download_ms'])}",
                 times(c["median_ms"] / g["median_ms"]), ms(g["floor_ms"]), a.cite()])
    d = load("h200/ddm.json")
    c, g = d.one("cpu-sort", regions=1000000, alpha=1), d.one("gpu-grid", regions=1000000, alpha=1)
    rows.append(["DDM, 1,000,000 regions, α = 1: a full match; a step of moves",
                 f"{ms(c['match_ms'])}; {ms(c['median_ms'])} (cpu-sort)",
                 f"{ms(g['match_ms'])}; {ms(g['median_ms'])} (gpu-grid)",
                 f"{times(c['match_ms'] / g['match_ms'])}; {times(c['median_ms'] / g['median_ms'])}",
                 f"{ms(g['floor_ms'])} (full match)", d.cite()])
    p = load("h200/chess.json")
    cpu = p.one("perft-cpu", position="start")
    gpu = max(p.find("perft-gpu", position="start"), key=lambda r: r["params"]["depth"], default=None)
    if gpu is None:
        raise Missing(f"{p.path}: no perft-gpu record from the start position")
    rows.append(["chess perft from the start position, nodes a second",
                 f"{rate(cpu['nodes_per_s'])} (depth {cpu['params']['depth']})",
                 f"{rate(gpu['nodes_per_s'])} (depth {gpu['params']['depth']}, {ms(gpu['median_ms'])})",
                 times(gpu["nodes_per_s"] / cpu["nodes_per_s"]), "–", p.cite()])
    for rel, label, depth, pruning, _ in SEARCHES:
        if not pruning:
            continue
        s = load(rel)
        srows, best_gpu, _eng = _search(s, depth, pruning)
        cpu_ms, cpu_what = _best_cpu(srows)
        cpu_what = "serial, one thread" if cpu_what == "serial" else f"{cpu_what}, 16 threads"
        rows.append([f"{label} (the same search on CPU and GPU)",
                     f"{ms(cpu_ms)} ({cpu_what}: the fastest CPU row)",
                     f"{ms(best_gpu['median_ms'])} ({_gpu_label(best_gpu)})",
                     times(cpu_ms / best_gpu["median_ms"]), "–", s.cite()])
    t = load("h200/tables.json")
    for game, depth, label in (("chess", 4, "chess"), ("connect6", 2, "Connect6")):
        c = t.one("cpu-threads", game=game, depth=depth)
        gpu = [r for r in t.records if r["backend"] == "cuda" and r["params"]["game"] == game
               and r["params"]["depth"] == depth]
        if not gpu:
            raise Missing(f"{t.path}: no GPU record of {game} at depth {depth}")
        g = max(gpu, key=lambda r: r["x_cpu"])
        rows.append([f"{count(c['params']['tables'])} {label} positions, a move each at depth {depth} (search_many)",
                     f"{ms(c['median_ms'])} ({c['params']['threads']} threads, alpha-beta)",
                     f"{ms(g['median_ms'])} ("
                     + (f"alpha-beta by levels, tail {g['params']['tail']}" if game == "chess" else "whole trees")
                     + "; every move as the CPU's)",
                     times(g["x_cpu"]), "–", t.cite()])
    n = load("h200/nav.json")
    c, g = n.one("cpu-threads", map="open", width=1024, goals=64), n.one("gpu", map="open", width=1024, goals=64)
    rows.append(["navigation fields, open 1024² map, 64 goals (exact octile distances and directions)",
                 f"{ms(c['median_ms'])} ({c['params']['threads']} threads, Dijkstra)",
                 f"{ms(g['median_ms'])}; with copies {ms(g['call_ms'])}", times(c["median_ms"] / g["median_ms"]),
                 ms(g["floor_ms"]), n.cite()])
    b = load("h200/demo-battle.json")
    c = b.run(backend="cpu", label="cpu, sight 20, host upload")
    g = b.run(backend="cuda", label="cuda, sight 20, interop")
    rows.append([f"battle demo, {sum(g['units_at_start']):,} units, field {g['field_resolution']}², one tick, sight 20",
                 ms(c["median_ms"]["tick"]), f"{ms(g['median_ms']['tick'])} (device state)",
                 times(c["median_ms"]["tick"] / g["median_ms"]["tick"]), "–", b.cite()])
    # The server's row (h200/server-virtual.json) comes back once it is measured again: the server changed
    # after its last run (docs/server.md, "Measured").
    out = table(["work", "CPU", "GPU", "GPU speed-up", "GPU floor", "results"], rows)
    return out


@block("field-largest")
def field_largest(load):
    f = load("h200/field.json")
    variants = ["cpu-naive", "cpu-stamp", "gpu-naive", "gpu-coalesced", "gpu-shared", "gpu-binned"]
    keys = sorted({(r["params"]["radius"], r["params"]["resolution"], r["params"]["entities"],
                    r["params"].get("case") == "scale") for r in f.records})
    top = max((k for k in keys if not k[3]), key=lambda k: (k[1], k[2]), default=None)
    if top is None:
        raise Missing(f"{f.path}: no records")
    wanted = [k for k in keys if not k[3] and k[1] == top[1] and k[2] == top[2]] + [k for k in keys if k[3]]
    rows = []
    for radius, res, n, scale in wanted:
        v = _field_case(f, radius, res, n, scale)
        for x in variants[1:]:
            if x not in v:
                raise Missing(f"{f.path}: no {x} record at {res}², {n} entities, radius {radius}")
        p = next(iter(v.values()))["params"]
        stamp, binned = v.get("cpu-stamp"), v.get("gpu-binned")
        rows.append([radius, f"{res}²", f"{n:,}", sig(p["evaluations"] / 1e6)] +
                    [ms(v[x]["median_ms"]) if x in v else "–" for x in variants] +
                    [times(stamp["median_ms"] / binned["median_ms"]) if stamp and binned else "–",
                     ms(binned["floor_ms"]) if binned else "–",
                     ms(binned.get("with_transfers_ms")) if binned else "–"])
    return table(["radius", "cells", "entities", "evaluations (M)"] + variants +
                 ["gpu-binned × cpu-stamp", "gpu-binned floor", "gpu-binned host to host"], rows)


@block("field-grid")
def field_grid(load):
    f = load("h200/field.json")
    radius = 15
    grid = [r for r in f.records if r["params"].get("case") is None and r["params"]["radius"] == radius]
    res = sorted({r["params"]["resolution"] for r in grid})
    counts = sorted({r["params"]["entities"] for r in grid})
    if not res:
        raise Missing(f"{f.path}: no grid records of radius {radius}")
    rows = []
    for n in counts:
        cells = []
        for c in res:
            v = _field_case(f, radius, c, n, False)
            if v and ("cpu-stamp" not in v or "gpu-binned" not in v):
                raise Missing(f"{f.path}: no cpu-stamp and gpu-binned records at {c}², {n} entities, radius {radius}")
            cells.append(times(v["cpu-stamp"]["median_ms"] / v["gpu-binned"]["median_ms"]) if v else "–")
        rows.append([f"{n:,}"] + cells)
    return table(["entities \\ cells"] + [f"{c}²" for c in res], rows)


@block("field-targets")
def field_targets(load):
    f = load("h200/field.json")
    rows = []
    for radius, res, n, scale, g in ((15, 2048, 2048, False, goal("field-2048")), (15, 4096, 100000, True, goal("field-scale"))):
        v = _field_case(f, radius, res, n, scale)
        for x in ("cpu-stamp", "gpu-shared", "gpu-binned"):
            if x not in v:
                raise Missing(f"{f.path}: no {x} record at {res}², {n} entities, radius {radius}")
        b = v["gpu-binned"]
        rows.append([f"{res}², {n:,} entities, r = {radius}", ms(v["cpu-stamp"]["median_ms"]),
                     ms(v["gpu-shared"]["median_ms"]), f"**{ms(b['median_ms'])}**",
                     times(v["cpu-stamp"]["median_ms"] / b["median_ms"]), ms(b.get("with_transfers_ms")),
                     g.cell(b["median_ms"])])
    return table(["case", "cpu-stamp (16 threads)", "gpu-shared (the seed's Algorithm 4)", "gpu-binned",
                  "gpu-binned × cpu-stamp", "gpu-binned host to host", "target"], rows)


def _crowd_rows(c, agents_list=None, targets=None):
    gpu = ["gpu-sort", "gpu-tiled", "gpu-static-grid"]
    agents = sorted({r["params"]["agents"] for r in c.find("cpu-reference")}) if agents_list is None else agents_list
    rows = []
    for n in agents:
        ref = c.one("cpu-reference", agents=n)
        v = {g: c.one(g, agents=n) for g in gpu}
        best = min(r["median_ms"] for r in v.values())
        sg = v["gpu-static-grid"]
        row = [f"{n:,}", ref["params"]["ticks"], ms(ref["median_ms"])] + [ms(v[g]["median_ms"]) for g in gpu] + \
              [times(ref["median_ms"] / best), ms(sg.get("with_transfers_ms")), ms(sg.get("floor_ms"))]
        if targets is not None:
            t = targets.get(n)
            row.append(t.cell(sg["median_ms"]) if t else "")
        rows.append(row)
    return rows


_CROWD_HEAD = ["agents", "ticks", "cpu-reference", "gpu-sort", "gpu-tiled", "gpu-static-grid", "best GPU × CPU",
               "gpu-static-grid host to host", "floor (25 B an agent)"]


def _crowd_targets():  # gpu-static-grid's goals by agents (bench/goals.json)
    return {g.params["agents"]: g for g in (goal("crowd-1m"), goal("crowd-16m"))}


@block("crowd")
def crowd(load):
    c = load("h200/crowd.json")
    return table(_CROWD_HEAD + ["target"], _crowd_rows(c, None, _crowd_targets()))


@block("crowd-summary")
def crowd_summary(load):
    c = load("h200/crowd.json")
    return table(_CROWD_HEAD + ["target"], _crowd_rows(c, [100000, 1000000, 16000000], _crowd_targets()))


@block("crowd-avoid")
def crowd_avoid(load):
    """Avoid (movement for games): the random-walk grid, then the standard scenarios."""
    c = load("h200/crowd.json")
    rows = []
    # One size of agent (no min_radius), then agents of several sizes (radii from min_radius to R).
    for mixed in (False, True):
        walk = [r for r in c.find("avoid-cpu-reference", scenario=None) if ("min_radius" in r["params"]) == mixed]
        for n in sorted({r["params"]["agents"] for r in walk}):
            ref = c.one("avoid-cpu-reference", agents=n, scenario=None, min_radius=walk[0]["params"].get("min_radius"))
            g = c.maybe("avoid-gpu-static-grid", agents=n, scenario=None, min_radius=ref["params"].get("min_radius"))
            t = None if mixed else {g.params["agents"]: g for g in (goal("avoid-10k"), goal("avoid-1m"))}.get(n)
            label = f"{n:,} agents, random goals" + (
                f", radii {ref['params']['min_radius']:g} to {ref['params']['radius']:g}" if mixed else "")
            rows.append([label, ref["params"]["ticks"], ms(ref["median_ms"]),
                         ms(g["median_ms"]) if g else "-", times(ref["median_ms"] / g["median_ms"]) if g else "-",
                         ms(g.get("floor_ms")) if g else "-",
                         t.cell(g["median_ms"]) if g and t else ""])
    out = table(["case", "ticks", "cpu-reference (16 threads)", "gpu-static-grid", "GPU × CPU",
                 "floor (29 B an agent)", "target"], rows)
    rows = []
    own = {"bottleneck": 1.1, "corridor": 3.0, "crossing": 5.0}  # each scenario's own lattice pitch (x 2R)

    def at(variant, name, sp):  # the record of a scenario at a spacing (none given: the scenario's own)
        hits = [r for r in c.find(variant, scenario=name) if r["params"].get("spacing", own[name]) == sp]
        assert len(hits) <= 1, f"{variant} {name} spacing {sp}: {len(hits)} records"
        return hits[0] if hits else None

    for name in own:
        # The scenario at its own spacing first, then denser ones.
        spacings = {r["params"].get("spacing", own[name]) for r in c.find("avoid-cpu-reference", scenario=name)}
        for sp in sorted(spacings, key=lambda v: (v != own[name], -v)):
            ref, g = at("avoid-cpu-reference", name, sp), at("avoid-gpu-static-grid", name, sp)
            flow = f"{ref['flow_per_tick']:.2f} a tick (ideal {ref['ideal_flow']:.2f}: {ref['flow_per_tick'] / ref['ideal_flow']:.0%})" \
                if name == "bottleneck" else "-"
            rows.append([f"{name}, pitch {sp:g} × 2R", f"{ref['params']['agents']:,}", f"{ref['ticks']:,}",
                         "yes" if ref["drained"] else "**no**", flow, ref["overlaps"] + ref["wall_crossings"],
                         ms(ref["median_ms"]), ms(g["median_ms"]) if g else "-", "yes" if g and g["checked"] else "-"])
    return out + [""] + table(["scenario", "agents", "ticks to drain", "drained", "flow through the gap",
                               "overlaps + wall crossings", "cpu-reference a tick", "gpu-static-grid a tick",
                               "GPU = CPU every tick"], rows)



@block("spot-checks")
def spot_checks(load):
    """The field's quick run: its scale case alone."""
    f = load("h200/field-only-scale.json")
    rows = []
    v = {r["variant"]: r for r in f.find(case="scale")}
    if "cpu-stamp" not in v or "gpu-binned" not in v:
        raise Missing(f"{f.path}: no cpu-stamp and gpu-binned records of the scale case")
    p = v["gpu-binned"]["params"]
    rows.append([f"field {p['resolution']}², {p['entities']:,} entities of radius {p['radius']}",
                 f"{ms(v['cpu-stamp']['median_ms'])} (cpu-stamp)", f"{ms(v['gpu-binned']['median_ms'])} (gpu-binned)",
                 times(v["cpu-stamp"]["median_ms"] / v["gpu-binned"]["median_ms"]),
                 ms(v["gpu-binned"].get("with_transfers_ms")), f.cite()])
    return table(["case", "CPU (16 threads)", "GPU", "GPU × CPU", "GPU host to host", "results"], rows)


@block("aoi")
def aoi(load):
    a = load("h200/aoi.json")
    goals = {g.params["clients"]: g for g in (goal("aoi-512k"), goal("aoi-1m"))}
    rows = []
    clients = sorted({r["params"]["clients"] for r in a.find("gpu-fast", map=2500, aoi=10)})
    for n in [n for n in clients if n >= 131072]:
        g = a.one("gpu-fast", clients=n, map=2500, aoi=10)
        c = a.one("cpu-fast", clients=n, map=2500, aoi=10)
        # gpu-sorted (named gpu-seed in results measured before the rename)
        s = a.maybe("gpu-sorted", clients=n, map=2500, aoi=10) or a.maybe("gpu-seed", clients=n, map=2500, aoi=10)
        rows.append([f"{n:,}", big(g["notifications_per_tick"]), ms(c["median_ms"]) if c else "–",
                     ms(s["median_ms"]) if s else "–", f"**{ms(g['median_ms'])}**",
                     f"{sig(g['logic_ms'])} / {sig(g['sort_ms'])} / {sig(g['query_ms'])}",
                     times(c["median_ms"] / g["median_ms"]) if c else "–", ms(g["floor_ms"]),
                     f"{ms(g['download_ms'])} ({sig(g['download_floor_ms'])})",
                     goals[n].cell(g["median_ms"]) if n in goals else ""])
    return table(["clients (map 2500², AOI 10)", "notifications a tick", "cpu-fast (16 threads)", "gpu-sorted",
                  "gpu-fast", "gpu-fast: logic / sort / query (ms)", "gpu-fast × cpu-fast", "floor",
                  "download (its floor)", "goal"], rows)


@block("ddm")
def ddm(load):
    d = load("h200/ddm.json")
    rows = []
    for alpha in sorted({r["params"]["alpha"] for r in d.find("gpu-grid", regions=1000000)}):
        c, g = d.one("cpu-sort", regions=1000000, alpha=alpha), d.one("gpu-grid", regions=1000000, alpha=alpha)
        rows.append([f"α = {alpha:g}", count(g["pairs"]), ms(c["match_ms"]), ms(g["match_ms"]),
                     times(c["match_ms"] / g["match_ms"]), ms(c["median_ms"]), f"**{ms(g['median_ms'])}**",
                     ms(g["step_transfer_and_device_ms"]),
                     f"{ms(g['step_host_ms'])} ({ms(g['step_update_ms'])})",
                     goal("ddm-step").cell(g["median_ms"])])
    return table(["1,000,000 regions", "pairs", "full match cpu-sort", "full match gpu-grid", "×",
                  "step cpu-sort", "step gpu-grid", "of which transfers + device", "host (batch update)",
                  "step goal"], rows)


@block("nav")
def nav(load):
    """docs/nav.md: every map and goal count, the CPU and the GPU on the same goals, with the issue's goals."""
    n = load("h200/nav.json")
    goals = {(g.params["width"], g.params["goals"]): g for g in (goal("nav-one-goal"), goal("nav-64-goals"),
                                                                   goal("nav-4096"))}
    rows = []
    for g in n.find("gpu"):
        p = g["params"]
        c = n.one("cpu-1-thread" if p["goals"] == 1 else "cpu-threads", map=p["map"], width=p["width"],
                  goals=p["goals"])
        limit = goals.get((p["width"], p["goals"]))
        threads = "1 thread" if p["goals"] == 1 else f"{c['params']['threads']} threads"
        rows.append([f"{p['map']} {p['width']}²", count(p["goals"]), f"{ms(c['median_ms'])} ({threads})",
                     f"**{ms(g['median_ms'])}**", ms(g["call_ms"]), times(c["median_ms"] / g["median_ms"]),
                     count(g["tiles_relaxed"]), ms(g["floor_ms"]),
                     limit.cell(g["median_ms"]) if limit else "",
                     "equal" if g["checked"] else "DIFFER"])
    out = table(["map", "goals", "CPU (Dijkstra)", "GPU (device)", "GPU call (copies included)", "GPU speed-up",
                 "tile relaxations", "floor", "goal", "every field against the CPU's"], rows)
    # The many goals as one goal set, a million units steered by its field, and the 100-cell updates.
    sets = []
    for g in n.find("gpu-goal-set"):
        p = g["params"]
        c = n.one("cpu-goal-set", map=p["map"], width=p["width"], goals=p["goals"])
        gs = n.one("gpu-steer", map=p["map"], width=p["width"], goals=p["goals"])
        cs = n.one("cpu-steer", map=p["map"], width=p["width"], goals=p["goals"])
        sets.append([f"{p['map']} {p['width']}²", count(p["goals"]), f"{ms(c['median_ms'])} (1 thread)",
                     f"**{ms(g['median_ms'])}**", times(c["median_ms"] / g["median_ms"]), count(g["tiles_relaxed"]),
                     "equal" if g["checked"] else "DIFFER", f"{ms(cs['median_ms'])} (1 thread)",
                     f"**{ms(gs['median_ms'])}**", times(cs["median_ms"] / gs["median_ms"]), ms(gs["floor_ms"]),
                     "equal" if gs["checked"] else "DIFFER"])
    ups = []
    for g in n.find("gpu-update"):
        p = g["params"]
        c = n.one("cpu-update", map=p["map"], width=p["width"])
        ups.append([f"{p['map']} {p['width']}²", ms(c["median_ms"]), f"**{ms(g['median_ms'])}**",
                    sig(g["tiles_relaxed_per_round"]), goal("nav-update").cell(g["median_ms"]),
                    "equal" if g["checked"] and c["checked"] else "DIFFER"])
    return (out + ["", "One goal set (the many goals above as one field) and a million units steered by it:", ""] +
            table(["map", "goals in the set", "CPU goal set", "GPU goal set (device)", "speed-up", "tile relaxations",
                   "against the CPU's", "1M units steered, CPU", "GPU (steer_device)", "speed-up", "floor",
                   "against the CPU's"], sets) +
            ["", "A 10 × 10 square toggled between wall and ground, one goal's field brought up to date (median of "
             "20 rounds):", ""] +
            table(["map", "CPU (NavFields::update)", "GPU (DeviceNavField::update, device)",
                   "tile relaxations a round", "goal", "final field against a full computation"], ups))


@block("demo-battle")
def demo_battle(load):
    b = load("h200/demo-battle.json")
    rows = []
    for r in b.runs:
        m = r["median_ms"]
        rows.append([r.get("label", r["backend"]), r["ticks"], ms(m["field"]), ms(m["decisions"]), ms(m["crowd"]),
                     ms(m["combat"]), ms(m["nav"]) if "nav" in m else "–", f"**{ms(m['tick'])}**",
                     sig(r["ticks_per_s"]), ms(m["render"]), sig(r["ticks_per_s_with_render"]), r["overlaps"]])
    out = table(["backend, sight, heat map", "ticks", "field", "decisions", "crowd", "combat",
                 "navigation fields (every 4th tick)", "tick", "ticks/s", "render / frame", "ticks/s with rendering",
                 "overlaps"], rows)
    lines = []
    for g in (goal("battle-sight-10"), goal("battle-sight-20")):
        label = g.run["label"]
        r = b.run(label=label)
        lines.append(f"{label}: {ms(r['median_ms']['tick'])} a tick (goal {g.cell(r['median_ms']['tick'])})")
    return out + ["", "Goals: " + "; ".join(lines) + "."]


@block("server-virtual")
def server_virtual(load):
    v = load("h200/server-virtual.json")
    rows = []
    for r in sorted(v.runs, key=lambda r: (r["backend"] != "cuda", r["clients"])):
        s = r["stages_ms"]
        aoi_stage = sig(s["aoi"])
        if r["backend"] == "cuda":
            aoi_stage += (f" ({sig(s['aoi_upload'])} / {sig(s['aoi_query'])} / {sig(s['aoi_visibility'])} / "
                          f"{sig(s['aoi_download'])})")
        backend = r["backend"] if r["backend"] == "cuda" else f"cpu ({r['threads']} threads)"
        rows.append([f"{r['clients']:,}", backend, r["ticks"],
                     f"**{sig(r['tick_ms']['p50'])}** / {sig(r['tick_ms']['p99'])}", sig(s["commands"]), aoi_stage,
                     sig(s["messages"]), sig(r["intake_ms"]["p50"]),
                     f"{big(r['notifications_per_tick'])} / {big(r['messages_per_tick'])} / "
                     f"{sig(r['bytes_per_tick'] / 1e6)}"])
    out = table(["clients", "backend", "ticks", "tick p50 / p99", "commands", "AOI module (GPU: up / query / "
                 "visibility / down)", "messages", "intake (between ticks)", "entries / messages / MB a tick"], rows)
    g = v.run(backend="cuda", clients=1000000)
    c = v.run(backend="cpu", clients=1000000)
    return out + ["", f"Times in ms (medians of the stages). At 1,000,000 clients the GPU tick is "
                      f"{ms(g['tick_ms']['p50'])} against {ms(c['tick_ms']['p50'])} on the CPU backend "
                      f"({times(c['tick_ms']['p50'] / g['tick_ms']['p50'])}); the goal, "
                      f"{goal('server-1m').cell(g['tick_ms']['p50'])}."]


@block("server-sockets")
def server_sockets(load):
    s = load("h100/server-sockets.json")
    rows = []
    runs = s.runs
    for i, r in enumerate(runs):
        if r.get("program") == "warpmind-bots":
            srv = next((x for x in runs[i + 1:] if x.get("program") == "warpmind-server"), None)
            if srv is None:
                raise Missing(f"{s.path}: no server run after the bots run of {r['bots']} bots")
            rows.append([f"one server, {r['bots']:,} bots", f"{r['joined']:,}, {r['players_lost']:,}",
                         f"{sig(srv['tick_ms']['p90'])} / {sig(srv['tick_ms']['p99'])} ms", srv["late_ticks"],
                         f"{sig(r['rtt_ms']['p50'])} / {sig(r['rtt_ms']['p99'])} ms",
                         f"{r['ticks_checked']:,} ticks, {r['states_checked']:,} states, "
                         f"{r['inconsistencies']:,} inconsistencies"])
        elif r.get("program") == "cluster":
            c = r["cluster"]
            grid = r.get("rows", 1)
            where = f"{grid} × {r['zones'] // grid}" if grid > 1 else "strips"
            where += ", a network namespace each" if r.get("netns") else ""
            if c["joined"] is None:  # the bots wrote no summary: the run did not happen
                rows.append([f"`scripts/cluster.sh`, {r['zones']} zones ({where}), {r['bots']:,} bots",
                             "not run", "–", "–", "–", f"the bots stopped: {r.get('bots_error') or 'no summary'}"])
                continue
            rows.append([f"`scripts/cluster.sh`, {r['zones']} zones ({where}), {r['bots']:,} bots",
                         f"{c['joined']:,}, {c['players_lost']:,} ({c['players_duplicated']:,} duplicated)",
                         f"zones' worst p99 {sig(r['zone_tick_p99_ms'])} ms", "–", "–",
                         f"{c['ticks_checked']:,} ticks, {c['states_checked']:,} states, "
                         f"{c['inconsistencies']:,} inconsistencies; {big(r['relayed'])} relayed"])
    if not rows:
        raise Missing(f"{s.path}: no bots or cluster runs")
    return table(["run", "joined, lost", "server tick p90 / p99", "late ticks", "bots' rtt p50 / p99",
                  "checked by the bots"], rows)


@block("server-kill")
def server_kill(load):
    s = load("h100/server-kill.json")
    rows = []
    for r in s.runs:
        if r.get("program") != "cluster" or not r.get("kill"):
            continue
        c, k = r["cluster"], r["kill"]
        when = f"tick {k['at_tick']} (its message sent)" if k.get("at_tick") else f"SIGKILL at {sig(k['at_s'])} s"
        rows.append([f"{r['zones']} zones, {r['bots']:,} bots", f"zone {k['zone']}, {when}",
                     f"{k['restart_ms']:,} / {sig(k['restore_ms'])} ms", f"{k['crash_resumes']:,}",
                     f"{sig(k['outage_ms'])} ms",
                     f"{c['joined']:,}, {c['players_lost']:,}, {c['players_duplicated']:,}",
                     f"{c['ticks_checked']:,} ticks, {c['states_checked']:,} states, "
                     f"{c['inconsistencies']:,} inconsistencies",
                     f"{r['zone_timeouts']:,}", "true" if r["ok"] else "false"])
    if not rows:
        raise Missing(f"{s.path}: no cluster runs with a kill")
    return table(["run", "killed", "restart / restore", "bots resumed after the crash", "bots' longest wait",
                  "joined, lost, duplicated", "checked by the bots", "zone timeouts", "ok"], rows)
