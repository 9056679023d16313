#!/usr/bin/env python3
"""The function-size check can fail: planted long functions, each written the way a
line-by-line check misses (a signature wrapped over lines, the brace on a line of its own, a
template header, a method defined in a class, a body behind a macro), must each be reported, and
a function at the limit must not.

Usage: functions_test.py REPO_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(ROOT, "tests", "arch", "functions.py")
LIMIT = 120


def body(n):
    """n statements, one a line."""
    return "".join(f"  x += {i};\n" for i in range(n))


# Each planted function: (name, source). Lines counted from the first line of the declaration
# to the closing brace.
PLANTED = {
    # A wrapped signature, the brace on its own line.
    "wrapped": "int wrapped(int a,\n            int b)\n{\n  int x = a + b;\n" + body(LIMIT) + "  return x;\n}\n",
    # A template, the return type on its own line.
    "templated": "template <typename T>\nT\ntemplated(T x) {\n" + body(LIMIT) + "  return x;\n}\n",
    # A method defined inside its class, indented.
    "method": "struct Holder {\n  int method(int x) const {\n" + body(LIMIT) + "    return x;\n  }\n};\n",
    # A body that opens through a macro.
    "hidden": "#define OPEN {\nint hidden(int x) OPEN\n" + body(LIMIT) + "  return x;\n}\n",
}
# At the limit exactly: 1 signature line + (LIMIT - 3) statements + return + closing brace.
AT_LIMIT = "int at_limit(int x) {\n" + body(LIMIT - 3) + "  return x;\n}\n"


def run(files):
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "src", "planted"))
        db = []
        for name, text in files.items():
            path = os.path.join(d, "src", "planted", name + ".cpp")
            with open(path, "w") as f:
                f.write(text)
            db.append({"directory": d, "file": path, "command": f"c++ -std=c++20 -c {path} -o {name}.o"})
        with open(os.path.join(d, "compile_commands.json"), "w") as f:
            json.dump(db, f)
        p = subprocess.run(
            ["/usr/bin/python3", CHECK, d, os.path.join(d, "compile_commands.json"), "--jobs", "1"],
            capture_output=True,
            text=True,
        )
        return p.returncode, p.stdout + p.stderr


def main():
    failures = []
    for name, text in PLANTED.items():
        rc, out = run({name: text})
        if rc != 1 or f"{name} is " not in out or "over 120" not in out:
            failures.append(f"planted {name}: exit {rc}, output {out.strip()!r}")
    rc, out = run({"at_limit": AT_LIMIT})
    if rc != 0 or "longest at_limit, 120 lines" not in out:
        failures.append(f"a function of exactly {LIMIT} lines: exit {rc}, output {out.strip()!r}")
    rc, out = run({"broken": "int broken( {\n"})
    if rc != 1 or "does not parse" not in out:
        failures.append(f"a unit that does not parse: exit {rc}, output {out.strip()!r}")
    for f in failures:
        print(f)
    if failures:
        return 1
    print(f"functions_test: {len(PLANTED)} planted long functions reported, one at the limit passed, a broken unit refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
