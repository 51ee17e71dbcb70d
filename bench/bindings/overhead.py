"""The Python binding's cost per call against the C API's on the same work: a crowd of N agents (100,000
by default) stepped T times, each step once through warpmind.Crowd.step and once through the C API's
wm_crowd_step (ctypes), in one process on the same context settings: the CPU backend (cpu-reference) or
the cuda backend (the crowd's default GPU variant, gpu-static-grid, on both sides). Prints one JSON line.
Usage: PYTHONPATH=<build>/python WARPMIND_C_LIBRARY=<build>/.../libwarpmind_c.so python3 overhead.py [N] [T] [cpu|cuda]"""
import ctypes
import json
import os
import sys
import time

import numpy as np

import warpmind as wm

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
ticks = int(sys.argv[2]) if len(sys.argv) > 2 else 20
backend = sys.argv[3] if len(sys.argv) > 3 else "cpu"
if backend not in ("cpu", "cuda"):
    sys.exit("overhead.py: the backend is cpu or cuda")
side = int(np.ceil(np.sqrt(n)))
start = np.array([[2 * (i % side) + 1, 2 * (i // side) + 1] for i in range(n)], np.float32)
world = (0.0, 0.0, 2.0 * side + 2, 2.0 * side + 2)
rng = np.random.default_rng(1)
proposals = [(start + rng.uniform(-0.6, 0.6, size=start.shape)).astype(np.float32) for _ in range(ticks)]


def per_step(step):
    times = []
    for p in proposals:
        t0 = time.perf_counter()
        step(p)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e3


ctx = wm.Context(backend)
crowd = wm.Crowd(ctx, world, 0.5, variant="cpu-reference" if backend == "cpu" else "auto")
crowd.reset(start)
python_ms = per_step(crowd.step)

lib = ctypes.CDLL(os.environ["WARPMIND_C_LIBRARY"])
c_ctx, c = ctypes.c_void_p(), ctypes.c_void_p()
assert lib.wm_context_create(1 if backend == "cpu" else 2, 0, ctypes.byref(c_ctx)) == 0  # WM_BACKEND_CPU, CUDA
assert lib.wm_crowd_create(c_ctx, *[ctypes.c_float(v) for v in world], ctypes.c_float(0.5), ctypes.byref(c)) == 0
assert lib.wm_crowd_reset(c, start.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(n)) == 0
c_ms = per_step(lambda p: lib.wm_crowd_step(c, p.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(n), None))
print(json.dumps({"binding": "python", "backend": backend, "agents": n, "ticks": ticks, "step_ms": round(python_ms, 4),
                  "c_api_step_ms": round(c_ms, 4), "overhead_ms": round(python_ms - c_ms, 4)}))
