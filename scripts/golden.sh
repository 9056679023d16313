#!/usr/bin/env bash
# Writes every golden question's answer (JSON, text and CSV) to OUTDIR, one file each, so two
# builds can be compared byte for byte after a refactor:
#
#   scripts/golden.sh build/release/apps/cli/llmecon /tmp/before
#   ... change, rebuild ...
#   scripts/golden.sh build/release/apps/cli/llmecon /tmp/after && diff -r /tmp/before /tmp/after
#
# The questions are the parity test's (tests/python/test_parity.py) plus simulate, train, scale,
# tco and validate with their own flags; measure times the machine and is left out.
set -uo pipefail
bin=${1:?usage: golden.sh LLMECON OUTDIR}
out=${2:?usage: golden.sh LLMECON OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
csv=$root/data/validation/dev.csv
trace=$root/tests/data/traces/mooncake.jsonl
mkdir -p "$out"
n=0
ask() {
  n=$((n + 1))
  local tag
  tag=$(printf '%03d' "$n")
  { echo "# $*"; "$bin" "$@" --json; echo "exit $?"; } >"$out/$tag.json" 2>&1
  { echo "# $*"; "$bin" "$@"; echo "exit $?"; } >"$out/$tag.txt" 2>&1
  { echo "# $*"; "$bin" "$@" --csv; echo "exit $?"; } >"$out/$tag.csv" 2>&1
}
ask models
ask hardware
ask model show llama-3.1-70b
ask model show deepseek-v3 --kv-dtype fp8
ask roofline
ask roofline --model llama-3.1-70b --hw h100-sxm --batch 64 --context 8192 --explain
ask roofline --model gpt-oss-120b --hw b200 --weight-dtype fp8 --phase prefill --chunk 1024
ask roofline --model llama-3.1-70b --hw h100-sxm --batch 64 --cost owned:hyperscaler --range
ask roofline --model llama-3.1-70b --hw h100-sxm --batch 100000 --context 131072
ask sweep
ask sweep --model llama-3.1-8b --hw h100-sxm --chips 1 --batch 1:256:x4 --context 1024,8192
ask report
ask report --model llama-3.1-70b --hw h100-sxm --context 8192 --explain
ask batch
ask batch --context 100000 --price-multiple 6
ask step
ask step --batch 512 --provider-tokens-per-s 1e8
ask context
ask context --knee 200000 --topk 1024
ask price
ask price --sheet gemini-3.1-pro --n-active 100e9 --hw blackboard
ask layout
ask layout --stages 8 --hop-ms 1.5
ask cache
ask cache --hold-s 1:86400:x10
ask lifecycle
ask lifecycle --model llama-3.1-70b --policy half
ask revnet
ask revnet --batch 4 --seq-len 8192
ask lecture
ask plan --model llama-3.1-8b --hw h100-sxm
ask plan --model llama-3.1-8b --hw h100-sxm --tpot-ms 30 --batches 1:256:x4 --weight-dtypes bf16,fp8 --range --explain
ask plan --model llama-3.1-8b --hw h100-sxm --batches 16,64 --cost owned --rank energy --scaleup 8,72
ask plan --model llama-3.1-8b --hw h100-sxm --rate 20 --sim-requests 500
ask plan --model llama-3.1-8b --hw h100-sxm --rate 20 --sim-requests 500 --ttft-ms 500 --tpot-ms 30
ask plan --model llama-3.1-8b --hw h100-sxm --emit vllm
ask simulate
ask simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --rate 20 --requests 500 --isl lognormal:1000,0.5 --slo ttft_p99=1s,tpot_p99=20ms --seed 3
ask simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --trace "$trace" --router prefix-affinity --replicas 2
ask simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --requests 300 --find-rate --slo ttft_p99=1s,tpot_p99=30ms
ask simulate --model llama-3.1-70b --hw h100-sxm --engine vllm --offline --requests 400 --workload mlperf-llama2-70b --isl 1024
ask simulate --model llama-3.1-70b --hw h100-sxm --scheduler disaggregated --prefill-hw h100-sxm --rate 4 --requests 400
ask simulate --model llama-3.1-8b --hw h100-sxm --chips 1 --concurrency 16 --think-s 1 --requests 300 --engine sglang
ask train --model llama-3.1-8b --chips 64 --tp 2 --pp 2 --zero 1 --explain
ask train --model mixtral-8x7b --chips 64 --tokens 1e12 --top 3
ask train --model llama-3.1-70b --chips 1024 --search --top 5
ask train --model deepseek-v3 --chips 2048 --tp 1 --pp 16 --ep 64 --schedule dualpipe --train-dtype fp8 --range
ask train --model llama-3.1-70b --chips 512 --tp 8 --pp 4 --recompute full --mtbf-hours 1000
ask scale --model llama-3.1-8b --chips 64 --inference-tokens 1e14 --fit epoch
ask scale
ask tco
ask tco --hw gb200 --racks 16 --utilization 0.6 --range --explain
ask tco --hw h100-sxm --chips 64 --topology none
ask validate "$csv"
ask calibrate "$csv" --hw a100-sxm-80gb --folds 3
echo "golden: $n questions in $out"
