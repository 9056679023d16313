#!/usr/bin/env python3
"""Function sizes from clang's own parse (libclang, Debian's python3-clang), so a wrapped
signature, a macro or a brace in a string cannot hide a long function:

    functions.py REPO_ROOT COMPILE_COMMANDS_JSON [--max-lines N] [--jobs N]

Every translation unit of the compilation database whose file lies under src/, apps/, python/,
fuzz/ or bench/ of REPO_ROOT is parsed with its own flags; a .cpp under those folders that the
database lacks (a fuzz target outside the dev build) is parsed with the flags of a library unit.
Each function, method, constructor, destructor or function template defined in a file under
those folders (headers included, each definition counted once) is measured from the first line
of its declaration (template header and return type included) to its closing brace; lambdas and
local classes count toward the function that holds them.

Prints each definition over the limit as `path:line: NAME is L lines, over N: split it` and
exits 1; a unit that does not parse is a problem too (the check must see the code it judges).
Otherwise prints one line and exits 0."""
import json
import multiprocessing
import os
import shlex
import sys

import clang.cindex as ci

FOLDERS = ("src", "apps", "python", "fuzz", "bench")
MAX_FUNCTION_LINES = 120

KINDS = {
    ci.CursorKind.FUNCTION_DECL,
    ci.CursorKind.CXX_METHOD,
    ci.CursorKind.CONSTRUCTOR,
    ci.CursorKind.DESTRUCTOR,
    ci.CursorKind.CONVERSION_FUNCTION,
    ci.CursorKind.FUNCTION_TEMPLATE,
}
# Where definitions nest: a function inside one of these is still measured on its own.
SCOPES = {
    ci.CursorKind.NAMESPACE,
    ci.CursorKind.CLASS_DECL,
    ci.CursorKind.STRUCT_DECL,
    ci.CursorKind.UNION_DECL,
    ci.CursorKind.CLASS_TEMPLATE,
    ci.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION,
    ci.CursorKind.LINKAGE_SPEC,
    ci.CursorKind.UNEXPOSED_DECL,
}


def compile_args(entry):
    """The unit's compiler arguments less the compiler, its output and its input; warnings as
    errors are dropped (a warning clang knows and GCC does not must not stop the parse)."""
    args = entry["arguments"][1:] if "arguments" in entry else shlex.split(entry["command"])[1:]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a == entry["file"] or a.startswith("-Werror") or a.startswith("-fdiagnostics-color"):
            continue
        out.append(a)
    return out + ["-Wno-unknown-warning-option", "-Wno-everything"]


def under(root, path):
    rel = os.path.relpath(path, root)
    return None if rel.startswith("..") or rel.split(os.sep)[0] not in FOLDERS else rel


def measure(job):
    """(definitions, errors) of one unit: definitions as {(rel, line): (name, lines)}."""
    root, path, args = job
    index = ci.Index.create()
    try:
        tu = index.parse(path, args=args)
    except ci.TranslationUnitLoadError as e:
        return {}, [f"{os.path.relpath(path, root)}: libclang could not parse it ({e})"]
    errors = [
        f"{os.path.relpath(path, root)}: does not parse: {d}"
        for d in tu.diagnostics
        if d.severity >= ci.Diagnostic.Error
    ][:3]
    found = {}
    rels = {}

    def rel_of(cursor):
        f = cursor.location.file
        if f is None:
            return None
        name = f.name
        if name not in rels:
            rels[name] = under(root, os.path.realpath(name))
        return rels[name]

    def visit(node):
        for c in node.get_children():
            rel = rel_of(c)
            if rel is None:
                continue
            if c.kind in SCOPES:
                visit(c)
            elif c.kind in KINDS and c.is_definition():
                first, last = c.extent.start.line, c.extent.end.line
                found[(rel, first)] = (c.spelling, last - first + 1)

    visit(tu.cursor)
    return found, errors


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.realpath(argv[1])
    db = json.load(open(argv[2]))
    limit, jobs = MAX_FUNCTION_LINES, os.cpu_count() or 1
    rest = argv[3:]
    while rest:
        flag, value, rest = rest[0], int(rest[1]), rest[2:]
        if flag == "--max-lines":
            limit = value
        elif flag == "--jobs":
            jobs = value
    units, seen = [], set()
    library_args = None
    for e in db:
        path = os.path.realpath(os.path.join(e.get("directory", ""), e["file"]))
        if under(root, path) is None or path in seen or not os.path.exists(path):
            continue  # outside the folders, seen, or removed since the database was written
        seen.add(path)
        args = compile_args(e)
        if library_args is None and under(root, path).startswith("src" + os.sep):
            library_args = args
        units.append((root, path, args))
    # A unit outside the database (the fuzz targets) takes a library unit's flags, every folder of
    # apps/ that holds headers (the server's request parser, which the fuzz targets share) and the
    # fuzz build's one definition (which parser a target drives).
    apps = sorted({d for d, _, fs in os.walk(os.path.join(root, "apps")) if any(f.endswith(".hpp") for f in fs)})
    fallback = (library_args or ["-std=c++20", "-I" + os.path.join(root, "src")]) + ["-I" + d for d in apps]
    fallback += ['-DLLMECON_FUZZ_TARGET="hf_config"']
    for top in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                path = os.path.realpath(os.path.join(dirpath, f))
                if f.endswith(".cpp") and path not in seen:
                    seen.add(path)
                    units.append((root, path, fallback))
    if not units:
        print(f"functions: no unit of {argv[2]} lies under {', '.join(FOLDERS)} of {root}")
        return 1
    with multiprocessing.Pool(max(1, min(jobs, len(units)))) as pool:
        results = pool.map(measure, units, chunksize=1)
    definitions, problems = {}, []
    for found, errors in results:
        definitions.update(found)
        problems += errors
    for (rel, first), (name, lines) in sorted(definitions.items()):
        if lines > limit:
            problems.append(f"{rel}:{first}: {name} is {lines} lines, over {limit}: split it")
    for p in problems:
        print(p)
    if problems:
        return 1
    longest = max(definitions.items(), key=lambda kv: kv[1][1])
    print(
        f"functions: {len(definitions)} definitions in {len(units)} units, none over {limit} lines "
        f"(longest {longest[1][0]}, {longest[1][1]} lines, {longest[0][0]}:{longest[0][1]})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
