#!/usr/bin/env bash
# Runs every libFuzzer target (the `fuzz` preset, clang) from its seed corpus in fuzz/corpus/.
#   scripts/fuzz.sh             a fixed, seeded budget per target (what CI runs: deterministic)
#   scripts/fuzz.sh SECONDS     each target for SECONDS of wall time (the long runs)
#   FUZZ_TARGETS="hf_config price_toml" scripts/fuzz.sh ...   only those targets
#   FUZZ_JOBS=N ...             targets run at once (one per core by default)
#   FUZZ_TIMEOUT=300 ...        seconds one input may take (10); raise it when sharing the cores,
#                               since libFuzzer times wall-clock and a starved process looks hung
# Any crash, sanitizer report, leak or timeout fails. Corpus growth goes to a temporary folder,
# never into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/fuzz/fuzz
[ -x "$bin/fuzz_hf_config" ] || { echo "fuzz: build the fuzz preset first (cmake --preset fuzz && cmake --build --preset fuzz)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
# One target: its verdict goes to $work/$t.verdict (the targets run $jobs at a time, one per core).
run_one() {
  local t=$1 budget
  cp -r "fuzz/corpus/$t" "$work/$t"
  if [ -n "${seconds:-}" ]; then budget=(-max_total_time="$seconds"); else budget=(-seed=1 -runs=300000); fi
  if "$bin/fuzz_$t" "${budget[@]}" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
       -artifact_prefix="$work/$t-" "$work/$t" > "$work/$t.log" 2>&1; then
    execs=$(grep -m1 'stat::number_of_executed_units' "$work/$t.log" | awk '{print $2}')
    rate=$(grep -m1 'stat::average_exec_per_sec' "$work/$t.log" | awk '{print $2}')
    echo "fuzz: $t clean: $execs inputs, $rate per second" > "$work/$t.verdict"
  else
    { echo "fuzz: $t FOUND A PROBLEM:"
      grep -E "ERROR|runtime error|SUMMARY|Test unit written|terminate called|what\(\)|Assertion|#1[0-9] " "$work/$t.log" | head -20; } > "$work/$t.verdict"
  fi
}
seconds=${1:-}
targets=(${FUZZ_TARGETS:-hf_config hardware_toml price_toml validation_csv facade_args http_request workload_trace profile_toml})
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
  if grep -q "FOUND A PROBLEM" "$work/$t.verdict"; then
    cat "$work/$t.verdict" >&2
    mkdir -p build/fuzz-findings && cp "$work/$t.log" "$work/$t"-crash-* "$work/$t"-leak-* "$work/$t"-timeout-* \
      "$work/$t"-oom-* build/fuzz-findings/ 2>/dev/null || true
    echo "fuzz: the log and the input are in build/fuzz-findings/" >&2
    status=1
  else
    cat "$work/$t.verdict"
  fi
done
exit $status
