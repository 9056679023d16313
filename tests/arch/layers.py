#!/usr/bin/env python3
"""The structure the code must keep (docs/architecture.md), checked from the source alone:

1. Modules depend only downward. Each module of src/CMakeLists.txt has a layer; a module may
   link (DEPS) only modules of lower layers.
2. Every #include "<module>/<name>.hpp" of a module's sources and headers names a header of that
   module or of one it links (directly or not): the include graph has no edge the link graph
   lacks, so no upward edge.
3. No source file in src/, include/ or apps/ passes 600 lines (OVERSIZE may hold a file being
   split, with the most lines it may keep until it is).
4. No function defined at the top of a .cpp file in src/ or apps/ passes 120 lines (from its
   signature to its closing brace; a lambda or local class counts toward its function).
5. JSON becomes text only through units/json_text.hpp (json_text), which writes bytes that are
   not UTF-8 as U+FFFD: nlohmann's bare dump() throws on them, and user text reaches JSON.

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
MAX_FUNCTION_LINES = 120
# A definition's first line: a return type and name at column 0, its parameters closing on the
# line, and the body's opening brace.
DEFINITION = re.compile(r"^[A-Za-z][^;=]*\)\s*(const)?\s*(noexcept)?\s*(->[^{]*)?\{\s*$")


def long_functions(path):
    """(first line, lines, signature) of each top-level function longer than MAX_FUNCTION_LINES."""
    out, depth, start, at = [], 0, None, 0
    for i, line in enumerate(open(path).read().split("\n")):
        code = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        code = re.sub(r"'(\\.|[^'\\])*'", "''", code)
        code = re.sub(r"//.*", "", code)
        if start is None and DEFINITION.match(line) and not re.match(r"^(namespace|struct|class|enum|union)\b", line):
            start, at = i, depth
        depth += code.count("{") - code.count("}")
        if start is not None and depth == at and i > start:
            if i - start + 1 > MAX_FUNCTION_LINES:
                out.append((start + 1, i - start + 1, line if False else ""))
            start = None
    return out


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
                    if f"{owner}/{h}" in ANY or owner in allowed:
                        continue
                    problems.append(f"{rel} includes {owner}/{h} of module {owner}, which {m} does not link")
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
                if f.endswith(".cpp"):
                    for first, lines, _ in long_functions(path):
                        problems.append(
                            f"{rel}:{first}: a function of {lines} lines, over {MAX_FUNCTION_LINES}: split it")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(
        f"layers: {len(deps)} modules link downward; {edges} includes follow the links; {sizes} files and their "
        f"functions in size"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
