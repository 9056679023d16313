#!/usr/bin/env bash
# Load test of `llmecon serve` with wrk (Debian's package): 200 concurrent connections on
# loopback, on the same machine as the server. Prints one markdown row per scenario.
#
#   bench/server-load.sh [LLMECON_BINARY] [SECONDS]
#
# Scenarios: a static asset (the machine's floor), one roofline question repeated (answered from
# the server's cache after the first), a different roofline question every time (no cache hits),
# and both roofline mixes with each connection pausing 20 ms between requests (200 clients using
# the page, rather than 200 connections saturating two cores).
set -euo pipefail
bin=${1:-build/release/apps/cli/llmecon}
secs=${2:-8}
threads=${THREADS:-2}
command -v wrk >/dev/null || { echo "server-load: wrk not found (apt install wrk)" >&2; exit 2; }
port=$((20000 + RANDOM % 20000))
tmp=$(mktemp -d)
"$bin" serve --port "$port" --threads "$threads" 2>"$tmp/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do grep -q "serving on" "$tmp/serve.log" && break; sleep 0.1; done

cat >"$tmp/varied.lua" <<'EOF'
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/api/roofline?model=llama-3.1-70b&hw=h100-sxm&batch=" .. math.random(1, 16384) ..
                    "&context=" .. math.random(1, 131072))
end
EOF
cp "$tmp/varied.lua" "$tmp/varied_think.lua"
echo 'function delay() return 20 end' >>"$tmp/varied_think.lua"
echo 'function delay() return 20 end' >"$tmp/think.lua"

base="http://127.0.0.1:$port"
same="$base/api/roofline?model=llama-3.1-70b&hw=h100-sxm&batch=64&context=8192"
declare -A P99
ms() {  # wrk latency (e.g. 1.23ms, 850.00us, 1.02s) in milliseconds
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.4f", n }'
}
run() {  # run LABEL URL [SCRIPT]
  local label=$1 url=$2 script=${3:-}
  local out
  out=$(wrk -t2 -c200 -d"${secs}s" --latency ${script:+-s "$script"} "$url")
  local rps p50 p90 p99 errors
  rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p90=$(awk '$1 == "90%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  errors=$(awk '/Socket errors|Non-2xx/ {print}' <<<"$out" | tr '\n' ' ')
  printf '| %s | %s | %s | %s | %s | %s |\n' "$label" "$rps" "$p50" "$p90" "$p99" "${errors:-none}"
  P99[$label]=$(ms "$p99")
}

echo "llmecon serve --threads $threads; wrk -t2 -c200 -d${secs}s on the same $(nproc)-core machine"
echo
echo "| scenario | req/s | p50 | p90 | p99 | errors |"
echo "|---|---|---|---|---|---|"
run "static asset (style.css)" "$base/style.css"
run "roofline, one question repeated" "$same"
run "roofline, a new question each time" "$base" "$tmp/varied.lua"
run "roofline repeated, 20 ms pause per connection" "$same" "$tmp/think.lua"
run "roofline new each time, 20 ms pause per connection" "$base" "$tmp/varied_think.lua"

# The targets, as ratios to the static-file floor measured in the same run (the load generator
# shares the cores, so absolute latencies say more about the machine than the server).
floor=${P99["static asset (style.css)"]}
cached=${P99["roofline, one question repeated"]}
fresh=${P99["roofline, a new question each time"]}
echo
awk -v f="$floor" -v c="$cached" -v n="$fresh" 'BEGIN {
  printf "p99 ratios to the static floor (%.3f ms): cached %.2fx (target <= 1.3x), fresh roofline %.2fx (target <= 3x)\n", f, c / f, n / f }'
