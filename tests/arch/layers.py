#!/usr/bin/env python3
"""The structure the code must keep (docs/architecture.md), checked from the source alone:

1. Modules depend only downward. Each module of src/CMakeLists.txt has a layer; a module may
   link (DEPS) only modules of lower layers.
2. Every #include "<module>/<name>.hpp" of a module's sources and headers names a header of that
   module or of one it links (directly or not): the include graph has no edge the link graph
   lacks, so no upward edge.
3. No source file in src/, include/ or apps/ passes 600 lines (OVERSIZE may hold a file being
   split, with the most lines it may keep until it is).
4. Every module a module links directly (DEPS) is included by at least one of its files: a link
   the code does not use hides the real dependency graph.
5. JSON becomes text only through units/json_text.hpp (json_text), which writes bytes that are
   not UTF-8 as U+FFFD: nlohmann's bare dump() throws on them, and user text reaches JSON.

Function sizes (120 lines at most) are checked from clang's parse, by functions.py beside this file.

Usage: layers.py REPO_ROOT. Prints each violation and exits 1, else one line and exits 0."""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")

# The layers, bottom up (docs/architecture.md). A module links only modules of lower layers.
LAYERS = [
    ["units"],
    ["catalog"],
    ["args", "model"],
    ["ops"],
    ["roofline"],
    ["parallel", "measure", "tco"],
    ["economics", "plan", "simulate", "train"],
    ["scenario"],
    ["lecture", "validate"],
    ["io"],
]
LAYER = {m: i for i, ms in enumerate(LAYERS) for m in ms}

# A header belongs to the module whose folder holds it (src/<module>/<name>.hpp, included as
# "<module>/<name>.hpp"). units/embedded.hpp only declares the data each module embeds for
# itself, so any module may include it.
ANY = {"units/embedded.hpp"}

# Files still over the limit, with the most lines each may have until it is split (none now).
OVERSIZE = {}
MAX_LINES = 600
def modules():
    text = open(os.path.join(ROOT, "src", "CMakeLists.txt")).read()
    deps = {}
    for m in re.finditer(r"llmecon_module\((\w+)(.*?)\)\n", text, re.S):
        name, body = m.group(1), m.group(2)
        d = re.search(r"\bDEPS\b(.*?)(?:PRIVATE_DEPS|$)", body, re.S)
        deps[name] = set(re.findall(r"llmecon::(\w+)", d.group(1))) if d else set()
    return deps


def closure(deps, m):
    seen, todo = set(), [m]
    while todo:
        x = todo.pop()
        for y in deps.get(x, ()):
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return seen


def main():
    problems = []
    deps = modules()
    for m, ds in sorted(deps.items()):
        if m not in LAYER:
            problems.append(f"module {m} has no layer in tests/arch/layers.py (and docs/architecture.md)")
            continue
        for d in sorted(ds):
            if d in LAYER and LAYER[d] >= LAYER[m]:
                problems.append(f"module {m} (layer {LAYER[m]}) links {d} (layer {LAYER[d]}): not downward")
    include = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([a-z_]+\.hpp)"', re.M)
    edges = 0
    for m in sorted(deps):
        allowed = closure(deps, m) | {m}
        used = set()
        for dirpath, _, files in os.walk(os.path.join(ROOT, "src", m)):
            for f in sorted(files):
                if not f.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)
                for owner, h in include.findall(open(path).read()):
                    if owner not in deps:
                        continue  # not a module's header (a folder of src/io, say)
                    edges += 1
                    used.add(owner)
                    if f"{owner}/{h}" in ANY or owner in allowed:
                        continue
                    problems.append(f"{rel} includes {owner}/{h} of module {owner}, which {m} does not link")
        for d in sorted(deps[m] - used):
            problems.append(f"module {m} links {d} but none of its files includes a header of {d}: link what it uses")
    # Headers sit beside their module, never in a folder of their own.
    if os.path.isdir(os.path.join(ROOT, "include")):
        problems.append("include/ exists: a module's headers sit in its folder, src/<module>/")
    sizes = 0
    for top in ("src", "apps", "python", "fuzz"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)
                n = sum(1 for _ in open(path))
                sizes += 1
                limit = OVERSIZE.get(rel, MAX_LINES)
                if n > limit:
                    problems.append(f"{rel}: {n} lines, over {limit}: split it by concept")
                if rel != os.path.join("src", "units", "json_text.hpp"):
                    for i, line in enumerate(open(path), 1):
                        if re.search(r"\.dump\(", re.sub(r"//.*", "", line)):
                            problems.append(f"{rel}:{i}: JSON to text through json_text (units/json_text.hpp)")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(
        f"layers: {len(deps)} modules link downward, each only what it includes; {edges} includes follow the links; "
        f"{sizes} files in size"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
