#!/usr/bin/env bash
# CLI smoke test: every subcommand runs in every output format, and bad input gets a one-line
# error naming the flag or file, with exit code 2. Usage: cli_test.sh LLMECON DATA_DIR
set -u
bin=$1
data=$2
fails=0
passes=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() {  # ok NAME CMD... : must exit 0 and print something
  local name=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/out" ]; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name: exit $? : $(head -c 400 "$tmp/err")"; fails=$((fails + 1))
  fi
}

json_ok() {  # json_ok NAME EXPR CMD... : valid JSON on stdout and python EXPR on it is true
  local name=$1 expr=$2; shift 2
  if "$@" >"$tmp/out" 2>"$tmp/err" && python3 -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if ($expr) else 1)"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name: $(head -c 400 "$tmp/out") $(head -c 400 "$tmp/err")"; fails=$((fails + 1))
  fi
}

csv_ok() {  # csv_ok NAME EXPR CMD... : exit 0, CSV on stdout, python EXPR on its rows (dicts) is true
  local name=$1 expr=$2; shift 2
  if "$@" >"$tmp/out" 2>"$tmp/err" && python3 -c "import csv,sys; rows=list(csv.DictReader(open('$tmp/out'))); sys.exit(0 if ($expr) else 1)"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name: $(head -c 400 "$tmp/out") $(head -c 400 "$tmp/err")"; fails=$((fails + 1))
  fi
}

json_infeasible() {  # json_infeasible NAME EXPR CMD... : exit 1 (an infeasible answer), JSON with feasible false, EXPR true
  local name=$1 expr=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq 1 ] && python3 -c "import json,sys; d=json.load(open('$tmp/out')); sys.exit(0 if (d['feasible'] is False and ($expr)) else 1)"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name: rc=$rc $(head -c 400 "$tmp/out") $(head -c 400 "$tmp/err")"; fails=$((fails + 1))
  fi
}

