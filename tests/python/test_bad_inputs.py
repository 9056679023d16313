"""The bad-input corpus: every case exits 2 with one line on stderr naming the file, field or flag
and nothing on stdout; the same case through the API is HTTP 400 with the same message, and
through Python a ValueError with it. Cases are hand-written reproducers (configs, hardware and
price TOML, measurement CSVs) plus, for every numeric flag of every command in the table, a value
below its range, above it, text that is not a number, and a boolean."""
import json
import os
import subprocess
import urllib.error
import urllib.request

import pytest

import llmecon
from serving import serving
from shells import api_request, cli_argv, python_function

BIN = os.environ["LLMECON_BIN"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = ("id,split,model,hardware,chips,tp,pp,ep,dp,cp,weight_dtype,kv_dtype,scenario,batch,isl,osl,metric,value,"
          "unit,source,notes")
ROW = "r1,dev,llama-3.1-8b,h100-sxm,{chips},{tp},{pp},,{dp},,{wd},bf16,decode_fixed_batch,8,1024,128,tpot_ms,{value},ms,s,n"

LLAMA = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
         "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192}
QWEN_MOE = dict(LLAMA, model_type="qwen3_moe", num_experts=128, num_experts_per_tok=8, moe_intermediate_size=768)
DEEPSEEK = {"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
            "vocab_size": 129280, "intermediate_size": 18432, "kv_lora_rank": 512, "q_lora_rank": 1536,
            "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 256,
            "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "n_shared_experts": 1,
            "first_k_dense_replace": 3}
LLAMA4 = dict(LLAMA, model_type="llama4_text", num_local_experts=16, num_experts_per_tok=1)
GPT_OSS = dict(LLAMA, model_type="gpt_oss", num_local_experts=32, num_experts_per_tok=4, sliding_window=128)


def config_cases():
    """(name, config text, expected substring of the message)."""
    def js(d):
        return json.dumps(d)
    return [
        ("hidden-1e400", '{"model_type":"llama","hidden_size":1e400}', "a number out of range"),
        ("quant-method-number", js(dict(LLAMA, quantization_config={"quant_method": 5})),
         "quantization_config.quant_method: expected a string"),
        ("model-type-number", '{"model_type":7,"text_config":{}}', "model_type: expected a string"),
        ("mlp-only-text", js(dict(QWEN_MOE, mlp_only_layers=["a"])), "mlp_only_layers: expected integers"),
        ("mlp-only-huge", js(dict(QWEN_MOE, mlp_only_layers=[1e20])), "mlp_only_layers: expected integers"),
        ("mlp-only-out-of-range", js(dict(QWEN_MOE, mlp_only_layers=[99])), "mlp_only_layers: entry 99 outside"),
        ("no-rope-text", js(dict(LLAMA4, no_rope_layers=["x"])), "no_rope_layers: expected integers"),
        ("shared-overflow", js(dict(DEEPSEEK, n_shared_experts=100000, moe_intermediate_size=100000)),
         "n_shared_experts: shared experts x moe_intermediate_size"),
        ("topk-above-experts", js(dict(QWEN_MOE, num_experts_per_tok=300)), "num_experts_per_tok: routes each token"),
        ("hidden-below-heads", js(dict(LLAMA, hidden_size=16, num_attention_heads=32)), "hidden_size: smaller than"),
        ("kv-heads-above-heads", js(dict(LLAMA, num_key_value_heads=64)), "num_key_value_heads: must divide"),
        ("layer-types-numbers", js(dict(GPT_OSS, layer_types=[1] * 32)), "layer_types: entry 0 is 1"),
        ("layers-1e6", js(dict(LLAMA, num_hidden_layers=1000000)), "num_hidden_layers: more than 10^4 layers"),
        ("context-1e9", js(dict(LLAMA, max_position_embeddings=1000000000)), "more than 10^8 tokens of context"),
        ("hidden-zero", js(dict(LLAMA, hidden_size=0)), "hidden_size: must be positive"),
        ("hidden-text", js(dict(LLAMA, hidden_size="big")), "hidden_size: expected an integer"),
        ("hidden-fraction", js(dict(LLAMA, hidden_size=4096.5)), "hidden_size: expected an integer"),
        ("hidden-2e9", js(dict(LLAMA, hidden_size=2e9)), "hidden_size: implausibly large"),
        ("layers-missing", js({k: v for k, v in LLAMA.items() if k != "num_hidden_layers"}), "num_hidden_layers: missing"),
        ("heads-negative", js(dict(LLAMA, num_attention_heads=-8)), "num_attention_heads: must be positive"),
        ("tie-text", js(dict(LLAMA, tie_word_embeddings="yes")), "tie_word_embeddings: expected true or false"),
        ("unknown-type", js(dict(LLAMA, model_type="transformer9000")), "model_type"),
        ("not-an-object", "[1, 2, 3]", "expected a JSON object"),
        ("truncated", '{"model_type": "llama", "hidden_size": 40', "malformed JSON"),
        ("empty", "", "malformed JSON"),
        ("kv-sharing-zero", js(dict(LLAMA, cross_layer_kv_sharing=0)), "cross_layer_kv_sharing"),
        ("sparse-unknown", js(dict(LLAMA, llmecon_sparse_attention="dense")), "llmecon_sparse_attention"),
    ]


HW_BASE = """name = "{name}"
sources = ["https://example.com"]
[compute]
bf16 = "{bf16}"
[memory]
hbm_capacity = "80 GB"
hbm_bandwidth = "{bw}"
[scale_up]
domain_size = {domain}
topology = "switch"
bandwidth = "{up}"
[scale_out]
bandwidth = "400 Gb/s"
[price]
rental = "$2/h"
"""


def hw(**kw):
    v = dict(name="x1", bf16="989 TFLOP/s", bw="3.35 TB/s", domain=8, up="450 GB/s")
    v.update(kw)
    return HW_BASE.format(**v)


def hw_cases():
    return [
        ("hw-zero-flops", hw(bf16="0 TFLOP/s"), "compute.bf16: out of the physical range"),
        ("hw-inf-bandwidth", hw(bw="1e308 PB/s"), "memory.hbm_bandwidth: '1e308 PB/s' is out of range"),
        ("hw-denormal-bandwidth", hw(bw="1e-320 B/s"), "memory.hbm_bandwidth: '1e-320 B/s' is out of range"),
        ("hw-zero-scaleup", hw(up="0 GB/s"), "scale_up.bandwidth: out of the physical range"),
        ("hw-domain-overflow", hw(domain=4294967297), "scale_up.domain_size: must lie in [1, 10^6]"),
        ("hw-domain-zero", hw(domain=0), "scale_up.domain_size: must lie in [1, 10^6]"),
        ("hw-unitless", hw(bw="3.35"), "memory.hbm_bandwidth: '3.35' has no unit"),
        ("hw-wrong-dim", hw(bw="3.35 TB"), "memory.hbm_bandwidth"),
        ("hw-unknown-key", hw() + "colour = 1\n", "unknown key"),
        ("hw-malformed", "name = \n", "malformed TOML"),
        ("overlay-efficiency-int", 'name = "h100-sxm"\nefficiency = 1\n', "efficiency: expected a table"),
        ("overlay-empty", 'name = "h100-sxm"\n', "an overlay holds [efficiency] or [price]"),
        ("overlay-unknown-chip", 'name = "tpu-v99"\n[price]\nrental = "$2/h"\n', "unknown hardware 'tpu-v99'"),
        ("overlay-fraction", 'name = "h100-sxm"\n[efficiency]\ncompute = 1.5\n', "efficiency.compute"),
    ]


PRICE_BASE = 'provider = "P"\nmodel = "m"\ndate = "2026-01"\nsources = ["https://e.com"]\n[base]\ninput = "$1/Mtok"\noutput = "$5/Mtok"\n'


def price_cases():
    return [
        ("price-fast-negative", PRICE_BASE + "[fast]\nprice_multiple = -6.0\nspeed_multiple = 2.5\n", "fast.price_multiple"),
        ("price-fast-zero", PRICE_BASE + "[fast]\nprice_multiple = 6.0\nspeed_multiple = 0\n", "fast.speed_multiple"),
        ("price-unknown-key", "colour = 1\n" + PRICE_BASE, "colour: unknown key"),
        ("price-unitless", PRICE_BASE.replace('"$1/Mtok"', '"1"'), "base.input: '1' has no unit"),
        ("price-no-sources", PRICE_BASE.replace('sources = ["https://e.com"]\n', ""), "sources: missing required field"),
        ("price-ttl-zero", PRICE_BASE + '[[cache.write]]\nttl = "0 s"\nprice = "$1/Mtok"\n', "cache.write.ttl: must be positive"),
    ]


def csv_cases():
    def csv(**kw):
        v = dict(chips=8, tp=8, pp=1, dp=1, wd="bf16", value=10)
        v.update(kw)
        return HEADER + "\n" + ROW.format(**v) + "\n"
    return [
        ("csv-chips-2e9", csv(chips=2147483648, tp=65535, pp=65537), "more than 10^6 chips"),
        ("csv-chips-1e300", csv(chips="1e300", tp=1), "more than 10^6 chips"),
        ("csv-tp-1e12", csv(tp="1e12"), "a parallel degree larger than the chips"),
        ("csv-degrees-product", csv(chips=8, tp=8, pp=8), "tp x pp x dp x cp = 64 is more than the 8 chips"),
        ("csv-unknown-dtype", csv(wd="fp6"), "column 11 (weight_dtype): unknown dtype 'fp6'"),
        ("csv-value-zero", csv(value=0), "a measured value must be positive"),
        ("csv-hex", csv(value="0x10"), "'0x10' is not a number"),
        ("csv-inf", csv(value="inf"), "'inf' is not a number"),
        ("csv-negative", csv(value=-3), "must not be negative"),
        ("csv-header", "id,date\n", "unexpected header"),
        ("csv-empty", "", "empty file"),
    ]


def flag_cases():
    """For every numeric argument of every command: below range, above range, not a number, a boolean."""
    out = []
    for spec in llmecon.COMMANDS:
        if spec["measures"]:
            continue
        required = {a["key"]: a for a in spec["args"] if a["required"]}
        for a in spec["args"]:
            if a["type"] not in ("number", "integer"):
                continue
            base = {}
            if "file" in required:
                base["file"] = os.path.join(ROOT, "data", "validation", "dev.csv")
            if "hw" in required:
                base["hw"] = "a100-sxm-80gb"
            if "model" in required:
                base["model"] = "llama-3.1-8b"
            flag = a["flag"]
            whole = lambda x: int(x) if x == int(x) else x  # noqa: E731 (the same JSON from every shell)
            if a["min"] is not None:
                lo = whole(a["min"] if a.get("exclusive_min") else a["min"] - 1)
                word = "greater than" if a.get("exclusive_min") else "at least"
                out.append((f"{spec['name']}-{a['key']}-below", spec["name"], dict(base, **{a["key"]: lo}),
                            f"{flag}: must be {word}"))
            if a["max"] is not None:
                hi = whole(a["max"] * 10 if a["max"] > 0 else 1)
                out.append((f"{spec['name']}-{a['key']}-above", spec["name"], dict(base, **{a["key"]: hi}),
                            f"{flag}: must be at most"))
            if a["type"] == "integer":
                out.append((f"{spec['name']}-{a['key']}-fraction", spec["name"], dict(base, **{a["key"]: 2.5}),
                            f"{flag}: expected a whole number"))
    return out


def run_cli(argv):
    out = subprocess.run([BIN, *argv], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, (argv, out.returncode, out.stderr)
    assert out.stdout == "", argv
    lines = out.stderr.splitlines()
    assert len(lines) == 1, (argv, out.stderr)
    assert lines[0].startswith("llmecon: error: ")
    return lines[0][len("llmecon: error: "):]


@pytest.fixture(scope="module")
def port():
    with serving("--threads", "2", "--allow-files", "--cache-bytes", "0") as p:
        yield p


def api_error(port, command, args):
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(api_request(port, command, args), timeout=120)
    assert e.value.code == 400, e.value.read()
    return json.loads(e.value.read())["error"]


def python_error(command, args):
    with pytest.raises(ValueError) as e:
        python_function(command)(**args)
    return str(e.value)


def everywhere(port, command, args, expected):
    """The case through the CLI, the API and Python: the same one-line message from each."""
    cli = run_cli(cli_argv(command, args))
    assert expected in cli, (cli, expected)
    assert api_error(port, command, args) == cli
    assert python_error(command, args) == cli


@pytest.mark.parametrize("name,text,expected", config_cases(), ids=[c[0] for c in config_cases()])
def test_bad_config(port, tmp_path, name, text, expected):
    path = tmp_path / f"{name}.json"
    path.write_text(text)
    everywhere(port, "model", {"model": str(path)}, expected)
    everywhere(port, "roofline", {"model": str(path), "hw": "h100-sxm"}, expected)


def pasted_cases():
    """The config cases that are JSON objects (the others are malformed files, not objects)."""
    out = []
    for case in config_cases():
        try:
            if isinstance(json.loads(case[1]), dict):
                out.append(case)
        except ValueError:
            pass
    return out


@pytest.mark.parametrize("name,text,expected", pasted_cases(), ids=[c[0] for c in pasted_cases()])
def test_bad_config_pasted_as_an_object(port, name, text, expected):
    # The API and Python take the config object itself, with no file: the same field is named.
    body = ('{"model": %s, "hw": "h100-sxm"}' % text).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/roofline", data=body,
                                 headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=120)
    assert e.value.code == 400
    message = json.loads(e.value.read())["error"]
    assert expected in message, (message, expected)
    assert message.startswith(("--model: ", "request: malformed JSON")), message
    message = python_error("roofline", {"model": json.loads(text), "hw": "h100-sxm"})
    if "1e400" not in text:  # Python reads that one as inf, which no JSON carries
        assert message.startswith("--model: ") and expected in message, (message, expected)


@pytest.mark.parametrize("name,text,expected", hw_cases(), ids=[c[0] for c in hw_cases()])
def test_bad_hardware_file(tmp_path, name, text, expected):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    message = run_cli(["hardware", "--hw-file", str(path)])
    assert message.startswith(str(path)), message  # names the file
    assert expected in message, (message, expected)


@pytest.mark.parametrize("name,text,expected", price_cases(), ids=[c[0] for c in price_cases()])
def test_bad_price_sheet(tmp_path, name, text, expected):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    message = run_cli(["price", "--price-file", str(path)])
    assert message.startswith(str(path)), message
    assert expected in message, (message, expected)


@pytest.mark.parametrize("name,text,expected", csv_cases(), ids=[c[0] for c in csv_cases()])
def test_bad_measurement_csv(port, tmp_path, name, text, expected):
    path = tmp_path / f"{name}.csv"
    path.write_text(text)
    everywhere(port, "validate", {"file": str(path)}, expected)
    assert run_cli(["validate", str(path)]).startswith(str(path))


@pytest.mark.parametrize("name,command,args,expected", flag_cases(), ids=[c[0] for c in flag_cases()])
def test_bad_flag_value(port, name, command, args, expected):
    everywhere(port, command, args, expected)


def text_cases():
    """Text where a number belongs: the CLI reads the text and says it is not a number; JSON and
    Python are typed, so the same value is a type error there."""
    out = []
    for name, command, args, _ in flag_cases():
        if name.endswith("-above"):
            key = name[len(command) + 1:-len("-above")]
            out.append((f"{command}-{key}-text", command, dict(args, **{key: "lots"}), key))
    return out


@pytest.mark.parametrize("name,command,args,key", text_cases(), ids=[c[0] for c in text_cases()])
def test_text_for_a_number(port, name, command, args, key):
    flag = "--" + key.replace("_", "-")
    assert run_cli(cli_argv(command, args)).startswith(f"{flag}: 'lots' is not a number")
    assert api_error(port, command, args).startswith(f'{flag}: expected a number, got "lots"')
    assert python_error(command, args).startswith(f'{flag}: expected a number, got "lots"')


@pytest.mark.parametrize("argv,expected", [
    (["model", "show", "/dev/zero"], "/dev/zero: not a regular file"),
    (["hardware", "--hw-file", "/dev/zero"], "/dev/zero: not a regular file"),
    (["validate", "/dev/zero"], "/dev/zero: not a regular file"),
    (["validate", "/"], "/: not a regular file"),
    (["roofline", "--batch", ""], "--batch: '' is not a number"),
    (["roofline", "--batch", "0x40"], "--batch: '0x40' is not a number"),
    (["serve", "--max-body", "-1"], "--max-body"),
    (["layout", "--stages", "2000000000"], "--stages: must be at most 100000"),
])
def test_bad_files_and_flags(argv, expected):
    assert expected in run_cli(argv)


def test_the_corpus_is_large():
    n = (len(config_cases()) * 2 + len(pasted_cases()) + len(hw_cases()) + len(price_cases()) + len(csv_cases()) + len(flag_cases()) +
         len(text_cases()) + len(TRACE_CASES) + len(WORKLOAD_CASES) + 8)
    assert n >= 150, n


# Traces and workloads for simulate: the line and column (or the flag) named from every shell.
TRACE_CASES = [
    ("negative-time", "timestamp_s,input_tokens,output_tokens\n-1,100,10\n", "line 2, column timestamp_s: negative"),
    ("out-of-order", "timestamp_s,input_tokens,output_tokens\n5,100,10\n4,100,10\n",
     "line 3, column timestamp_s: timestamp 4 is before the previous one"),
    ("non-numeric", "timestamp_s,input_tokens,output_tokens\n0,lots,10\n", "line 2, column input_tokens: 'lots'"),
    ("empty", "", "the trace is empty"),
    ("missing-column", "timestamp_s,output_tokens\n0,10\n", "line 1, column input_tokens: missing column"),
    ("ragged", "timestamp_s,input_tokens,output_tokens\n0,100\n", "line 2, column -: 2 fields, the header has 3"),
    ("jsonl-missing", '{"timestamp_s": 0, "input_tokens": 5}\n', "line 1, column output_tokens: missing"),
    ("mooncake-bad-hash", '{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": ["x"]}\n',
     "line 1, column hash_ids"),
]


@pytest.mark.parametrize("name,text,expected", TRACE_CASES, ids=[c[0] for c in TRACE_CASES])
def test_bad_trace(port, tmp_path, name, text, expected):
    path = tmp_path / f"{name}.trace"
    path.write_text(text)
    everywhere(port, "simulate", {"model": "llama-3.1-8b", "hw": "h100-sxm", "trace": str(path)}, expected)


WORKLOAD_CASES = [
    ({"requests": 500000, "max_requests": 100000}, "--requests: 500000 requests exceed --max-requests (100000)"),
    ({"isl": "zipf:2"}, "--isl: unknown distribution 'zipf'"),
    ({"osl": "uniform:10"}, "--osl: uniform takes 2 number(s)"),
    ({"slo": "ttft_p99=2"}, "--slo: 'ttft_p99=2' has no unit"),
    ({"arrival": "gamma:0"}, "--arrival: gamma needs a coefficient of variation"),
    ({"rate": 5, "offline": True}, "--rate: give one of --rate, --concurrency, --offline or --trace"),
    ({"workload": "mlperf-llama2-70b"}, "--isl: mlperf-llama2-70b publishes no input lengths"),
    ({"workload": "nope"}, "--workload: no workload named 'nope'"),
    ({"find_rate": True, "workload": "none", "rate": 1}, "--find-rate: needs an SLO to meet"),
    ({"prefix_hit": 0.5}, "--prefix-tokens: --prefix-hit needs the shared prefix's length"),
]


@pytest.mark.parametrize("args,expected", WORKLOAD_CASES, ids=[str(i) for i in range(len(WORKLOAD_CASES))])
def test_bad_workload(port, args, expected):
    everywhere(port, "simulate", {"model": "llama-3.1-8b", "hw": "h100-sxm", **args}, expected)


def test_the_api_caps_simulated_requests(port):
    # The CLI and Python may simulate 2·10^6 requests when asked to; one API call may not.
    args = {"model": "llama-3.1-8b", "hw": "h100-sxm", "requests": 2_000_000, "max_requests": 2_000_000}
    assert "the API takes at most 1000000 per call" in api_error(port, "simulate", args)


def test_a_billion_requests_need_max_requests(port):
    # Without --max-requests, 10^9 requests are refused by name from the CLI and Python, and the API
    # refuses them as more than one call may ask.
    args = {"model": "llama-3.1-8b", "hw": "h100-sxm", "requests": 10**9}
    expected = "--requests: 1000000000 requests exceed --max-requests (1000000)"
    assert expected in run_cli(cli_argv("simulate", args))
    assert expected in python_error("simulate", args)
    assert api_error(port, "simulate", args).startswith("--requests: ")
