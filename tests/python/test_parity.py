"""The golden parity test: for every command of the table, the CLI's --json, the API and Python give
byte-identical JSON for the same arguments, with defaults only and with given arguments
(including a range), and the CLI's argv is built from the same schema the API publishes."""
import inspect
import json
import os
import subprocess
import urllib.request

import pytest

import llmecon
from serving import serving
from shells import SCHEMA, api_request, cli_argv, python_function

BIN = os.environ["LLMECON_BIN"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CSV = os.path.join(ROOT, "data", "validation", "dev.csv")
TRACE = os.path.join(ROOT, "tests", "data", "traces", "mooncake.jsonl")

# One question per command with arguments, besides the defaults-only question. measure times the
# machine, so two runs never agree; it is covered by its schema below and by the measure label.
CASES = [
    ("models", {}), ("hardware", {}),
    ("model", {"model": "llama-3.1-70b"}), ("model", {"model": "deepseek-v3", "kv_dtype": "fp8"}),
    ("roofline", {}),
    ("roofline", {"model": "llama-3.1-70b", "hw": "h100-sxm", "batch": 64, "context": 8192, "explain": True}),
    ("roofline", {"model": "gpt-oss-120b", "hw": "b200", "weight_dtype": "fp8", "phase": "prefill", "chunk": 1024}),
    ("roofline", {"model": "llama-3.1-70b", "hw": "h100-sxm", "batch": 64, "cost": "owned:hyperscaler", "range": True}),
    ("sweep", {}), ("sweep", {"model": "llama-3.1-8b", "hw": "h100-sxm", "chips": 1, "batch": "1:256:x4",
                              "context": [1024, 8192]}),
    ("report", {}), ("report", {"model": "llama-3.1-70b", "hw": "h100-sxm", "context": 8192, "explain": True}),
    ("batch", {}), ("batch", {"context": 100000, "price_multiple": 6}),
    ("step", {}), ("step", {"batch": 512, "provider_tokens_per_s": 1e8}),
    ("context", {}), ("context", {"knee": 200000, "topk": 1024}),
    ("price", {}), ("price", {"sheet": "gemini-3.1-pro", "n_active": 100e9, "hw": "blackboard"}),
    ("layout", {}), ("layout", {"stages": 8, "hop_ms": 1.5}),
    ("cache", {}), ("cache", {"hold_s": "1:86400:x10"}),
    ("lifecycle", {}), ("lifecycle", {"model": "llama-3.1-70b", "policy": "half"}),
    ("revnet", {}), ("revnet", {"batch": 4, "seq_len": 8192}),
    ("lecture", {}),
    ("plan", {"model": "llama-3.1-8b", "hw": "h100-sxm"}),
    ("plan", {"model": "llama-3.1-8b", "hw": "h100-sxm", "tpot_ms": 30, "batches": "1:256:x4",
              "weight_dtypes": ["bf16", "fp8"], "range": True, "explain": True}),
    ("plan", {"model": "llama-3.1-8b", "hw": "h100-sxm", "batches": "16,64", "cost": "owned", "rank": "energy",
              "scaleup": "8,72"}),
    ("simulate", {}),
    ("simulate", {"model": "llama-3.1-8b", "hw": "h100-sxm", "chips": 1, "rate": 20, "requests": 500,
                  "isl": "lognormal:1000,0.5", "slo": "ttft_p99=1s,tpot_p99=20ms", "seed": 3}),
    ("simulate", {"model": "llama-3.1-8b", "hw": "h100-sxm", "chips": 1, "trace": TRACE, "router": "prefix-affinity",
                  "replicas": 2}),
    # The workload shapes and admission rules, through every shell.
    ("simulate", {"model": "llama-3.1-8b", "hw": "h100-sxm", "chips": 1, "workload": "none", "rate": 2,
                  "shared_prefix": "2:2048:128:20", "osl": "32", "no_stream": True, "admission": "token-ratio"}),
    ("simulate", {"model": "llama-3.1-8b", "hw": "h100-sxm", "chips": 1, "workload": "sharegpt", "rate": 4,
                  "requests": 300, "isl": "lognormal:161,1.75,512"}),
    ("train", {"model": "llama-3.1-8b", "chips": 64, "tp": 2, "pp": 2, "zero": 1, "explain": True}),
    ("train", {"model": "mixtral-8x7b", "chips": 64, "tokens": 1e12, "top": 3}),
    ("scale", {"model": "llama-3.1-8b", "chips": 64, "inference_tokens": 1e14, "fit": "epoch"}),
    ("tco", {}), ("tco", {"hw": "gb200", "racks": 16, "utilization": 0.6, "range": True, "explain": True}),
    ("validate", {"file": CSV}),
    ("calibrate", {"file": CSV, "hw": "a100-sxm-80gb", "folds": 3}),
]


@pytest.fixture(scope="module")
def port():
    with serving("--threads", "2", "--allow-files", "--cache-bytes", "0") as p:
        yield p


def api(port, command, args):
    with urllib.request.urlopen(api_request(port, command, args), timeout=120) as resp:
        return json.loads(resp.read())


def python_call(command, args):
    return python_function(command)(**args)


def test_every_command_has_a_case():
    assert {c for c, _ in CASES} | {"measure"} == set(SCHEMA)


@pytest.mark.parametrize("command,args", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_cli_api_and_python_give_identical_json(port, command, args):
    out = subprocess.run([BIN, *cli_argv(command, args), "--json"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    cli = json.loads(out.stdout)
    served = api(port, command, args)
    py = python_call(command, args)
    assert json.dumps(cli) == json.dumps(served) == json.dumps(py)


def test_the_api_index_is_the_schema(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/", timeout=10) as resp:
        index = json.loads(resp.read())
    assert index["commands"] == llmecon.COMMANDS
    out = subprocess.run([BIN, "commands", "--json"], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == llmecon.COMMANDS


def test_python_signatures_come_from_the_table():
    sig = inspect.signature(llmecon.roofline)
    assert list(sig.parameters)[:3] == ["model", "hw", "chips"]
    assert sig.parameters["batch"].default == 1
    assert sig.parameters["hw"].default == "gb200"
    assert sig.parameters["explain"].default is False
    assert list(inspect.signature(llmecon.validate).parameters) == ["file", "ideal", "cross_validate", "folds", "fit"]
    doc = llmecon.plan.__doc__
    for arg in SCHEMA["plan"]["args"]:
        assert f"    {arg['key']} (" in doc
    assert "[ms]" in doc and "[tok]" in doc
    for spec in llmecon.COMMANDS:
        fn = getattr(llmecon, "model_show" if spec["name"] == "model" else spec["name"])
        assert set(inspect.signature(fn).parameters) == {a["key"] for a in spec["args"]}


@pytest.mark.parametrize("call,message", [
    (lambda: llmecon.roofline(explain="yes"), "--explain: expected true or false"),
    (lambda: llmecon.roofline(batch="64"), "--batch: expected a number"),
    (lambda: llmecon.roofline(modle="x"), "did you mean --model"),
    (lambda: llmecon.plan(context=4096), "plan takes --isl"),
    (lambda: llmecon.sweep(batch="8:1:x2"), "the range must grow"),
    (lambda: llmecon.validate(), "file"),
])
def test_python_errors_are_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_same_errors_from_the_cli_and_python():
    for command, args in [("roofline", {"batch": 0}), ("plan", {"tpot_ms": 0}), ("cache", {"hold_s": 0}),
                          ("lifecycle", {"rl_multiplier": 9}), ("roofline", {"phase": "train"})]:
        out = subprocess.run([BIN, *cli_argv(command, args)], capture_output=True, text=True)
        assert out.returncode == 2 and out.stdout == ""
        with pytest.raises(ValueError) as e:
            python_call(command, args)
        assert out.stderr == f"llmecon: error: {e.value}\n"


def api_body(port, command, body, headers):
    """(Content-Type, body text) of a POST to the API with these extra headers."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/{command}", data=json.dumps(body).encode(),
                                 headers=dict(headers, **{"Content-Type": "application/json"}))
    with urllib.request.urlopen(req, timeout=60) as resp:
        return resp.headers["Content-Type"], resp.read().decode()


@pytest.mark.parametrize("command,args", [
    ("sweep", {"model": "llama-3.1-8b", "hw": "h100-sxm", "batch": "1:64:x4"}), ("batch", {}), ("lecture", {}),
    ("plan", {"model": "llama-3.1-8b", "hw": "h100-sxm"}), ("roofline", {"explain": True}), ("models", {}),
])
def test_the_api_serves_the_clis_csv(port, command, args):
    cli = subprocess.run([BIN, *cli_argv(command, args), "--csv"], capture_output=True, text=True, check=True).stdout
    for body, headers in [(dict(args, format="csv"), {}), (args, {"Accept": "text/csv"})]:
        assert api_body(port, command, body, headers) == ("text/csv", cli)
    with pytest.raises(urllib.error.HTTPError) as e:
        api(port, "roofline", {"format": "xml"})
    assert e.value.code == 400


# The text a person reads is the answer's own (io/text.hpp): the CLI prints it, the API serves it
# with ?format=text (or Accept: text/plain) and Python returns it from llmecon.text, byte for byte.
@pytest.mark.parametrize("command,args", [
    ("roofline", {"model": "llama-3.1-70b", "hw": "h100-sxm", "batch": 64, "explain": True}),
    ("sweep", {"model": "llama-3.1-8b", "hw": "h100-sxm", "batch": "1:64:x4"}),
    ("batch", {"price_multiple": 6}), ("lecture", {}), ("models", {}),
    ("plan", {"model": "llama-3.1-8b", "hw": "h100-sxm"}),
    ("simulate", {"model": "llama-3.1-8b", "hw": "h100-sxm", "chips": 1, "rate": 5, "requests": 100}),
    ("train", {"model": "llama-3.1-8b", "chips": 64, "tp": 2, "range": True}), ("tco", {"range": True}),
])
def test_every_shell_gives_the_clis_text(port, command, args):
    cli = subprocess.run([BIN, *cli_argv(command, args)], capture_output=True, text=True, check=True).stdout
    assert cli.strip() and not cli.lstrip().startswith("{")
    assert llmecon.text(command, **args) == cli
    for body, headers in [(dict(args, format="text"), {}), (args, {"Accept": "text/plain"})]:
        assert api_body(port, command, body, headers) == ("text/plain; charset=utf-8", cli)
