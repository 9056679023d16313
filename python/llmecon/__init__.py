"""llmecon: the economics of training and serving large language models.

Every function mirrors a CLI command and returns the same document as ``llmecon <command> --json``,
as plain dicts and lists (pandas takes them directly). The functions, their parameters, defaults
and help are built from the engine's command table, the same one the CLI and the API read, so
``inspect.signature(llmecon.roofline)`` names every parameter and ``help(llmecon.plan)`` lists
them with units. Bad arguments raise ``ValueError`` with the CLI's message.

    >>> import llmecon
    >>> r = llmecon.roofline(model="llama-3.1-70b", hw="h100-sxm", batch=64, context=8192)
    >>> r["bound"], round(r["usd_per_mtok_output"], 3)
"""
import inspect as _inspect
import json as _json

from ._llmecon import grid as _grid
from ._llmecon import run as _run
from ._llmecon import schema as _schema
from ._llmecon import text as _text

#: The command table: a list of {name, cli, help, args: [{key, type, default, unit, ...}]}.
COMMANDS = _json.loads(_schema())

# Python names for commands whose CLI name is not an identifier or would shadow an argument.
_PY_NAMES = {"model": "model_show"}


def run(command, **args):
    """Runs any command by name with keyword arguments (the CLI's flags, dashes as underscores)."""
    return _json.loads(_run(command, _json.dumps(args)))


def text(command, **args):
    """The text the CLI prints for the same command and arguments (``llmecon <command>`` without --json)."""
    return _text(command, _json.dumps(args))


def _is_axis(value):
    """Lists, tuples, ranges and numpy arrays are axes of a grid; strings and dicts are values."""
    return isinstance(value, (list, tuple, range)) or type(value).__name__ == "ndarray"


def _plain(value):
    """numpy scalars as the JSON numbers they are."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (list, tuple, dict, str)) else value


def _columns(command, axes, fixed, threads):
    return _grid(command, _json.dumps({k: [_plain(x) for x in v] for k, v in axes.items()}),
                 _json.dumps({k: _plain(v) for k, v in fixed.items()}), threads)


def _reason(columns, rows):
    """Every row's reason: the engine's for an infeasible row, "" for the others."""
    import numpy
    _, codes, categories = columns.get("reason", ("category", None, []))
    # "" first, so shards' categories join in the order one run gives them.
    if codes is None:
        return ("category", numpy.zeros(rows, dtype=numpy.int32), [""])
    order = [""] + [c for c in categories if c != ""]
    pos = {c: i for i, c in enumerate(order)}
    where = numpy.array([0] + [pos[c] for c in categories], dtype=numpy.int32)
    return ("category", where[codes + 1], order)


def _frame(columns):
    """The C++ columns as a pandas DataFrame: numbers as float64 or int64, text as categories."""
    rows = len(columns["feasible"])
    columns["reason"] = _reason(columns, rows)
    try:
        import pandas
    except ImportError:  # plain lists, for a caller without pandas
        return {k: [v[2][c] if c >= 0 else None for c in v[1]] if isinstance(v, tuple) else list(v)
                for k, v in columns.items()}
    return pandas.DataFrame({k: pandas.Categorical.from_codes(v[1], v[2]) if isinstance(v, tuple)
                             else v for k, v in columns.items()}, copy=False)


def grid_shard(command, axes, fixed, threads=0):
    """One shard of a grid, as a DataFrame: what ``grid`` sends each executor task (picklable)."""
    return _frame(_columns(command, axes, fixed, threads))


def grid(command, *, threads=0, executor=None, shards=None, **args):
    """Runs ``command`` over the cartesian product of every list-valued argument (lists, tuples,
    ranges, numpy arrays; the last varies fastest), the others fixed, in C++ on ``threads`` threads
    (0: every core), and returns one row per point as a pandas DataFrame: the axes, each scalar field
    of the answer (objects one level deep as ``a.b``), and ``feasible`` and ``reason`` (a point the
    engine refuses is a row with ``feasible`` False and the CLI's message; a feasible row's reason
    is ""). A field the answer writes as an integer in every row is int64, other numbers float64
    (NaN where a row has none), text a pandas category. roofline without explain, range or ops
    resolves its scenario once per combination of the other axes: about 10^6 points in a few
    seconds on one core.

    With ``executor`` (a ``concurrent.futures.Executor`` or a Dask ``distributed.Client``) the first
    axis is split into ``shards`` parts (default: 4 per worker the executor reports, else 8), each
    run by ``grid_shard`` as a task, and the frames concatenated in order: the same rows as locally.
    A list-valued argument held fixed is given as text ("1,2,4").

        >>> df = llmecon.grid("roofline", model="llama-3.1-8b", hw=["h100-sxm", "b200"], batch=[1, 64, 512])
    """
    axes = {k: list(v) for k, v in args.items() if _is_axis(v)}
    fixed = {k: v for k, v in args.items() if k not in axes}
    if not axes:
        raise ValueError(f"grid: give at least one list-valued argument of {command} as an axis")
    if executor is None:
        return _frame(_columns(command, axes, fixed, threads))
    first = next(iter(axes))
    values = axes[first]
    if shards is None:
        workers = getattr(executor, "_max_workers", None)
        if workers is None and hasattr(executor, "nthreads"):
            workers = sum(executor.nthreads().values())
        shards = 4 * workers if workers else 8
    shards = max(1, min(int(shards), len(values)))
    step = -(-len(values) // shards)
    parts = [values[i:i + step] for i in range(0, len(values), step)]
    futures = [executor.submit(grid_shard, command, dict(axes, **{first: part}), fixed, threads) for part in parts]
    frames = [f.result() for f in futures]
    if isinstance(frames[0], dict):
        keys = list(dict.fromkeys(k for f in frames for k in f))
        return {k: [x for f in frames for x in f.get(k, [None] * len(f["feasible"]))] for k in keys}
    return _concat(frames)


def _concat(frames):
    """Shards' frames in order, a text column still a category (its categories in order of first use)."""
    import pandas
    from pandas.api.types import union_categoricals
    out = pandas.concat(frames, ignore_index=True)
    for name in out.columns:
        parts = [f[name] for f in frames if name in f.columns]
        if len(parts) == len(frames) and all(isinstance(p.dtype, pandas.CategoricalDtype) for p in parts):
            out[name] = pandas.Series(union_categoricals(parts), name=name)
    return out


