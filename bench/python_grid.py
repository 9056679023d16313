"""A 10^6-point roofline grid (batch x context) into a pandas DataFrame on 1 and 2 threads, beside
the module's per-call rate and, in the same run, llm-analysis's per-answer rate when it imports
(issue 42's figures). Each figure is the best of three rounds, the tools measured in turn.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_grid.py
    # with llm-analysis beside it: a checkout of github.com/cli99/llm-analysis and Debian's python3-fire
    PYTHONPATH=build/release/python:/path/to/llm-analysis /usr/bin/python3 bench/python_grid.py
"""
import logging
import time

import llmecon

AXES = {"batch": list(range(1, 200001)), "context": [1024, 4096, 16384, 65536, 131072]}
FIXED = {"model": "llama-3.1-70b", "hw": "h100-sxm"}


def rate(n, seconds):
    return f"{n / seconds:,.0f}/s"


llmecon.grid("roofline", batch=[1, 2], **FIXED)  # open the engine once
# Each rate is the best of ROUNDS, the tools measured in turn, so a busy moment of the machine
# slows one round of each rather than one tool.
ROUNDS = 3
try:
    from llm_analysis.analysis import infer
except ImportError:
    infer = None
    print("llm-analysis: not importable here (put a checkout on PYTHONPATH, with python3-fire)")
else:
    logging.disable(logging.WARNING)
    kw = dict(model_name="upstage_Llama-2-70b-instruct-v2", gpu_name="h100-sxm-80gb", dtype_name="w16a16e16",
              tp_size=8, num_tokens_to_generate=1, log_level="ERROR")
    infer(batch_size_per_gpu=1, seq_len=4096, **kw)

best = {1: 0.0, 2: 0.0}
la = 0.0
for _ in range(ROUNDS):
    for threads in (1, 2):
        t = time.perf_counter()
        df = llmecon.grid("roofline", threads=threads, **AXES, **FIXED)
        s = time.perf_counter() - t
        best[threads] = max(best[threads], len(df) / s)
        print(f"grid, {threads} thread(s): {len(df):,} points into a DataFrame in {s:.2f} s ({rate(len(df), s)}),"
              f" {int(df['feasible'].sum()):,} feasible")
        del df
    if infer is not None:
        t = time.perf_counter()
        for b in range(1, 301):
            infer(batch_size_per_gpu=b, seq_len=4096, **kw)
        la = max(la, 300 / (time.perf_counter() - t))

t = time.perf_counter()
for b in range(1, 2001):
    llmecon.roofline(batch=b, context=4096, **FIXED)
per_call = 2000 / (time.perf_counter() - t)
print(f"best of {ROUNDS}: grid {rate(1, 1 / best[1])} on 1 thread, {rate(1, 1 / best[2])} on 2")
print(f"llmecon.roofline per call: {per_call:,.0f} answers/s; the 1-thread grid is {best[1] / per_call:.0f}x")
if infer is not None:
    print(f"llm-analysis infer per call (Llama-2-70B, 8 x H100), best of {ROUNDS}: {la:,.0f} answers/s;"
          f" the grid is {best[1] / la:.0f}x on 1 thread, {best[2] / la:.0f}x on 2")
