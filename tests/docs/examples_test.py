#!/usr/bin/env python3
"""Every example in README.md and docs/*.md runs, and prints what the page shows.

A block whose first line is `$ llmecon ARGS` is run with this build's binary; the lines after it
are its output. A line `...` in a block stands for any number of lines (the page shows a part);
otherwise the output must match line for line. A ```python block followed by a plain ``` block
is run with this build's module, the second block being its output.

Usage: examples_test.py LLMECON REPO [PYTHONPATH]   (without PYTHONPATH the Python examples are
counted as not run, and said so)
       examples_test.py LLMECON REPO PYTHONPATH --show FILE   print each example's actual output
"""
import os
import pathlib
import re
import shlex
import subprocess
import sys

BIN, REPO = sys.argv[1], pathlib.Path(sys.argv[2])
PYPATH = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else None
SHOW = sys.argv[sys.argv.index("--show") + 1] if "--show" in sys.argv else None
FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(text):
    """(language, first line number, lines) of each fenced block."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        out.append((m.group(1), i + 1, lines[i + 1:j], j))
        i = j + 1
    return out


def matches(shown, actual):
    """Whether `shown` (with `...` lines eliding any run) is `actual`."""
    parts, cur = [], []
    for line in shown:
        if line.strip() == "...":
            parts.append(cur)
            cur = []
        else:
            cur.append(line)
    parts.append(cur)
    pos = 0
    for k, part in enumerate(parts):
        if k == 0:
            if actual[: len(part)] != part:
                return False
            pos = len(part)
            continue
        if not part:
            continue
        found = next((p for p in range(pos, len(actual) - len(part) + 1) if actual[p : p + len(part)] == part), None)
        if found is None:
            return False
        pos = found + len(part)
    return len(parts) > 1 or pos == len(actual)


def first_difference(shown, actual):
    for n, (a, b) in enumerate(zip(shown, actual)):
        if a != b and a.strip() != "...":
            return f"line {n + 1}: shown {a!r}, printed {b!r}"
    return f"shown {len(shown)} lines, printed {len(actual)}"


files = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
failures, ran, python_skipped = [], 0, 0
for path in files:
    bs = blocks(path.read_text())
    for k, (lang, line, body, end) in enumerate(bs):
        where = f"{path.relative_to(REPO)}:{line}"
        if lang == "" and body and body[0].startswith("$ llmecon "):
            args = shlex.split(body[0][len("$ llmecon "):])
            p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=600)
            actual = p.stdout.rstrip("\n").split("\n")
            shown = body[1:]
        elif lang == "python" and k + 1 < len(bs) and bs[k + 1][0] == "" and bs[k + 1][1] - end <= 3:
            if PYPATH is None:
                python_skipped += 1
                continue
            env = dict(os.environ, PYTHONPATH=PYPATH)
            p = subprocess.run([sys.executable, "-c", "\n".join(body)], capture_output=True, text=True, env=env,
                               timeout=600)
            actual = p.stdout.rstrip("\n").split("\n")
            shown = bs[k + 1][2]
        else:
            continue
        ran += 1
        if SHOW and str(path.relative_to(REPO)) == SHOW:
            print(f"--- {where}\n" + "\n".join(actual))
        if p.returncode not in (0, 1):
            failures.append(f"{where}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        elif not matches(shown, actual):
            failures.append(f"{where}: the output changed ({first_difference(shown, actual)})")

for f in failures:
    print("FAIL:", f)
print(f"examples: {ran} run, {len(failures)} differ" +
      (f", {python_skipped} Python example(s) not run (no module in this build)" if python_skipped else ""))
sys.exit(1 if failures or ran == 0 else 0)
