"""warpmind from Python, as a tool would use it: two armies' potential fields over a map, the red army's
attraction minus its exposure to the blue army's fire, drawn as a heat map with matplotlib and saved as a
PNG. Exits 1 if the image was not written or the field is flat.

    PYTHONPATH=<prefix>/lib/python3/dist-packages python3 examples/python/heatmap.py [OUT.png]
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import warpmind as wm  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "warpmind-heatmap.png"
ctx = wm.Context()
rng = np.random.default_rng(7)

# Two kinds of charge: blue units' weapons reach 24 world units (value 24 - d, a threat), the objective
# attracts across the map (value 256 - d). Layer 0 sums the threat of group 1 (blue); layer 1 the
# objective's pull (group 2).
threat = wm.ChargeKind("threat", [(24.0, -1.0, 24.0)])
pull = wm.ChargeKind("pull", [(256.0, -1.0, 256.0)])
field = wm.Field(ctx, world=(0, 0, 256, 256), size=(256, 256), kinds=[threat, pull], layers=[[(1, 0)], [(2, 1)]])
blue = rng.normal([170, 150], [18, 30], size=(300, 2)).clip(0, 255)
objective = np.array([[200.0, 220.0]])
positions = np.vstack([blue, objective]).astype(np.float32)
groups = np.array([1] * len(blue) + [2], np.uint32)
field.build(positions, groups)

# What a red unit weighs: the pull towards the objective minus half the threat at each cell.
score = field.layer(1) - 0.5 * field.layer(0)
fig, ax = plt.subplots(figsize=(6, 5.2), dpi=100)
im = ax.imshow(score, origin="lower", extent=(0, 256, 0, 256), cmap="viridis")
ax.scatter(blue[:, 0], blue[:, 1], s=2, c="white", label="blue army")
ax.scatter(objective[:, 0], objective[:, 1], s=60, marker="*", c="red", label="objective")
ax.set_title(f"pull - threat / 2 ({ctx.backend})")
ax.legend(loc="lower left", fontsize=8)
fig.colorbar(im, ax=ax, shrink=0.8)
fig.savefig(out)
print(f"wrote {out}: score {score.min():.0f} .. {score.max():.0f}")
if not os.path.getsize(out) or score.max() - score.min() < 1.0:
    sys.exit(1)
