#!/usr/bin/env bash
# Memory of `llmecon serve` over many requests: wrk sends a different roofline question every
# time for SECONDS (default 600, about 10^6 requests on a 2-core VM), so the answer cache fills
# and evicts the whole time; the server's resident memory is sampled every second. The cache is
# bounded in bytes (--cache-bytes), so RSS must level off instead of growing with the requests.
#
#   bench/server-memory.sh [LLMECON_BINARY] [SECONDS] [CACHE_BYTES]
set -euo pipefail
bin=${1:-build/release/apps/cli/llmecon}
secs=${2:-600}
cache=${3:-67108864}
command -v wrk >/dev/null || { echo "server-memory: wrk not found (apt install wrk)" >&2; exit 2; }
port=$((20000 + RANDOM % 20000))
tmp=$(mktemp -d)
"$bin" serve --port "$port" --threads 2 --cache-bytes "$cache" 2>"$tmp/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do grep -q "serving on" "$tmp/serve.log" && break; sleep 0.1; done
cat >"$tmp/varied.lua" <<LUA
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/api/roofline?model=llama-3.1-8b&hw=h100-sxm&batch=" .. math.random(1, 16384) ..
                    "&context=" .. math.random(1, 131072))
end
LUA
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
echo "seconds,rss_kib"
start=$(date +%s)
echo "0,$(rss)"
wrk -t2 -c64 -d"${secs}s" -s "$tmp/varied.lua" "http://127.0.0.1:$port" >"$tmp/wrk.log" 2>&1 &
wpid=$!
while kill -0 $wpid 2>/dev/null; do
  sleep 1
  echo "$(( $(date +%s) - start )),$(rss)"
done
echo
grep -E "requests in|Requests/sec|Non-2xx|Socket errors" "$tmp/wrk.log" | sed 's/^/# /'
