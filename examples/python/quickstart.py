"""warpmind from Python: a squad walks to a rally point over a potential field with the crowd solver
keeping its members apart, then the chess engine plays a short game against itself. Exits 1 if the squad
did not arrive or the game stopped early.

    PYTHONPATH=<prefix>/lib/python3/dist-packages python3 examples/python/quickstart.py
"""
import sys

import numpy as np

import warpmind as wm

ctx = wm.Context()  # the GPU when one is usable, else the CPU threads
print(f"warpmind {wm.__version__} on the {ctx.backend}")

# One layer: the rally point (group 0) attracts up to 200 world units away (value 200 - d, highest there).
attract = wm.ChargeKind("rally", [(200.0, -1.0, 200.0)])
field = wm.Field(ctx, world=(0, 0, 128, 128), size=(128, 128), kinds=[attract], layers=[[(0, 0)]])
field.build(np.array([[100.0, 100.0]], np.float32), np.array([0], np.uint32))

# A squad of 40 in a block near the corner; each tick every member proposes the best cell of its 3 x 3
# window and the solver accepts the moves that keep everyone apart.
squad = np.array([[10 + 2 * (i % 8), 10 + 2 * (i // 8)] for i in range(40)], np.float32)
crowd = wm.Crowd(ctx, world=(0, 0, 128, 128), radius=0.5)
crowd.reset(squad)
for tick in range(200):
    _, targets, _ = field.best_move(0, crowd.positions, 3)
    crowd.step(targets)
distance = np.linalg.norm(crowd.positions - [100, 100], axis=1)
print(f"after 200 ticks the squad is {distance.mean():.1f} units from the rally point on average")

# A short chess game: the engine plays both sides at depth 4 for 20 plies (or to the end of the game).
chess = wm.Chess(ctx, hash_mb=16)
played = []
for ply in range(20):
    chess.set_position(moves=" ".join(played))
    move = chess.search(depth=4)["move"]
    if not move:
        break
    played.append(move)
print("chess:", " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(played)))
sys.exit(0 if distance.mean() < 15 and len(played) >= 10 else 1)
