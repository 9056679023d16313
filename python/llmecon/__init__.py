"""llmecon: the economics of training and serving large language models.

Every function mirrors a CLI command and returns the same document as ``llmecon <command> --json``,
as plain dicts and lists (pandas takes them directly). Bad arguments raise ``ValueError`` with the
CLI's message.

    >>> import llmecon
    >>> r = llmecon.roofline(model="llama-3.1-70b", hw="h100-sxm", batch=64, context=8192)
    >>> r["bound"], round(r["usd_per_mtok"], 3)
"""
import json as _json

from ._llmecon import run as _run

__all__ = ["run", "models", "hardware", "model_show", "roofline", "sweep", "report", "batch", "step",
           "context", "price", "layout", "cache", "lifecycle", "revnet", "lecture", "plan", "validate",
           "calibrate"]


def run(command, **args):
    """Runs any command by name with keyword arguments (the CLI's flags, dashes as underscores)."""
    return _json.loads(_run(command, _json.dumps(args)))


def models():
    return run("models")


def hardware():
    return run("hardware")


def model_show(model, kv_dtype=None):
    return run("model", model=model, **({"kv_dtype": kv_dtype} if kv_dtype else {}))


def _command(name):
    def call(**args):
        return run(name, **args)
    call.__name__ = name
    call.__doc__ = f"Same as `llmecon {name.replace('_', '-')} --json`; keyword arguments are its flags."
    return call


roofline = _command("roofline")
sweep = _command("sweep")
report = _command("report")
batch = _command("batch")
step = _command("step")
context = _command("context")
price = _command("price")
layout = _command("layout")
cache = _command("cache")
lifecycle = _command("lifecycle")
revnet = _command("revnet")
lecture = _command("lecture")
plan = _command("plan")
validate = _command("validate")
calibrate = _command("calibrate")
