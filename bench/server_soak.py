"""A bounded soak of `llmecon serve` under concurrent simulate and train requests (issue 43): the
cheap request's p99 latency while the long ones run, as a ratio to the same request idle, the
requests served and refused (503 when the compute queue is full is an answer, not a failure),
and the server's resident memory before, at its peak and after the load, over two rounds (a plateau, not
growth, is what bounded memory looks like).

    /usr/bin/python3 bench/server_soak.py [LLMECON_BINARY] [SECONDS] [--check]

It times this machine, so it is a benchmark. With --check (ctest's server_soak, label measure,
outside the default suite) it also asserts what must hold on any machine: every cheap request
answered 200, every long one 200 or 503, and the second round's resident memory a plateau (at
most 25% and 16 MiB above the first round's peak)."""
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

ARGS = [a for a in sys.argv[1:] if a != "--check"]
CHECK = "--check" in sys.argv[1:]
BIN = os.path.abspath(ARGS[0] if ARGS else "build/release/apps/cli/llmecon")
SECONDS = float(ARGS[1]) if len(ARGS) > 1 else 120
LONG = [
    ("simulate", {"model": "llama-3.1-70b", "hw": "h100-sxm", "requests": 20000, "rate": 8}),
    ("simulate", {"model": "deepseek-v3", "hw": "gb200", "requests": 20000, "rate": 20, "engine": "sglang"}),
    ("train", {"model": "llama-3.1-70b", "hw": "h100-sxm", "chips": 4096}),
    ("train", {"model": "deepseek-v3", "hw": "h100-sxm", "chips": 2048}),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def cheap(port, i):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.monotonic()
    conn.request("GET", f"/api/roofline?model=llama-3.1-8b&hw=h100-sxm&batch={1 + i % 4096}&context={1024 + i}")
    res = conn.getresponse()
    res.read()
    conn.close()
    return res.status, time.monotonic() - start


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def main():
    port = free_port()
    proc = subprocess.Popen([BIN, "serve", "--port", str(port), "--threads", "2", "--cache-bytes", "0"],
                            stderr=subprocess.PIPE, text=True)
    assert "serving on" in proc.stderr.readline()
    try:
        idle = [cheap(port, i)[1] for i in range(200)]
        rss_start = rss_kib(proc.pid)
        rounds = [soak_round(port, proc, idle, round_, rss_start) for round_ in (1, 2)]
        if CHECK:
            for r in rounds:
                assert r["cheap_ok"] == r["cheap"] > 0, r
                assert r["long_other"] == 0 and r["long_ok"] > 0, r
            limit = rounds[0]["peak"] * 1.25 + 16 * 1024
            assert rounds[1]["peak"] <= limit, f"RSS grew: {rounds[1]['peak']} KiB after a first peak of {rounds[0]['peak']}"
            print("check: every cheap request answered, no long one failed, memory a plateau")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def soak_round(port, proc, idle, round_, rss_start):
    """One round of load: the second shows whether memory after the first was a plateau or growth."""
    rss_before = rss_kib(proc.pid)
    stop = time.monotonic() + SECONDS
    counts = {"long_ok": 0, "long_busy": 0, "long_other": 0}
    peak = [rss_before]
    lock = threading.Lock()

    def long_worker(k):
        while time.monotonic() < stop:
            command, args = LONG[k % len(LONG)]
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            conn.request("POST", f"/api/{command}", json.dumps(args))
            res = conn.getresponse()
            res.read()
            conn.close()
            key = "long_ok" if res.status == 200 else "long_busy" if res.status == 503 else "long_other"
            with lock:
                counts[key] += 1
            if res.status == 503:
                time.sleep(0.2)

    workers = [threading.Thread(target=long_worker, args=(k,)) for k in range(8)]
    for w in workers:
        w.start()
    loaded, statuses, i = [], [], 0
    while time.monotonic() < stop:
        status, t = cheap(port, 1000 + i)
        statuses.append(status)
        loaded.append(t)
        peak.append(rss_kib(proc.pid))
        i += 1
        time.sleep(0.05)
    for w in workers:
        w.join()
    time.sleep(2)
    rss_after = rss_kib(proc.pid)
    print(f"round {round_}: {SECONDS:.0f} s, 8 clients sending simulate/train; {counts['long_ok']} long answers, "
          f"{counts['long_busy']} refused busy (503), {counts['long_other']} other")
    print(f"cheap roofline: {len(loaded)} during the soak, {sum(s == 200 for s in statuses)} answered 200; "
          f"p99 {p99(loaded) * 1e3:.1f} ms vs {p99(idle) * 1e3:.1f} ms idle (x{p99(loaded) / p99(idle):.1f})")
    print(f"RSS: {rss_start / 1024:.1f} MiB at start, {rss_before / 1024:.1f} MiB before the round, "
          f"{max(peak) / 1024:.1f} MiB peak, {rss_after / 1024:.1f} MiB after")
    return {"cheap": len(loaded), "cheap_ok": sum(s == 200 for s in statuses), "peak": max(peak), **counts}


if __name__ == "__main__":
    main()
