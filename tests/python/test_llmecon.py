"""The Python module: plain dicts back, ValueError with the CLI's message, and the same JSON from
the CLI, the server and Python for the same question."""
import json
import os
import subprocess
import urllib.request

import pytest

import llmecon
from serving import serving

BIN = os.environ["LLMECON_BIN"]
ARGS = {"model": "llama-3.1-70b", "hw": "h100-sxm", "batch": 64, "context": 8192}


def cli_json(*argv):
    out = subprocess.run([BIN, *argv, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_roofline_is_a_plain_dict():
    r = llmecon.roofline(**ARGS)
    assert isinstance(r, dict)
    assert r["bound"] in ("compute", "weights", "kv")
    assert r["t_step_s"] > 0 and r["feasible"] is True


def test_lists_for_pandas():
    models = llmecon.models()
    assert isinstance(models, list) and len(models) >= 27
    assert all("params_total" in m for m in models)
    assert any(h["name"] == "blackboard" for h in llmecon.hardware())


def test_errors_raise_value_error_with_the_cli_message():
    with pytest.raises(ValueError) as py_err:
        llmecon.roofline(model="gpt-5", hw="h100-sxm")
    cli = subprocess.run([BIN, "roofline", "--model", "gpt-5", "--hw", "h100-sxm"], capture_output=True, text=True)
    assert cli.returncode == 2
    assert str(py_err.value) in cli.stderr
    with pytest.raises(ValueError, match="unknown argument"):
        llmecon.roofline(model="llama-3.1-8b", hw="h100-sxm", bacth=4)


def test_lecture_and_plan():
    claims = llmecon.lecture()
    assert len(claims) == 32 and [c["id"] for c in claims if not c["pass"]] == ["C19"]
    p = llmecon.plan(model="llama-3.1-8b", hw="h100-sxm", tpot_ms=30)
    assert p["best"] is not None and p["best"]["tpot_ms"] <= 30


def test_same_json_from_cli_server_and_python():
    with serving("--threads", "2") as port:
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/roofline", data=json.dumps(ARGS).encode())
        with urllib.request.urlopen(req, timeout=10) as resp:
            served = json.loads(resp.read())
        cli = cli_json("roofline", "--model", ARGS["model"], "--hw", ARGS["hw"], "--batch", "64", "--context", "8192")
        py = llmecon.roofline(**ARGS)
        assert cli == served == py
        # Bad input: HTTP 400 with the CLI's message.
        bad = urllib.request.Request(f"http://127.0.0.1:{port}/api/roofline", data=b'{"model": "gpt-5"}')
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(bad, timeout=10)
        assert e.value.code == 400
        assert "--model: unknown model 'gpt-5'" in json.loads(e.value.read())["error"]


def test_python_dash_m_runs_the_cli_commands():
    # python -m llmecon: the CLI's flags (long and short) in, the CLI's text and JSON out, exit 2
    # with the CLI's message on bad input.
    env = dict(os.environ)
    argv = ["roofline", "-m", "llama-3.1-8b", "--hw", "h100-sxm", "-b", "4", "--kv-dtype", "fp8"]
    run = lambda *a: subprocess.run(["/usr/bin/python3", "-m", "llmecon", *a], capture_output=True, text=True, env=env)
    text = run(*argv)
    assert text.returncode == 0, text.stderr
    assert text.stdout == subprocess.run([BIN, *argv], check=True, capture_output=True, text=True).stdout
    js = run(*argv, "--json")
    assert json.loads(js.stdout) == cli_json(*argv)
    bad = run("roofline", "--batch", "0")
    cli = subprocess.run([BIN, "roofline", "--batch", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr == cli.stderr
    assert run("roofline", "--no-such-flag", "1").returncode == 2
    assert "roofline" in run("--help").stdout
