#!/usr/bin/env python3
"""An infeasible answer (docs/cli.md, docs/quantities.md): exit 1, its reason first, and no price,
throughput, duration or energy anywhere for the infeasible point, in text, JSON and CSV.
Usage: infeasible_test.py LLMECON"""
import csv
import io
import json
import re
import subprocess
import sys

BIN = sys.argv[1]

# The JSON key rules of docs/quantities.md (units/analysis.cpp key_kind).
def withheld(key):
    return ("usd" in key or re.search(r"_per_s(_|$)", key) or key in ("mfu", "hfu", "hbm_utilization", "goodput", "failures")
            or "joules" in key or "mwh" in key or "kwh" in key
            or key.endswith(("_s", "_ms", "days", "hours")))

# A price, a throughput or a duration as text prints them.
TEXT = re.compile(r"\$\d|\btok/s\b|\d(\.\d+)? ?(ns|us|ms|s|min|h|days)\b|\bMWh\b|J/tok")

INFEASIBLE = {
    "roofline": ["roofline", "--model", "llama-3.1-405b", "--hw", "h100-sxm", "--chips", "1", "--batch", "8", "--explain"],
    "roofline-range": ["roofline", "--model", "llama-3.1-405b", "--hw", "h100-sxm", "--chips", "1", "--range"],
    "report": ["report", "--model", "llama-3.1-405b", "--hw", "h100-sxm", "--chips", "2"],
    "batch": ["batch", "--model", "llama-3.1-405b", "--hw", "h100-sxm", "--chips", "2"],
    "train": ["train", "--model", "qwen3-235b-a22b", "--hw", "gb200", "--chips", "256", "--tp", "1", "--pp", "4",
              "--ep", "64", "--global-batch", "3072", "--seq-len", "4096", "--micro-batch", "3", "--schedule",
              "interleaved", "--chunks", "6", "--train-dtype", "fp8", "--recompute-modules", "layernorm,moe_act",
              "--explain"],
    "plan": ["plan", "--model", "llama-3.1-405b", "--hw", "h100-sxm", "--chips", "2"],
}

failures = []


def run(args):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def check_json(name, node, path="$"):
    if isinstance(node, dict):
        if node.get("feasible") is False:
            if not node.get("reason"):
                failures.append(f"{name}: {path} is infeasible without a reason")
            bad = [k for k, v in node.items() if withheld(k) and v is not None]
            if bad:
                failures.append(f"{name}: {path} is infeasible and carries {bad}")
        for k, v in node.items():
            check_json(name, v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            check_json(name, v, f"{path}[{i}]")


for name, args in INFEASIBLE.items():
    rc, out, err = run(args)
    if rc != 1:
        failures.append(f"{name}: text exit {rc}, not 1 ({err.strip()[:200]})")
    if "INFEASIBLE" not in out:
        failures.append(f"{name}: the text does not lead with INFEASIBLE")
    # The plan's frontier lists points that fit and miss the SLO, priced: only the lines before it count.
    # The report's hardware line states the chip (its drain time, its rent), not the point.
    head = "\n".join(l for l in out.split("Pareto frontier")[0].splitlines() if not l.startswith("hardware"))
    if TEXT.search(head):
        failures.append(f"{name}: the text prints {TEXT.search(head).group(0)!r} for an infeasible point")
    rc, out, err = run(args + ["--json"])
    if rc != 1:
        failures.append(f"{name}: --json exit {rc}, not 1")
    d = json.loads(out)
    if d.get("feasible") is not False:
        failures.append(f"{name}: the JSON says feasible {d.get('feasible')!r}")
    check_json(name, d)
    # The reason is said once, on the INFEASIBLE line (not again as "best: none (...)").
    reason = d.get("reason") or ""
    rc, text_out, _ = run(args)
    if reason and text_out.count(reason) != 1:
        failures.append(f"{name}: the text says its reason {text_out.count(reason)} times: {reason!r}")

# Rows of a table that do not fit withhold their prices and times; the answer itself stands.
rc, out, _ = run(["sweep", "--model", "llama-3.1-70b", "--hw", "h100-sxm", "--chips", "2", "--batch", "1,64", "--csv"])
rows = list(csv.DictReader(io.StringIO(out)))
if rc != 0 or len(rows) != 2:
    failures.append(f"sweep-csv: exit {rc}, {len(rows)} rows")
else:
    fit, over = rows
    if fit["feasible"] != "true" or not fit["usd_per_mtok_output"] or not fit["t_step_s"]:
        failures.append(f"sweep-csv: the fitting row lost its numbers: {fit}")
    if over["feasible"] != "false" or over["usd_per_mtok_output"] or over["t_step_s"] or not over["reason"]:
        failures.append(f"sweep-csv: the row that does not fit is priced or has no reason: {over}")
rc, out, _ = run(["batch", "--model", "llama-3.1-70b", "--hw", "h100-sxm", "--chips", "8", "--context", "16384", "--json"])
d = json.loads(out)
if rc != 0 or not d["feasible"]:
    failures.append(f"batch: a model that fits is an answer (exit {rc})")
check_json("batch-curve", d)
if d["practical_batch_high"] > d["max_batch_fits"]:
    failures.append(f"batch: recommends {d['practical_batch_high']}, above the largest that fits, {d['max_batch_fits']}")
over = [r for r in d["curve"] if not r["feasible"]]
if not over or any(r["usd_per_mtok_output"] is not None or r["t_step_s"] is not None for r in over):
    failures.append("batch: curve rows past HBM are priced (or none is past HBM)")
if d["cost_bstar_usd_per_mtok_output"] is not None or "cost_bstar_usd_per_mtok_output" not in d.get("reasons", {}):
    failures.append("batch: the cost at a B* that does not fit is given, or has no reason")

# A feasible answer exits 0.
rc, _, err = run(["roofline"])
if rc != 0:
    failures.append(f"roofline (the default): exit {rc}: {err[:200]}")

for f in failures:
    print("FAIL:", f)
print(f"infeasible: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
