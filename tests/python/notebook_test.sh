#!/usr/bin/env bash
# Every notebook under docs/examples runs top to bottom against this build's module (Debian's
# jupyter-nbconvert): a cell that raises, or an assert that fails, fails the test. Skips (77)
# without nbconvert, except under CI=true. Usage: notebook_test.sh REPO PYTHONPATH
set -euo pipefail
repo=$1 pythonpath=$2
if ! command -v jupyter-nbconvert >/dev/null 2>&1; then
  [ "${CI:-}" = "true" ] && { echo "jupyter-nbconvert is missing"; exit 1; }
  echo "skipped: no jupyter-nbconvert"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for nb in "$repo"/docs/examples/*.ipynb; do
  (cd "$tmp" && PYTHONPATH="$pythonpath" PYDEVD_DISABLE_FILE_VALIDATION=1 \
    jupyter-nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
    --output "$tmp/out-$n.ipynb" "$nb" >"$tmp/log" 2>&1) || { cat "$tmp/log"; echo "FAIL: $nb"; exit 1; }
  n=$((n + 1))
done
[ "$n" -gt 0 ]
echo "notebooks: $n executed"
