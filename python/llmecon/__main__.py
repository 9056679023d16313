"""``python -m llmecon COMMAND [--flag value ...] [--json]``: the CLI's commands from the module.

Flags are the CLI's (``--kv-dtype fp8``, ``-m`` and the other short names too); a flag without a
value is a switch. The answer is the CLI's text, or its JSON with ``--json``. Bad input prints the
CLI's message and exits 2, as the CLI does.
"""
import json
import signal
import sys

import llmecon


def _args(spec, argv):
    flags = {}
    for arg in spec["args"]:
        flags[arg["flag"]] = arg
        if arg.get("short"):
            flags[arg["short"]] = arg
    out, positional, i = {}, [a for a in spec["args"] if a["positional"]], 0
    while i < len(argv):
        token = argv[i]
        name, eq, inline = token.partition("=")
        if name in flags:
            arg = flags[name]
            if arg["type"] == "boolean" and not eq:
                out[arg["key"]] = True
                i += 1
                continue
            if not eq:
                if i + 1 >= len(argv):
                    raise ValueError(f"{name}: needs a value")
                inline, i = argv[i + 1], i + 1
            out[arg["key"]] = _typed(arg, inline)
        elif token.startswith("-"):
            raise ValueError(f"{name}: not an argument of {spec['cli']} (python -m llmecon {spec['cli']} --help lists them)")
        elif positional:
            out[positional.pop(0)["key"]] = token
        else:
            raise ValueError(f"{token}: {spec['cli']} takes no more positional arguments")
        i += 1
    return out


def _typed(arg, text):
    if arg["type"] == "integer":
        return int(float(text))
    if arg["type"] == "number":
        return float(text)
    if arg["type"] == "boolean":
        return text.lower() in ("1", "true", "yes")
    return text


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {c["cli"]: c for c in llmecon.COMMANDS}
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m llmecon COMMAND [--flag value ...] [--json]\n\ncommands:")
        for c in llmecon.COMMANDS:
            print(f"  {c['cli']:12s} {c['help']}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in commands:
        print(f"llmecon: error: unknown command '{name}' (hint: python -m llmecon --help lists them)", file=sys.stderr)
        return 2
    spec = commands[name]
    if "-h" in rest or "--help" in rest:
        print(getattr(llmecon, llmecon._PY_NAMES.get(spec["name"], spec["name"])).__doc__)
        return 0
    as_json = "--json" in rest
    rest = [a for a in rest if a != "--json"]
    try:
        args = _args(spec, rest)
        if as_json:
            print(json.dumps(llmecon.run(spec["name"], **args), indent=1))
        else:
            print(llmecon.text(spec["name"], **args), end="")
    except ValueError as e:
        print(f"llmecon: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    # Piped into head, stop quietly at the pipe's end, as the CLI does.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
