#!/usr/bin/env python3
"""Bad input to the newer surfaces (simulate, train, scale, tco, traces, workloads, engine and TCO
profiles, outputs), as a careless or hostile user gives it: every case must exit 2 with exactly one
line on stderr that names the flag or the file (and field) to change, print nothing on stdout,
write no file, and finish in bounded time.

The numeric cases come from the command table itself (each bounded flag of these commands below
its minimum, above its maximum, and as text that is no number), so a flag added without bounds
fails here. Usage: hardening_test.py LLMECON DATA_DIR"""
import json
import os
import subprocess
import sys
import tempfile

BIN, DATA = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
COMMANDS = ("simulate", "train", "scale", "tco")
BASE = {
    "simulate": ["--model", "llama-3.1-8b", "--hw", "h100-sxm", "--requests", "20"],
    "train": ["--model", "llama-3.1-8b", "--hw", "h100-sxm"],
    "scale": ["--model", "llama-3.1-8b", "--hw", "h100-sxm"],
    "tco": ["--hw", "h100-sxm"],
}
# Flags whose value another flag must accompany, or that mean a mode; their bounds are checked
# all the same, with what they need added.
NEEDS = {
    ("simulate", "think_s"): ["--concurrency", "4"],
    ("simulate", "prefix_tokens"): ["--rate", "1"],
    ("simulate", "report_stage"): ["--stages", "1:10"],
}


def schema():
    out = subprocess.run([BIN, "commands", "--json"], capture_output=True, text=True, check=True).stdout
    return {c["name"]: c for c in json.loads(out)}


def numeric_cases(table):
    cases = []
    for name in COMMANDS:
        for arg in table[name]["args"]:
            if arg["type"] not in ("number", "integer") or arg["positional"]:
                continue
            flag = arg["flag"]
            base = BASE[name] + NEEDS.get((name, arg["key"]), [])
            lo, hi = arg["min"], arg["max"]
            bad_values = ["abc", "1e", "nan", "inf", "--"]
            if lo is not None:
                bad_values.append(str(lo - max(1.0, abs(lo))) if not arg.get("exclusive_min") else repr(lo))
            if hi is not None:
                bad_values.append(repr(hi * 10 + 10))
            for v in bad_values:
                cases.append((f"{name} {flag} {v}", [name, *base, flag, v], [flag]))
    return cases


def file_cases(tmp):
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    junk = os.path.join(tmp, "junk.bin")
    with open(junk, "wb") as f:
        f.write(bytes(range(256)) * 64)
    empty = os.path.join(tmp, "empty")
    open(empty, "w").close()
    huge = os.path.join(tmp, "huge.csv")
    with open(huge, "wb") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: over the 64 MiB cap without using the disk
    sim = ["simulate"] + BASE["simulate"]
    file_flags = [
        (sim, "--trace"), (sim, "--lengths"), (sim, "--workload"), (sim, "--tco-file"),
        (["tco"] + BASE["tco"], "--tco-file"), (["train"] + BASE["train"], "--hw-file"),
        (["simulate", "--hw", "h100-sxm", "--requests", "20"], "--model"),
        (["scale"] + BASE["scale"], "--price-file"), (["tco"] + BASE["tco"], "--hw-file"),
    ]
    cases = []
    for argv, flag in file_flags:
        for path, what in ((fifo, "fifo"), ("/dev/zero", "device"), (tmp, "directory"), (junk, "binary"),
                           (empty, "empty"), (huge, "over 64 MiB"), (os.path.join(tmp, "missing.toml"), "missing")):
            if what == "empty" and flag == "--tco-file":
                continue  # an empty overlay adds nothing, and is valid TOML
            # The message names the file (or, for --workload's names, the flag).
            cases.append((f"{argv[0]} {flag} {what}", [*argv, flag, path], [path, flag]))
    return cases