def _describe(arg):
    bits = [arg["type"].replace("_", " ")]
    if arg.get("choices"):
        bits = [" | ".join(arg["choices"])]
    if arg["unit"]:
        bits.append(f"[{arg['unit']}]")
    if arg["min"] is not None or arg["max"] is not None:
        lo = "" if arg["min"] is None else (">" if arg.get("exclusive_min") else ">=") + f" {arg['min']:g}"
        hi = "" if arg["max"] is None else f"<= {arg['max']:g}"
        bits.append(", ".join(b for b in (lo, hi) if b))
    default = "required" if arg["required"] else (arg["default_text"] or "none")
    return f"    {arg['key']} ({' '.join(bits)}, default: {default}): {arg['help']}"


def _command(spec):
    params = []
    for arg in spec["args"]:
        if arg["required"]:
            params.append(_inspect.Parameter(arg["key"], _inspect.Parameter.POSITIONAL_OR_KEYWORD))
    for arg in spec["args"]:
        if not arg["required"]:
            params.append(_inspect.Parameter(arg["key"], _inspect.Parameter.KEYWORD_ONLY, default=arg["default"]))
    signature = _inspect.Signature(params)
    name = spec["name"]

    def call(*args, **kwargs):
        if any(k not in signature.parameters for k in kwargs):
            return run(name, **kwargs)  # the engine names the nearest argument or the command taking it
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise ValueError(f"{name}: {e}") from None
        # Only what the caller gave: the engine applies the table's defaults itself (some depend
        # on other arguments, and some, given, switch a mode on).
        return run(name, **bound.arguments)

    call.__name__ = call.__qualname__ = _PY_NAMES.get(name, name)
    call.__signature__ = signature
    lines = [f"{spec['help']}.", "", f"Same as `llmecon {spec['cli']} --json`.", ""]
    if spec["args"]:
        lines.append("Parameters:")
        lines += [_describe(a) for a in spec["args"]]
    call.__doc__ = "\n".join(lines)
    return call


for _spec in COMMANDS:
    globals()[_PY_NAMES.get(_spec["name"], _spec["name"])] = _command(_spec)

__all__ = ["run", "text", "grid", "grid_shard", "COMMANDS"] + [_PY_NAMES.get(s["name"], s["name"]) for s in COMMANDS]
