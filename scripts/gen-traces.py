#!/usr/bin/env python3
"""Writes the small synthetic traces under tests/data/traces/, one per format the simulator reads.

Synthetic: Poisson arrivals at 2 requests/s, lognormal lengths near the Azure 2023 conversation
statistics, a fixed seed. Nothing is downloaded; rerunning gives the same files.
"""
import json
import math
import os
import random

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "traces")
N = 200


def requests(seed):
    rng = random.Random(seed)
    t = 0.0
    for i in range(N):
        t += rng.expovariate(2.0)
        isl = max(1, round(math.exp(math.log(1155) - 0.498**2 / 2 + 0.498 * rng.gauss(0, 1))))
        osl = max(1, round(math.exp(math.log(211) - 0.992**2 / 2 + 0.992 * rng.gauss(0, 1))))
        yield i, t, isl, osl, rng


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "trace.csv"), "w") as f:
        f.write("timestamp_s,input_tokens,output_tokens,prefix_id,prefix_tokens\n")
        for i, t, isl, osl, rng in requests(1):
            pid = rng.randrange(4) if rng.random() < 0.5 else -1
            f.write(f"{t:.6f},{isl},{osl},{max(pid, 0)},{min(512, isl) if pid >= 0 else 0}\n")
    with open(os.path.join(OUT, "azure.csv"), "w") as f:
        f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n")
        for i, t, isl, osl, _ in requests(2):
            whole = int(t)
            h, m, s = 18 + whole // 3600, (15 + whole // 60) % 60, whole % 60
            frac = f"{t - whole:.7f}"[2:]
            f.write(f"2023-11-16 {h:02d}:{m:02d}:{s:02d}.{frac},{isl},{osl}\n")
    with open(os.path.join(OUT, "burstgpt.csv"), "w") as f:
        f.write("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n")
        for i, t, isl, osl, _ in requests(3):
            f.write(f"{t:.3f},ChatGPT,{isl},{osl},{isl + osl},Conversation log\n")
    with open(os.path.join(OUT, "mooncake.jsonl"), "w") as f:
        # One hash per 512 tokens; requests share leading blocks within 8 sessions.
        for i, t, isl, osl, rng in requests(4):
            session = rng.randrange(8)
            blocks = math.ceil(isl / 512)
            hashes = [session * 1000 + b for b in range(blocks)]
            f.write(json.dumps({"timestamp": round(t * 1000), "input_length": isl, "output_length": osl,
                                "hash_ids": hashes}) + "\n")
    with open(os.path.join(OUT, "trace.jsonl"), "w") as f:
        for i, t, isl, osl, _ in requests(5):
            f.write(json.dumps({"timestamp_s": round(t, 6), "input_tokens": isl, "output_tokens": osl}) + "\n")
    with open(os.path.join(OUT, "lengths.csv"), "w") as f:
        f.write("input_tokens,output_tokens\n")
        for i, t, isl, osl, _ in requests(6):
            f.write(f"{isl},{osl}\n")


if __name__ == "__main__":
    main()