def trace_and_workload_cases(tmp):
    def write(name, text):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    sim = ["simulate"] + BASE["simulate"]
    traces = {
        "trace-header-only.csv": "timestamp,input_tokens,output_tokens\n",
        "trace-negative.csv": "timestamp,input_tokens,output_tokens\n0,-5,10\n",
        "trace-text-count.csv": "timestamp,input_tokens,output_tokens\n0,abc,10\n",
        "trace-huge-count.csv": "timestamp,input_tokens,output_tokens\n0,1e12,10\n",
        "trace-backwards.csv": "timestamp,input_tokens,output_tokens\n5,10,10\n1,10,10\n",
        "trace-nan-time.csv": "timestamp,input_tokens,output_tokens\nnan,10,10\n",
        "trace-no-columns.csv": "a,b,c\n1,2,3\n",
        "trace-broken.jsonl": '{"timestamp": 0, "input_length": 10, "output_length"\n',
        "trace-object.jsonl": '[1, 2, 3]\n',
    }
    workloads = {
        "wl-unknown-key.toml": 'name = "x"\nisl = "fixed:100"\nosl = "fixed:10"\nbogus = 1\n',
        "wl-bad-isl.toml": 'name = "x"\nisl = "zipf:3"\nosl = "fixed:10"\n',
        "wl-negative-rate.toml": 'name = "x"\nisl = "fixed:100"\nosl = "fixed:10"\nrate = "-3/s"\n',
        "wl-not-toml.toml": 'name = "x\nisl = \n',
        "wl-wrong-type.toml": 'name = 5\nisl = "fixed:100"\nosl = "fixed:10"\n',
    }
    tcos = {
        "tco-unknown-key.toml": '[[profile]]\nname = "mine"\nbogus = 1\n',
        "tco-negative.toml": '[[profile]]\nname = "mine"\nchips = -4\n',
        "tco-not-toml.toml": '[[profile\n',
        "tco-utilization.toml": '[[profile]]\nname = "mine"\nutilization = 7\n',
    }
    cases = []
    for argv, flag, files in ((sim, "--trace", traces), (sim, "--workload", workloads),
                              (["tco", *BASE["tco"]], "--tco-file", tcos)):
        for name, text in files.items():
            path = write(name, text)
            cases.append((f"{argv[0]} {flag} {name}", [*argv, flag, path], [path]))
    for value in ("nope", "poisson:3", "gamma:0", "gamma:-1", "gamma:1e-300", "gamma:1e300", "gamma:x"):
        cases.append((f"simulate --arrival {value}", [*sim, "--rate", "1", "--arrival", value], ["--arrival"]))
    for flag, value in (("--isl", "lognormal:100"), ("--isl", "uniform:10,5"), ("--osl", "fixed:0"),
                        ("--isl", "normal:1,1e300"), ("--slo", "ttft_p99=2"), ("--slo", "speed=3s"),
                        ("--stages", "1:0"), ("--stages", "x"), ("--shared-prefix", "0x0"),
                        ("--engine", "vllm2"), ("--scheduler", "fifo2"), ("--grid-layouts", "tp3.pp0"),
                        ("--grid-engines", "vllm,nope"), ("--grid-rates", "0,1"), ("--shard", "0/2"),
                        ("--cost", "bought"), ("--mapping", "tp8")):
        extra = ["--rate", "1"] if flag != "--stages" else []
        if flag == "--shard":
            extra += ["--grid-rates", "1,2"]
        cases.append((f"simulate {flag} {value}", [*sim, *extra, flag, value], [flag]))
    return cases