bad() {  # bad NAME PATTERN CMD... : exit 2, exactly one stderr line matching PATTERN, no stdout
  local name=$1 pattern=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local lines; lines=$(wc -l <"$tmp/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pattern" "$tmp/err" && [ ! -s "$tmp/out" ]; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name: rc=$rc lines=$lines stderr=$(cat "$tmp/err")"; fails=$((fails + 1))
  fi
}

ok models "$bin" models
ok hardware "$bin" hardware
ok model-show "$bin" model show deepseek-v3
ok roofline-default "$bin" roofline
ok roofline-explain "$bin" roofline --model llama-3.1-70b --hw h100-sxm --batch 64 --context 8192 --explain
ok sweep "$bin" sweep --model llama-3.1-8b --hw h100-sxm --chips 1 --batch 1:256:x2
ok models-csv "$bin" models --csv
ok hardware-csv "$bin" hardware --csv
ok sweep-csv "$bin" sweep --csv --batch 1,8 --context 1024,4096
ok config-path "$bin" roofline --model "$data/tiny_llama.json" --hw h100-sxm --chips 1
ok hw-file "$bin" roofline --hw-file "$data/hw_custom.toml" --hw h100-custom --model llama-3.1-8b

json_ok models-json "len(d) >= 27 and all('params_total' in m for m in d)" "$bin" models --json
json_ok hardware-json "any(h['name'] == 'blackboard' for h in d)" "$bin" hardware --json
json_ok hardware-exp-rate "(lambda h: abs(h['gb300']['exp_per_s'] - 10.7e12) < 1e3 and h['gb200']['exp_per_s'] == 5e12 and 'exp_per_s' not in h['mi300x'])({x['name']: x for x in d})" "$bin" hardware --json
# The MoE host time (model.md §24.3): 400 us x 16 local experts x 48 MoE layers x 16 micro-batches, x 4/3 for
# the forward a full recomputation reruns.
q30=(train -m qwen3-30b-a3b --hw h100-sxm --chips 16 --tp 1 --pp 1 --ep 8 --micro-batch 1 --seq-len 4096 --global-batch 256 --recompute full --json)
json_ok train-expert-host "abs({t['term']: t['exposed_s'] for t in d['time']}['host'] - 400e-6 * 16 * 48 * 16 * 4 / 3) < 1e-9" "$bin" "${q30[@]}"
json_ok train-expert-host-off "{t['term']: t['exposed_s'] for t in d['time']}['host'] == 0" "$bin" "${q30[@]}" --expert-host-us 0
json_ok train-expert-host-ideal "{t['term']: t['exposed_s'] for t in d['time']}['host'] == 0" "$bin" "${q30[@]}" --ideal
json_ok show-json "d['kv_bytes_per_token'] == 327680 and d['layers'] == 80" "$bin" model show llama-3.1-70b --json
json_ok show-json-kv "d['kv_bytes_per_token'] == 61*576*2" "$bin" model show deepseek-v3 --json --kv-dtype bf16
json_ok roofline-json "set(['model','hardware','chips','phase','batch','context','t_compute_s','t_weights_s','t_kv_s','t_step_s','bound','tokens_per_s','usd_per_mtok_output','step_model','mem_weights_bytes','mem_kv_bytes','feasible']) <= set(d)" \
  "$bin" roofline --json --model deepseek-v3 --hw gb200 --batch 512 --context 4096
json_ok roofline-explain-json "len(d['explain']) >= 8" "$bin" roofline --json --explain
json_ok roofline-ops "sum(o['flops'] for o in d['ops']) > 0.999 * d['flops'] and len(d['ops_by_kind']) == 7" "$bin" roofline --json --ops --model mixtral-8x7b --hw h100-sxm --batch 16
ok roofline-ops-text "$bin" roofline --ops
json_ok roofline-range "d['range']['t_step_s']['p10'] <= d['t_step_s'] <= d['range']['t_step_s']['p90']" "$bin" roofline --json --range --model llama-3.1-70b --hw b200 --batch 64
ok roofline-range-text "$bin" roofline --range
json_ok roofline-ideal "d['t_overhead_s'] == 0" "$bin" roofline --json --ideal
ok sweep-plot "$bin" sweep --batch 1:1024:x4 --context 1024,32768 --plot "$tmp/sweep.svg"
if [ "$(grep -c '<polyline' "$tmp/sweep.svg")" -eq 2 ] && grep -q 'context 32768' "$tmp/sweep.svg"; then passes=$((passes + 1)); else echo "FAIL: sweep-plot content"; fails=$((fails + 1)); fi
ok batch-plot "$bin" batch --plot "$tmp/batch.svg"
if grep -q 'B\* = R x S' "$tmp/batch.svg"; then passes=$((passes + 1)); else echo "FAIL: batch-plot marker"; fails=$((fails + 1)); fi
ok plan-plot "$bin" plan --model llama-3.1-8b --hw h100-sxm --plot "$tmp/plan.svg"
# Long whole prompts on one GPU: a layout is found for the few sequences that fit, and each prompt
# past the engine's token budget runs beside the decodes (model.md §23.4).
json_ok simulate-long-prompts "d['completed'] == 20 and d['batch']['mean'] > 2 and any('pass the 8192-token budget' in x for x in d['envelope'])" \
  "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --engine trtllm --offline --requests 20 --isl 20000 --osl 50 --workload none --json
# A named engine's GEMMs run at its sustained share of the chip's rate; the pure roofline ignores it
# (model.md §18.4), and the envelope says which.
json_ok simulate-engine-share "any(\"GEMMs at 0.65 of the chip's rate\" in x for x in d['envelope'])" \
  "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --engine vllm --offline --requests 40 --isl 2048 --osl 16 --workload none --json
json_ok simulate-engine-share-ideal "not any('GEMMs at' in x for x in d['envelope'])" \
  "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --engine vllm --offline --requests 40 --isl 2048 --osl 16 --workload none --ideal --json
# Workload shapes and admission rules (docs/simulate.md): a dataset preset, inference-perf's shared
# prefixes, unstreamed answers, and an admission rule other than the engine's.
json_ok simulate-sharegpt "d['completed'] == 300 and any('workload sharegpt' in x for x in d['envelope'])" \
  "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --workload sharegpt --rate 4 --requests 300 --json
json_ok simulate-shared-prefix "d['completed'] == 40 and d['prefix_hit_rate'] > 0.8 and any('shared prefix: 2 shared prompts of 2048 tokens, 20 users each' in x for x in d['envelope'])" \
  "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --workload none --shared-prefix 2:2048:128:20 --osl 32 --rate 2 --json
json_ok simulate-no-stream "d['ttft_s']['mean'] == d['e2e_s']['mean'] and d['tpot_ms']['n'] == 0" \
  "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --workload none --rate 2 --requests 100 --no-stream --json
json_ok simulate-admission "d['preemptions'] == 0" \
  "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --workload none --offline --requests 200 --isl 8000 --osl 2000 --admission reserve --json
bad simulate-shared-prefix-isl "--shared-prefix: sets the prompts and prefixes that --isl would set" "$bin" simulate --workload none --rate 1 --shared-prefix 2:2048:128 --isl 100
bad simulate-shared-prefix-form "--shared-prefix: takes three or four numbers" "$bin" simulate --workload none --rate 1 --shared-prefix 2:2048
bad simulate-shared-prefix-requests "--requests: --shared-prefix with USERS sends groups x users requests" "$bin" simulate --workload none --rate 1 --shared-prefix 2:2048:128:10 --requests 50
bad simulate-bad-cap "--isl: cap 0 is out of range" "$bin" simulate --workload none --isl lognormal:100,1,0
ok simulate-plot "$bin" simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --requests 300 --slo ttft_p99=1s --plot "$tmp/sim.svg" --chrome-trace "$tmp/trace.json"
if [ "$(grep -c '<polyline' "$tmp/sim.svg")" -eq 3 ] && grep -q 'ttft p99 target' "$tmp/sim.svg" && [ "$(grep -c '<polyline' "$tmp/sim-time.svg")" -eq 2 ]; then passes=$((passes + 1)); else echo "FAIL: simulate-plot content"; fails=$((fails + 1)); fi
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=d['traceEvents']; assert any(x['ph']=='X' for x in e) and sum(x['ph']=='b' for x in e)==sum(x['ph']=='e' for x in e)==300" "$tmp/trace.json"; then passes=$((passes + 1)); else echo "FAIL: simulate chrome trace"; fails=$((fails + 1)); fi
bad plot-unwritable "cannot write file" "$bin" batch --plot /nonexistent/dir/x.svg
# FILE.html: the web page's charts with Chart.js inlined (works offline), and the result's JSON.
ok context-plot-html "$bin" context --plot "$tmp/context.html"
if grep -q 'llmeconCharts.renderCommand("context"' "$tmp/context.html" && grep -q 'Chart.js v' "$tmp/context.html" &&
   ! grep -q '<script src=' "$tmp/context.html"; then passes=$((passes + 1)); else echo "FAIL: context-plot-html content"; fails=$((fails + 1)); fi
# A name with markup (a config file's stem) is text in the page, never markup.
cp "$data/../../data/models/qwen3-8b.json" "$tmp/<img src=x onerror=alert(1)>.json"
ok plot-html-escapes "$bin" sweep --model "$tmp/<img src=x onerror=alert(1)>.json" --hw h100-sxm --batch 1,2,4 --plot "$tmp/esc.html"
if ! grep -q '<img' "$tmp/esc.html" && grep -q '&lt;img src=x' "$tmp/esc.html" && grep -q 'u003cimg' "$tmp/esc.html"; then passes=$((passes + 1)); else echo "FAIL: plot-html-escapes"; fails=$((fails + 1)); fi
bad plot-html-no-chart "has no web chart" "$bin" measure --quick --plot "$tmp/measure.html"

# The progress bar: drawn on a terminal (a pty from script(1)), never when piped or with --json.
if command -v script >/dev/null 2>&1; then
  LLMECON_PROGRESS_DELAY_MS=0 script -qec "$bin plan --model llama-3.1-8b --hw h100-sxm" /dev/null >"$tmp/tty" 2>&1
  if grep -q 'plan \[#*\.*\] *[0-9]*%' "$tmp/tty" && grep -q 'searched' "$tmp/tty"; then passes=$((passes + 1)); else echo "FAIL: progress on a terminal: $(head -c 300 "$tmp/tty")"; fails=$((fails + 1)); fi
  LLMECON_PROGRESS_DELAY_MS=0 script -qec "$bin plan --model llama-3.1-8b --hw h100-sxm --json" /dev/null >"$tmp/tty" 2>&1
  if ! grep -q '%' "$tmp/tty" && grep -q '"frontier"' "$tmp/tty"; then passes=$((passes + 1)); else echo "FAIL: progress with --json"; fails=$((fails + 1)); fi
fi
LLMECON_PROGRESS_DELAY_MS=0 "$bin" sweep --batch 1:4096:x2 >"$tmp/out" 2>"$tmp/err"
if [ ! -s "$tmp/err" ] && ! grep -q $'\r' "$tmp/out"; then passes=$((passes + 1)); else echo "FAIL: progress when piped"; fails=$((fails + 1)); fi
json_ok sweep-json "len(d['rows']) == 6" "$bin" sweep --json --batch 1,2,4 --context 1024,2048
json_ok sweep-range "[r['batch'] for r in d['rows']] == [1,4,16,64]" "$bin" sweep --json --batch 1:64:x4

for cmd in batch step context price layout cache lifecycle revnet lecture; do
  ok "$cmd" "$bin" "$cmd"
  ok "$cmd-explain" "$bin" "$cmd" --explain
  json_ok "$cmd-json" "isinstance(d, (dict, list)) and len(d) > 0" "$bin" "$cmd" --json
done
ok batch-fast "$bin" batch --price-multiple 6 --speed-multiple 2.5 --context 100000
ok price-inverse "$bin" price --sheet gemini-3.1-pro --n-active 100e9 --hw blackboard
ok lecture-csv "$bin" lecture --csv
json_ok lecture-contract "len(d) == 32 and all(set(['id','claim','expected','computed','unit','tolerance','pass']) <= set(c) for c in d) and [c['id'] for c in d if not c['pass']] == ['C19']" "$bin" lecture --json
json_ok batch-bstar "abs(d['b_star'] - d['r'] * d['sparsity']) < 1e-6 * d['b_star'] and len(d['explain']) >= 5" "$bin" batch --json --model llama-3.1-70b --hw h100-sxm
json_ok price-gemini "abs(d['inverse']['kv_bytes_per_token'] - 100e9 / (300 * 200000)) < 1e-6" "$bin" price --json --sheet gemini-3.1-pro --n-active 100e9 --hw blackboard
json_ok cache-tiers "[r['tier'] for r in d['tiers']] == ['hbm','ddr','flash','disk','recompute']" "$bin" cache --json --hw blackboard
json_ok lifecycle-c14 "abs(d['overtraining'] - 129.6) < 1e-6" "$bin" lifecycle --json
json_ok layout-experts "d['experts_per_chip'] == 4 and d['chips_idle'] == 8" "$bin" layout --json --model deepseek-v3 --hw gb200

json_ok plan-contract "all(set(['tp','pp','ep','dp','batch','weight_dtype','kv_dtype','tokens_per_s_per_chip','tokens_per_s_per_user','ttft_s','tpot_ms','usd_per_mtok_blended','usd_per_mtok_output']) <= set(p) for p in d['frontier']) and d['best'] is not None and isinstance(d['rejected'], dict)" \
  "$bin" plan --json --model llama-3.1-8b --hw h100-sxm --chips 8 --tpot-ms 30
json_ok plan-scaleup "[r['domain'] for r in d['scaleup']] == [8, 72, 576] and all(r['best'] for r in d['scaleup'])" \
  "$bin" plan --json --model deepseek-v3 --hw gb200 --chips 72 --scaleup 8,72,576 --weight-dtypes fp8
json_infeasible plan-empty "d['best'] is None and d['empty_reason'] == 'no feasible point meets the SLO'" \
  "$bin" plan --json --model llama-3.1-70b --hw h100-sxm --tpot-ms 0.001
json_ok plan-disagg "d['best']['prefill_mapping'] is not None" \
  "$bin" plan --json --model llama-3.1-8b --hw h100-sxm --prefill-hw h200-sxm --prefill-chips 8
json_ok plan-range "d['best_range']['tpot_ms']['p10'] <= d['best']['tpot_ms'] * 1.0001 and d['best']['tpot_ms'] <= d['best_range']['tpot_ms']['p90'] * 1.0001" \
  "$bin" plan --json --range --model llama-3.1-8b --hw h100-sxm --tpot-ms 30
ok plan-text "$bin" plan --model mixtral-8x7b --hw h100-sxm --tpot-ms 40 --frontier-max 8
ok plan-csv "$bin" plan --csv --model mixtral-8x7b --hw h100-sxm
# CSV is the whole answer: an analysis and a plan in long form (section,row,key,value,unit).
csv_ok train-csv-whole "{(r['section'], r['key']) for r in rows} >= {('figures', 'days'), ('figures', 'usd'), ('figures', 'gpu_hours'), ('memory', 'bytes'), ('time', 'total_s'), ('answer', 'feasible')} and any(r['key'] == 'days' and r['unit'] == 'day' for r in rows)" "$bin" train --model llama-3.1-8b --chips 8 --tp 8 --csv
csv_ok tco-csv-whole "{'figures', 'capex', 'per_year'} <= {r['section'] for r in rows}" "$bin" tco --csv
csv_ok plan-csv-whole "{'answer', 'frontier', 'best', 'top'} <= {r['section'] for r in rows}" "$bin" plan --model llama-3.1-8b --hw h100-sxm --chips 1 --csv
csv_ok commands-csv "{r['command'] for r in rows} >= {'roofline', 'plan', 'simulate', 'train'} and any(r['command'] == 'plan' and r['key'] == 'slo' for r in rows)" "$bin" commands --csv
# train and scale (model.md §24): the whole run's keys, and bad input naming its flag.
json_ok train-run "all(k in d for k in ('days', 'gpu_hours', 'usd', 'mwh', 'mfu', 'hfu', 'goodput')) and 0 < d['goodput'] <= 1 and 0 < d['mfu'] < 1" "$bin" train --model llama-3.1-8b --chips 64 --tp 2 --pp 2 --json
# --range in text: each quantity's p10 <= p50 <= p90, read back from the printed table.
"$bin" train --model llama-3.1-8b --chips 64 --tp 2 --pp 2 --range >"$tmp/train-range" 2>&1
if grep -q '^range (200 samples' "$tmp/train-range" &&
   awk '$1 == "mfu" { exit !($2 <= $3 && $3 <= $4) } ' "$tmp/train-range" && grep -q '^step ' "$tmp/train-range"; then
  passes=$((passes + 1)); else echo "FAIL: train-range-text: $(head -c 300 "$tmp/train-range")"; fails=$((fails + 1)); fi
"$bin" tco --range >"$tmp/tco-range" 2>&1
if grep -q '^range (' "$tmp/tco-range" && grep -q '^owned over rented' "$tmp/tco-range"; then
  passes=$((passes + 1)); else echo "FAIL: tco-range-text"; fails=$((fails + 1)); fi
json_ok train-search "len(d['ranked']) == 3 and d['layout_searched'] and d['ranked'][0]['step_s'] <= d['ranked'][2]['step_s']" "$bin" train --model llama-3.1-8b --chips 64 --search --top 3 --json
json_ok scale-run "d['params'] > 0 and d['total_usd'] <= d['chinchilla_total_usd'] * 1.0001 and len(d['cost_vs_n']) > 5" "$bin" scale --model llama-3.1-8b --chips 64 --json
ok scale-text-and-plot "$bin" scale --model llama-3.1-8b --chips 64 --plot "$tmp/scale.svg"
grep -q "cost against N" "$tmp/scale.svg" && passes=$((passes + 1)) || { echo "FAIL: scale-plot: no chart title"; fails=$((fails + 1)); }
bad train-pp-over-layers "--pp: 32 layers cannot fill 64 pipeline stages" "$bin" train --model llama-3.1-8b --chips 64 --pp 64
bad train-batch-split "--global-batch: global batch 100 is not a multiple" "$bin" train --model llama-3.1-8b --chips 8 --dp 8 --global-batch 100
# No layout splits an odd global batch: the hint offers the nearest that splits over more
# data-parallel ranks (63M tokens of 4,096 is 15,381 sequences; DeepSeek-V3 trained on 15,360).
# Activation offloading: Qwen3-235B-A22B's published GB200 layout fits only with expert_fc1 and
# moe_act sent to the Grace tier; an unknown module names the ones modelled.
json_ok train-offload-fits "d['feasible'] and [r for r in d['time'] if r['term'] == 'offload'][0]['total_s'] > 0" "$bin" train --model qwen3-235b-a22b --hw gb200 --chips 256 --tp 1 --pp 4 --ep 64 --global-batch 3072 --seq-len 4096 --micro-batch 3 --schedule interleaved --chunks 6 --train-dtype fp8 --recompute-modules layernorm,moe_act --offload-modules expert_fc1,moe_act --json
json_infeasible train-offload-needed "not d['feasible'] and d['reason'].startswith('needs ')" "$bin" train --model qwen3-235b-a22b --hw gb200 --chips 256 --tp 1 --pp 4 --ep 64 --global-batch 3072 --seq-len 4096 --micro-batch 3 --schedule interleaved --chunks 6 --train-dtype fp8 --recompute-modules layernorm,moe_act --json
# Optimizer-state offloading: Llama-3.1-70B at tp 8 pp 2 ZeRO-0 fits 16 H100 only with its states on the host.
json_ok train-offload-optimizer "d['feasible'] and [r for r in d['memory'] if r['term'] == 'host'][0]['bytes'] > 6e10 and [r for r in d['time'] if r['term'] == 'of which host'][0]['total_s'] > 1" "$bin" train --model llama-3.1-70b --hw h100-sxm --chips 16 --tp 8 --pp 2 --zero 0 --recompute full --grad-dtype fp32 --global-batch 64 --seq-len 4096 --offload-optimizer-states 1 --json
json_infeasible train-offload-optimizer-needed "not d['feasible'] and d['reason'].startswith('needs ')" "$bin" train --model llama-3.1-70b --hw h100-sxm --chips 16 --tp 8 --pp 2 --zero 0 --recompute full --grad-dtype fp32 --global-batch 64 --seq-len 4096 --json
bad train-offload-optimizer-range "--offload-optimizer-states" "$bin" train --model llama-3.1-70b --offload-optimizer-states 1.5
bad train-offload-unknown "--offload-modules: unknown module in 'attn_norm' (hint: name core_attn, attn_proj, expert_fc1 or moe_act" "$bin" train --model qwen3-235b-a22b --offload-modules attn_norm
bad train-search-batch-hint "Try --global-batch 15360 (a multiple of 256; now 15381 sequences)" "$bin" train --model deepseek-v3 --hw h100-sxm --chips 2048 --seq-len 4096 --batch-tokens 63e6 --search
# On a million chips (2^6 x 5^6) no power of two splits the batch: the hint names a data-parallel
# degree a searched shape leaves (tp 4 x pp 125 -> dp 2,000). At that batch failures outrun
# progress, and the hint says what to change for them.
bad train-search-batch-hint-shapes "Try --global-batch 2000 (a multiple of 2000; now 2048 sequences)" "$bin" train --model llama-3.1-405b --chips 1000000 --search
bad train-search-failures-hint "Try fewer chips (failures scale with them)" "$bin" train --model llama-3.1-405b --chips 1000000 --search --global-batch 2000
# On a billion chips every shape leaves more data-parallel ranks than the batch has sequences.
bad train-search-fewer-chips "Try --global-batch 312500 (a multiple of 312500; now 2048 sequences), or fewer chips)" "$bin" train --model deepseek-v3 --hw h100-sxm --chips 1000000000 --search
# The band the published runs put around a prediction (model.md §24.3): the step and the days
# times the leave-one-source-out p10 and p90 of measured over predicted, dense and MoE apart, and
# none for the pure roofline.
# The search flags the layouts within the published band's width (p90 / p10) of the fastest's step:
# the model does not rank them apart (model.md §24.6); the frontier reaches past it.
json_ok train-search-within-band "all((r['within_band'] == 'yes') == (r['step_s'] <= d['ranked'][0]['step_s'] * 1.086 / 0.926) for r in d['ranked'] + d['frontier']) and any(r['within_band'] == 'no' for r in d['frontier']) and any('do not rank them apart' in n or 'does not rank them apart' in n for n in d['notes'])" "$bin" train --model llama-3.1-8b --hw h100-sxm --chips 64 --search --json
json_ok train-search-ideal-no-band "'within_band' not in d['ranked'][0]" "$bin" train --model llama-3.1-8b --hw h100-sxm --chips 64 --search --ideal --json
# A stack narrows the search: MaxText shards with FSDP and runs no pipeline (model.md §24.6).
json_ok train-search-stack-maxtext "d['layout']['pp'] == 1 and d['layout']['zero'] == 3 and d['micro_batches'] == 1 and all(' pp1 ' in r['layout'] for r in d['ranked'])" "$bin" train --model llama-3.1-70b --hw h100-sxm --chips 256 --global-batch 512 --seq-len 4096 --stack maxtext --json
json_ok train-published-band-dense "abs(d['step_s_published_p10'] - 0.926 * d['step_s']) < 1e-9 * d['step_s'] and abs(d['days_published_p90'] - 1.086 * d['days']) < 1e-9 * d['days']" "$bin" train --model llama-3.1-8b --chips 8 --tp 8 --json
json_ok train-published-band-moe "abs(d['step_s_published_p90'] - 1.349 * d['step_s']) < 1e-9 * d['step_s']" "$bin" train --model qwen3-30b-a3b --hw h200-sxm --chips 8 --tp 1 --ep 8 --json
json_ok train-published-band-ideal "'step_s_published_p10' not in d and 'days_published_p90' not in d" "$bin" train --model llama-3.1-8b --chips 8 --tp 8 --ideal --json
# The hint names the flag as it is typed.
bad train-dualpipe-hint "DualPipe needs at least twice pp micro-batches per data-parallel rank (4 of 8 for pp 4) (hint: change --global-batch (16 sequences is the nearest that splits)" "$bin" train --model llama-3.1-8b --chips 8 --pp 4 --schedule dualpipe --global-batch 8
# A stated layout the batch does not split: the hint gives the nearest batch that does (992 =
# 31 x 32 micro-batches; interleaving over pp 4 needs 32, so 1024).
bad train-batch-nearest "(hint: change --global-batch (992 sequences is the nearest that splits), or run --search" "$bin" train --model llama-3.1-70b --hw h100-sxm --chips 1024 --tp 8 --pp 4 --global-batch 1001
bad train-batch-nearest-interleaved "(hint: change --global-batch (1024 sequences is the nearest that splits)" "$bin" train --model llama-3.1-70b --hw h100-sxm --chips 1024 --tp 8 --pp 4 --schedule interleaved --chunks 5 --global-batch 1000
bad train-zero-tokens "--tokens: must be at least 1, got 0" "$bin" train --tokens 0
bad train-mtbf-zero "--mtbf-hours: must be greater than 0, got 0" "$bin" train --mtbf-hours 0
# Selective recomputation's modules (model.md §24.2): named in the layout, more HFU than none; bad
# names and modules without selective recomputation are flag errors.
dsv3=(train --model deepseek-v3 --hw b200 --chips 256 --tp 1 --pp 8 --ep 32 --seq-len 4096 --global-batch 256 --json)
json_ok train-recompute-modules "d['layout']['recompute_modules'] == 'mla_up_proj+mlp' and 'selective(mla_up_proj+mlp)' in d['layout']['text'] and d['hfu'] > d['mfu']" "$bin" "${dsv3[@]}" --recompute-modules mla_up_proj,mlp
bad train-recompute-modules-name "--recompute-modules: unknown module in 'mla_up_proj,attention'" "$bin" "${dsv3[@]}" --recompute-modules mla_up_proj,attention
bad train-recompute-modules-full "--recompute-modules: modules apply to selective recomputation only" "$bin" "${dsv3[@]}" --recompute full --recompute-modules moe_act
# tco (model.md §25): the owned hour against the rented one, and bad input naming its flag.
json_ok tco-h100 "0 < d['usd_per_gpu_hour_owned'] < d['usd_per_gpu_hour_rented'] and d['switches'] == 48 and 0 < d['breakeven_utilization'] < 1 and 0 < d['memory_share_of_capex'] < 0.2" "$bin" tco --hw h100-sxm --chips 1024 --json
json_ok tco-gb200-racks "d['chips'] == 1152 and d['network_tiers'] == 2 and len(d['capex']) == 7" "$bin" tco --hw gb200 --racks 16 --json
bad tco-life-zero "--life-years: must be greater than 0, got 0" "$bin" tco --life-years 0
bad tco-utilization-zero "--utilization: must be greater than 0, got 0" "$bin" tco --utilization 0
bad tco-utilization-over "--utilization: must be at most 1, got 1.5" "$bin" tco --utilization 1.5
bad tco-topology "--topology: unknown topology 'torus'" "$bin" tco --topology torus
# --cost owned[:PROFILE] (model.md §25.4): every dollar at tco's owned hour; energy beside it (§25.6).
json_ok roofline-owned "d['usd_per_mtok_output'] > 0 and 0 < d['joules_per_token'] < 5 and d['tokens_per_s_per_mw'] > 0" "$bin" roofline --model llama-3.1-70b --hw h100-sxm -b 64 --cost owned --json
json_ok report-owned "d['hardware']['price_source'].startswith('owned (hyperscaler')" "$bin" report --model llama-3.1-70b --hw h100-sxm --cost owned:hyperscaler --json
json_ok plan-rank-energy "d['rank'] == 'energy' and d['best']['joules_per_token'] <= min(p['joules_per_token'] for p in d['top'])" "$bin" plan --model llama-3.1-70b --hw h100-sxm --tpot-ms 50 --rank energy --json
json_ok plan-scaleup-fabric "[r['fabric_capex_per_chip_usd'] for r in d['scaleup']] == sorted(r['fabric_capex_per_chip_usd'] for r in d['scaleup']) and d['scaleup'][0]['fabric_capex_per_chip_usd'] == 0 and d['scaleup'][2]['usd_per_chip_hour'] > d['scaleup'][0]['usd_per_chip_hour']" "$bin" plan --model llama-3.1-8b --hw h100-sxm --scaleup 8,72,576 --batches 64 --json
bad cost-unknown "--cost: unknown cost basis 'leased'" "$bin" roofline --cost leased
bad cost-profile "--cost: no owner profile 'nope'" "$bin" plan --cost owned:nope
bad cost-and-rate "--cost: --usd-per-hour is a rental price" "$bin" train --cost owned --usd-per-hour 2
printf '[[system]]\nhardware = "h100-sxm"\naccelerator = "27500"\nhost = "$4000"\nscale_up = "$0"\nidle_power = "70 W"\nhost_power = "350 W"\nsource = "mine"\n' > "$tmp/tco-bad.toml"
bad tco-price-without-unit "system\[0\].accelerator: '27500' has no unit" "$bin" tco --tco-file "$tmp/tco-bad.toml"
bad plan-impossible-slo "--tpot-ms: must be greater than 0, got 0" "$bin" plan --tpot-ms 0
bad plan-negative-slo "--ttft-ms: must be greater than 0, got -5" "$bin" plan --ttft-ms -5
bad plan-unknown-chip "--hw: unknown hardware 'tpu-v9'" "$bin" plan --hw tpu-v9
# One SLO syntax with simulate's; the plan holds its targets at p99.
bad plan-slo-percentile "--slo: plan holds its targets at p99" "$bin" plan --slo ttft_p50=2s
bad plan-slo-twice "--slo: given with --ttft-ms or --tpot-ms" "$bin" plan --slo ttft_p99=2s --ttft-ms 3000
bad plan-slo-e2e "--slo: plan has no end-to-end target" "$bin" plan --slo e2e_p99=20s
json_ok plan-slo "d['slo'] == {'ttft_ms': 2000.0, 'tpot_ms': 50.0}" "$bin" plan --model llama-3.1-8b --hw h100-sxm --chips 1 --slo ttft_p99=2s,tpot_p99=50ms --json
# A format named by an alias is costed as its canonical one, and the answer says so.
json_ok fp16-warns "any(w.startswith('fp16 is costed as bf16') for w in d['warnings'])" "$bin" roofline --weight-dtype fp16 --json
bad plan-zero-chips "--chips: must be at least 1, got 0" "$bin" plan --chips 0
bad plan-chips-and-racks "give --chips or --racks" "$bin" plan --chips 8 --racks 2
csv="$data/../../data/validation/dev.csv"
json_ok validate-json "len(d['rows']) >= 79 and 'overall' in d['summary'] and all(set(['id','predicted','measured','error_pct','envelope']) <= set(r) for r in d['rows'])" \
  "$bin" validate "$csv" --json
# The output forms on the file's first 150 rows (every scenario); the whole file is validated once above
# (under the sanitizers each full pass costs minutes).
head -151 "$csv" > "$tmp/head.csv"
json_ok validate-ideal "d['efficiency'] == 'ideal' and len(d['rows']) == 150" "$bin" validate "$tmp/head.csv" --json --ideal
ok validate-text "$bin" validate "$tmp/head.csv"
ok calibrate-out "$bin" calibrate "$csv" --hw a100-sxm-80gb --folds 3 --out "$tmp/a100.toml"
ok calibrated-overlay "$bin" roofline --hw-file "$tmp/a100.toml" --hw a100-sxm-80gb --model llama-3.1-8b
# --cross-validate: two fitted sources on A100 and one offline row without a batch (predicted by
# the fit, never fitted), each row predicted by a fit that did not see it.
{ head -1 "$csv"; grep -E '^(GPTF-0[1-5]|LX-LMD-0[1-4]|TRT017-13),' "$csv"; } > "$tmp/cv.csv"
json_ok validate-cross-validate "(lambda c: c['chips'][0]['hardware'] == 'a100-sxm-80gb' and c['chips'][0]['fitted_rows'] == 9 and c['chips'][0]['predicted_rows'] == 10 and c['chips'][0]['sources'] == 2 and c['by_scenario']['decode_fixed_batch']['loso']['n'] == 8 and c['by_scenario']['offline_throughput']['loso']['n'] == 1 and c['by_scenario']['decode, prefill and offline']['kfold']['n'] == 10)(d['cross_validation'])" \
  "$bin" validate "$tmp/cv.csv" --cross-validate --folds 3 --json
bad validate-fit-alone "--fit: only with --cross-validate" "$bin" validate "$tmp/cv.csv" --fit step_overhead
bad validate-cv-bad-fit "--fit: unknown parameter 'launch'" "$bin" validate "$tmp/cv.csv" --cross-validate --fit launch
bad validate-cv-ideal "--cross-validate: the ideal roofline has nothing to fit" "$bin" validate "$tmp/cv.csv" --cross-validate --ideal
# A row's notes go through the declared arguments: a misspelled key is that row's error, with the
# nearest key; the other rows are still predicted; workload= rows run the named preset.
{
  echo "id,split,model,hardware,chips,tp,pp,ep,dp,cp,weight_dtype,kv_dtype,scenario,batch,isl,osl,metric,value,unit,source,notes"
  echo "T1,dev,llama-3.1-8b,h100-sxm,8,1,1,,8,1,bf16,,training_step,512,8192,,mfu,0.4,fraction,s,\"recompte=full\""
  echo "T2,dev,llama-3.1-8b,h100-sxm,8,1,1,,8,1,bf16,,training_step,512,8192,,mfu,0.4,fraction,s,\"recompute=full\""
  echo "W1,dev,llama-2-70b,h100-sxm,8,8,1,,1,1,fp8,fp8,offline_throughput,,1024,,output_tokens_per_s,9000,tokens/s,s,\"engine=trtllm; requests=200; workload=mlperf-llama2-70b:offline\""
} >"$tmp/notes.csv"
json_ok validate-notes-misspelled "(lambda r: r['T1'].get('predicted') is None and 'row T1: notes recompte: unknown key (hint: did you mean recompute?)' in r['T1']['skip_reason'] and r['T2']['predicted'] > 0 and r['W1']['predicted'] > 0 and 'workload mlperf-llama2-70b (offline)' in r['W1']['envelope'])({x['id']: x for x in d['rows']})" \
  "$bin" validate "$tmp/notes.csv" --json
bad validate-bad-value "bad_value.csv:2: column 18 (value): 'abc' is not a number" "$bin" validate "$data/bad_value.csv"
bad validate-missing "nope.csv: cannot open file" "$bin" validate "$data/nope.csv"
bad calibrate-no-rows "--hw: no throughput or latency rows measured on 'mi325x'" "$bin" calibrate "$csv" --hw mi325x
bad calibrate-no-batch "--hw: none of the 7 rows measured on 'b200' states its batch" "$bin" calibrate "$csv" --hw b200
bad calibrate-bad-fit "--fit: unknown parameter 'launch'" "$bin" calibrate "$csv" --hw h100-sxm --fit launch
bad unknown-sheet "--sheet: unknown price sheet 'nope'" "$bin" price --sheet nope
bad bad-policy "--policy: unknown policy" "$bin" lifecycle --policy quarters
bad negative-context "--context: must be at least 0" "$bin" batch --context -1
bad zero-hold "--hold-s: must be at least 0.001, got 0" "$bin" cache --hold-s 0
bad rl-range "--rl-multiplier: must be at most 6, got 9" "$bin" lifecycle --rl-multiplier 9
bad unknown-model "--model: unknown model 'gpt-5'" "$bin" roofline --model gpt-5
bad unknown-hw "--hw: unknown hardware 'h100'.*hint" "$bin" roofline --hw h100
bad zero-chips "--chips: must be at least 1" "$bin" roofline --chips 0
bad too-many-chips "--chips: 16 chips exceed" "$bin" roofline --hw h100-sxm --chips 16
bad negative-batch "--batch: must be at least 1" "$bin" roofline --batch -3
bad nonnumeric-batch "--batch: 'lots' is not a number" "$bin" roofline --batch lots
bad nonnumeric-chips "chips" "$bin" roofline --chips eight
bad batch-list-roofline "--batch: expected one number" "$bin" roofline --batch 1,2
bad bad-range "--batch: the range must grow" "$bin" sweep --batch 8:1:x2
bad truncated-json "truncated.json: malformed JSON" "$bin" roofline --model "$data/truncated.json"
bad missing-field "missing_field.json: num_hidden_layers: missing required field" "$bin" model show "$data/missing_field.json"
bad zero-layers "zero_layers.json: num_hidden_layers: must be positive" "$bin" model show "$data/zero_layers.json"
# A layer count past any real model is refused before a layer is built (the fuzzer's 4.1e7 took
# gigabytes before).
printf '{"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 41000000, "num_attention_heads": 8, "intermediate_size": 1536, "vocab_size": 1000}' > "$tmp/huge_layers.json"
bad huge-layers "huge_layers.json: num_hidden_layers: more than 10^4 layers" "$bin" model show "$tmp/huge_layers.json"
bad negative-hidden "negative_hidden.json: hidden_size: must be positive" "$bin" model show "$data/negative_hidden.json"
bad missing-file "nope.json: cannot open file" "$bin" model show "$data/nope.json"
bad unitless-hw "hw_unitless.toml:31: memory.hbm_bandwidth: '3.35' has no unit" "$bin" hardware --hw-file "$data/hw_unitless.toml"
bad unknown-key-hw "memory.hbm_speed: unknown key" "$bin" hardware --hw-file "$data/hw_unknown_key.toml"
bad malformed-hw "hw_malformed.toml:2: malformed TOML" "$bin" hardware --hw-file "$data/hw_malformed.toml"
bad bad-dtype "--kv-dtype: unknown dtype 'fp6'" "$bin" roofline --kv-dtype fp6
bad bad-phase "--phase: unknown phase" "$bin" roofline --phase train
bad unknown-flag "bogus" "$bin" roofline --bogus
bad json-and-csv "choose one output format" "$bin" models --json --csv
# Parse errors a person can act on: the command list, the nearest flag, the command that takes it.
bad unknown-command "unknown command 'foo'.*the commands are models, hardware, model, roofline" "$bin" foo
bad misspelt-command "did you mean roofline" "$bin" roofilne
bad misspelt-flag "--modle: unknown argument of roofline (hint: did you mean --model?" "$bin" roofline --modle x
# No near miss: the flags that share a word with it (not "scale takes no arguments").
bad unknown-flag-shared-word "--budget-usd: unknown argument of scale (hint: did you mean --budget-flops, --usd-per-hour?)" "$bin" scale --budget-usd 1e6
bad other-command-flag "--provider-tokens-per-s: unknown argument of batch.*is for step" "$bin" batch --provider-tokens-per-s 5
bad redirected-flag "--context: plan does not take it (hint: plan takes --isl" "$bin" plan --context 4096
bad empty-number "--batch: '' is not a number" "$bin" roofline --batch ''
bad hex-number "--batch: '0x40' is not a number" "$bin" roofline --batch 0x40
bad explain-not-a-value "explain" "$bin" roofline --explain=maybe
bad missing-positional "file is required" "$bin" validate
json_ok schema-json "len(d) == 23 and all(a['help'] for c in d for a in c['args'])" "$bin" commands --json
ok commands-list "$bin" commands
json_ok plan-explain "d['explain'][0].startswith('mapping') and len(d['explain']) >= 8" "$bin" plan --json --explain --model llama-3.1-8b --hw h100-sxm
json_ok sweep-explain "all(len(r['explain']) >= 5 for r in d['rows'])" "$bin" sweep --json --explain --batch 1,2
ok plan-explain-text "$bin" plan --explain --model llama-3.1-8b --hw h100-sxm
if "$bin" plan --explain --model llama-3.1-8b --hw h100-sxm | grep -q "TPOT ="; then passes=$((passes + 1)); else echo "FAIL: plan --explain text"; fails=$((fails + 1)); fi
if "$bin" report --explain | grep -q "balance batch (F6)"; then passes=$((passes + 1)); else echo "FAIL: report --explain text"; fails=$((fails + 1)); fi

# Analyst output reads like an answer: labels, not keys; money at a readable scale; conclusions.
"$bin" cache >"$tmp/cache.txt"
if ! grep -q "hold_usd_per_mtok_hour" "$tmp/cache.txt" && ! grep -qE '[0-9]e-[0-9]' "$tmp/cache.txt" && grep -q "drain-time rule (F33)" "$tmp/cache.txt"; then passes=$((passes + 1)); else echo "FAIL: cache labels and money"; fails=$((fails + 1)); fi
if "$bin" layout | grep -q "largest model that fits" && "$bin" layout | grep -q "T params" && ! "$bin" layout | grep -q "largest_model_params"; then passes=$((passes + 1)); else echo "FAIL: layout labels"; fails=$((fails + 1)); fi
"$bin" price --sheet claude-opus-4.6 >"$tmp/price.txt"
if grep -q "^note: output costs .*x input because decode" "$tmp/price.txt" && grep -q "cache write, 5-minute TTL" "$tmp/price.txt" && grep -q "cache write, 1-hour TTL" "$tmp/price.txt"; then passes=$((passes + 1)); else echo "FAIL: price labels and conclusion"; fails=$((fails + 1)); fi
if "$bin" cache | grep -q "a 60 min TTL lands on flash (gb200's host tiers)" && "$bin" cache --hw blackboard | grep -q "a 60 min TTL lands on disk"; then passes=$((passes + 1)); else echo "FAIL: one TTL rule"; fails=$((fails + 1)); fi
list_usd=$("$bin" roofline --json --model llama-3.1-8b --hw h100-sxm --chips 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["usd_per_mtok_output"])')
json_ok usd-per-hour "abs(d['usd_per_mtok_output'] * 2.95 - $list_usd) < 1e-9 * $list_usd" "$bin" roofline --json --model llama-3.1-8b --hw h100-sxm --chips 1 --usd-per-hour 1
printf 'name = "h100-sxm"\n[price]\nrental = "$1/h"\n' >"$tmp/own_rate.toml"
json_ok price-overlay "d['usd_per_mtok_output'] > 0" "$bin" roofline --json --model llama-3.1-8b --hw h100-sxm --chips 1 --hw-file "$tmp/own_rate.toml"

# A trace's text inline (--trace-text, the API's way) is the same run as the file it came from; both at once is refused.
trace_file=$(ls "$data"/traces/*.csv | head -1)
"$bin" simulate --json --model llama-3.1-8b --hw h100-sxm --trace "$trace_file" >"$tmp/trace_file.json"
"$bin" simulate --json --model llama-3.1-8b --hw h100-sxm --trace-text "$(cat "$trace_file")" >"$tmp/trace_text.json"
if python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [x.pop("workload",None) for x in (a,b)]; sys.exit(0 if a["ttft_s"]==b["ttft_s"] and a["arrived"]==b["arrived"] else 1)' "$tmp/trace_file.json" "$tmp/trace_text.json"; then passes=$((passes + 1)); else echo "FAIL: --trace-text equals --trace"; fails=$((fails + 1)); fi
if "$bin" simulate --model llama-3.1-8b --hw h100-sxm --trace "$trace_file" --trace-text "x" 2>&1 >/dev/null | grep -q "^llmecon: error: --trace-text: a trace comes from --trace or --trace-text, not both"; then passes=$((passes + 1)); else echo "FAIL: --trace with --trace-text"; fails=$((fails + 1)); fi

# --grid: every combination of the list-valued flags as JSON lines; three shards' lines, sorted by
# point, are the whole grid's lines byte for byte, and the CSV has one row per point.
grid=(roofline --model llama-3.1-8b,llama-3.1-70b --hw h100-sxm,b200 --batch 1:4096:x8 --context 2048,131072 --grid)
"$bin" "${grid[@]}" >"$tmp/grid.jsonl"
for k in 1 2 3; do "$bin" "${grid[@]}" --shard "$k/3" --grid-threads 1; done >"$tmp/shards.jsonl"
if [ "$(wc -l <"$tmp/grid.jsonl")" -eq 40 ] && python3 -c '
import json, sys
whole, shards = (open(f).read().splitlines() for f in sys.argv[1:])
key = lambda line: json.loads(line)["point"]
sys.exit(0 if sorted(shards, key=key) == whole and json.loads(whole[0])["model"] == "llama-3.1-8b" else 1)' "$tmp/grid.jsonl" "$tmp/shards.jsonl"; then
  passes=$((passes + 1)); else echo "FAIL: grid shards concatenate to the grid"; fails=$((fails + 1)); fi
csv_ok grid-csv "len(rows) == 40 and {r['feasible'] for r in rows} == {'true', 'false'} and rows[39]['point'] == '39'" "$bin" "${grid[@]}" --csv
json_ok grid-json "d['points'] == 40 and len(d['rows']) == 13 and d['shard'] == '2/3'" "$bin" "${grid[@]}" --json --shard 2/3
bad grid-no-axis "^llmecon: error: grid: no axis" "$bin" roofline --model llama-3.1-8b --hw h100-sxm --grid
bad grid-shard-alone "^llmecon: error: --shard: shards a grid" "$bin" roofline --model llama-3.1-8b --hw h100-sxm --shard 1/2
bad grid-bad-shard "^llmecon: error: --shard: '4/3' is not a shard" "$bin" "${grid[@]}" --shard 4/3
bad grid-plot "^llmecon: error: --plot: a grid has no chart" "$bin" sweep --model llama-3.1-8b --hw h100-sxm --context 1024,2048 --grid --plot "$tmp/x.svg"
bad grid-two-grids "^llmecon: error: --grid-rates: simulate's own grid and --grid" "$bin" simulate --model llama-3.1-8b --hw h100-sxm --grid-rates 1,2 --rate 1,2 --grid
bad grid-bad-range "^llmecon: error: --batch: " "$bin" roofline --model llama-3.1-8b --hw h100-sxm --batch 1:x:4 --grid

# Hardening: outputs that cannot be written, flags that contradict, errors that name the flag to
# change (exit 2, one line, nothing on stdout).
trace_csv=$(ls "$data"/traces/*.csv | head -1)
sim=(simulate --model llama-3.1-8b --hw h100-sxm --requests 50)
bad full-plot "^llmecon: error: /dev/full: the write failed" "$bin" sweep --model llama-3.1-8b --hw h100-sxm --plot /dev/full
bad full-trace "^llmecon: error: /dev/full: the write failed" "$bin" "${sim[@]}" --chrome-trace /dev/full
bad full-out "^llmecon: error: /dev/full: the write failed" "$bin" measure --quick --out /dev/full
bad plot-dir "^llmecon: error: $tmp: is a directory" "$bin" sweep --model llama-3.1-8b --hw h100-sxm --plot "$tmp"
if "$bin" report >/dev/full 2>"$tmp/err"; then echo "FAIL: stdout to a full disk exits 0"; fails=$((fails + 1));
elif grep -q "^llmecon: error: stdout: the answer could not be written" "$tmp/err"; then passes=$((passes + 1));
else echo "FAIL: stdout to a full disk: $(cat "$tmp/err")"; fails=$((fails + 1)); fi
echo keep >"$tmp/kept.svg"
"$bin" sweep --model gpt-5 --hw h100-sxm --plot "$tmp/kept.svg" >/dev/null 2>&1
if [ "$(cat "$tmp/kept.svg")" = keep ] && [ -z "$(ls "$tmp" | grep llmecon-tmp)" ]; then passes=$((passes + 1)); else echo "FAIL: a failed command left its plot file changed"; fails=$((fails + 1)); fi
bad tco-dev-zero "^llmecon: error: /dev/zero: not a regular file" "$bin" tco --hw h100-sxm --tco-file /dev/zero
bad tco-dir "^llmecon: error: $tmp: not a regular file" "$bin" tco --hw h100-sxm --tco-file "$tmp"
mkfifo "$tmp/fifo"
bad tco-fifo "^llmecon: error: $tmp/fifo: not a regular file" timeout 10 "$bin" tco --hw h100-sxm --tco-file "$tmp/fifo"
bad trace-fifo "^llmecon: error: $tmp/fifo: not a regular file" timeout 10 "$bin" "${sim[@]}" --trace "$tmp/fifo"
bad lengths-dev "^llmecon: error: /dev/urandom: not a regular file" "$bin" "${sim[@]}" --lengths /dev/urandom
bad workload-dir "^llmecon: error: $tmp: not a regular file" "$bin" "${sim[@]}" --workload "$tmp"
bad gamma-tiny "^llmecon: error: --arrival: gamma needs a coefficient of variation from 0.001 to 100" "$bin" "${sim[@]}" --rate 1 --arrival gamma:1e-300
bad gamma-huge "^llmecon: error: --arrival: gamma needs a coefficient of variation" "$bin" "${sim[@]}" --rate 1 --arrival gamma:1e300
bad find-rate-trace "^llmecon: error: --find-rate: searches an open-loop request rate" "$bin" simulate --model llama-3.1-8b --hw h100-sxm --trace "$trace_csv" --find-rate --slo ttft_p99=2s
bad find-rate-closed "^llmecon: error: --find-rate: searches an open-loop" "$bin" "${sim[@]}" --concurrency 4 --find-rate --slo ttft_p99=2s
bad find-rate-grid "^llmecon: error: --find-rate: a grid runs the rates" "$bin" "${sim[@]}" --grid-rates 1,2 --find-rate --slo ttft_p99=2s
bad shard-no-grid "^llmecon: error: --shard: shards a grid" "$bin" "${sim[@]}" --rate 1 --shard 1/2
bad think-open "^llmecon: error: --think-s: is a closed loop's pause" "$bin" "${sim[@]}" --rate 1 --think-s 2
bad prefix-long "^llmecon: error: --prefix-tokens: a shared prefix of 500 tokens is not shorter" "$bin" "${sim[@]}" --rate 1 --isl 100 --prefix-tokens 500 --prefix-hit 0.5
bad train-tp-huge "^llmecon: error: --tp: tp x pp x cp = 1000000 slices do not divide 1024 chips" "$bin" train --model llama-3.1-8b --hw h100-sxm --tp 1000000
bad train-mtbf "^llmecon: error: --mtbf-hours: no layout of 1024 chips" "$bin" train --model llama-3.1-8b --hw h100-sxm --mtbf-hours 1e-9
bad sim-tp-huge "^llmecon: error: --tp: no layout of llama-3.1-8b" "$bin" "${sim[@]}" --rate 1 --tp 1000000
bad flag-twice "^llmecon: error: --batch: given more than once" "$bin" roofline --model llama-3.1-8b --hw h100-sxm --batch 1 --batch 2
bad allow-files-lan "^llmecon: error: --allow-files: lets every client read" "$bin" serve --host 0.0.0.0 --allow-files
printf '{"architectures":["LlamaForCausalLM"],"hidden_size":4096,"num_hidden_layers":20000,"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256}' >"$tmp/deep.json"
bad layers-2e4 "num_hidden_layers: more than 10^4 layers" "$bin" model show "$tmp/deep.json"
printf '{"architectures":["LlamaForCausalLM"],"hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":20000000}' >"$tmp/vocab.json"
bad vocab-2e7 "vocab_size: more than 10^7 tokens" "$bin" model show "$tmp/vocab.json"
# train below 1024 tokens of sequence searches (no context parallelism) instead of finding nothing.
ok train-short-seq "$bin" train --model llama-3.1-8b --hw h100-sxm --seq-len 512

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
