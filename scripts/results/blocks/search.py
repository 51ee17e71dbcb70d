"""Blocks of the search suites: chess, Connect6, perft, tables and the hybrid suite's node counts."""

from ..numbers import count, ms, rate, sig, times
from ..goals import goal
from ..records import Missing, unique
from . import block, table


def _best_cpu(rows):
    """The fastest CPU record of a search's rows with its serial time: (ms, label)."""
    best = (rows[0]["serial_ms"], "serial")
    for r in rows:
        if r["backend"] == "cpu" and r["variant"] != "engine-threads" and r["median_ms"] < best[0]:
            best = (r["median_ms"], r["variant"])
    return best


SEARCHES = [  # (results file, label, depth, pruning, paper's speed-up over its serial search)
    ("h200/chess.json", "chess start, depth 5, no pruning", 5, False, 11.43),
    ("h200/chess.json", "chess start, depth 6, pruning", 6, True, 7.26),
    ("h200/connect6.json", "Connect6 w = 48, depth 4, no pruning", 4, False, 89.95),
    ("h200/connect6.json", "Connect6 w = 48, depth 5, pruning", 5, True, 10.58),
]


def _search(res, depth, pruning):
    """A whole search's records: every row at this depth and pruning, the engine's own search, the
    serial reference's time and nodes, the best GPU row and the best CPU row."""
    rows = [r for r in res.find(experiment="search", depth=depth, pruning=pruning)]
    if not rows:
        raise Missing(f"{res.path}: no search records at depth {depth}, pruning {pruning}")
    gpu = [r for r in rows if r["backend"] == "cuda"]
    if not gpu:
        raise Missing(f"{res.path}: no GPU search record at depth {depth}, pruning {pruning}")
    best_gpu = min(gpu, key=lambda r: r["median_ms"])
    engine = [r for r in rows if r["variant"] == "engine-threads"]
    return rows, best_gpu, engine[0] if engine else None


def _gpu_label(r):
    p = r["params"]
    if r["variant"] == "minimax-gpu":
        return "device-resident"
    if r["variant"] == "subtrees-gpu":
        return f"{p['subtree_plies']}-ply subtrees"
    if r["variant"] == "subtrees-gpu-ab":
        return f"{p['subtree_plies']}-ply subtrees, alpha-beta below their first ply"
    return "hybrid, GPU batches"


def _best_of(rows, variant):
    found = [r for r in rows if r["variant"] == variant]
    return min(found, key=lambda r: r["median_ms"]) if found else None


@block("search")
def search(load):
    rows = []
    for rel, label, depth, pruning, paper in SEARCHES:
        s = load(rel)
        srows, best_gpu, engine = _search(s, depth, pruning)
        serial = best_gpu["serial_ms"]
        cpu_ms, cpu_what = _best_cpu(srows)
        hp, hg, sp = (_best_of(srows, v) for v in ("hybrid-cpu-pool", "hybrid-gpu", "subtrees-cpu-pool"))
        n_ratio = best_gpu.get("ratio")
        rows.append([label, ms(serial), ms(hp["median_ms"]) if hp else "–", ms(hg["median_ms"]) if hg else "–",
                     ms(sp["median_ms"]) if sp else "–", f"{ms(best_gpu['median_ms'])} ({_gpu_label(best_gpu)})",
                     times(serial / best_gpu["median_ms"]),
                     f"{times(cpu_ms / best_gpu['median_ms'])} ({cpu_what})",
                     sig(n_ratio) if n_ratio is not None else "–",
                     f"{ms(engine['median_ms'])} ({count(engine['nodes'])} nodes)" if engine else "–",
                     f"{paper:g}×"])
    return table(["search", "serial (one thread)", "hybrid, pool", "hybrid, GPU batches", "subtrees, pool",
                  "GPU, best", "GPU × serial", "GPU × best CPU row", "N_GPU / N_serial",
                  "engine's own search, 16 threads", "paper (× serial)"], rows)


