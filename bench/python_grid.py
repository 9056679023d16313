"""Points per second of llmecon.grid (roofline over batch x context) on 1 and 2 threads, beside
the module's per-call rate, for issue 42's figures.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_grid.py
"""
import time

import llmecon

AXES = {"batch": list(range(1, 2001)), "context": [1024, 4096, 16384, 65536, 131072]}
FIXED = {"model": "llama-3.1-70b", "hw": "h100-sxm"}

llmecon.grid("roofline", batch=[1, 2], **FIXED)  # open the engine once
for threads in (1, 2):
    t = time.perf_counter()
    df = llmecon.grid("roofline", threads=threads, **AXES, **FIXED)
    print(f"grid, {threads} thread(s): {len(df) / (time.perf_counter() - t):.0f} points/s over {len(df)} points")
t = time.perf_counter()
for b in range(1, 2001):
    llmecon.roofline(batch=b, context=4096, **FIXED)
print(f"per call: {2000 / (time.perf_counter() - t):.0f} answers/s")