def contradiction_cases(tmp):
    trace = next(os.path.join(DATA, "traces", f) for f in sorted(os.listdir(os.path.join(DATA, "traces")))
                 if f.endswith(".csv"))
    sim = ["simulate"] + BASE["simulate"]
    return [
        ("find-rate with trace", ["simulate", *BASE["simulate"][:4], "--trace", trace, "--find-rate",
                                  "--slo", "ttft_p99=2s"], ["--find-rate"]),
        ("find-rate offline", [*sim, "--offline", "--find-rate", "--slo", "ttft_p99=2s"], ["--find-rate"]),
        ("find-rate closed", [*sim, "--concurrency", "3", "--find-rate", "--slo", "ttft_p99=2s"], ["--find-rate"]),
        ("find-rate grid", [*sim, "--grid-rates", "1,2", "--find-rate", "--slo", "ttft_p99=2s"], ["--find-rate"]),
        ("rate and concurrency", [*sim, "--rate", "1", "--concurrency", "3"], ["--rate"]),
        ("rate and offline", [*sim, "--rate", "1", "--offline"], ["--rate"]),
        ("shard without grid", [*sim, "--rate", "1", "--shard", "1/2"], ["--shard"]),
        ("think without concurrency", [*sim, "--rate", "1", "--think-s", "3"], ["--think-s"]),
        ("prefix longer than prompt", [*sim, "--rate", "1", "--isl", "200", "--prefix-tokens", "300",
                                       "--prefix-hit", "0.5"], ["--prefix-tokens"]),
        ("prefix hit without tokens", [*sim, "--rate", "1", "--prefix-hit", "0.5"], ["--prefix-tokens"]),
        ("trace and trace-text", [*sim, "--trace", trace, "--trace-text", "x"], ["--trace-text"]),
        ("stages and rate", [*sim, "--rate", "1", "--stages", "1:10"], ["--stages"]),
        ("shared prefix and isl", [*sim, "--rate", "1", "--shared-prefix", "4x8:512", "--isl", "100"],
         ["--shared-prefix"]),
        ("grid and simulate grid", [*sim, "--rate", "1,2", "--grid-rates", "1,2", "--grid"], ["--grid-rates"]),
        ("grid no axis", [*sim, "--rate", "1", "--grid"], ["no axis"]),
        ("grid shard alone", ["train", *BASE["train"], "--shard", "1/3"], ["--shard"]),
        ("grid bad shard", ["train", *BASE["train"], "--tp", "1,2", "--grid", "--shard", "3/2"], ["--shard"]),
        ("grid plot", ["tco", *BASE["tco"], "--utilization", "0.5,0.9", "--grid", "--plot",
                       os.path.join(tmp, "g.svg")], ["--plot"]),
        ("train search and tp", ["train", *BASE["train"], "--search", "--tp", "2"], ["--search"]),
        ("train tp past chips", ["train", *BASE["train"], "--tp", "1000000"], ["--tp"]),
        ("train failures", ["train", *BASE["train"], "--mtbf-hours", "1e-9"], ["--mtbf-hours"]),
        ("simulate tp past chips", [*sim, "--rate", "1", "--tp", "1000000"], ["--tp"]),
        ("flag twice", [*sim, "--rate", "1", "--rate", "2"], ["--rate"]),
        ("json and csv", [*sim, "--rate", "1", "--json", "--csv"], ["--json"]),
        ("serve files off loopback", ["serve", "--host", "0.0.0.0", "--allow-files"], ["--allow-files"]),
        ("too many tokens to simulate", ["simulate", "--model", "llama-3.1-8b", "--hw", "h100-sxm", "--rate", "1",
                                         "--requests", "100000000", "--max-requests", "100000000", "--isl", "100000",
                                         "--osl", "100000"], ["past the cap of 100000000000"]),
    ]


def output_cases(tmp):
    sim = ["simulate"] + BASE["simulate"] + ["--rate", "1"]
    return [
        ("plot to /dev/full", ["sweep", "--model", "llama-3.1-8b", "--hw", "h100-sxm", "--plot", "/dev/full"],
         ["/dev/full"]),
        ("trace to /dev/full", [*sim, "--chrome-trace", "/dev/full"], ["/dev/full"]),
        ("out to /dev/full", ["measure", "--quick", "--out", "/dev/full"], ["/dev/full"]),
        ("plot to a directory", [*sim, "--plot", tmp], [tmp]),
        ("plot in a missing directory", [*sim, "--plot", os.path.join(tmp, "no", "such", "x.svg")],
         ["x.svg", "x-time.svg"]),
        ("trace in a missing directory", [*sim, "--chrome-trace", os.path.join(tmp, "no", "t.json")], ["t.json"]),
    ]


def run(name, argv, must_name, workdir):
    before = set(os.listdir(workdir))
    try:
        r = subprocess.run([BIN, *argv], capture_output=True, text=True, timeout=60, cwd=workdir,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"{name}: no answer in 60 s"
    lines = r.stderr.strip().split("\n")
    problems = []
    if r.returncode != 2:
        problems.append(f"exit {r.returncode}")
    if len(lines) != 1 or not lines[0].startswith("llmecon: error: "):
        problems.append(f"{len(lines)} stderr lines")
    if r.stdout:
        problems.append("printed " + r.stdout[:80].replace("\n", " "))
    if not any(m in r.stderr for m in must_name):
        problems.append(f"names none of {must_name}")
    if "Traceback" in r.stderr or "terminate called" in r.stderr:
        problems.append("crashed")
    written = set(os.listdir(workdir)) - before
    if written:
        problems.append(f"wrote {sorted(written)}")
    return f"{name}: {'; '.join(problems)}: {r.stderr.strip()[:300]}" if problems else None


def main():
    table = schema()
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as workdir:
        cases = (numeric_cases(table) + file_cases(tmp) + trace_and_workload_cases(tmp) +
                 contradiction_cases(tmp) + output_cases(tmp))
        before = set(os.listdir(tmp))
        failures = [f for f in (run(n, a, m, workdir) for n, a, m in cases) if f]
        stray = set(os.listdir(tmp)) - before
        if stray:
            failures.append(f"files left beside the inputs: {sorted(stray)}")
    for f in failures:
        print("FAIL:", f)
    print(f"hardening: {len(cases) - len(failures)} of {len(cases)} bad inputs refused cleanly")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