@block("search-split")
def search_split(load):
    rows = []
    for rel, label, depth, pruning, _ in SEARCHES:
        if not pruning:
            continue
        s = load(rel)
        srows, _best, _engine = _search(s, depth, pruning)
        sub = [r for r in srows if r["variant"] in ("subtrees-gpu", "subtrees-gpu-ab")]
        if not sub:
            raise Missing(f"{s.path}: no subtrees-gpu record at depth {depth}")
        for r in sorted(sub, key=lambda r: (r["variant"], r["params"]["subtree_plies"], r["params"]["l_max"])):
            p = r["params"]
            k = p["subtree_plies"]
            tail = p.get("subtree_tail", 0)
            rows.append([label, f"{k} (alpha-beta below the first)" if tail else k, count(p["l_max"]), ms(r["median_ms"]),
                         f"{count(r['leaf_batches'])}: {ms(r['subtree_ms'])} ({ms(r['device_ms'])})",
                         f"{count(r['branch_batches'])}: {ms(r['branch_ms'])}", ms(r["driver_ms"]),
                         count(r["n_hybrid"]), sig(r["ratio"]), rate(r["nodes_per_s"])])
    return table(["search", "k (subtree plies)", "Lmax = Bmax", "GPU time", "subtree batches: time (on the device)",
                  "branch batches: time", "driver", "nodes", "N_GPU / N_serial", "nodes a second"], rows)


@block("search-batches")
def search_batches(load):
    rows = []
    for rel, game in (("h200/chess.json", "chess"), ("h200/connect6.json", "Connect6")):
        res = load(rel)
        for experiment, what in (("leaf", "leaf evaluation"), ("branch", "branch calculation")):
            sizes = sorted({r["params"]["batch"] for r in res.find(experiment=experiment)})
            if not sizes:
                raise Missing(f"{res.path}: no {experiment} batch records")
            for n in (sizes[0], sizes[-1]):
                one = res.one("cpu-1-thread", experiment=experiment, batch=n)
                pool = res.one("cpu-pool", experiment=experiment, batch=n)
                gpu = res.maybe("gpu", experiment=experiment, batch=n)
                rows.append([f"{game} {what}", f"{n:,}", ms(one["median_ms"]), ms(pool["median_ms"]),
                             ms(gpu["median_ms"]) if gpu else "–",
                             times(one["median_ms"] / gpu["median_ms"]) if gpu else "–"])
    return table(["batch", "positions", "one thread", "pool (16 threads)", "GPU", "GPU × one thread"], rows)


@block("search-resident")
def search_resident(load):
    rows = []
    for rel, label, depth, pruning, paper in SEARCHES:
        if pruning:
            continue
        s = load(rel)
        r = s.one("minimax-gpu", experiment="search", depth=depth, pruning=False)
        rows.append([label.replace(", no pruning", ""), count(r["n_hybrid"]), ms(r["serial_ms"]), ms(r["median_ms"]),
                     times(r["serial_ms"] / r["median_ms"]), f"{paper:g}×"])
    return table(["search", "nodes", "serial (one thread)", "device-resident", "× serial",
                  "paper (hybrid, × serial)"], rows)


@block("perft")
def perft(load):
    p = load("h200/chess.json")
    goals = {(g.variant, g.params["position"], g.params["depth"]): g
             for g in (goal("perft-start"), goal("perft-kiwipete"), goal("perft-start-tt"))}
    rows = []
    for variant, what in (("perft-cpu", "CPU, 16 threads"), ("perft-gpu", "GPU"),
                          ("perft-gpu-tt", "GPU, transposition table")):
        for r in p.find(variant, experiment="perft"):
            k = (r["params"]["position"], r["params"]["depth"])
            g = goals.get((variant,) + k)
            rows.append([what, f"{k[0]}, {k[1]}", count(r["nodes"]), ms(r["median_ms"]), rate(r["nodes_per_s"]),
                         g.cell(r[g.field]) if g else ""])
    if not rows:
        raise Missing(f"{p.path}: no perft records")
    return table(["backend", "position, depth", "nodes", "time", "nodes a second", "goal"], rows)


def _hybrid_modes():
    return (("plain", False, 1), ("first child first", True, 1), ("CUT nodes one by one", True, 1 << 20))


