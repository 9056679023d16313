#!/usr/bin/env bash
# Reproduces the fit of the serving engines' sustained GEMM share (data/engines/*.toml
# [efficiency] compute_sustained, docs/model.md §18.4): builds a copy of the committed tree once per
# grid value with that value in every engine profile but generic, predicts
# data/validation/dev.csv, and reports, over the decode, prefill and offline rows whose prediction
# the share moves (the rows that name an engine), the median absolute error per value, per source,
# and leave-one-source-out (each source predicted at the value best on all the others).
# Usage: scripts/fit-engine-share.sh [VALUES...]   (default: 0.6 0.65 0.7 0.75 0.8 0.9 1.0)
# Takes several minutes: one incremental release build per value.
set -euo pipefail
cd "$(dirname "$0")/.."
values=("$@")
[ ${#values[@]} -gt 0 ] || values=(0.6 0.65 0.7 0.75 0.8 0.9 1.0)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive HEAD | tar -x -C "$work"
ln -s "$PWD/web/node_modules" "$work/web/node_modules"  # the page's Chart.js (scripts/bootstrap.sh installs it)
(cd "$work" && cmake --preset release >/dev/null)
for v in "${values[@]}"; do
  # Every profile but generic (which keeps the chip's rate), release lines included.
  for f in "$work"/data/engines/*.toml; do
    [ "$(basename "$f")" = generic.toml ] || sed -i "s/^compute_sustained = .*/compute_sustained = $v/" "$f"
  done
  cmake --build "$work/build/release" -j2 --target llmecon >/dev/null
  "$work/build/release/apps/cli/llmecon" validate data/validation/dev.csv --csv >"$work/grid_$v.csv"
done
python3 - "$work" "${values[@]}" <<'PY'
import collections, csv, re, statistics, sys
work, values = sys.argv[1], sys.argv[2:]
src = {r["id"]: r for r in csv.DictReader(open("data/validation/dev.csv"))}
err = {}
for v in values:
    err[v] = {}
    for r in csv.DictReader(open(f"{work}/grid_{v}.csv")):
        s = src[r["id"]]
        if r["skipped"] == "true" or not r["error_pct"] or s["scenario"] in ("training_step", "online_load"):
            continue
        err[v][r["id"] + "|" + r["metric"]] = abs(float(r["error_pct"]))
keys = [k for k in err[values[0]] if all(k in err[v] for v in values)]
moved = [k for k in keys if max(err[v][k] for v in values) - min(err[v][k] for v in values) > 1e-9]
def source(k):
    u = src[k.split("|")[0]]["source"]
    if "TensorRT-LLM" in u:
        return "tensorrt-llm " + ("0.9" if "v0.9" in u else "0.17" if "258c7540" in u else "other")
    m = re.search(r"github\.com/([^/]+/[^/]+)", u)
    return m.group(1) if m else u.split("/")[2]
by = collections.defaultdict(list)
for k in moved:
    by[source(k)].append(k)
med = lambda v, ks: statistics.median(err[v][k] for k in ks)
print(f"{len(moved)} rows moved by the share, {len(by)} sources")
print("value  median  " + "  ".join(sorted(by)))
for v in values:
    print(f"{v:>5}  {med(v, moved):5.1f}%  " + "  ".join(f"{med(v, by[s]):.1f}%" for s in sorted(by)))
held = []
for s, ks in sorted(by.items()):
    rest = [k for k in moved if k not in ks]
    best = min(values, key=lambda v: med(v, rest))
    held += [err[best][k] for k in ks]
    print(f"leave out {s}: best on the rest {best}, held-out median {med(best, ks):.1f}%")
held.sort()
print(f"leave-one-source-out over the moved rows: median {statistics.median(held):.1f}%, p90 {held[int(0.9 * len(held))]:.1f}%")
PY
