"""The same question through each shell, for the Python tests that compare them: the CLI's words
built from the schema, an API request, and the Python function."""
import json
import urllib.request

import llmecon

SCHEMA = {c["name"]: c for c in llmecon.COMMANDS}


def cli_argv(command, args):
    """The CLI's words for a JSON question, from the schema: positionals bare, booleans as flags,
    lists as comma-separated text, ranges as given."""
    spec = SCHEMA[command]
    argv = spec["cli"].split()
    by_key = {a["key"]: a for a in spec["args"]}
    for key, value in args.items():
        a = by_key[key]
        if a["positional"]:
            argv.append(str(value))
        elif a["type"] == "boolean":
            if value:
                argv.append(a["flag"])
        else:
            text = ",".join(str(v) for v in value) if isinstance(value, list) else str(value)
            argv += [a["flag"], text]
    return argv


def api_request(port, command, args):
    """A POST of `args` to /api/<command> on a local server."""
    return urllib.request.Request(f"http://127.0.0.1:{port}/api/{command}", data=json.dumps(args).encode(),
                                  headers={"Content-Type": "application/json"})


def python_function(command):
    """The module's function for a command (`model` is `model_show`)."""
    return getattr(llmecon, "model_show" if command == "model" else command)