def _hybrid_table(h, game_filter):
    keys = unique((p["game"], p["position"], p["depth"]) for p in (r["params"] for r in h.records)
                  if game_filter(p["game"]))
    limits = sorted({r["params"]["l_max"] for r in h.records})
    rows = []
    for game, position, depth in keys:
        first = True
        for mode, fcf, cut in _hybrid_modes():
            recs = {r["params"]["l_max"]: r for r in h.find(game=game, position=position, depth=depth,
                                                              first_child_first=fcf, cut_one_by_one=cut)}
            if not recs:
                raise Missing(f"{h.path}: no {mode} records of {game} {position} depth {depth}")
            n_serial = next(iter(recs.values()))["n_serial"]
            cells = []
            for lim in limits:
                r = recs.get(lim)
                if r is None:
                    cells.append("–")
                elif not r.get("checked"):
                    cells.append("not measured")
                else:
                    cells.append(f"{sig(r['ratio'])}×" + (f" ({sig(r['mean_leaf_batch'])})" if lim == limits[-1] else ""))
            name = f"{game} {position}, depth {depth}" if first else ""
            rows.append([name, mode, count(n_serial) if first else ""] + cells)
            first = False
    head = ["game, position, depth", "mode", "N_serial"] + \
           [f"{lim:,}" if lim != limits[-1] else "everything at once (mean leaf batch)" for lim in limits]
    return table(head, rows)


@block("hybrid")
def hybrid(load):
    return _hybrid_table(load("cpu/hybrid.json"), lambda g: True)


@block("hybrid-w48")
def hybrid_w48(load):
    return _hybrid_table(load("cpu/hybrid-w48-d5.json"), lambda g: g == "connect6")


@block("tables")
def tables(load):
    """search_many: per game and depth, the CPU threads' row and every GPU row (tail)."""
    t = load("h200/tables.json")
    keys = unique((r["params"]["game"], r["params"]["depth"], r["params"]["tables"]) for r in t.records)
    rows = []
    for game, depth, n in keys:
        cpu = t.find("cpu-threads", game=game, depth=depth, tables=n)
        gpu = [r for r in t.records if r["backend"] == "cuda" and r["params"]["game"] == game
               and r["params"]["depth"] == depth and r["params"]["tables"] == n]
        if not cpu or not gpu:
            raise Missing(f"{t.path}: {game} depth {depth} lacks its CPU or GPU rows")
        c = cpu[0]
        what = f"{game}, depth {depth}" + (f", w = {c['params']['width']}" if game == "connect6" else "")
        rows.append([what, count(n), f"CPU, {c['params']['threads']} threads", ms(c["median_ms"]),
                     count(round(c["moves_per_s"])), count(c["nodes"]), "", ""])
        for r in gpu:
            how = (f"GPU, by levels, tail {r['params']['tail']}" if game == "chess"
                   else "GPU, whole trees")
            rows.append(["", "", how, ms(r["median_ms"]),
                         count(round(r["moves_per_s"])), count(r["nodes"]), times(r["x_cpu"]),
                         "all equal" if r.get("checked") else f"{r['mismatches']} differ"])
    return table(["positions", "tables", "search", "time", "moves a second", "nodes", "× CPU",
                  "GPU moves and values against the CPU's"], rows)


@block("training")
def training(load):
    """The chess networks trained on a GPU: their shape, data, time and held-out loss."""
    res = load("h100/training.json")
    rows = []
    for r in res.find(variant="chess-network"):
        p = r["params"]
        shape = f"{p['hidden']}, {p['buckets']} king bucket{'s' if p['buckets'] > 1 else ''}"
        shape += ", residual" if p["residual"] else ""
        rows.append([p["name"] + (" (built in)" if r["built_in"] else ""), shape, count(r["records"]),
                     str(r["epochs"]), f"{sig(r['train_seconds'])} s", f"{r['held_out_loss']:.5f}",
                     f"{r['quantisation_mean_abs_cp']:.2f} cp"])
    gen = res.one(variant="chess-datagen")
    p = gen["params"]
    return table(["network", "accumulator", "records", "epochs", f"time ({res.device})", "held-out loss",
                  "integers vs model"], rows) + [
        "", f"Labelling on {p['threads']} threads (Stockfish at {p['nodes']} nodes a move): "
        f"{count(gen['labelled_positions'])} positions in {sig(gen['seconds'])} s, "
        f"{count(gen['positions_per_second'])} a second."]
