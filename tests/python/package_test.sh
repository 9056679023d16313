#!/usr/bin/env bash
# The package a user installs: `pip install --no-build-isolation ./python` (offline, with Debian's
# setuptools and pip) reusing this build's module target, then `python -m llmecon` from the
# installed copy alone prints the same JSON as the CLI. Usage: package_test.sh REPO BUILD_DIR LLMECON
set -euo pipefail
repo=$1 build=$2 bin=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$repo/python/build" "$repo/python/llmecon.egg-info"' EXIT
LLMECON_BUILD_DIR="$build" /usr/bin/python3 -m pip install -q --no-build-isolation --no-deps --no-index \
  --target "$tmp/site" "$repo/python" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; exit 1; }
test -f "$tmp/site/llmecon/__init__.py"
ls "$tmp/site/llmecon/"_llmecon*.so >/dev/null
cd "$tmp"
args=(roofline --model llama-3.1-8b --hw h100-sxm --batch 64 --json)
PYTHONPATH="$tmp/site" /usr/bin/python3 -m llmecon "${args[@]}" >"$tmp/py.json"
"$bin" "${args[@]}" >"$tmp/cli.json"
/usr/bin/python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a != b)' "$tmp/py.json" "$tmp/cli.json"
PYTHONPATH="$tmp/site" /usr/bin/python3 -c '
import llmecon
df = llmecon.grid("roofline", model="llama-3.1-8b", hw="h100-sxm", batch=[1, 64])
assert list(df.batch) == [1, 64] and df.feasible.all(), df
assert llmecon.__file__.startswith("'"$tmp"'/site/"), llmecon.__file__'
echo "package: installed with pip, python -m llmecon equals the CLI"
